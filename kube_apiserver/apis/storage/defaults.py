"""storage.k8s.io/v1 defaults (pkg/apis/storage/v1/defaults.go and the generated SetObjectDefaults_*).
CSINode and CSIStorageCapacity have none."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.core.defaults.fields import child, default
from kube_apiserver.apis.core.defaults.volumes import set_defaults_persistent_volume_spec


def set_object_defaults_storage_class(obj: dict[str, Any]) -> None:
    default(obj, "reclaimPolicy", "Delete")
    default(obj, "volumeBindingMode", "Immediate")


def set_object_defaults_csi_driver(obj: dict[str, Any]) -> None:
    spec = child(obj, "spec", create=True)
    if spec is None:
        return
    default(spec, "attachRequired", True)
    default(spec, "podInfoOnMount", False)
    default(spec, "storageCapacity", False)
    default(spec, "fsGroupPolicy", "ReadWriteOnceWithFSType")
    if not spec.get("volumeLifecycleModes"):
        spec["volumeLifecycleModes"] = ["Persistent"]
    default(spec, "requiresRepublish", False)
    # SELinuxMountReadWriteOncePod is beta and on since 1.28.
    default(spec, "seLinuxMount", False)


def set_object_defaults_volume_attachment(obj: dict[str, Any]) -> None:
    """Only the in-tree volume source defaults of an inline PersistentVolumeSpec (migrated volumes):
    the reclaim policy and volume mode are a PersistentVolume's, not its spec's."""
    inline = child(child(child(obj, "spec"), "source"), "inlineVolumeSpec")
    if inline is not None:
        set_defaults_persistent_volume_spec(inline)


DEFAULTERS = {
    ("v1", "StorageClass"): set_object_defaults_storage_class,
    ("v1", "CSIDriver"): set_object_defaults_csi_driver,
    ("v1", "VolumeAttachment"): set_object_defaults_volume_attachment,
}

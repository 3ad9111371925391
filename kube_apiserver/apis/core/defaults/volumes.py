"""Volume source defaults (SetDefaults_Volume, the *VolumeSource defaulters and the declarative
+default markers of the in-tree sources), shared by pod specs, persistent volumes and the inline
volume spec of a VolumeAttachment."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kube_apiserver.apis.core.defaults.containers import set_defaults_object_field_selector
from kube_apiserver.apis.core.defaults.fields import child, default, default_zero, items
from kube_apiserver.apis.core.defaults.resources import set_defaults_resource_list, set_defaults_resource_requirements

# 0644, the mode of the files of secret, configMap, downwardAPI and projected volumes.
DEFAULT_MODE = 0o644
SERVICE_ACCOUNT_TOKEN_EXPIRATION_SECONDS = 3600

# Every member of VolumeSource: a volume with none of them is an emptyDir.
VOLUME_SOURCES = (
    "hostPath",
    "emptyDir",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "gitRepo",
    "secret",
    "nfs",
    "iscsi",
    "glusterfs",
    "persistentVolumeClaim",
    "rbd",
    "flexVolume",
    "cinder",
    "cephfs",
    "flocker",
    "downwardAPI",
    "fc",
    "azureFile",
    "configMap",
    "vsphereVolume",
    "quobyte",
    "azureDisk",
    "photonPersistentDisk",
    "projected",
    "portworxVolume",
    "scaleIO",
    "storageos",
    "csi",
    "ephemeral",
    "image",
)


_VOLUME_SOURCE_NAMES = frozenset(VOLUME_SOURCES)


def set_defaults_volume(volume: dict[str, Any]) -> None:
    for key, value in volume.items():
        if value is not None and key in _VOLUME_SOURCE_NAMES:
            break
    else:
        volume["emptyDir"] = {}
    # A volume has one source in practice: default the sources it has rather than probe for all.
    for key, source in volume.items():
        defaulter = _VOLUME_SOURCE_DEFAULTERS.get(key)
        if defaulter is not None and isinstance(source, dict):
            defaulter(source)


def set_defaults_secret_volume_source(source: dict[str, Any]) -> None:
    default(source, "defaultMode", DEFAULT_MODE)


def set_defaults_config_map_volume_source(source: dict[str, Any]) -> None:
    default(source, "defaultMode", DEFAULT_MODE)


def set_defaults_downward_api_volume_source(downward: dict[str, Any]) -> None:
    default(downward, "defaultMode", DEFAULT_MODE)
    _default_downward_api_items(downward)


def set_defaults_projected_volume_source(projected: dict[str, Any]) -> None:
    default(projected, "defaultMode", DEFAULT_MODE)
    for source in items(projected, "sources"):
        downward = child(source, "downwardAPI")
        if downward is not None:
            _default_downward_api_items(downward)
        token = child(source, "serviceAccountToken")
        if token is not None:
            default(token, "expirationSeconds", SERVICE_ACCOUNT_TOKEN_EXPIRATION_SECONDS)


def _default_downward_api_items(downward: dict[str, Any]) -> None:
    for item in items(downward, "items"):
        field_ref = child(item, "fieldRef")
        if field_ref is not None:
            set_defaults_object_field_selector(field_ref)


def _set_defaults_ephemeral_volume_source(ephemeral: dict[str, Any]) -> None:
    claim_template = child(ephemeral, "volumeClaimTemplate")
    if claim_template is not None:
        claim_spec = child(claim_template, "spec", create=True)
        if claim_spec is not None:
            set_defaults_persistent_volume_claim_spec(claim_spec)


def set_defaults_host_path_volume_source(host_path: dict[str, Any]) -> None:
    default(host_path, "type", "")  # HostPathUnset


def set_defaults_iscsi_volume_source(iscsi: dict[str, Any]) -> None:
    default_zero(iscsi, "iscsiInterface", "default")


def set_defaults_rbd_volume_source(rbd: dict[str, Any]) -> None:
    default_zero(rbd, "pool", "rbd")
    default_zero(rbd, "user", "admin")
    default_zero(rbd, "keyring", "/etc/ceph/keyring")


def set_defaults_azure_disk_volume_source(azure_disk: dict[str, Any]) -> None:
    default(azure_disk, "cachingMode", "ReadWrite")
    default(azure_disk, "fsType", "ext4")
    default(azure_disk, "readOnly", False)
    default(azure_disk, "kind", "Shared")


def set_defaults_scale_io_volume_source(scale_io: dict[str, Any]) -> None:
    default_zero(scale_io, "storageMode", "ThinProvisioned")
    default_zero(scale_io, "fsType", "xfs")


# The sources a Volume and a PersistentVolumeSource share, defaulted the same way.
_SHARED_SOURCE_DEFAULTERS: dict[str, Callable[[dict[str, Any]], None]] = {
    "hostPath": set_defaults_host_path_volume_source,
    "iscsi": set_defaults_iscsi_volume_source,
    "rbd": set_defaults_rbd_volume_source,
    "azureDisk": set_defaults_azure_disk_volume_source,
    "scaleIO": set_defaults_scale_io_volume_source,
}
_VOLUME_SOURCE_DEFAULTERS: dict[str, Callable[[dict[str, Any]], None]] = {
    **_SHARED_SOURCE_DEFAULTERS,
    "secret": set_defaults_secret_volume_source,
    "configMap": set_defaults_config_map_volume_source,
    "downwardAPI": set_defaults_downward_api_volume_source,
    "projected": set_defaults_projected_volume_source,
    "ephemeral": _set_defaults_ephemeral_volume_source,
}


def set_defaults_volume_sources(source: dict[str, Any]) -> None:
    """The sources a Volume and a PersistentVolumeSource share, defaulted the same way."""
    for key, value in source.items():
        defaulter = _SHARED_SOURCE_DEFAULTERS.get(key)
        if defaulter is not None and isinstance(value, dict):
            defaulter(value)


def set_defaults_persistent_volume_claim_spec(spec: dict[str, Any]) -> None:
    default(spec, "volumeMode", "Filesystem")
    resources = child(spec, "resources")
    if resources is not None:
        set_defaults_resource_requirements(resources)


def set_defaults_persistent_volume_spec(spec: dict[str, Any]) -> None:
    """The generated defaults below a PersistentVolumeSpec (capacity, the in-tree sources); the
    reclaim policy and volume mode are the PersistentVolume object's (SetDefaults_PersistentVolume)."""
    set_defaults_resource_list(child(spec, "capacity"))
    set_defaults_volume_sources(spec)

"""Volume source defaults (SetDefaults_Volume, the *VolumeSource defaulters and the declarative
+default markers of the in-tree sources), shared by pod specs, persistent volumes and the inline
volume spec of a VolumeAttachment."""

from __future__ import annotations

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


def set_defaults_volume(volume: dict[str, Any]) -> None:
    if all(volume.get(source) is None for source in VOLUME_SOURCES):
        volume["emptyDir"] = {}
    for key in ("secret", "configMap"):
        source = child(volume, key)
        if source is not None:
            default(source, "defaultMode", DEFAULT_MODE)
    downward = child(volume, "downwardAPI")
    if downward is not None:
        default(downward, "defaultMode", DEFAULT_MODE)
        _default_downward_api_items(downward)
    projected = child(volume, "projected")
    if projected is not None:
        set_defaults_projected_volume_source(projected)
    ephemeral_claim = child(child(volume, "ephemeral"), "volumeClaimTemplate")
    if ephemeral_claim is not None:
        claim_spec = child(ephemeral_claim, "spec", create=True)
        if claim_spec is not None:
            set_defaults_persistent_volume_claim_spec(claim_spec)
    set_defaults_volume_sources(volume)


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


def set_defaults_volume_sources(source: dict[str, Any]) -> None:
    """The sources a Volume and a PersistentVolumeSource share, defaulted the same way."""
    host_path = child(source, "hostPath")
    if host_path is not None:
        default(host_path, "type", "")  # HostPathUnset
    iscsi = child(source, "iscsi")
    if iscsi is not None:
        default_zero(iscsi, "iscsiInterface", "default")
    rbd = child(source, "rbd")
    if rbd is not None:
        default_zero(rbd, "pool", "rbd")
        default_zero(rbd, "user", "admin")
        default_zero(rbd, "keyring", "/etc/ceph/keyring")
    azure_disk = child(source, "azureDisk")
    if azure_disk is not None:
        default(azure_disk, "cachingMode", "ReadWrite")
        default(azure_disk, "fsType", "ext4")
        default(azure_disk, "readOnly", False)
        default(azure_disk, "kind", "Shared")
    scale_io = child(source, "scaleIO")
    if scale_io is not None:
        default_zero(scale_io, "storageMode", "ThinProvisioned")
        default_zero(scale_io, "fsType", "xfs")


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

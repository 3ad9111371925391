"""Printers for storage.k8s.io/v1 (printers.go printStorageClass, printCSIDriver, ...)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.printing import (
    AGE_COLUMN,
    NAME_COLUMN,
    age,
    col,
    d,
    dicts,
    get,
    lst,
    meta,
    name,
    text,
)
from kube_apiserver.registry.resource_spec import TablePrinter

_DEFAULT_CLASS_ANNOTATIONS = (
    "storageclass.kubernetes.io/is-default-class",
    "storageclass.beta.kubernetes.io/is-default-class",
)


def _bool(value: Any, default: bool) -> bool:
    return value if isinstance(value, bool) else default


def storage_class_row(obj: dict[str, Any], now: float) -> list[Any]:
    annotations = d(meta(obj).get("annotations"))
    shown = name(obj)
    if any(annotations.get(key) == "true" for key in _DEFAULT_CLASS_ANNOTATIONS):
        shown += " (default)"
    return [
        shown,
        text(obj.get("provisioner")),
        text(obj.get("reclaimPolicy")) or "Delete",
        text(obj.get("volumeBindingMode")) or "Immediate",
        _bool(obj.get("allowVolumeExpansion"), False),
        age(obj, now),
    ]


STORAGE_CLASS_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col("Provisioner", description="provisioner indicates the type of the provisioner."),
        col(
            "ReclaimPolicy",
            description="reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of "
            "this storage class. Defaults to Delete.",
        ),
        col(
            "VolumeBindingMode",
            description="volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound. "
            "When unset, VolumeBindingImmediate is used.",
        ),
        col(
            "AllowVolumeExpansion",
            description="allowVolumeExpansion shows whether the storage class allow volume expand.",
        ),
        AGE_COLUMN,
    ),
    row=storage_class_row,
)


def volume_attachment_row(obj: dict[str, Any], now: float) -> list[Any]:
    spec = d(obj.get("spec"))
    return [
        name(obj),
        text(spec.get("attacher")),
        text(get(spec, "source", "persistentVolumeName")),
        text(spec.get("nodeName")),
        _bool(get(obj, "status", "attached"), False),
        age(obj, now),
    ]


VOLUME_ATTACHMENT_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col(
            "Attacher",
            format="name",
            description="attacher indicates the name of the volume driver that MUST handle this request.",
        ),
        col("PV", description="persistentVolumeName represents the name of the persistent volume to attach."),
        col("Node", description="nodeName represents the node that the volume should be attached to."),
        col("Attached", "boolean", "attached indicates the volume is successfully attached."),
        AGE_COLUMN,
    ),
    row=volume_attachment_row,
)


def csi_node_row(obj: dict[str, Any], now: float) -> list[Any]:
    return [name(obj), len(lst(get(obj, "spec", "drivers"))), age(obj, now)]


CSI_NODE_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col("Drivers", "integer", "Drivers indicates the number of CSI drivers registered on the node"),
        AGE_COLUMN,
    ),
    row=csi_node_row,
)


def csi_driver_row(obj: dict[str, Any], now: float) -> list[Any]:
    spec = d(obj.get("spec"))
    token_requests = "<unset>"
    if spec.get("tokenRequests") is not None:
        token_requests = ",".join(text(t.get("audience")) for t in dicts(spec.get("tokenRequests")))
    # SetDefaults_CSIDriver: volumeLifecycleModes defaults to [Persistent]
    modes = [text(m) for m in lst(spec.get("volumeLifecycleModes"))] or ["Persistent"]
    return [
        name(obj),
        _bool(spec.get("attachRequired"), True),
        _bool(spec.get("podInfoOnMount"), False),
        _bool(spec.get("storageCapacity"), False),
        token_requests,
        _bool(spec.get("requiresRepublish"), False),
        ",".join(modes) or "<none>",
        age(obj, now),
    ]


CSI_DRIVER_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col(
            "AttachRequired", "boolean", "attachRequired indicates this CSI volume driver requires an attach operation."
        ),
        col(
            "PodInfoOnMount",
            "boolean",
            "podInfoOnMount indicates this CSI volume driver requires additional pod information (like podName, podUID, etc.) during mount operations.",
        ),
        col(
            "StorageCapacity",
            "boolean",
            "storageCapacity indicates that the CSI volume driver wants pod scheduling to consider the storage capacity that the driver deployment will report.",
        ),
        col(
            "TokenRequests",
            description="tokenRequests indicates the CSI driver needs pods' service account tokens it is mounting volume for to do necessary authentication.",
        ),
        col(
            "RequiresRepublish",
            "boolean",
            "requiresRepublish indicates the CSI driver wants `NodePublishVolume` being periodically called to reflect any possible change in the mounted volume.",
        ),
        col("Modes", description="volumeLifecycleModes defines what kind of volumes this CSI volume driver supports."),
        AGE_COLUMN,
    ),
    row=csi_driver_row,
)


def csi_storage_capacity_row(obj: dict[str, Any], now: float) -> list[Any]:
    capacity = obj.get("capacity")
    return [name(obj), text(obj.get("storageClassName")), "<unset>" if capacity is None else text(capacity)]


CSI_STORAGE_CAPACITY_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col(
            "StorageClassName",
            description="storageClassName represents the name of the StorageClass that the reported capacity applies to.",
        ),
        col(
            "Capacity",
            description="capacity is the value reported by the CSI driver in its GetCapacityResponse for a GetCapacityRequest with topology and parameters that match the previous fields.",
        ),
    ),
    row=csi_storage_capacity_row,
)

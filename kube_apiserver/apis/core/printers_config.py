"""Printers for configmaps, secrets, serviceaccounts, resourcequotas and persistent volumes (claims)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.printing import (
    AGE_COLUMN,
    NAME_COLUMN,
    age,
    col,
    d,
    get,
    is_deleting,
    lst,
    meta,
    name,
    quantity,
    text,
)
from kube_apiserver.registry.resource_spec import TablePrinter

# ---------------------------------------------------------------------------------------------
# configmaps, secrets, serviceaccounts


def config_map_row(obj: dict[str, Any], now: float) -> list[Any]:
    return [name(obj), len(d(obj.get("data"))) + len(d(obj.get("binaryData"))), age(obj, now)]


CONFIG_MAP_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col("Data", description="Data contains the configuration data."),
        AGE_COLUMN,
    ),
    row=config_map_row,
)


def secret_row(obj: dict[str, Any], now: float) -> list[Any]:
    # stringData is merged into data on write; SetDefaults_Secret defaults the type to Opaque
    keys = set(d(obj.get("data"))) | set(d(obj.get("stringData")))
    return [name(obj), text(obj.get("type")) or "Opaque", len(keys), age(obj, now)]


SECRET_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col("Type", description="Used to facilitate programmatic handling of secret data."),
        col("Data", description="Data contains the secret data."),
        AGE_COLUMN,
    ),
    row=secret_row,
)


def service_account_row(obj: dict[str, Any], now: float) -> list[Any]:
    return [name(obj), len(lst(obj.get("secrets"))), age(obj, now)]


SERVICE_ACCOUNT_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col(
            "Secrets",
            description="Secrets is a list of the secrets in the same namespace that pods running using this "
            "ServiceAccount are allowed to use.",
        ),
        AGE_COLUMN,
    ),
    row=service_account_row,
)

# ---------------------------------------------------------------------------------------------
# resourcequotas


def resource_quota_row(obj: dict[str, Any], now: float) -> list[Any]:
    status = d(obj.get("status"))
    hard = d(status.get("hard"))
    used = d(status.get("used"))
    requests: list[str] = []
    limits: list[str] = []
    for resource in sorted(hard):
        target = limits if resource.split(".")[0] == "limits" and "." in resource else requests
        target.append(f"{resource}: {quantity(used.get(resource))}/{quantity(hard[resource])}")
    return [name(obj), ", ".join(requests), ", ".join(limits), age(obj, now)]


RESOURCE_QUOTA_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col("Request", description="Request represents a minimum amount of cpu/memory that a container may consume."),
        col(
            "Limit",
            description="Limits control the maximum amount of cpu/memory that a container may use independent of "
            "contention on the node.",
        ),
        AGE_COLUMN,
    ),
    row=resource_quota_row,
)

# ---------------------------------------------------------------------------------------------
# persistentvolumes, persistentvolumeclaims

_BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class"
_ACCESS_MODES = (
    ("ReadWriteOnce", "RWO"),
    ("ReadOnlyMany", "ROX"),
    ("ReadWriteMany", "RWX"),
    ("ReadWriteOncePod", "RWOP"),
)


def access_modes(modes: Any) -> str:
    """helper.GetAccessModesAsString: RWO, ROX, RWX, RWOP in that order."""
    present = {text(m) for m in lst(modes)}
    return ",".join(short for mode, short in _ACCESS_MODES if mode in present)


def storage_class(obj: dict[str, Any]) -> str:
    """GetPersistentVolume(Claim)Class: the beta annotation wins over spec.storageClassName."""
    annotations = d(meta(obj).get("annotations"))
    if _BETA_STORAGE_CLASS in annotations:
        return text(annotations[_BETA_STORAGE_CLASS])
    return text(get(obj, "spec", "storageClassName"))


def persistent_volume_row(obj: dict[str, Any], now: float) -> list[Any]:
    spec = d(obj.get("spec"))
    claim = ""
    claim_ref = spec.get("claimRef")
    if isinstance(claim_ref, dict):
        claim = f"{text(claim_ref.get('namespace'))}/{text(claim_ref.get('name'))}"
    phase = "Terminating" if is_deleting(obj) else (text(get(obj, "status", "phase")) or "Pending")
    return [
        name(obj),
        quantity(d(spec.get("capacity")).get("storage")),
        access_modes(spec.get("accessModes")),
        text(spec.get("persistentVolumeReclaimPolicy")) or "Retain",
        phase,
        claim,
        storage_class(obj),
        text(spec.get("volumeAttributesClassName")) or "<unset>",
        text(get(obj, "status", "reason")),
        age(obj, now),
        text(spec.get("volumeMode")) or "Filesystem",
    ]


PERSISTENT_VOLUME_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col("Capacity", description="capacity is the description of the persistent volume's resources and capacity."),
        col("Access Modes", description="accessModes contains all ways the volume can be mounted."),
        col(
            "Reclaim Policy",
            description="persistentVolumeReclaimPolicy defines what happens to a persistent volume when released "
            "from its claim.",
        ),
        col(
            "Status", description="phase indicates if a volume is available, bound to a claim, or released by a claim."
        ),
        col(
            "Claim",
            description="claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim.",
        ),
        col("StorageClass", description="StorageClass of the pv"),
        col("VolumeAttributesClass", description="VolumeAttributesClass of the pv"),
        col("Reason", description="reason is a brief CamelCase string that describes any failure."),
        AGE_COLUMN,
        col(
            "VolumeMode",
            priority=1,
            description="volumeMode defines if a volume is intended to be used with a formatted filesystem or to "
            "remain in raw block state.",
        ),
    ),
    row=persistent_volume_row,
)


def persistent_volume_claim_row(obj: dict[str, Any], now: float) -> list[Any]:
    spec = d(obj.get("spec"))
    status = d(obj.get("status"))
    phase = "Terminating" if is_deleting(obj) else (text(status.get("phase")) or "Pending")
    volume_name = text(spec.get("volumeName"))
    capacity = ""
    modes = ""
    if volume_name:
        modes = access_modes(status.get("accessModes"))
        capacity = quantity(d(status.get("capacity")).get("storage"))
    return [
        name(obj),
        phase,
        volume_name,
        capacity,
        modes,
        storage_class(obj),
        text(spec.get("volumeAttributesClassName")) or "<unset>",
        age(obj, now),
        text(spec.get("volumeMode")) or "Filesystem",
    ]


PERSISTENT_VOLUME_CLAIM_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col("Status", description="phase represents the current phase of PersistentVolumeClaim."),
        col("Volume", description="volumeName is the binding reference to the PersistentVolume backing this claim."),
        col("Capacity", description="capacity represents the actual resources of the underlying volume."),
        col("Access Modes", description="accessModes contains the actual access modes the volume backing the PVC has."),
        col("StorageClass", description="StorageClass of the pvc"),
        col("VolumeAttributesClass", description="VolumeAttributesClass of the pvc"),
        AGE_COLUMN,
        col(
            "VolumeMode",
            priority=1,
            description="volumeMode defines what type of volume is required by the claim.",
        ),
    ),
    row=persistent_volume_claim_row,
)

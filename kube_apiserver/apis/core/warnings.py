"""Warnings for core kinds (WarningsOnCreate / WarningsOnUpdate of their strategies)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.core.pod_warnings import (
    fractional_bytes_warning,
    is_fractional_bytes,
    pod_name_warnings,
    warnings_for_pod_spec_and_meta,
    warnings_for_template,
    workload_name_warnings,
)


def pod_warnings(new: dict[str, Any], old: dict[str, Any] | None) -> list[str]:
    named = pod_name_warnings(new.get("metadata")) if old is None else []
    return named + warnings_for_pod_spec_and_meta(new.get("spec"), new.get("metadata"))


def pod_template_warnings(new: dict[str, Any], old: dict[str, Any] | None) -> list[str]:
    return warnings_for_template(new.get("template"), "template.")


def replication_controller_warnings(new: dict[str, Any], old: dict[str, Any] | None) -> list[str]:
    if old is not None and _generation(new) == _generation(old):
        return []
    named = workload_name_warnings(new.get("metadata")) if old is None else []
    return named + warnings_for_template((new.get("spec") or {}).get("template"), "spec.template.")


def _generation(obj: dict[str, Any]) -> Any:
    return (obj.get("metadata") or {}).get("generation")


BETA_STORAGE_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"


def persistent_volume_claim_warnings(new: dict[str, Any], old: dict[str, Any] | None) -> list[str]:
    """GetWarningsForPersistentVolumeClaim, on create and update: the beta storage-class annotation, and a
    storage request or limit that is no whole number of bytes."""
    out = []
    if BETA_STORAGE_CLASS_ANNOTATION in ((new.get("metadata") or {}).get("annotations") or {}):
        out.append(
            f"metadata.annotations[{BETA_STORAGE_CLASS_ANNOTATION}]: deprecated since v1.8; use "
            '"storageClassName" attribute instead'
        )
    resources = ((new.get("spec") or {}).get("resources")) or {}
    for kind in ("requests", "limits"):
        value = (resources.get(kind) or {}).get("storage") if isinstance(resources.get(kind), dict) else None
        if value is not None and is_fractional_bytes(value):
            out.append(fractional_bytes_warning(f"spec.resources.{kind}", "storage", value))
    return out


WARNERS = {
    ("v1", "PersistentVolumeClaim"): persistent_volume_claim_warnings,
    ("v1", "Pod"): pod_warnings,
    ("v1", "PodTemplate"): pod_template_warnings,
    ("v1", "ReplicationController"): replication_controller_warnings,
}

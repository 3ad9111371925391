"""Warnings for core kinds (WarningsOnCreate / WarningsOnUpdate of their strategies)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.core.pod_warnings import (
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


WARNERS = {
    ("v1", "Pod"): pod_warnings,
    ("v1", "PodTemplate"): pod_template_warnings,
    ("v1", "ReplicationController"): replication_controller_warnings,
}

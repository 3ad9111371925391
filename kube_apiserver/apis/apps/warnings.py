"""Warnings for apps/v1 workloads: their pod template's (spec.template), on create and whenever an
update changes the spec (metadata.generation moves)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.core.pod_warnings import warnings_for_template, workload_name_warnings


def template_warnings(new: dict[str, Any], old: dict[str, Any] | None) -> list[str]:
    if old is not None and (new.get("metadata") or {}).get("generation") == (old.get("metadata") or {}).get(
        "generation"
    ):
        return []
    named = workload_name_warnings(new.get("metadata")) if old is None else []
    return named + warnings_for_template((new.get("spec") or {}).get("template"), "spec.template.")


WARNERS = {("v1", kind): template_warnings for kind in ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet")}

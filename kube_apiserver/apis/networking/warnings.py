"""Warnings for networking.k8s.io/v1 (the Ingress strategy's WarningsOnCreate)."""

from __future__ import annotations

from typing import Any

INGRESS_CLASS_ANNOTATION = "kubernetes.io/ingress.class"


def ingress_warnings(new: dict[str, Any], old: dict[str, Any] | None) -> list[str]:
    """A new Ingress that names its class by the old annotation is told of spec.ingressClassName."""
    annotations = (new.get("metadata") or {}).get("annotations") or {}
    if old is None and INGRESS_CLASS_ANNOTATION in annotations:
        return [f"annotation \"{INGRESS_CLASS_ANNOTATION}\" is deprecated, please use 'spec.ingressClassName' instead"]
    return []


WARNERS = {("v1", "Ingress"): ingress_warnings}

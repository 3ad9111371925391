"""Namespace strategy: spec.finalizers ["kubernetes"], phase Active → Terminating, the finalize subresource."""

from __future__ import annotations

import copy
from typing import Any

from kube_apiserver.registry.strategy import RESTStrategy

FINALIZER_KUBERNETES = "kubernetes"


class NamespaceStrategy(RESTStrategy):
    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        spec = obj.setdefault("spec", {}) if isinstance(obj.get("spec"), dict) else obj.setdefault("spec", {})
        finalizers = spec.get("finalizers") or []
        if FINALIZER_KUBERNETES not in finalizers:
            finalizers = [*finalizers, FINALIZER_KUBERNETES]
        spec["finalizers"] = finalizers
        obj["status"] = {"phase": "Active"}
        meta = obj.setdefault("metadata", {})
        # kube labels every namespace with its own name (NamespaceDefaultLabelName)
        labels = meta.get("labels") or {}
        labels["kubernetes.io/metadata.name"] = meta.get("name", "")
        meta["labels"] = labels

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        new["spec"] = {
            **(new.get("spec") or {}),
            "finalizers": copy.deepcopy((old.get("spec") or {}).get("finalizers", [])),
        }
        if not new["spec"]["finalizers"]:
            new["spec"].pop("finalizers")
        new["status"] = copy.deepcopy(old.get("status") or {})
        labels = new.setdefault("metadata", {}).get("labels") or {}
        labels["kubernetes.io/metadata.name"] = new["metadata"].get("name", "")
        new["metadata"]["labels"] = labels

    def prepare_for_subresource_update(
        self, subresource: str, new: dict[str, Any], old: dict[str, Any]
    ) -> dict[str, Any]:
        if subresource == "finalize":
            out = copy.deepcopy(old)
            out["spec"] = {**(old.get("spec") or {}), "finalizers": (new.get("spec") or {}).get("finalizers") or []}
            if not out["spec"]["finalizers"]:
                out["spec"].pop("finalizers")
            return out
        return super().prepare_for_subresource_update(subresource, new, old)

    def has_finalizers(self, obj: dict[str, Any]) -> bool:
        return super().has_finalizers(obj) or bool((obj.get("spec") or {}).get("finalizers"))

    def prepare_for_delete(self, obj: dict[str, Any]) -> None:
        obj["status"] = {**(obj.get("status") or {}), "phase": "Terminating"}

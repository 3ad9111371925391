"""Namespace strategy: spec.finalizers ["kubernetes"], phase Active → Terminating, the finalize subresource."""

from __future__ import annotations

import copy
from typing import Any

from kube_apiserver.apis.core.defaults.other import set_defaults_namespace
from kube_apiserver.registry.strategy import RESTStrategy
from kube_apiserver.runtime import errors
from kube_apiserver.runtime.errors import StatusCause
from kube_apiserver.storage.errors import InvalidObjError
from kube_apiserver.storage.interface import Preconditions

FINALIZER_KUBERNETES = "kubernetes"
_BEING_EMPTIED = (
    "The system is ensuring all content is removed from this namespace.  "
    "Upon completion, this namespace will automatically be purged by the system."
)


class NamespaceStrategy(RESTStrategy):
    # namespace REST.Delete sets the deletionTimestamp and the Terminating phase, no grace period
    records_deletion_grace_period = False
    # the namespace's own Delete (shouldHaveDeleteDependentsFinalizer): orphanDependents=false asks for the
    # foreground, where the generic store leaves no finalizer for it
    orphan_false_is_foreground = True

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        spec = obj.setdefault("spec", {}) if isinstance(obj.get("spec"), dict) else obj.setdefault("spec", {})
        finalizers = spec.get("finalizers") or []
        if FINALIZER_KUBERNETES not in finalizers:
            finalizers = [*finalizers, FINALIZER_KUBERNETES]
        spec["finalizers"] = finalizers
        obj["status"] = {"phase": "Active"}
        # the name label once more: a generated name was not there when the defaults were applied
        set_defaults_namespace(obj)

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
            # namespaceFinalizeStrategy resets only the status: spec and metadata come from the request
            # (ObjectMeta update rules still apply; the system fields stay, as rest.BeforeUpdate keeps them).
            out = copy.deepcopy(new)
            spec = out.get("spec") if isinstance(out.get("spec"), dict) else {}
            out["spec"] = spec
            if not spec.get("finalizers"):
                spec.pop("finalizers", None)
            if "status" in old:
                out["status"] = copy.deepcopy(old["status"])
            else:
                out.pop("status", None)
            meta, old_meta = out.setdefault("metadata", {}), old.get("metadata") or {}
            for k in ("uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation"):
                if k in old_meta:
                    meta[k] = old_meta[k]
            labels = meta.get("labels") if isinstance(meta.get("labels"), dict) else {}
            labels["kubernetes.io/metadata.name"] = meta.get("name", "")
            meta["labels"] = labels
            return out
        return super().prepare_for_subresource_update(subresource, new, old)

    def validate_subresource_update(
        self, subresource: str, new: dict[str, Any], old: dict[str, Any]
    ) -> list[StatusCause]:
        """ValidateNamespaceStatusUpdate: the phase follows the deletionTimestamp (Active without one,
        Terminating with one), so a status write cannot put a namespace in a phase of its own."""
        if subresource != "status":
            return super().validate_subresource_update(subresource, new, old)
        phase = (new.get("status") or {}).get("phase", "")
        if not (new.get("metadata") or {}).get("deletionTimestamp"):
            if phase != "Active":
                return [
                    errors.field_invalid("status.Phase", phase, "may only be 'Active' if `deletionTimestamp` is empty")
                ]
        elif phase != "Terminating":
            detail = "may only be 'Terminating' if `deletionTimestamp` is not empty"
            return [errors.field_invalid("status.Phase", phase, detail)]
        return []

    def has_finalizers(self, obj: dict[str, Any]) -> bool:
        return super().has_finalizers(obj) or bool((obj.get("spec") or {}).get("finalizers"))

    def check_delete_preconditions(self, name: str, preconditions: Preconditions, obj: dict[str, Any]) -> None:
        """namespace REST.Delete checks the preconditions itself, in the storage layer's words, on the resource."""
        try:
            preconditions.check(name, obj)
        except InvalidObjError as e:
            raise errors.new_conflict("", "namespaces", name, str(e)) from None

    def check_delete(self, obj: dict[str, Any]) -> None:
        """namespace REST.Delete: a namespace already terminating, with spec.finalizers left, is being emptied."""
        meta = obj.get("metadata") or {}
        if meta.get("deletionTimestamp") and (obj.get("spec") or {}).get("finalizers"):
            raise errors.new_conflict("", "namespaces", meta.get("name", ""), _BEING_EMPTIED)

    def prepare_for_delete(self, obj: dict[str, Any]) -> None:
        obj["status"] = {**(obj.get("status") or {}), "phase": "Terminating"}

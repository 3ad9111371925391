"""The CRD's own strategy (apiextensions-apiserver/pkg/registry/customresourcedefinition): v1
defaults, status reset on create with storedVersions, the cleanup finalizer added on delete, and the
common validation rules of ValidateCustomResourceDefinition with kube's messages."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apiextensions import crd_validation
from kube_apiserver.apiextensions.conversion import validation as conversion_validation
from kube_apiserver.apiextensions.schema.cel.crd_validation import validate_crd_rules
from kube_apiserver.registry.strategy import RESTStrategy
from kube_apiserver.runtime import meta as metautil
from kube_apiserver.runtime.errors import StatusCause
from kube_apiserver.runtime.validation.objectmeta import validate_object_meta

CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io"


class CRDStrategy(RESTStrategy):
    def default(self, obj: dict[str, Any]) -> None:
        super().default(obj)
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            return
        names = spec.get("names")
        if isinstance(names, dict) and isinstance(names.get("kind"), str):
            names.setdefault("singular", names["kind"].lower())
            names.setdefault("listKind", names["kind"] + "List")
        conversion_validation.set_defaults_conversion(spec)

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        metautil.metadata(obj)["generation"] = 1
        status: dict[str, Any] = {"acceptedNames": {"plural": "", "kind": ""}}
        obj["status"] = status
        conversion_validation.add_storage_version(obj)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        super().prepare_for_update(new, old)
        conversion_validation.add_storage_version(new)

    def has_finalizers(self, obj: dict[str, Any]) -> bool:
        # A CRD is never removed at once: its delete waits for the cleanup of its custom resources.
        meta = obj.get("metadata") or {}
        return bool(meta.get("finalizers")) or not meta.get("deletionTimestamp")

    def prepare_for_delete(self, obj: dict[str, Any]) -> None:
        meta = metautil.metadata(obj)
        finalizers = list(meta.get("finalizers") or [])
        if CLEANUP_FINALIZER not in finalizers:
            meta["finalizers"] = [*finalizers, CLEANUP_FINALIZER]

    def validate_meta(self, obj: dict[str, Any]) -> list[StatusCause]:
        """genericvalidation.ValidateObjectMeta: no built-in-kind rule on finalizers (the cleanup one has no /)."""
        meta = obj.get("metadata") or {}
        causes = validate_object_meta(meta, False, self.name_validator(), kube_finalizers=False)
        return causes + self.scheme.validate(obj)

    def validate(self, obj: dict[str, Any]) -> list[StatusCause]:
        causes = self.validate_meta(obj) + validate_custom_resource_definition(obj) + validate_crd_rules(obj)
        if not (obj.get("metadata") or {}).get("resourceVersion"):  # a create (updates: validate_update)
            causes += conversion_validation.validate_conversion_on_create(obj)
        return causes

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
        return (
            super().validate_update(new, old)
            + crd_validation.validate_custom_resource_definition_update(new, old)
            + conversion_validation.validate_conversion_on_update(new, old)
        )


def _versions(obj: dict[str, Any]) -> list[dict[str, Any]]:
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    return [v for v in spec.get("versions") or [] if isinstance(v, dict)]


def validate_custom_resource_definition(obj: dict[str, Any]) -> list[StatusCause]:
    return crd_validation.validate_custom_resource_definition(obj)

"""The CRD's own strategy (apiextensions-apiserver/pkg/registry/customresourcedefinition): v1
defaults, status reset on create with storedVersions, the cleanup finalizer added on delete, and the
common validation rules of ValidateCustomResourceDefinition with kube's messages."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apiextensions.conversion import validation as conversion_validation
from kube_apiserver.apiextensions.schema.cel.crd_validation import validate_crd_rules
from kube_apiserver.registry.strategy import RESTStrategy
from kube_apiserver.runtime import errors
from kube_apiserver.runtime import meta as metautil
from kube_apiserver.runtime.errors import StatusCause
from kube_apiserver.runtime.validation.names import is_dns1035_label

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

    def validate(self, obj: dict[str, Any]) -> list[StatusCause]:
        causes = super().validate(obj) + validate_custom_resource_definition(obj) + validate_crd_rules(obj)
        if not (obj.get("metadata") or {}).get("resourceVersion"):  # a create (updates: validate_update)
            causes += conversion_validation.validate_conversion_on_create(obj)
        return causes

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
        return super().validate_update(new, old) + conversion_validation.validate_conversion_on_update(new, old)


def _versions(obj: dict[str, Any]) -> list[dict[str, Any]]:
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    return [v for v in spec.get("versions") or [] if isinstance(v, dict)]


def validate_custom_resource_definition(obj: dict[str, Any]) -> list[StatusCause]:
    causes: list[StatusCause] = []
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    names = spec.get("names") if isinstance(spec.get("names"), dict) else {}
    group = spec.get("group") if isinstance(spec.get("group"), str) else ""
    plural = names.get("plural") if isinstance(names.get("plural"), str) else ""
    name = (obj.get("metadata") or {}).get("name", "")
    if name != f"{plural}.{group}":
        causes.append(errors.field_invalid("metadata.name", name, 'must be spec.names.plural+"."+spec.group'))
    if not group:
        causes.append(errors.field_required("spec.group"))
    else:
        for msg in metautil.is_dns1123_subdomain(group):
            causes.append(errors.field_invalid("spec.group", group, msg))
        if "." not in group:
            causes.append(errors.field_invalid("spec.group", group, "should be a domain with at least one dot"))
    scope = spec.get("scope")
    if not scope:
        causes.append(errors.field_required("spec.scope"))
    elif scope not in ("Cluster", "Namespaced"):
        causes.append(errors.field_not_supported("spec.scope", scope, ["Cluster", "Namespaced"]))
    versions = _versions(obj)
    if not versions:
        causes.append(errors.field_required("spec.versions", "must have at least one version"))
    storage = 0
    seen: set[str] = set()
    for i, v in enumerate(versions):
        path = f"spec.versions[{i}]"
        vname = v.get("name") if isinstance(v.get("name"), str) else ""
        if not vname:
            causes.append(errors.field_required(f"{path}.name"))
        else:
            for msg in is_dns1035_label(vname):
                causes.append(errors.field_invalid(f"{path}.name", vname, msg))
            if vname in seen:
                causes.append(errors.field_invalid("spec.versions", vname, "must appear only once"))
            seen.add(vname)
        if v.get("storage"):
            storage += 1
        schema = v.get("schema")
        if not isinstance(schema, dict) or not isinstance(schema.get("openAPIV3Schema"), dict):
            causes.append(errors.field_required(f"{path}.schema.openAPIV3Schema", "schemas are required"))
    if versions and storage != 1:
        causes.append(
            errors.field_invalid(
                "spec.versions",
                errors.GoRepr("[]apiextensions.CustomResourceDefinitionVersion{...}"),
                "must have exactly one version marked as storage version",
            )
        )
    if not plural:
        causes.append(errors.field_required("spec.names.plural"))
    if not names.get("kind"):
        causes.append(errors.field_required("spec.names.kind"))
    return causes

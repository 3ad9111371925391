"""ValidateCustomResourceDefinition(Update) (apiextensions-apiserver/pkg/apis/apiextensions/validation)
with kube's messages and field paths, for everything but x-kubernetes-validations (schema/cel) and the
conversion stanza (conversion/).

kube validates its internal CRD, in which a per-version field that every version sets identically
(schema, subresources, additionalPrinterColumns, selectableFields) is hoisted to the spec: errors in
it are reported at spec.validation.openAPIV3Schema..., spec.subresources..., and so on; otherwise at
spec.versions[i].... The schema walk itself is in crd_schema_validation.py.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from typing import Any

from kube_apiserver.apiextensions.conditions import (
    APPROVED_ANNOTATION,
    api_approval_state,
    is_protected_community_group,
)
from kube_apiserver.apiextensions.crd_schema_validation import Options, has_in_schema, validate_validation
from kube_apiserver.apiextensions.selectable import resolve_field_path
from kube_apiserver.runtime import meta as metautil
from kube_apiserver.runtime.errors import (
    GoRepr,
    StatusCause,
    field_duplicate,
    field_invalid,
    field_not_supported,
    field_required,
    field_too_many,
)
from kube_apiserver.runtime.validation.names import is_dns1035_label

PRINTER_COLUMN_TYPES = ["boolean", "date", "integer", "number", "string"]
PRINTER_COLUMN_FORMATS = ["byte", "date", "date-time", "double", "float", "int32", "int64", "password"]
MAX_SELECTABLE_FIELDS = 8
VERSIONS_REPR = GoRepr("[]apiextensions.CustomResourceDefinitionVersion{...}")
_HOISTED = ("schema", "subresources", "additionalPrinterColumns", "selectableFields")
_TOP = {
    "schema": "validation",
    "subresources": "subresources",
    "additionalPrinterColumns": "additionalPrinterColumns",
    "selectableFields": "selectableFields",
}


@dataclass
class Internal:
    """The CRD spec as kube's internal type holds it: identical per-version fields hoisted."""

    spec: dict[str, Any]
    versions: list[dict[str, Any]]
    top: dict[str, Any] = field(default_factory=dict)  # "schema" / "subresources" / ... → hoisted value


def to_internal(spec: dict[str, Any]) -> Internal:
    versions = [dict(v) if isinstance(v, dict) else {} for v in spec.get("versions") or []]
    internal = Internal(spec, versions)
    if not versions:
        return internal
    for name in _HOISTED:
        first = versions[0].get(name)
        if all(v.get(name) == first for v in versions):
            if first is not None:
                internal.top[name] = first
            for v in versions:
                v.pop(name, None)
    return internal


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _go_strings(values: Any) -> GoRepr:
    if values is None:
        return GoRepr("[]string(nil)")
    items = ", ".join('"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"' for v in values)
    return GoRepr("[]string{" + items + "}")


# --- names -----------------------------------------------------------------------------------------


def validate_names(names: dict[str, Any], path: str) -> list[StatusCause]:
    """ValidateCustomResourceDefinitionNames."""
    out: list[StatusCause] = []
    for name in ("plural", "singular"):
        value = _str(names.get(name))
        if value and (errs := is_dns1035_label(value)):
            out.append(field_invalid(f"{path}.{name}", value, ",".join(errs)))
    for name in ("kind", "listKind"):
        value = _str(names.get(name))
        if value and (errs := is_dns1035_label(value.lower())):
            out.append(
                field_invalid(
                    f"{path}.{name}", value, "may have mixed case, but should otherwise match: " + ",".join(errs)
                )
            )
    for i, short in enumerate(names.get("shortNames") or []):
        if errs := is_dns1035_label(_str(short)):
            out.append(field_invalid(f"{path}.shortNames[{i}]", short, ",".join(errs)))
    kind = _str(names.get("kind"))
    if kind and kind == names.get("listKind"):
        out.append(field_invalid(f"{path}.listKind", kind, "kind and listKind may not be the same"))
    for i, category in enumerate(names.get("categories") or []):
        if errs := is_dns1035_label(_str(category)):
            out.append(field_invalid(f"{path}.categories[{i}]", category, ",".join(errs)))
    return out


# --- versions ----------------------------------------------------------------------------------------


def validate_deprecation_warning(version: dict[str, Any]) -> list[str]:
    warning = version.get("deprecationWarning")
    if not version.get("deprecated") and warning is not None:
        return ["can only be set for deprecated versions"]
    if warning is None:
        return []
    text = _str(warning)
    errs = []
    if len(text.encode()) > 256:
        errs.append("must be <= 256 characters long")
    if not text:
        errs.append("must not be an empty string")
    offset = 0
    for ch in text:
        # unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space
        if ch != " " and unicodedata.category(ch)[0] not in "LMNPS":
            errs.append(
                f"must only contain printable UTF-8 characters; non-printable character found at index {offset}"
            )
            break
        offset += len(ch.encode())
    return errs


def validate_simple_json_path(value: str, path: str) -> list[StatusCause]:
    if not value:
        return [field_invalid(path, value, "must not be empty")]
    if value[0] != ".":
        return [field_invalid(path, value, "must be a simple json path starting with .")]
    return []


def validate_subresources(subs: Any, path: str) -> list[StatusCause]:
    scale = _dict(subs).get("scale")
    if not isinstance(scale, dict):
        return []
    out: list[StatusCause] = []
    for name, prefix, where in (
        ("specReplicasPath", (".spec.",), "under .spec"),
        ("statusReplicasPath", (".status.",), "under .status"),
    ):
        value = _str(scale.get(name))
        if not value:
            out.append(field_required(f"{path}.scale.{name}"))
        elif errs := validate_simple_json_path(value, f"{path}.scale.{name}"):
            out += errs
        elif not value.startswith(prefix):
            out.append(field_invalid(f"{path}.scale.{name}", value, f"should be a json path {where}"))
    selector = scale.get("labelSelectorPath")
    if isinstance(selector, str) and selector:
        if errs := validate_simple_json_path(selector, f"{path}.scale.labelSelectorPath"):
            out += errs
        elif not selector.startswith((".spec.", ".status.")):
            out.append(
                field_invalid(
                    f"{path}.scale.labelSelectorPath", selector, "should be a json path under either .spec or .status"
                )
            )
    return out


def validate_column(col: Any, path: str) -> list[StatusCause]:
    col = _dict(col)
    out: list[StatusCause] = []
    if not _str(col.get("name")):
        out.append(field_required(f"{path}.name"))
    types = "must be one of " + ",".join(PRINTER_COLUMN_TYPES)
    if not _str(col.get("type")):
        out.append(field_required(f"{path}.type", types))
    elif col.get("type") not in PRINTER_COLUMN_TYPES:
        out.append(field_invalid(f"{path}.type", col.get("type"), types))
    fmt = _str(col.get("format"))
    if fmt and fmt not in PRINTER_COLUMN_FORMATS:
        out.append(field_invalid(f"{path}.format", fmt, "must be one of " + ",".join(PRINTER_COLUMN_FORMATS)))
    json_path = _str(col.get("jsonPath"))
    if not json_path:
        out.append(field_required(f"{path}.JSONPath"))
    else:
        out += validate_simple_json_path(json_path, f"{path}.JSONPath")
    return out


def validate_selectable_fields(fields: Any, schema: Any, path: str) -> list[StatusCause]:
    """ValidateCustomResourceSelectableFields."""
    out: list[StatusCause] = []
    seen: list[str] = []
    for i, sf in enumerate(fields if isinstance(fields, list) else []):
        json_path = _str(_dict(sf).get("jsonPath"))
        p = f"{path}[{i}].jsonPath"
        if not json_path:
            out.append(field_required(p))
            continue
        resolved, found, err = resolve_field_path(json_path, _dict(schema))
        if err:
            out.append(field_invalid(p, json_path, f"is an invalid path: {err}"))
            continue
        if resolved.split(".")[0].split("[")[0] == "metadata":
            out.append(field_invalid(p, json_path, "must not point to fields in metadata"))
        if not isinstance(found, dict) or found.get("type") not in ("string", "boolean", "integer"):
            out.append(
                field_invalid(
                    p,
                    json_path,
                    "must point to a field of type string, boolean or integer. Enum string fields and strings with "
                    "formats are allowed.",
                )
            )
        if resolved in seen:
            out.append(field_duplicate(p, json_path))
        else:
            seen.append(resolved)
    if len(seen) > MAX_SELECTABLE_FIELDS:
        out.append(field_too_many(path, len(seen), MAX_SELECTABLE_FIELDS))
    return out


def _has_status(subs: Any) -> bool:
    return isinstance(_dict(subs).get("status"), dict)


def _validate_selectable(fields: Any, validation: Any, path: str, schema_path: str) -> list[StatusCause]:
    if not fields:
        return []
    schema = _dict(validation).get("openAPIV3Schema")
    if not isinstance(schema, dict):
        return [
            field_invalid(
                path, "", "selectableFields may only be set when version.schema.openAPIV3Schema is not included"
            )
        ]
    return validate_selectable_fields(fields, schema, path)


# --- spec ----------------------------------------------------------------------------------------------


def validate_spec(spec: dict[str, Any], opts: Options) -> list[StatusCause]:
    """validateCustomResourceDefinitionSpec."""
    out: list[StatusCause] = []
    group = _str(spec.get("group"))
    if not group:
        out.append(field_required("spec.group"))
    elif errs := metautil.is_dns1123_subdomain(group):
        out.append(field_invalid("spec.group", group, ",".join(errs)))
    elif len(group.split(".")) < 2:
        out.append(field_invalid("spec.group", group, "should be a domain with at least one dot"))
    scope = _str(spec.get("scope"))
    if not scope:
        out.append(field_required("spec.scope"))
    elif scope not in ("Cluster", "Namespaced"):
        out.append(field_not_supported("spec.scope", scope, ["Cluster", "Namespaced"]))
    internal = to_internal(spec)
    preserve = spec.get("preserveUnknownFields") is True
    if not preserve:
        opts.require_structural = True
    top_schema = _dict(internal.top.get("schema")).get("openAPIV3Schema")
    if top_schema is None:
        for i, v in enumerate(internal.versions):
            if not isinstance(_dict(v.get("schema")).get("openAPIV3Schema"), dict):
                if opts.require_openapi_schema:
                    out.append(field_required(f"spec.versions[{i}].schema.openAPIV3Schema", "schemas are required"))
                elif not preserve and v.get("served"):
                    out.append(
                        field_required(
                            f"spec.versions[{i}].schema.openAPIV3Schema", "because otherwise all fields are pruned"
                        )
                    )
    schemas = [_dict(internal.top.get("schema")).get("openAPIV3Schema")] + [
        _dict(v.get("schema")).get("openAPIV3Schema") for v in internal.versions
    ]
    if any(has_in_schema(s, lambda n: "default" in n) for s in schemas):
        opts.require_structural = True
        if spec.get("preserveUnknownFields") is not False and preserve:
            out.append(
                field_invalid(
                    "spec.preserveUnknownFields", True, "must be false in order to use defaults in the schema"
                )
            )
    storage = 0
    seen: set[str] = set()
    unique = True
    for i, v in enumerate(internal.versions):
        vpath = f"spec.versions[{i}]"
        if v.get("storage") is True:
            storage += 1
        name = _str(v.get("name"))
        if name in seen:
            unique = False
        seen.add(name)
        if errs := is_dns1035_label(name):
            out.append(field_invalid(f"{vpath}.name", name, ",".join(errs)))
        for msg in validate_deprecation_warning(v):
            out.append(field_invalid(f"{vpath}.deprecationWarning", v.get("deprecationWarning"), msg))
        subs = v.get("subresources", internal.top.get("subresources"))
        if "schema" in v:
            out += validate_validation(v.get("schema"), _has_status(subs), opts, f"{vpath}.schema")
        out += validate_subresources(v.get("subresources"), f"{vpath}.subresources")
        for j, col in enumerate(v.get("additionalPrinterColumns") or []):
            out += validate_column(col, f"{vpath}.additionalPrinterColumns[{j}]")
        if v.get("selectableFields"):
            out += _validate_selectable(v.get("selectableFields"), v.get("schema"), f"{vpath}.selectableFields", vpath)
    if not unique:
        out.append(field_invalid("spec.versions", VERSIONS_REPR, "must contain unique version names"))
    if storage != 1:
        out.append(
            field_invalid("spec.versions", VERSIONS_REPR, "must have exactly one version marked as storage version")
        )
    names = _dict(spec.get("names"))
    for name in ("plural", "singular", "kind", "listKind"):
        if not _str(names.get(name)):
            out.append(field_required(f"spec.names.{name}"))
    out += validate_names(names, "spec.names")
    any_status = _has_status(internal.top.get("subresources")) or any(
        _has_status(v.get("subresources")) for v in internal.versions
    )
    if "schema" in internal.top:
        out += validate_validation(internal.top["schema"], any_status, opts, "spec.validation")
    out += validate_subresources(internal.top.get("subresources"), "spec.subresources")
    for j, col in enumerate(internal.top.get("additionalPrinterColumns") or []):
        out += validate_column(col, f"spec.additionalPrinterColumns[{j}]")
    if internal.top.get("selectableFields"):
        if "schema" not in internal.top:
            out.append(
                field_invalid(
                    "spec.selectableFields", "", "selectableFields may only be set when validations.schema is included"
                )
            )
        else:
            out += validate_selectable_fields(
                internal.top["selectableFields"],
                _dict(internal.top["schema"]).get("openAPIV3Schema"),
                "spec.selectableFields",
            )
    return out


# --- status, approval, the whole object ---------------------------------------------------------------


def validate_stored_versions(status: dict[str, Any], spec: dict[str, Any]) -> list[StatusCause]:
    stored = status.get("storedVersions")
    path = "status.storedVersions"
    if not stored:
        return [field_invalid(path, _go_strings(stored), "must have at least one stored version")]
    out: list[StatusCause] = []
    index = {v: i for i, v in enumerate(stored)}
    for v in spec.get("versions") or []:
        name = _dict(v).get("name")
        if _dict(v).get("storage") and name not in index:
            out.append(field_invalid(path, _go_strings(stored), f"must have the storage version {name}"))
        index.pop(name, None)
    for name, i in sorted(index.items(), key=lambda kv: kv[1]):
        out.append(
            field_invalid(
                f"{path}[{i}]",
                name,
                f"missing from spec.versions; {name} was previously a storage version, and must remain in spec.versions "
                f"until a storage migration ensures no data remains persisted in {name} and removes {name} from "
                "status.storedVersions",
            )
        )
    return out


def validate_api_approval(new: dict[str, Any], old: dict[str, Any] | None) -> list[StatusCause]:
    if not is_protected_community_group(_str(_dict(new.get("spec")).get("group"))):
        return []
    old_state = api_approval_state(_dict(old.get("metadata")).get("annotations"))[0] if old is not None else None
    annotations = _dict(_dict(new.get("metadata")).get("annotations"))
    state, reason = api_approval_state(annotations)
    if old_state == state:
        return []
    path = f"metadata.annotations[{APPROVED_ANNOTATION}]"
    if state == "Missing":
        return [field_required(path, reason)]
    if state == "Invalid":
        return [field_invalid(path, annotations.get(APPROVED_ANNOTATION, ""), reason)]
    return []


def validate_preserve_unknown_fields(new: dict[str, Any], old: dict[str, Any] | None) -> list[StatusCause]:
    if old is not None and _dict(old.get("spec")).get("preserveUnknownFields") is True:
        return []
    if _dict(new.get("spec")).get("preserveUnknownFields") is True:
        return [
            field_invalid(
                "spec.preserveUnknownFields",
                True,
                "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead",
            )
        ]
    return []


def validate_custom_resource_definition(obj: dict[str, Any]) -> list[StatusCause]:
    """Everything ValidateCustomResourceDefinition checks after ObjectMeta (whose name rule is here too)."""
    spec = _dict(obj.get("spec"))
    names = _dict(spec.get("names"))
    out: list[StatusCause] = []
    name = _dict(obj.get("metadata")).get("name", "")
    if name != f"{_str(names.get('plural'))}.{_str(spec.get('group'))}":
        out.append(field_invalid("metadata.name", name, 'must be spec.names.plural+"."+spec.group'))
    out += validate_spec(spec, Options())
    out += validate_names(_dict(_dict(obj.get("status")).get("acceptedNames")), "status.acceptedNames")
    out += validate_stored_versions(_dict(obj.get("status")), spec)
    out += validate_api_approval(obj, None)
    out += validate_preserve_unknown_fields(obj, None)
    return out


def validate_custom_resource_definition_update(new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
    """ValidateCustomResourceDefinitionUpdate less what the create validation of the new object reports:
    the rules a stored CRD relaxes (ratcheting) are the create rules' business; here, immutability and
    the approval and preserveUnknownFields transitions."""
    from kube_apiserver.apiextensions.conditions import ESTABLISHED, is_condition_true

    spec, old_spec = _dict(new.get("spec")), _dict(old.get("spec"))
    out: list[StatusCause] = []
    changes: list[tuple[str, Any, Any]] = []
    if is_condition_true(old, ESTABLISHED):
        changes += [
            ("spec.scope", spec.get("scope"), old_spec.get("scope")),
            ("spec.names.kind", _dict(spec.get("names")).get("kind"), _dict(old_spec.get("names")).get("kind")),
        ]
    changes += [
        ("spec.group", spec.get("group"), old_spec.get("group")),
        ("spec.names.plural", _dict(spec.get("names")).get("plural"), _dict(old_spec.get("names")).get("plural")),
    ]
    for path, value, before in changes:
        if value != before:
            out.append(field_invalid(path, value if value is not None else "", "field is immutable"))
    return out

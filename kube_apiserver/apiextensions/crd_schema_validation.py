"""The validation of one openAPIV3Schema of a CRD (validateCustomResourceDefinitionValidation and
ValidateCustomResourceDefinitionOpenAPISchema, with specStandardValidatorV3, and the defaults check
of pkg/apiserver/schema/defaulting ValidateDefaults), with kube's messages; x-kubernetes-validations
are checked by schema/cel.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from kube_apiserver.apiextensions.schema.prune import prune
from kube_apiserver.apiextensions.schema.validation import validate as validate_value
from kube_apiserver.apiextensions.structural import validate_structural
from kube_apiserver.runtime.errors import (
    GoRepr,
    StatusCause,
    field_forbidden,
    field_invalid,
    field_not_supported,
    field_required,
)

OPENAPI_V3_TYPES = ["array", "boolean", "integer", "number", "object", "string"]
_META_FIELDS = ("metadata", "kind", "apiVersion")
# JSONSchemaProps' fields in Go order (what the status-subresource root check walks), by JSON name.
_GO_FIELDS = (
    ("id", "ID"),
    ("$schema", "Schema"),
    ("$ref", "Ref"),
    ("description", "Description"),
    ("type", "Type"),
    ("nullable", "Nullable"),
    ("format", "Format"),
    ("title", "Title"),
    ("default", "Default"),
    ("maximum", "Maximum"),
    ("exclusiveMaximum", "ExclusiveMaximum"),
    ("minimum", "Minimum"),
    ("exclusiveMinimum", "ExclusiveMinimum"),
    ("maxLength", "MaxLength"),
    ("minLength", "MinLength"),
    ("pattern", "Pattern"),
    ("maxItems", "MaxItems"),
    ("minItems", "MinItems"),
    ("uniqueItems", "UniqueItems"),
    ("multipleOf", "MultipleOf"),
    ("enum", "Enum"),
    ("maxProperties", "MaxProperties"),
    ("minProperties", "MinProperties"),
    ("required", "Required"),
    ("items", "Items"),
    ("allOf", "AllOf"),
    ("oneOf", "OneOf"),
    ("anyOf", "AnyOf"),
    ("not", "Not"),
    ("properties", "Properties"),
    ("additionalProperties", "AdditionalProperties"),
    ("patternProperties", "PatternProperties"),
    ("dependencies", "Dependencies"),
    ("additionalItems", "AdditionalItems"),
    ("definitions", "Definitions"),
    ("externalDocs", "ExternalDocs"),
    ("example", "Example"),
    ("x-kubernetes-preserve-unknown-fields", "XPreserveUnknownFields"),
    ("x-kubernetes-embedded-resource", "XEmbeddedResource"),
    ("x-kubernetes-int-or-string", "XIntOrString"),
    ("x-kubernetes-list-map-keys", "XListMapKeys"),
    ("x-kubernetes-list-type", "XListType"),
    ("x-kubernetes-map-type", "XMapType"),
    ("x-kubernetes-validations", "XValidations"),
)
_PLAIN_BOOLS = {"nullable", "exclusiveMaximum", "exclusiveMinimum", "uniqueItems"}
_PLAIN_BOOLS |= {"x-kubernetes-embedded-resource", "x-kubernetes-int-or-string"}
ALLOWED_AT_ROOT_WITH_STATUS = (
    "Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern "
    "MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields "
    "XValidations"
).split()
SCHEMA_REPR = GoRepr("apiextensions.JSONSchemaProps{...}")


@dataclass
class Options:
    """validationOptions: a new CRD gets them all; see kube for how an update relaxes them."""

    allow_defaults: bool = True
    require_openapi_schema: bool = True
    require_valid_property_type: bool = True
    require_structural: bool = True
    require_pruned_defaults: bool = True
    require_atomic_set_type: bool = True
    require_map_list_keys_map_set: bool = True


@dataclass(frozen=True)
class _SSV:
    """specStandardValidatorV3's state on the way down."""

    allow_defaults: bool = True
    disallow_reason: str = ""
    inside_meta: bool = False
    require_valid_type: bool = True

    def forbid_defaults(self, reason: str) -> _SSV:
        return replace(self, allow_defaults=False, disallow_reason=reason)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _set(s: dict[str, Any], key: str) -> bool:
    """Non-zero as Go's reflect sees the internal type (pointers are set even when false or 0)."""
    if key not in s or s[key] is None:
        return False
    if key in _PLAIN_BOOLS:
        return s[key] is True
    value = s[key]
    return not (isinstance(value, str) and not value)


def has_in_schema(schema: Any, pred: Callable[[dict[str, Any]], bool]) -> bool:
    """SchemaHas: pred holds somewhere in schema."""
    if not isinstance(schema, dict):
        return False
    if pred(schema):
        return True
    subs: list[Any] = [schema.get("items"), schema.get("not"), schema.get("additionalProperties")]
    if isinstance(schema.get("items"), list):
        subs += schema["items"]
    for key in ("allOf", "anyOf", "oneOf"):
        subs += schema.get(key) or [] if isinstance(schema.get(key), list) else []
    for key in ("properties", "patternProperties", "definitions", "dependencies"):
        subs += list(_dict(schema.get(key)).values())
    return any(has_in_schema(s, pred) for s in subs)


def validate_validation(validation: Any, status_enabled: bool, opts: Options, path: str) -> list[StatusCause]:
    """validateCustomResourceDefinitionValidation, less x-kubernetes-validations."""
    schema = _dict(validation).get("openAPIV3Schema")
    if not isinstance(schema, dict):
        return []
    root = f"{path}.openAPIV3Schema"
    out: list[StatusCause] = []
    if status_enabled:
        for key, go_name in _GO_FIELDS:
            if not _set(schema, key):
                continue
            if go_name == "Type":
                if schema["type"] != "object":
                    out.append(
                        field_invalid(
                            f"{root}.type",
                            schema["type"],
                            'only "object" is allowed as the type at the root of the schema if the status subresource '
                            "is enabled",
                        )
                    )
                    break
                continue
            if go_name not in ALLOWED_AT_ROOT_WITH_STATUS:
                allowed = "[" + " ".join(ALLOWED_AT_ROOT_WITH_STATUS) + "]"
                detail = (
                    f"only {allowed} fields are allowed at the root of the schema if the status subresource is enabled"
                )
                out.append(field_invalid(root, SCHEMA_REPR, detail))
                break
    if schema.get("nullable") is True:
        out.append(field_forbidden(f"{root}.nullable", "nullable cannot be true at the root"))
    if opts.require_structural:
        structural = validate_structural(schema, root)
        if structural:
            out += structural
        else:
            out += validate_defaults(schema, root, opts.require_pruned_defaults)
    ssv = _SSV(allow_defaults=opts.allow_defaults, require_valid_type=opts.require_valid_property_type)
    out += _schema(schema, root, ssv, True, opts)
    return out


def _schema(s: dict[str, Any], path: str, ssv: _SSV, is_root: bool, opts: Options) -> list[StatusCause]:
    """ValidateCustomResourceDefinitionOpenAPISchema (its schema errors)."""
    out = _standard(s, path, ssv)
    if s.get("uniqueItems") is True:
        out.append(
            field_forbidden(
                f"{path}.uniqueItems",
                "uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
            )
        )
    props = {k: v for k, v in _dict(s.get("properties")).items() if isinstance(v, dict)}
    extra = s.get("additionalProperties")
    if extra is not None:
        if props and (extra is False or isinstance(extra, dict)):
            out.append(
                field_forbidden(
                    f"{path}.additionalProperties", "additionalProperties and properties are mutual exclusive"
                )
            )
        sub = ssv.forbid_defaults("inside additionalProperties applying to object metadata") if ssv.inside_meta else ssv
        if isinstance(extra, dict):
            out += _schema(extra, f"{path}.additionalProperties", sub, False, opts)
    for name in sorted(props):
        sub = ssv
        if (is_root or s.get("x-kubernetes-embedded-resource") is True) and name in _META_FIELDS:
            sub = replace(sub, inside_meta=True)
            if is_root:
                sub = sub.forbid_defaults(f"in top-level {name}")
        out += _schema(props[name], f"{path}.properties[{name}]", sub, False, opts)
    if isinstance(s.get("not"), dict):
        out += _schema(s["not"], f"{path}.not", ssv, False, opts)
    for key in ("allOf", "oneOf", "anyOf"):
        for i, sub_schema in enumerate(s.get(key) or [] if isinstance(s.get(key), list) else []):
            if isinstance(sub_schema, dict):
                out += _schema(sub_schema, f"{path}.{key}[{i}]", ssv, False, opts)
    for name, sub_schema in sorted(_dict(s.get("definitions")).items()):
        if isinstance(sub_schema, dict):
            out += _schema(sub_schema, f"{path}.definitions[{name}]", ssv, False, opts)
    items = s.get("items")
    if isinstance(items, dict):
        out += _schema(items, f"{path}.items", ssv, False, opts)
    elif isinstance(items, list):
        for i, sub_schema in enumerate(items):
            if isinstance(sub_schema, dict):
                out += _schema(sub_schema, f"{path}.items[{i}]", ssv, False, opts)
    for name, dep in sorted(_dict(s.get("dependencies")).items()):
        if isinstance(dep, dict):
            out += _schema(dep, f"{path}.dependencies[{name}]", ssv, False, opts)
    out += _extensions(s, path, opts)
    return out


def _standard(s: dict[str, Any], path: str, ssv: _SSV) -> list[StatusCause]:
    """specStandardValidatorV3.validate."""
    out: list[StatusCause] = []
    t = s.get("type")
    if ssv.require_valid_type and isinstance(t, str) and t and t not in OPENAPI_V3_TYPES:
        out.append(field_not_supported(f"{path}.type", t, OPENAPI_V3_TYPES))
    if s.get("default") is not None and not ssv.allow_defaults:
        detail = "must not be set" + (f" {ssv.disallow_reason}" if ssv.disallow_reason else "")
        out.append(field_forbidden(f"{path}.default", detail))
    for key, detail in (
        ("id", "id is not supported"),
        ("additionalItems", "additionalItems is not supported"),
        ("patternProperties", "patternProperties is not supported"),
        ("definitions", "definitions is not supported"),
        ("dependencies", "dependencies is not supported"),
        ("$ref", "$ref is not supported"),
    ):
        value = s.get(key)
        if value is not None and value != "" and value != {}:
            out.append(field_forbidden(f"{path}.{key}", detail))
    if t == "null":
        out.append(field_forbidden(f"{path}.type", "type cannot be set to null, use nullable as an alternative"))
    if isinstance(s.get("items"), list) and s["items"]:
        out.append(field_forbidden(f"{path}.items", "items must be a schema object and not an array"))
    if ssv.inside_meta and s.get("x-kubernetes-embedded-resource") is True:
        out.append(
            field_forbidden(f"{path}.x-kubernetes-embedded-resource", "must not be used inside of resource meta")
        )
    return out


def _extensions(s: dict[str, Any], path: str, opts: Options) -> list[StatusCause]:
    out: list[StatusCause] = []
    t = s.get("type") if isinstance(s.get("type"), str) else ""
    if s.get("x-kubernetes-preserve-unknown-fields") is False:
        out.append(field_invalid(f"{path}.x-kubernetes-preserve-unknown-fields", False, "must be true or undefined"))
    map_type = s.get("x-kubernetes-map-type")
    if map_type is not None and t != "object":
        detail = "must be object if x-kubernetes-map-type is specified"
        out.append(field_invalid(f"{path}.type", t, detail) if t else field_required(f"{path}.type", detail))
    if map_type is not None and map_type not in ("atomic", "granular"):
        out.append(field_not_supported(f"{path}.x-kubernetes-map-type", map_type, ["atomic", "granular"]))
    list_type = s.get("x-kubernetes-list-type")
    items = s.get("items") if isinstance(s.get("items"), dict) else None
    if list_type is not None and t != "array":
        detail = "must be array if x-kubernetes-list-type is specified"
        out.append(field_invalid(f"{path}.type", t, detail) if t else field_required(f"{path}.type", detail))
    elif opts.require_atomic_set_type and list_type == "set" and items is not None:
        item_type = items.get("type")
        if item_type == "array" and items.get("x-kubernetes-list-type") not in (None, "atomic"):
            out.append(
                field_invalid(
                    f"{path}.items.x-kubernetes-list-type",
                    GoRepr(f'(*string)("{items.get("x-kubernetes-list-type")}")'),
                    "must be atomic as item of a list with x-kubernetes-list-type=set",
                )
            )
        elif item_type == "object" and items.get("x-kubernetes-map-type") != "atomic":
            out.append(
                field_invalid(
                    f"{path}.items.x-kubernetes-map-type",
                    GoRepr('(*string)("set")'),
                    "must be atomic as item of a list with x-kubernetes-list-type=set",
                )
            )
    if list_type is not None and list_type not in ("atomic", "set", "map"):
        out.append(field_not_supported(f"{path}.x-kubernetes-list-type", list_type, ["atomic", "set", "map"]))
    keys = s.get("x-kubernetes-list-map-keys")
    keys = keys if isinstance(keys, list) else []
    if keys:
        detail = "must be map if x-kubernetes-list-map-keys is non-empty"
        if list_type is None:
            out.append(field_required(f"{path}.x-kubernetes-list-type", detail))
        elif list_type != "map":
            out.append(field_invalid(f"{path}.x-kubernetes-list-type", list_type, detail))
    if list_type == "map":
        if not keys:
            out.append(
                field_required(
                    f"{path}.x-kubernetes-list-map-keys", "must not be empty if x-kubernetes-list-type is map"
                )
            )
        if s.get("items") is None:
            out.append(field_required(f"{path}.items", "must have a schema if x-kubernetes-list-type is map"))
        if items is not None and items.get("type") != "object":
            out.append(
                field_invalid(
                    f"{path}.items.type",
                    items.get("type") or "",
                    "must be object if parent array's x-kubernetes-list-type is map",
                )
            )
        if items is not None and items.get("type") == "object":
            seen: set[str] = set()
            item_props = _dict(items.get("properties"))
            keys_repr = GoRepr("[]string{" + ", ".join(f'"{k}"' for k in keys) + "}")
            for k in keys:
                if k in item_props:
                    if _dict(item_props[k]).get("type") in ("array", "object"):
                        out.append(
                            field_invalid(
                                f"{path}.items.properties[{k}].type",
                                "object",
                                "must be a scalar type if parent array's x-kubernetes-list-type is map",
                            )
                        )
                else:
                    out.append(
                        field_invalid(
                            f"{path}.x-kubernetes-list-map-keys",
                            keys_repr,
                            "entries must all be names of item properties",
                        )
                    )
                if k in seen:
                    out.append(
                        field_invalid(
                            f"{path}.x-kubernetes-list-map-keys", keys_repr, "must not contain duplicate entries"
                        )
                    )
                seen.add(k)
    if opts.require_map_list_keys_map_set and items is not None and list_type in ("set", "map"):
        if items.get("nullable") is True:
            out.append(
                field_forbidden(
                    f"{path}.items.nullable", f"cannot be nullable when x-kubernetes-list-type is {list_type}"
                )
            )
        if list_type == "map":
            required = set(items.get("required") or [])
            item_props = _dict(items.get("properties"))
            for k in keys:
                prop = item_props.get(k)
                if not isinstance(prop, dict):
                    continue
                if k not in required and prop.get("default") is None:
                    out.append(
                        field_required(
                            f"{path}.items.properties[{k}].default",
                            "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
                        )
                    )
                if prop.get("nullable") is True:
                    out.append(
                        field_forbidden(
                            f"{path}.items.properties[{k}].nullable",
                            "this property is in x-kubernetes-list-map-keys, so it cannot be nullable",
                        )
                    )
    return out


# --- defaults ------------------------------------------------------------------------------------------


def go_value(value: Any) -> Any:
    """A default as the bad value of an Invalid error: Go's %#v of the decoded JSON."""
    if isinstance(value, str | bool | int | float) or value is None:
        return value if value is not None else GoRepr("interface {}(nil)")
    if isinstance(value, list):
        return GoRepr("[]interface {}{" + ", ".join(_go(v) for v in value) + "}")
    inner = ", ".join(f'"{k}":{_go(v)}' for k, v in sorted(value.items()))
    return GoRepr("map[string]interface {}{" + inner + "}")


def _go(value: Any) -> str:
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return str(go_value(value))


def validate_defaults(schema: dict[str, Any], path: str, require_pruned: bool) -> list[StatusCause]:
    """ValidateDefaults: every default validates against its schema and has no unknown fields."""
    out: list[StatusCause] = []
    _defaults(schema, path, require_pruned, False, out, root=True)
    return out


def _defaults(
    s: dict[str, Any], path: str, require_pruned: bool, inside_meta: bool, out: list[StatusCause], root: bool = False
) -> None:
    embedded = root or s.get("x-kubernetes-embedded-resource") is True  # the resource root is embedded too
    if embedded:
        inside_meta = False
    if "default" in s and s["default"] is not None and not inside_meta:
        value = s["default"]
        dpath = f"{path}.default"
        if require_pruned:
            wrapper = {"value": copy.deepcopy(value)}
            prune(wrapper, {"type": "object", "properties": {"value": s}})
            if wrapper.get("value") != value:
                out.append(field_invalid(dpath, go_value(value), "must not have unknown fields"))
        for cause in validate_value(copy.deepcopy(value), s, ""):
            field = f"{dpath}.{cause.field}" if cause.field else dpath
            out.append(StatusCause(cause.reason, cause.message, field))
    if isinstance(s.get("items"), dict):
        _defaults(s["items"], f"{path}.items", require_pruned, inside_meta, out)
    for name, sub in sorted(_dict(s.get("properties")).items()):
        if isinstance(sub, dict):
            meta = inside_meta or (embedded and name in _META_FIELDS)
            _defaults(sub, f"{path}.properties[{name}]", require_pruned, meta, out)

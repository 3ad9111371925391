"""A CRD schema as kube publishes it in OpenAPI: what survives the structural schema
(apiextensions-apiserver/pkg/apiserver/schema: NewStructural then ToKubeOpenAPI, with Unfold of
x-kubernetes-int-or-string), the OpenAPI v2 form of it (pkg/controller/openapi/v2 ToStructuralOpenAPIV2:
no junctors, no nullable types, no properties under x-kubernetes-preserve-unknown-fields) and the v3
form's references wrapped in allOf when they have siblings (kube-openapi builder3 wrapRefs).

Schemas are plain dicts; Go's omitempty decides what a marshalled Structural keeps: false booleans,
empty strings and empty lists are dropped, pointer numbers (maximum: 0) are kept.
"""

from __future__ import annotations

from typing import Any

# Generic and value-validation fields of a structural schema, and the booleans among them.
_SCALARS = (
    "type",
    "description",
    "title",
    "default",
    "nullable",
    "externalDocs",
    "format",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "multipleOf",
    "enum",
    "maxProperties",
    "minProperties",
    "required",
)
_TRUE_ONLY = (
    "nullable",
    "exclusiveMaximum",
    "exclusiveMinimum",
    "uniqueItems",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-embedded-resource",
    "x-kubernetes-int-or-string",
)
_EXTENSIONS = (
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-embedded-resource",
    "x-kubernetes-int-or-string",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-list-type",
    "x-kubernetes-map-type",
    "x-kubernetes-validations",
)
_JUNCTORS = ("allOf", "anyOf", "oneOf")
INT_OR_STRING_ANY_OF = [{"type": "integer"}, {"type": "string"}]


def _keep(key: str, value: Any) -> bool:
    if value is None:
        return False
    if key in _TRUE_ONLY:
        return value is True
    if isinstance(value, str | list | dict) and key not in ("default", "enum") and not value:
        return False
    if key == "enum" and not value:
        return False
    return True


def structural(schema: Any, *, nested: bool = False) -> dict[str, Any]:
    """The fields of schema a structural schema holds, recursively (example, id, $schema... dropped)."""
    if not isinstance(schema, dict):
        return {}
    out: dict[str, Any] = {}
    for key in (*_SCALARS, *_EXTENSIONS):
        if key in schema and _keep(key, schema[key]):
            out[key] = schema[key]
    props = schema.get("properties")
    if isinstance(props, dict) and props:
        out["properties"] = {k: structural(v, nested=nested) for k, v in props.items()}
    items = schema.get("items")
    if isinstance(items, dict):
        out["items"] = structural(items, nested=nested)
    extra = schema.get("additionalProperties")
    if not nested:
        if isinstance(extra, dict):
            out["additionalProperties"] = structural(extra)
        elif isinstance(extra, bool):
            out["additionalProperties"] = extra
    for key in _JUNCTORS:
        subs = schema.get(key)
        if isinstance(subs, list) and subs:
            out[key] = [structural(s, nested=True) for s in subs]
    if isinstance(schema.get("not"), dict):
        out["not"] = structural(schema["not"], nested=True)
    return out


def _is_int_or_string_pattern(s: dict[str, Any]) -> bool:
    if s.get("anyOf") == INT_OR_STRING_ANY_OF:
        return True
    all_of = s.get("allOf")
    return isinstance(all_of, list) and bool(all_of) and (all_of[0] or {}).get("anyOf") == INT_OR_STRING_ANY_OF


def unfold(s: dict[str, Any]) -> None:
    """Unfold: x-kubernetes-int-or-string spelled out as anyOf integer/string (in place)."""
    if s.get("x-kubernetes-int-or-string") is True and not _is_int_or_string_pattern(s):
        if not s.get("anyOf"):
            s["anyOf"] = [dict(t) for t in INT_OR_STRING_ANY_OF]
        else:
            s["allOf"] = [{"anyOf": [dict(t) for t in INT_OR_STRING_ANY_OF]}, *(s.get("allOf") or [])]
    for sub in _children(s):
        unfold(sub)


def _children(s: dict[str, Any]) -> list[dict[str, Any]]:
    out = [v for v in (s.get("properties") or {}).values() if isinstance(v, dict)]
    for key in ("items", "additionalProperties"):
        if isinstance(s.get(key), dict):
            out.append(s[key])
    return out


def to_openapi_v2(s: dict[str, Any]) -> None:
    """ToStructuralOpenAPIV2 (in place): what kubectl's v2 models cannot take is dropped."""
    for key in (*_JUNCTORS, "not"):
        s.pop(key, None)
    if s.get("nullable") is True:
        for key in ("type", "nullable", "items", "properties"):
            s.pop(key, None)
    if s.get("x-kubernetes-preserve-unknown-fields") is True:
        s.pop("items", None)
        s.pop("properties", None)
    if "items" not in s and s.get("type") == "array":
        s.pop("type")
    if s.get("x-kubernetes-preserve-unknown-fields") is True and s.get("type") == "object":
        s.pop("type")
    required = s.get("required")
    if isinstance(required, list):
        nullable = {k for k, v in (s.get("properties") or {}).items() if isinstance(v, dict) and v.get("nullable")}
        required = [r for r in required if r not in nullable]
        extra = s.get("additionalProperties")
        if isinstance(extra, dict) and extra.get("nullable") is True:
            required = []
        if required:
            s["required"] = required
        else:
            s.pop("required")
    for sub in _children(s):
        to_openapi_v2(sub)


def to_kube_openapi(schema: dict[str, Any], *, v2: bool) -> dict[str, Any]:
    """The published form of a CRD version's openAPIV3Schema (a new dict)."""
    out = structural(schema)
    unfold(out)
    if v2:
        to_openapi_v2(out)
    return out


def wrap_refs(schema: Any) -> Any:
    """A $ref with siblings becomes {"allOf": [{"$ref": ...}], <siblings>} (a new structure)."""
    if isinstance(schema, list):
        return [wrap_refs(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for k, v in schema.items():
        if k in ("properties", "patternProperties", "definitions") and isinstance(v, dict):
            out[k] = {n: wrap_refs(s) for n, s in v.items()}
        elif k in ("items", "additionalProperties", "not", *_JUNCTORS):
            out[k] = wrap_refs(v)
        else:
            out[k] = v
    if "$ref" in out and len(out) > 1:
        out["allOf"] = [{"$ref": out.pop("$ref")}]
    return out

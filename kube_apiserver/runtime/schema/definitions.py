"""The Kubernetes 1.33 OpenAPI definitions of the built-in types, read from the kubernetes-validate
package (kubernetes-json-schema/v1.33.0-local/_definitions.json) at first use.

That file is the swagger "definitions" in JSON Schema form: references are "#/$defs/<name>", a
field that is not required is typed ["<type>", "null"], apiVersion and kind carry an enum, and
IntOrString / Quantity were replaced by a bare oneOf (their descriptions lost). openapi_definitions()
turns it back into the form kube-apiserver serves, with every x-kubernetes-* extension kept:

- "#/definitions/" (OpenAPI v2, /openapi/v2): single types, "$ref" with a sibling "description".
  One deliberate difference: Quantity keeps "format": "quantity", which the structural schema
  engine keys on; the served v2 document drops it (kube's has none).
- "#/components/schemas/" (OpenAPI v3, /openapi/v3): what kube-openapi generates for v3, i.e. a
  reference with siblings becomes {"allOf": [{"$ref"}], ...siblings}, IntOrString and Quantity are
  oneOf schemas, and a field gets the "default" openapi-gen gives it from its Go type: {} for a
  non-pointer struct, the zero value for a non-pointer scalar without omitempty (and for the
  elements of slices and maps). The Go types are read from the protobuf field tables
  (runtime/protobuf/schemas), which record pointer and omitempty for every field.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import orjson

KUBERNETES_VERSION = "v1.33.0"
V2_REF_PREFIX = "#/definitions/"
V3_REF_PREFIX = "#/components/schemas/"
_REF_PREFIX = "#/$defs/"

INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"

# The descriptions kube serves for the two types the JSON Schema form rewrote.
_INT_OR_STRING_DESCRIPTION = (
    "IntOrString is a type that can hold an int32 or a string.  When used in JSON or YAML marshalling and "
    "unmarshalling, it produces or consumes the inner type.  This allows you to have, for example, a JSON "
    "field that can accept a name or number."
)
_QUANTITY_DESCRIPTION = (
    "Quantity is a fixed-point representation of a number. It provides convenient marshaling/unmarshaling in "
    "JSON and YAML, in addition to String() and AsInt64() accessors.\n\nThe serialization format is:\n\n``` "
    '<quantity>        ::= <signedNumber><suffix>\n\n\t(Note that <suffix> may be empty, from the "" case in '
    "<decimalSI>.)\n\n<digit>           ::= 0 | 1 | ... | 9 <digits>          ::= <digit> | <digit><digits> "
    '<number>          ::= <digits> | <digits>.<digits> | <digits>. | .<digits> <sign>            ::= "+" | '
    '"-" <signedNumber>    ::= <number> | <sign><number> <suffix>          ::= <binarySI> | <decimalExponent> '
    "| <decimalSI> <binarySI>        ::= Ki | Mi | Gi | Ti | Pi | Ei\n\n\t(International System of units; See: "
    'http://physics.nist.gov/cuu/Units/binary.html)\n\n<decimalSI>       ::= m | "" | k | M | G | T | P | '
    "E\n\n\t(Note that 1024 = 1Ki but 1000 = 1k; I didn't choose the capitalization.)\n\n<decimalExponent> ::= "
    '"e" <signedNumber> | "E" <signedNumber> ```\n\nNo matter which of the three exponent forms is used, no '
    "quantity may represent a number greater than 2^63-1 in magnitude, nor may it have more than 3 decimal "
    "places. Numbers larger or more precise will be capped or rounded up. (E.g.: 0.1m will rounded up to 1m.) "
    "This may be extended in the future if we require larger or smaller quantities.\n\nWhen a Quantity is "
    "parsed from a string, it will remember the type of suffix it had, and will use the same type again when "
    'it is serialized.\n\nBefore serializing, Quantity will be put in "canonical form". This means that '
    "Exponent/suffix will be adjusted up or down (with a corresponding increase or decrease in Mantissa) such "
    "that:\n\n- No precision is lost - No fractional digits will be emitted - The exponent (or suffix) is as "
    "large as possible.\n\nThe sign will be omitted unless the number is negative.\n\nExamples:\n\n- 1.5 will "
    'be serialized as "1500m" - 1.5Gi will be serialized as "1536Mi"\n\nNote that the quantity will NEVER be '
    "internally represented by a floating point number. That is the whole point of this exercise.\n\n"
    "Non-canonical values will still parse as long as they are well formed, but will be re-emitted in their "
    "canonical form. (So always use canonical form, or don't diff.)\n\nThis format is intended to make it "
    "difficult to use these numbers without writing some sort of special handling code in the hopes that that "
    "will cause implementors to also use a fixed point implementation."
)


@cache
def raw_definitions() -> dict[str, Any]:
    # find_spec locates the package without running its __init__ (which imports jsonschema and
    # friends: a fifth of a second of start-up for a data file).
    spec = importlib.util.find_spec("kubernetes_validate")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the kubernetes-validate package (the 1.33 OpenAPI definitions) is not installed")
    path = (
        Path(next(iter(spec.submodule_search_locations)))
        / "kubernetes-json-schema"
        / f"{KUBERNETES_VERSION}-local"
        / "_definitions.json"
    )
    return orjson.loads(path.read_bytes())["$defs"]


def _to_openapi(node: Any, ref_prefix: str) -> Any:
    if isinstance(node, list):
        return [_to_openapi(v, ref_prefix) for v in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for k, v in node.items():
        if k == "$ref" and isinstance(v, str) and v.startswith(_REF_PREFIX):
            out[k] = ref_prefix + v[len(_REF_PREFIX) :]
        elif k == "type" and isinstance(v, list):
            types = [t for t in v if t != "null"]
            if len(types) == 1:
                out[k] = types[0]
            elif types:
                out[k] = types
        elif k in ("properties", "patternProperties", "$defs"):
            out[k] = {name: _to_openapi(sub, ref_prefix) for name, sub in v.items()}
        else:
            out[k] = _to_openapi(v, ref_prefix)
    return out


def _v2_definition(name: str, schema: dict[str, Any], ref_prefix: str) -> dict[str, Any]:
    if name == INT_OR_STRING:
        return {"description": _INT_OR_STRING_DESCRIPTION, "format": "int-or-string", "type": "string"}
    if name == QUANTITY:
        return {"description": _QUANTITY_DESCRIPTION, "format": "quantity", "type": "string"}
    converted = _to_openapi(schema, ref_prefix)
    if converted.get("x-kubernetes-group-version-kind"):
        # "enum" on apiVersion/kind is the JSON Schema file's own addition, not kube's.
        for key in ("apiVersion", "kind"):
            prop = (converted.get("properties") or {}).get(key)
            if isinstance(prop, dict):
                prop.pop("enum", None)
    return converted


@cache
def _v2_definitions(ref_prefix: str) -> dict[str, dict[str, Any]]:
    return {name: _v2_definition(name, schema, ref_prefix) for name, schema in raw_definitions().items()}


@cache
def openapi_definitions(ref_prefix: str = V2_REF_PREFIX) -> dict[str, dict[str, Any]]:
    """name → schema as kube serves it: v2 form, or the v3 form when ref_prefix is V3_REF_PREFIX."""
    if ref_prefix != V3_REF_PREFIX:
        return _v2_definitions(ref_prefix)
    return {name: _v3_definition(name, schema) for name, schema in _v2_definitions(V3_REF_PREFIX).items()}


# --- OpenAPI v3 form --------------------------------------------------------------------------------

# Types with a hand-written OpenAPI form (their own JSON marshalling): openapi-gen gives them no default.
_OPAQUE_TYPES = frozenset(
    {
        INT_OR_STRING,
        QUANTITY,
        "io.k8s.apimachinery.pkg.apis.meta.v1.Time",
        "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime",
        "io.k8s.apimachinery.pkg.apis.meta.v1.Duration",
        "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1",
        "io.k8s.apimachinery.pkg.runtime.RawExtension",
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON",
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray",
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool",
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray",
    }
)
# A Go type as far as defaulting goes: "struct" (non-pointer), "ptr", "opaque", "bytes", "none" (a
# scalar with omitempty), ("zero", value), ("slice", element), ("map", value).
GoType = Any
_NO_DEFAULT = object()
_ZERO_BY_TYPE = {"string": "", "integer": 0, "number": 0, "boolean": False}


def _zero_of_code(code: int) -> Any:
    from kube_apiserver.runtime.protobuf import schema as pb

    if code == pb.T_STRING:
        return ""
    if code == pb.T_BOOL:
        return False
    return 0


def _go_type_of_ref(ref: Any) -> GoType:
    from kube_apiserver.runtime.protobuf import schema as pb

    if ref.code in pb.SCALAR_CODES.values():
        return "bytes" if ref.code == pb.T_BYTES else ("zero", _zero_of_code(ref.code))
    if ref.code != pb.T_MESSAGE:
        return "opaque"  # Time, Quantity, IntOrString, RawExtension, ...
    try:
        msg = pb.message(ref.message_name)
    except pb.UnknownMessageError:
        return "struct"
    return ("slice", _go_type_of_ref(msg.item)) if msg.item is not None else "struct"


def _go_type_of_field(field: Any) -> GoType:
    if field.is_map:
        return ("map", _go_type_of_ref(field.value))
    if field.repeated:
        return ("slice", _go_type_of_ref(field.type))
    if field.pointer:
        return "ptr"
    go_type = _go_type_of_ref(field.type)
    if isinstance(go_type, tuple) and go_type[0] == "zero" and field.omitempty:
        return "none"
    return go_type


def _struct_fields(msg: Any) -> Iterator[Any]:
    """A message's fields as its Go struct's JSON has them: an inline struct's fields in its place."""
    from kube_apiserver.runtime.protobuf import schema as pb

    for field in msg.fields:
        if field.inline and field.type.message_name:
            try:
                yield from _struct_fields(pb.message(field.type.message_name))
            except pb.UnknownMessageError:
                pass
        else:
            yield field


def _message_of(name: str) -> Any:
    """The protobuf table of a built-in definition, or None when there is none."""
    from kube_apiserver.runtime.protobuf import schema as pb

    if not name.startswith("io.k8s."):
        return None
    try:
        return pb.message("k8s.io." + name[len("io.k8s.") :])
    except pb.UnknownMessageError:
        return None


def _go_fields(name: str) -> dict[str, GoType] | None:
    """JSON field name → Go type of a definition, from the protobuf tables; None when they lack it."""
    msg = _message_of(name)
    return None if msg is None else {field.json: _go_type_of_field(field) for field in _struct_fields(msg)}


@cache
def omitted_when_empty(name: str) -> frozenset[str]:
    """The JSON fields of a built-in definition that Go's encoder leaves out when empty: those tagged
    omitempty whose Go type is a non-pointer scalar, a slice or a map ("", 0, false, [] and {} are not
    written back). Structs are never left out (omitempty does not apply to them: `resources: {}` stays),
    nor pointers that are set (`automountServiceAccountToken: false` stays). Empty for definitions
    without protobuf tables (apiextensions, apiregistration): their objects keep what they were sent."""
    msg = _message_of(name)
    if msg is None:
        return frozenset()
    out = set()
    for field in _struct_fields(msg):
        if field.omitempty and not field.pointer:
            go_type = _go_type_of_field(field)
            if go_type in ("none", "bytes") or (isinstance(go_type, tuple) and go_type[0] in ("slice", "map")):
                out.add(field.json)
    return frozenset(out)


def zero_fields_of(name: str) -> tuple[tuple[str, Any], ...]:
    """The fields of a built-in definition Go writes even when unset, with factories of their zero values
    (runtime/protobuf/decode.zero_fields); none for definitions without protobuf tables."""
    from kube_apiserver.runtime.protobuf.decode import zero_fields

    return zero_fields("k8s.io." + name[len("io.k8s.") :]) if name.startswith("io.k8s.") else ()


def _guess_go_type(schema: dict[str, Any], required: bool, prop: str) -> GoType:
    """For definitions without protobuf tables (apiextensions, apiregistration, version.Info) and fields
    newer than the tables: API conventions make required and top-level (metadata/spec/status) structs
    values, optional ones pointers; required scalars have no omitempty."""
    ref = schema.get("$ref")
    if isinstance(ref, str):
        if ref.rsplit("/", 1)[-1] in _OPAQUE_TYPES:
            return "opaque"
        return "struct" if required or prop in ("metadata", "spec", "status") else "ptr"
    type_ = schema.get("type")
    if type_ == "array":
        return ("slice", _guess_go_type(schema.get("items") or {}, True, ""))
    if type_ == "object" and isinstance(schema.get("additionalProperties"), dict):
        return ("map", _guess_go_type(schema["additionalProperties"], True, ""))
    if schema.get("format") == "byte":
        return "bytes"
    if required and type_ in _ZERO_BY_TYPE:
        return ("zero", _ZERO_BY_TYPE[type_])
    return "none"


def _default_of(go_type: GoType) -> Any:
    if go_type == "struct":
        return {}
    if isinstance(go_type, tuple) and go_type[0] == "zero":
        return go_type[1]
    return _NO_DEFAULT


def _element_of(go_type: GoType) -> GoType:
    if isinstance(go_type, tuple) and go_type[0] in ("slice", "map"):
        return go_type[1]
    return "none"


def _v3_property(schema: dict[str, Any], go_type: GoType) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in ("items", "additionalProperties") and isinstance(value, dict):
            out[key] = _v3_property(value, _element_of(go_type))
        else:
            out[key] = value
    default = _default_of(go_type)
    if default is not _NO_DEFAULT:
        out["default"] = default
    ref = out.pop("$ref", None)
    if ref is None:
        return out
    # OpenAPI v3 ignores the siblings of a $ref: kube-openapi wraps the reference in allOf.
    return {"allOf": [{"$ref": ref}], **out} if out else {"$ref": ref}


def _v3_definition(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    if name == INT_OR_STRING:
        return {
            "description": _INT_OR_STRING_DESCRIPTION,
            "format": "int-or-string",
            "oneOf": [{"type": "integer"}, {"type": "string"}],
        }
    if name == QUANTITY:
        return {"description": _QUANTITY_DESCRIPTION, "oneOf": [{"type": "string"}, {"type": "number"}]}
    props = schema.get("properties")
    if not isinstance(props, dict):
        return schema
    fields = _go_fields(name) or {}
    required = set(schema.get("required") or ())
    out = dict(schema)
    out["properties"] = {
        prop: _v3_property(sub, fields.get(prop) or _guess_go_type(sub, prop in required, prop))
        for prop, sub in props.items()
    }
    return out


@cache
def gvk_index() -> dict[tuple[str, str, str], str]:
    """(group, version, kind) → definition name, from x-kubernetes-group-version-kind."""
    index: dict[tuple[str, str, str], str] = {}
    for name, schema in raw_definitions().items():
        for gvk in schema.get("x-kubernetes-group-version-kind") or ():
            key = (gvk.get("group", ""), gvk.get("version", ""), gvk.get("kind", ""))
            # meta types (DeleteOptions, WatchEvent, ...) list every group; the first name wins.
            index.setdefault(key, name)
    return index


def definition_name(group: str, version: str, kind: str) -> str | None:
    return gvk_index().get((group, version, kind))

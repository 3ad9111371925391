"""The OpenAPI v2 document as a gnostic openapi.v2.Document protobuf message
(github.com/google/gnostic-models, openapiv2/OpenAPIv2.proto), the form kube-apiserver serves for
Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf and kubectl reads for validation,
`kubectl explain --output=plaintext-openapiv2` and the detection of server-side field validation.

proto3 rules: scalars at their zero value are left out, sub-messages are written even when empty,
maps are repeated Named* (name = 1, value = 2) entries in the document's order. Values of free form
(vendor extensions, default, example, enum) are openapi.v2.Any messages holding YAML text; JSON is
YAML, so the value's JSON is written there.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

import orjson

Encoder = Callable[[Any], bytes]


def _varint(n: int) -> bytes:
    n &= (1 << 64) - 1
    if n < 0x80:
        return bytes((n,))
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _ld(num: int, payload: bytes) -> bytes:
    """A length-delimited field (string, bytes or message)."""
    return _varint(num << 3 | 2) + _varint(len(payload)) + payload


def _string(num: int, value: Any) -> bytes:
    return _ld(num, value.encode()) if isinstance(value, str) and value else b""


def _strings(num: int, values: Any) -> bytes:
    if isinstance(values, str):
        values = [values]
    return b"".join(_ld(num, v.encode()) for v in values or () if isinstance(v, str))


def _bool(num: int, value: Any) -> bytes:
    return _varint(num << 3) + b"\x01" if value is True else b""


def _int64(num: int, value: Any) -> bytes:
    if isinstance(value, bool) or not isinstance(value, int) or value == 0:
        return b""
    return _varint(num << 3) + _varint(value)


def _double(num: int, value: Any) -> bytes:
    if isinstance(value, bool) or not isinstance(value, int | float) or value == 0:
        return b""
    return _varint(num << 3 | 1) + struct.pack("<d", float(value))


def _any(value: Any) -> bytes:
    """openapi.v2.Any: field 2 is the value as YAML."""
    return _ld(2, orjson.dumps(value) + b"\n")


def _named_any(num: int, name: str, value: Any) -> bytes:
    return _ld(num, _string(1, name) + _ld(2, _any(value)))


def _extensions(num: int, obj: dict[str, Any]) -> bytes:
    return b"".join(_named_any(num, k, v) for k, v in obj.items() if k.startswith("x-"))


# --- Schema ------------------------------------------------------------------------------------------

_SCHEMA_STRINGS = {"$ref": 1, "format": 2, "title": 3, "description": 4, "pattern": 13, "discriminator": 26}
_SCHEMA_INTS = {
    "maxLength": 11,
    "minLength": 12,
    "maxItems": 14,
    "minItems": 15,
    "maxProperties": 17,
    "minProperties": 18,
}
_SCHEMA_DOUBLES = {"multipleOf": 6, "maximum": 7, "minimum": 9}
_SCHEMA_BOOLS = {"exclusiveMaximum": 8, "exclusiveMinimum": 10, "uniqueItems": 16, "readOnly": 27}


def encode_schema(schema: Any) -> bytes:
    if not isinstance(schema, dict):
        return b""
    out: list[bytes] = []
    for key, value in schema.items():
        if key in _SCHEMA_STRINGS:
            out.append(_string(_SCHEMA_STRINGS[key], value))
        elif key in _SCHEMA_INTS:
            out.append(_int64(_SCHEMA_INTS[key], value))
        elif key in _SCHEMA_DOUBLES:
            out.append(_double(_SCHEMA_DOUBLES[key], value))
        elif key in _SCHEMA_BOOLS:
            out.append(_bool(_SCHEMA_BOOLS[key], value))
        elif key == "default":
            out.append(_ld(5, _any(value)))
        elif key == "required":
            out.append(_strings(19, value))
        elif key == "enum" and isinstance(value, list):
            out.extend(_ld(20, _any(v)) for v in value)
        elif key == "additionalProperties":
            item = _ld(1, encode_schema(value)) if isinstance(value, dict) else _bool(2, value)
            out.append(_ld(21, item))
        elif key == "type":
            out.append(_ld(22, _strings(1, value)))
        elif key == "items":
            items = value if isinstance(value, list) else [value]
            out.append(_ld(23, b"".join(_ld(1, encode_schema(s)) for s in items)))
        elif key == "allOf" and isinstance(value, list):
            out.extend(_ld(24, encode_schema(s)) for s in value)
        elif key == "properties" and isinstance(value, dict):
            props = b"".join(_ld(1, _string(1, n) + _ld(2, encode_schema(s))) for n, s in value.items())
            out.append(_ld(25, props))
        elif key == "example":
            out.append(_ld(30, _any(value)))
        elif key.startswith("x-"):
            out.append(_named_any(31, key, value))
    return b"".join(out)


# --- Parameters, operations, paths -------------------------------------------------------------------


def _non_body(param: dict[str, Any], path: bool) -> bytes:
    """QueryParameterSubSchema, or PathParameterSubSchema (which has no allowEmptyValue: one field less)."""
    shift = 1 if path else 0
    out = [
        _bool(1, param.get("required")),
        _string(2, param.get("in")),
        _string(3, param.get("description")),
        _string(4, param.get("name")),
    ]
    if not path:
        out.append(_bool(5, param.get("allowEmptyValue")))
    out += [
        _string(6 - shift, param.get("type")),
        _string(7 - shift, param.get("format")),
        _string(9 - shift, param.get("collectionFormat")),
    ]
    if "default" in param:
        out.append(_ld(10 - shift, _any(param["default"])))
    out.append(_bool(20 - shift, param.get("uniqueItems")))
    out.extend(_ld(21 - shift, _any(v)) for v in param.get("enum") or ())
    out.append(_extensions(23 - shift, param))
    return b"".join(out)


def encode_parameter(param: dict[str, Any]) -> bytes:
    """openapi.v2.Parameter."""
    where = param.get("in")
    if where == "body":
        body = (
            _string(1, param.get("description"))
            + _string(2, param.get("name"))
            + _string(3, where)
            + _bool(4, param.get("required"))
            + _ld(5, encode_schema(param.get("schema") or {}))
            + _extensions(6, param)
        )
        return _ld(1, body)
    sub = {"header": 1, "formData": 2, "query": 3, "path": 4}.get(str(where), 3)
    return _ld(2, _ld(sub, _non_body(param, path=where == "path")))


def _parameters_item(param: dict[str, Any]) -> bytes:
    """openapi.v2.ParametersItem: a parameter, or a JsonReference to a shared one."""
    ref = param.get("$ref")
    if isinstance(ref, str):
        return _ld(2, _string(1, ref) + _string(2, param.get("description")))
    return _ld(1, encode_parameter(param))


def _responses(responses: dict[str, Any]) -> bytes:
    out = []
    for code, resp in responses.items():
        body = _string(1, resp.get("description"))
        if isinstance(resp.get("schema"), dict):
            body += _ld(2, _ld(1, encode_schema(resp["schema"])))
        out.append(_ld(1, _string(1, code) + _ld(2, _ld(1, body + _extensions(5, resp)))))
    return b"".join(out) + _extensions(2, responses)


def encode_operation(op: dict[str, Any]) -> bytes:
    return b"".join(
        (
            _strings(1, op.get("tags")),
            _string(2, op.get("summary")),
            _string(3, op.get("description")),
            _string(5, op.get("operationId")),
            _strings(6, op.get("produces")),
            _strings(7, op.get("consumes")),
            b"".join(_ld(8, _parameters_item(p)) for p in op.get("parameters") or ()),
            _ld(9, _responses(op.get("responses") or {})),
            _strings(10, op.get("schemes")),
            _bool(11, op.get("deprecated")),
            _extensions(13, op),
        )
    )


_METHODS = {"get": 2, "put": 3, "post": 4, "delete": 5, "options": 6, "head": 7, "patch": 8}


def encode_path_item(item: dict[str, Any]) -> bytes:
    out = [_string(1, item.get("$ref"))]
    for method, num in _METHODS.items():
        if isinstance(item.get(method), dict):
            out.append(_ld(num, encode_operation(item[method])))
    out.extend(_ld(9, _parameters_item(p)) for p in item.get("parameters") or ())
    out.append(_extensions(10, item))
    return b"".join(out)


def _security_definition(definition: dict[str, Any]) -> bytes:
    """SecurityDefinitionsItem: only the apiKey kind (BearerToken) is used by kube."""
    api_key = (
        _string(1, definition.get("type"))
        + _string(2, definition.get("name"))
        + _string(3, definition.get("in"))
        + _string(4, definition.get("description"))
        + _extensions(5, definition)
    )
    return _ld(2, api_key)


def encode_document(doc: dict[str, Any]) -> bytes:
    """The whole openapi.v2.Document."""
    out = [_string(1, doc.get("swagger"))]
    info = doc.get("info") or {}
    out.append(_ld(2, _string(1, info.get("title")) + _string(2, info.get("version")) + _extensions(7, info)))
    out.append(_string(3, doc.get("host")))
    out.append(_string(4, doc.get("basePath")))
    paths = doc.get("paths") or {}
    named = b"".join(_ld(2, _string(1, p) + _ld(2, encode_path_item(i))) for p, i in paths.items() if p[:2] != "x-")
    out.append(_ld(8, _extensions(1, paths) + named))
    defs = doc.get("definitions") or {}
    out.append(_ld(9, b"".join(_ld(1, _string(1, n) + _ld(2, encode_schema(s))) for n, s in defs.items())))
    params = doc.get("parameters") or {}
    if params:
        out.append(_ld(10, b"".join(_ld(1, _string(1, n) + _ld(2, encode_parameter(p))) for n, p in params.items())))
    for requirement in doc.get("security") or ():
        entries = b"".join(_ld(1, _string(1, n) + _ld(2, _strings(1, v))) for n, v in requirement.items())
        out.append(_ld(12, entries))
    security = doc.get("securityDefinitions") or {}
    if security:
        items = b"".join(_ld(1, _string(1, n) + _ld(2, _security_definition(d))) for n, d in security.items())
        out.append(_ld(13, items))
    out.append(_extensions(16, doc))
    return b"".join(out)

"""The CEL type of a structural schema (k8s.io/apiserver/pkg/cel/common.SchemaDeclType): which
fields a rule sees, with which types and size bounds, and how a JSON value becomes a CEL value.

- objects with properties are object types whose fields are the escaped property names (Escape:
  "foo-bar" → foo__dash__bar, "namespace" → __namespace__); x-kubernetes-preserve-unknown-fields does
  not expose unknown fields; the root and embedded resources always have apiVersion, kind and
  metadata.name / metadata.generateName;
- additionalProperties give map(string, V), items give list(T); x-kubernetes-int-or-string is dyn;
- strings of format byte, duration, date and date-time are bytes, duration and timestamp values.

For type checking, object types become protobuf messages (the only struct types cel-expr-python's
checker knows); a list of lists or map of collections is checked with its inner collection as dyn.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass, field
from itertools import count
from typing import Any

from cel_expr_python import cel
from google.protobuf import descriptor_pb2

from kube_apiserver.runtime.cel import types as celtypes

MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024
MAX_DURATION_SIZE_JSON = 32
MAX_DATETIME_SIZE_JSON = 32
MIN_DURATION_SIZE_JSON = 3
JSON_DATE_SIZE = 12
MIN_DATETIME_SIZE_JSON = 21
MIN_STRING_SIZE = 2
MIN_BOOL_SIZE = 4
MIN_NUMBER_SIZE = 1

_RESERVED = {
    "true", "false", "null", "in", "as", "break", "const", "continue", "else", "for", "function", "if",
    "import", "let", "loop", "package", "namespace", "return", "var", "void", "while",
}  # fmt: skip
_EXPAND = re.compile(r"(__|[-./]|[^a-zA-Z0-9\-./_])")
_ESCAPES = {"__": "__underscores__", ".": "__dot__", "-": "__dash__", "/": "__slash__"}


def escape(name: str) -> str | None:
    """The CEL field name of a property, or None when it cannot be expressed (cel.Escape)."""
    if not name or name[0].isdigit():
        return None
    if name in _RESERVED:
        return f"__{name}__"
    ok = True

    def sub(m: re.Match[str]) -> str:
        nonlocal ok
        rep = _ESCAPES.get(m.group(0))
        if rep is None:
            ok = False
            return ""
        return rep

    out = _EXPAND.sub(sub, name)
    return out if ok else None


@dataclass
class DeclType:
    kind: str  # object, list, map, string, bytes, int, double, bool, timestamp, duration, dyn
    max_elements: int = 0
    min_serialized_size: int = 1
    fields: dict[str, tuple[str, DeclType]] = field(default_factory=dict)  # escaped → (property, type)
    elem: DeclType | None = None
    fmt: str = ""
    # True when the JSON value must be converted before CEL reads it (renamed keys, numbers, formats)
    needs_conversion: bool = False
    # objects: the properties to convert, (property, CEL name, type), computed on first use
    _convert: list[tuple[str, str, DeclType]] | None = None

    def convert_fields(self) -> list[tuple[str, str, DeclType]]:
        if self._convert is None:
            self._convert = [
                (name, escaped, ft)
                for escaped, (name, ft) in self.fields.items()
                if escaped != name or ft.needs_conversion or ft.kind == "int"
            ]
        return self._convert


def with_type_and_object_meta(schema: dict[str, Any]) -> dict[str, Any]:
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    meta = props.get("metadata") if isinstance(props.get("metadata"), dict) else {}
    mprops = meta.get("properties") if isinstance(meta.get("properties"), dict) else {}
    if (
        (props.get("kind") or {}).get("type") == "string"
        and (props.get("apiVersion") or {}).get("type") == "string"
        and meta.get("type") == "object"
        and (mprops.get("name") or {}).get("type") == "string"
        and (mprops.get("generateName") or {}).get("type") == "string"
    ):
        return schema
    string = {"type": "string"}
    new_props = dict(props)
    new_props["kind"] = string
    new_props["apiVersion"] = string
    new_props["metadata"] = {"type": "object", "properties": {"name": string, "generateName": string}}
    return {**schema, "type": schema.get("type") or "object", "properties": new_props}


def _max_string(schema: dict[str, Any]) -> int:
    fmt = schema.get("format")
    if schema.get("x-kubernetes-int-or-string"):
        return MAX_REQUEST_SIZE_BYTES - 2
    if fmt == "duration":
        return MAX_DURATION_SIZE_JSON
    if fmt == "date":
        return JSON_DATE_SIZE
    if fmt == "date-time":
        return MAX_DATETIME_SIZE_JSON
    return MAX_REQUEST_SIZE_BYTES - 2


def _nonneg(v: Any) -> int:
    return max(int(v), 0) if isinstance(v, int) and not isinstance(v, bool) else 0


def schema_decl_type(schema: Any, is_resource_root: bool) -> DeclType | None:
    """SchemaDeclType: None when the schema is not exposed to CEL."""
    if not isinstance(schema, dict):
        return None
    if schema.get("x-kubernetes-int-or-string"):
        max_len = schema.get("maxLength")
        top = _nonneg(max_len) * 4 if isinstance(max_len, int) else _max_string(schema)
        return DeclType("dyn", max_elements=top, min_serialized_size=1)
    if is_resource_root:
        schema = with_type_and_object_meta(schema)
    t = schema.get("type")
    if t == "array":
        items = schema.get("items")
        if not isinstance(items, dict):
            return None
        elem = schema_decl_type(items, bool(items.get("x-kubernetes-embedded-resource")))
        if elem is None:
            return None
        max_items = schema.get("maxItems")
        top = (
            _nonneg(max_items)
            if isinstance(max_items, int)
            else (MAX_REQUEST_SIZE_BYTES - 2) // (elem.min_serialized_size + 1)
        )
        return DeclType("list", top, 2, elem=elem, needs_conversion=elem.needs_conversion)
    if t == "object":
        addl = schema.get("additionalProperties")
        if isinstance(addl, dict):
            vt = schema_decl_type(addl, bool(addl.get("x-kubernetes-embedded-resource")))
            if vt is None:
                return None
            max_props = schema.get("maxProperties")
            top = (
                _nonneg(max_props)
                if isinstance(max_props, int)
                else (MAX_REQUEST_SIZE_BYTES - 2) // (vt.min_serialized_size + 6)
            )
            return DeclType("map", top, 2, elem=vt, needs_conversion=vt.needs_conversion)
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        required = {r for r in schema.get("required") or [] if isinstance(r, str)}
        obj = DeclType("object", 0, 2)
        for name, prop in props.items():
            ft = schema_decl_type(prop, isinstance(prop, dict) and bool(prop.get("x-kubernetes-embedded-resource")))
            if ft is None:
                continue
            escaped = escape(name)
            if escaped is not None:
                obj.fields[escaped] = (name, ft)
                obj.needs_conversion = obj.needs_conversion or ft.needs_conversion or escaped != name
            if name in required and "default" not in prop:
                obj.min_serialized_size += len(name) + ft.min_serialized_size + 4
        return obj
    if t == "string":
        fmt = schema.get("format")
        max_len = schema.get("maxLength")
        if fmt == "byte":
            top = _nonneg(max_len) if isinstance(max_len, int) else _max_string(schema)
            return DeclType("bytes", top, MIN_STRING_SIZE, fmt="byte", needs_conversion=True)
        if fmt == "duration":
            return DeclType("duration", _max_string(schema), MIN_DURATION_SIZE_JSON, fmt=fmt, needs_conversion=True)
        if fmt in ("date", "date-time"):
            size = JSON_DATE_SIZE if fmt == "date" else MIN_DATETIME_SIZE_JSON
            return DeclType("timestamp", _max_string(schema), size, fmt=fmt, needs_conversion=True)
        if isinstance(max_len, int):
            top = _nonneg(max_len) * 4
        elif isinstance(schema.get("enum"), list) and schema["enum"]:
            top = max((len(e) for e in schema["enum"] if isinstance(e, str)), default=0)
        else:
            top = _max_string(schema)
        return DeclType("string", top, MIN_STRING_SIZE)
    if t == "boolean":
        return DeclType("bool", 0, MIN_BOOL_SIZE)
    if t == "number":
        return DeclType("double", 0, MIN_NUMBER_SIZE, needs_conversion=True)
    if t == "integer":
        # JSON integers decode as int already; an integral float (1.0) is converted where it is met
        return DeclType("int", 0, MIN_NUMBER_SIZE)
    return None


def max_cardinality(min_size: int) -> int:
    return MAX_REQUEST_SIZE_BYTES // (min_size + 1)


# --- sizes for the cost estimator ---


def size_at(root: DeclType, path: list[str]) -> tuple[int, int] | None:
    """The (min, max) size of the data at path (from "self" or "oldSelf"), as sizeEstimator gives it."""
    if not path or path[0] not in ("self", "oldSelf"):
        return None
    node: DeclType | None = root
    for name in path[1:]:
        if node is None:
            return None
        if name in ("@items", "@values"):
            node = node.elem
        elif name == "@keys":
            if node.kind != "map":
                return None
            return (0, MAX_REQUEST_SIZE_BYTES - 2)
        else:
            entry = node.fields.get(name)
            node = entry[1] if entry else None
    if node is None:
        return None
    return (0, node.max_elements)


# --- protobuf messages for the checker ---

_COUNTER = count()
_F = descriptor_pb2.FieldDescriptorProto
_SCALAR_FIELDS = {
    "string": _F.TYPE_STRING,
    "bytes": _F.TYPE_BYTES,
    "int": _F.TYPE_INT64,
    "double": _F.TYPE_DOUBLE,
    "bool": _F.TYPE_BOOL,
}
_WKT = {
    "timestamp": ".google.protobuf.Timestamp",
    "duration": ".google.protobuf.Duration",
    "dyn": ".google.protobuf.Value",
}


class _Builder:
    def __init__(self, package: str) -> None:
        self.package = package
        self.file = descriptor_pb2.FileDescriptorProto(
            name=f"{package}.proto",
            package=package,
            syntax="proto3",
            dependency=[
                "google/protobuf/struct.proto",
                "google/protobuf/timestamp.proto",
                "google/protobuf/duration.proto",
            ],
        )
        self.n = 0
        self.names: dict[int, str] = {}

    def message(self, t: DeclType) -> str:
        if id(t) in self.names:
            return self.names[id(t)]
        name = f"Object{self.n}"
        self.n += 1
        self.names[id(t)] = f".{self.package}.{name}"
        msg = self.file.message_type.add(name=name)
        for number, (escaped, (_, ft)) in enumerate(sorted(t.fields.items()), start=1):
            self._field(msg, escaped, number, ft)
        return f".{self.package}.{name}"

    def _field(self, msg: Any, name: str, number: int, t: DeclType) -> None:
        f = msg.field.add(name=name, number=number, label=_F.LABEL_OPTIONAL)
        if t.kind == "list":
            f.label = _F.LABEL_REPEATED
            self._type(f, t.elem or DeclType("dyn"), nested=True)
        elif t.kind == "map":
            entry_name = _camel(name) + "Entry"  # protobuf insists on the map entry's conventional name
            entry = msg.nested_type.add(name=entry_name)
            entry.options.map_entry = True
            entry.field.add(name="key", number=1, label=_F.LABEL_OPTIONAL, type=_F.TYPE_STRING)
            value = entry.field.add(name="value", number=2, label=_F.LABEL_OPTIONAL)
            self._type(value, t.elem or DeclType("dyn"), nested=True)
            f.label = _F.LABEL_REPEATED
            f.type = _F.TYPE_MESSAGE
            f.type_name = f".{self.package}.{msg.name}.{entry_name}"
        else:
            self._type(f, t, nested=False)

    def _type(self, f: Any, t: DeclType, nested: bool) -> None:
        if t.kind in _SCALAR_FIELDS:
            f.type = _SCALAR_FIELDS[t.kind]
            return
        f.type = _F.TYPE_MESSAGE
        if t.kind == "object":
            f.type_name = self.message(t)
        elif t.kind == "list":
            f.type_name = ".google.protobuf.ListValue"
        elif t.kind == "map":
            f.type_name = ".google.protobuf.Struct"
        else:
            f.type_name = _WKT.get(t.kind, ".google.protobuf.Value")


def _camel(name: str) -> str:
    out, upper = [], True
    for c in name:
        if c == "_":
            upper = True
            continue
        out.append(c.upper() if upper else c)
        upper = False
    return "".join(out)


def cel_types(root: DeclType) -> tuple[Any, cel.Type]:
    """A descriptor pool holding root's object types, and the CEL type of root in it."""
    pool = celtypes.new_pool()
    builder = _Builder(f"k8s.selfType{next(_COUNTER)}")
    t = _cel_type(root, builder)
    pool.Add(builder.file)
    return pool, t


_SIMPLE = {
    "string": cel.Type.STRING,
    "bytes": cel.Type.BYTES,
    "int": cel.Type.INT,
    "double": cel.Type.DOUBLE,
    "bool": cel.Type.BOOL,
    "timestamp": cel.Type.TIMESTAMP,
    "duration": cel.Type.DURATION,
    "dyn": cel.Type.DYN,
}


def _cel_type(t: DeclType, builder: _Builder) -> cel.Type:
    if t.kind in _SIMPLE:
        return _SIMPLE[t.kind]
    if t.kind == "object":
        if id(t) not in builder.names:
            builder.message(t)
        return cel.Type(builder.names[id(t)].lstrip("."))
    inner = t.elem or DeclType("dyn")
    # nested collections are checked as dyn, as in the messages
    inner_type = cel.Type.DYN if inner.kind in ("list", "map") else _cel_type(inner, builder)
    if t.kind == "list":
        return cel.Type.List(inner_type)
    return cel.Type.Map(cel.Type.STRING, inner_type)


# --- JSON values → CEL values ---

_DURATION = re.compile(r"([0-9]*(?:\.[0-9]*)?)(ns|us|µs|μs|ms|s|m|h)")
_UNITS = {
    "ns": 1,
    "us": 1_000,
    "µs": 1_000,
    "μs": 1_000,
    "ms": 1_000_000,
    "s": 10**9,
    "m": 60 * 10**9,
    "h": 3600 * 10**9,
}


def _parse_duration(text: str) -> Any:
    s = text
    neg = s.startswith("-")
    if s[:1] in "+-":
        s = s[1:]
    if s == "0":
        return celtypes.duration(0)
    pos, total = 0, 0
    while pos < len(s):
        m = _DURATION.match(s, pos)
        if not m or not m.group(1) or m.group(1) == ".":
            return text
        total += int(float(m.group(1)) * _UNITS[m.group(2)])
        pos = m.end()
    if not s:
        return text
    total = -total if neg else total
    seconds, nanos = divmod(total, 10**9) if total >= 0 else (-((-total) // 10**9), -((-total) % 10**9))
    return celtypes.duration(seconds, nanos)


def _timestamp(text: str, fmt: str) -> Any:
    try:
        return celtypes.timestamp(text + "T00:00:00Z" if fmt == "date" else text)
    except ValueError:
        return text


def _int(value: Any) -> Any:
    return int(value) if isinstance(value, float) and value.is_integer() else value


def to_cel(value: Any, t: DeclType) -> Any:
    """The value a rule sees for JSON value of type t."""
    if value is None or not t.needs_conversion:
        return value
    k = t.kind
    if k == "object" and isinstance(value, dict):
        # what the type does not name stays as it is (metadata's other fields, unknown fields): the
        # checker refuses to select it anyway
        out = dict(value)
        for name, escaped, ft in t.convert_fields():
            if name in value:
                child = value[name]
                if escaped != name:
                    del out[name]
                out[escaped] = to_cel(child, ft) if ft.needs_conversion else _int(child) if ft.kind == "int" else child
        return out
    if k == "list" and isinstance(value, list) and t.elem is not None:
        return [to_cel(v, t.elem) for v in value]
    if k == "map" and isinstance(value, dict) and t.elem is not None:
        return {key: to_cel(v, t.elem) for key, v in value.items()}
    if k == "double" and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if k == "int" and isinstance(value, float) and value.is_integer():
        return int(value)
    if k == "timestamp" and isinstance(value, str):
        return _timestamp(value, t.fmt)
    if k == "duration" and isinstance(value, str):
        return _parse_duration(value)
    if k == "bytes" and isinstance(value, str):
        try:
            return base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            return value
    return value

"""Structural schemas and the walk that decodes an object against one.

A schema (the OpenAPI definition of a built-in kind, later a CRD's openAPIV3Schema) is compiled
once into a tree of Nodes. decode_check() then walks a decoded object the way kube-apiserver's
typed decoding does: it drops fields the schema does not know (reporting them for
fieldValidation), drops nulls as Go's decoder leaves zero values, drops the empty values of a built-in
type's omitempty fields ("", 0, false, [], {}) as Go's encoder never writes them back, checks JSON types and formats
(int32/int64 ranges, date-time, byte, quantity, int-or-string) and reports the first type error as
Go's encoding/json words it. validate_schema() reports required fields and the uniqueness of
x-kubernetes-list-type map/set lists as field causes, every one at once.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from kube_apiserver.runtime import gotime
from kube_apiserver.runtime.errors import StatusCause, field_duplicate, field_required
from kube_apiserver.runtime.quantity import QUANTITY_REGEX_TEXT, QuantityError, canonical_quantity
from kube_apiserver.runtime.schema.definitions import (
    definition_name,
    omitted_when_empty,
    openapi_definitions,
    zero_fields_of,
)

_INT_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}


class Node:
    """One schema node. kind is one of object (a struct with properties), map (additionalProperties),
    free (an object with no schema: RawExtension, FieldsV1, JSON), array, string, integer, number,
    boolean, int-or-string, quantity, any."""

    __slots__ = (
        "kind",
        "format",
        "props",
        "plain_fields",
        "items",
        "values",
        "required",
        "list_type",
        "map_keys",
        "go_type",
        "plain",
        "is_meta",
        "omit_empty",
        "zero_fields",
    )

    def __init__(self, kind: str, go_type: str = "") -> None:
        self.kind = kind
        self.format = ""
        self.props: dict[str, Node] = {}
        # The properties a value of the right Python type decodes as it is (strings without a format,
        # booleans, and integers within int32 range): the decoder's fast path over most of an
        # object's fields.
        self.plain_fields: dict[str, type] = {}
        self.items: Node | None = None
        self.values: Node | None = None
        self.required: tuple[str, ...] = ()
        self.list_type = ""
        self.map_keys: tuple[str, ...] = ()
        self.go_type = go_type  # "v1.PodSpec", "int32", "[]v1.Container", ... for Go-style messages
        # Derived once the node is filled (_finish), for the decoder's hot loops:
        self.plain: type | None = None  # the Python type of a value that decodes as it is (str, bool)
        self.is_meta = go_type == "v1.ObjectMeta"
        # The properties Go's encoder leaves out when empty (omitempty scalars, slices and maps of a
        # built-in type): decoding drops them, as kube-apiserver never writes them back.
        self.omit_empty: frozenset[str] = frozenset()
        # The properties Go's encoder writes even when unset (non-pointer structs, scalars without
        # omitempty), with factories of their zero values: decoding fills them in when absent.
        self.zero_fields: tuple[tuple[str, Callable[[], Any]], ...] = ()


def _go_package(def_name: str) -> str:
    parts = def_name.split(".")
    return f"{parts[-2]}.{parts[-1]}" if len(parts) >= 2 else def_name


class _Compiler:
    def __init__(self, definitions: dict[str, dict[str, Any]], go_types: bool = False) -> None:
        self.definitions = definitions
        self.compiled: dict[str, Node] = {}
        self.go_types = go_types  # built-in definitions: their Go fields' omitempty applies

    def definition(self, name: str) -> Node:
        node = self.compiled.get(name)
        if node is not None:
            return node
        schema = self.definitions.get(name) or {}
        # Registered before its children so that recursive types (JSONSchemaProps) terminate.
        node = Node("any", _go_package(name))
        self.compiled[name] = node
        self._fill(node, schema)
        _finish(node)
        if self.go_types and node.kind == "object":
            node.omit_empty = omitted_when_empty(name)
            node.zero_fields = zero_fields_of(name)
        return node

    def schema(self, schema: dict[str, Any]) -> Node:
        ref = schema.get("$ref")
        if isinstance(ref, str):
            return self.definition(ref.rsplit("/", 1)[-1])
        all_of = schema.get("allOf")
        if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], dict):
            return self.schema(all_of[0])
        node = Node("any")
        self._fill(node, schema)
        _finish(node)
        return node

    def _fill(self, node: Node, schema: dict[str, Any]) -> None:
        type_ = schema.get("type")
        fmt = schema.get("format", "")
        node.format = fmt
        if fmt == "int-or-string" or schema.get("x-kubernetes-int-or-string"):
            node.kind, node.go_type = "int-or-string", "intstr.IntOrString"
        elif fmt == "quantity":
            node.kind, node.go_type = "quantity", "resource.Quantity"
        elif type_ == "object" or "properties" in schema:
            props = schema.get("properties")
            addl = schema.get("additionalProperties")
            if props:
                node.kind = "object"
                node.props = {k: self.schema(v) for k, v in props.items()}
                node.plain_fields = {k: t for k, child in node.props.items() if (t := _plain_field(child)) is not None}
                node.required = tuple(schema.get("required") or ())
            elif isinstance(addl, dict):
                node.kind = "map"
                node.values = self.schema(addl)
                node.go_type = node.go_type or f"map[string]{node.values.go_type or 'interface {}'}"
            else:
                node.kind = "free"
        elif type_ == "array":
            node.kind = "array"
            node.items = self.schema(schema.get("items") or {})
            node.list_type = schema.get("x-kubernetes-list-type", "")
            node.map_keys = tuple(schema.get("x-kubernetes-list-map-keys") or ())
            node.go_type = f"[]{node.items.go_type or 'interface {}'}"
        elif type_ == "string":
            node.kind = "string"
            node.go_type = node.go_type or ("[]uint8" if fmt == "byte" else "string")
        elif type_ == "integer":
            node.kind = "integer"
            node.go_type = node.go_type or (fmt if fmt in _INT_RANGES else "int64")
        elif type_ == "number":
            node.kind, node.go_type = "number", node.go_type or "float64"
        elif type_ == "boolean":
            node.kind, node.go_type = "boolean", node.go_type or "bool"
        else:
            node.kind = "any"


def _plain_type(node: Node) -> type | None:
    if node.kind == "string" and not node.format:
        return str
    if node.kind == "boolean":
        return bool
    return None


def _plain_field(node: Node) -> type | None:
    """A field's type in plain_fields: an int there still needs the int32 range check."""
    return int if node.kind == "integer" else _plain_type(node)


def _finish(node: Node) -> None:
    node.plain = _plain_type(node)
    node.is_meta = node.go_type == "v1.ObjectMeta"


@cache
def _builtin_compiler() -> _Compiler:
    return _Compiler(openapi_definitions(), go_types=True)


@cache
def schema_for_kind(group: str, version: str, kind: str) -> Node | None:
    """The compiled schema of a built-in kind, or None when the definitions do not have it."""
    name = definition_name(group, version, kind)
    return _builtin_compiler().definition(name) if name else None


def compile_schema(schema: dict[str, Any]) -> Node:
    """Compile a self-contained schema (a CRD version's openAPIV3Schema)."""
    return _Compiler({}).schema(schema)


# --- decoding -------------------------------------------------------------------------------------


@dataclass
class DecodeReport:
    unknown: list[str] = field(default_factory=list)  # paths of dropped unknown fields, in order
    duplicates: list[str] = field(default_factory=list)  # paths of duplicated fields
    type_error: str = ""  # the first type error, in Go's words
    keys: int = 0  # how many object keys the walk saw (for the duplicate pre-check)

    def strict_errors(self) -> list[str]:
        return [*(f'duplicate field "{p}"' for p in self.duplicates), *(f'unknown field "{p}"' for p in self.unknown)]


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, str):
        return "string"
    if isinstance(value, int):
        return "number"
    if isinstance(value, float):
        return f"number {_go_float(value)}"
    if isinstance(value, list):
        return "array"
    return "object"


def _go_float(value: float) -> str:
    text = repr(value)
    return text[:-2] if text.endswith(".0") else text


class _Walker:
    """One decode. The walk keeps its trail (the keys and indexes from the root to the value being
    walked) and spells paths from it only for what it reports."""

    __slots__ = ("report", "trail")

    def __init__(self, report: DecodeReport) -> None:
        self.report = report
        self.trail: list[str | int] = []

    def path(self, key: str) -> str:
        """The path of field key of the current object: spec.containers[0].name."""
        out = ""
        for step in (*self.trail, key):
            if type(step) is int:
                out += f"[{step}]"
            else:
                out = f"{out}.{step}" if out else step
        return out

    def go_path(self) -> str:
        """encoding/json's field path of the current value: the field names from the root, no indexes."""
        return ".".join(step for step in self.trail if type(step) is str)

    def type_error(self, value: Any, node: Node, owner: Node) -> None:
        """owner is the innermost struct holding the value (Go names the field by it)."""
        if self.report.type_error:
            return
        struct = owner.go_type.rsplit(".", 1)[-1]
        where = f"Go struct field {struct}.{self.go_path()}" if struct else "Go value"
        self.report.type_error = f"json: cannot unmarshal {_json_kind(value)} into {where} of type {node.go_type}"

    def value(self, value: Any, node: Node, owner: Node) -> Any:
        """The decoded value (possibly rewritten: canonical quantity), or the value unchanged on error."""
        kind = node.kind
        if kind == "object":
            if type(value) is dict:
                self.object(value, node)
            else:
                self.type_error(value, node, owner)
        elif kind == "string":
            if type(value) is not str:
                self.type_error(value, node, owner)
            elif node.format:
                return self.string_format(value, node)
        elif kind == "array":
            if type(value) is list:
                self.array(value, node, owner, None)
            else:
                self.type_error(value, node, owner)
        elif kind == "integer":
            if type(value) is not int:
                self.type_error(value, node, owner)
            else:
                lo, hi = _INT_RANGES.get(node.format, _INT_RANGES["int64"])
                if not lo <= value <= hi and not self.report.type_error:
                    struct = owner.go_type.rsplit(".", 1)[-1]
                    self.report.type_error = (
                        f"json: cannot unmarshal number {value} into Go struct field {struct}.{self.go_path()} "
                        f"of type {node.go_type}"
                    )
        elif kind == "map":
            if type(value) is dict:
                self.map(value, node, owner, None)
            else:
                self.type_error(value, node, owner)
        elif kind == "boolean":
            if type(value) is not bool:
                self.type_error(value, node, owner)
        elif kind == "quantity":
            # a tuple, not str | int | float: the union would be built anew at every value
            if isinstance(value, bool) or not isinstance(value, (str, int, float)):
                self.type_error(value, node, owner)
            else:
                try:
                    return canonical_quantity(value)
                except QuantityError:
                    if not self.report.type_error:
                        self.report.type_error = f"quantities must match the regular expression '{QUANTITY_REGEX_TEXT}'"
        elif kind == "int-or-string":
            if type(value) is not str and type(value) is not int:
                if not self.report.type_error:
                    self.report.type_error = f"json: cannot unmarshal {_json_kind(value)} into Go value of type int32"
        elif kind == "number":
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                self.type_error(value, node, owner)
        elif kind == "free":
            if type(value) is dict:
                self.report.keys += _count_keys(value)
            else:
                self.type_error(value, node, owner)
        # "any": anything goes
        return value

    def array(self, items: list[Any], node: Node, owner: Node, key: str | None) -> None:
        """key is the array's field, put on the trail only once an item needs a walk (None when the
        caller has put it there)."""
        item_node = node.items
        assert item_node is not None
        trail = self.trail
        of_structs = item_node.kind == "object"
        plain = item_node.plain
        # Struct items whose fields are all plain (env vars, mounts, ports) need no walk of their
        # own; an embedded ObjectMeta always gets one (it may gain a creationTimestamp).
        plain_fields = item_node.plain_fields if of_structs and not item_node.is_meta else None
        plain_keys = 0
        pushed = False
        for i, item in enumerate(items):
            if plain_fields is not None:
                if type(item) is dict:
                    if _is_plain_struct(item, item_node):
                        plain_keys += len(item)
                        continue
                elif item is None:
                    continue
            elif item is None or type(item) is plain:
                continue
            if not pushed and key is not None:
                trail.append(key)
                pushed = True
            trail.append(i)
            if of_structs and type(item) is dict:
                self.object(item, item_node)
            else:
                items[i] = self.value(item, item_node, owner)
            trail.pop()
        if pushed:
            trail.pop()
        self.report.keys += plain_keys

    def map(self, entries: dict[str, Any], node: Node, owner: Node, key: str | None) -> None:
        """key as for array(): on the trail only for a value that needs a walk."""
        values = node.values
        assert values is not None
        self.report.keys += len(entries)
        trail = self.trail
        plain = values.plain
        quantities = values.kind == "quantity"
        pushed = False
        for k, v in entries.items():
            if type(v) is plain:
                continue  # labels, annotations, selectors: nothing to check
            if quantities and type(v) is str:
                # resource lists: the canonical text, as value() gives it (no path in its error)
                try:
                    entries[k] = canonical_quantity(v)
                except QuantityError:
                    if not self.report.type_error:
                        self.report.type_error = f"quantities must match the regular expression '{QUANTITY_REGEX_TEXT}'"
                continue
            if v is None:
                # null into a map element leaves the element's zero value
                entries[k] = "" if values.kind == "string" else v
                continue
            if not pushed and key is not None:
                trail.append(key)
                pushed = True
            trail.append(k)
            new = self.value(v, values, owner)
            trail.pop()
            if new is not v:
                entries[k] = new
        if pushed:
            trail.pop()

    def string_format(self, value: str, node: Node) -> str:
        """The string as decoded: a metav1.Time or MicroTime in the UTC form kube writes it back in."""
        if self.report.type_error:
            return value
        fmt = node.format
        if fmt == "date-time":
            try:
                return gotime.normalize(value, micro=node.go_type.endswith("MicroTime"))
            except gotime.TimeParseError as e:
                self.report.type_error = str(e)
        elif fmt == "byte":
            try:
                base64.b64decode(value, validate=True)
            except (binascii.Error, ValueError):
                self.report.type_error = f"illegal base64 data at input byte {_bad_base64_offset(value)}"
        return value

    def object(self, obj: dict[str, Any], node: Node) -> None:
        props = node.props
        report = self.report
        trail = self.trail
        plain = node.plain_fields
        omit = node.omit_empty
        report.keys += len(obj)
        drop: list[str] | None = None
        for key, value in obj.items():
            vtype = type(value)
            if vtype is plain.get(key) and (vtype is not int or -(2**31) <= value < 2**31):
                if not value and key in omit:  # "", 0 or false of an omitempty field
                    if drop is None:
                        drop = []
                    drop.append(key)
                continue
            child = props.get(key)
            if child is None:
                report.unknown.append(self.path(key))
                if drop is None:
                    drop = []
                drop.append(key)
                continue
            if value is None:
                # Go leaves the zero value, which omitempty fields do not write back.
                if drop is None:
                    drop = []
                drop.append(key)
                continue
            # Fast paths for nested structs (plain strings, booleans and int32s are done above).
            kind = child.kind
            if not value and (kind == "array" and vtype is list or kind == "map" and vtype is dict):
                if key in omit:  # [] or {} of an omitempty slice or map
                    if drop is None:
                        drop = []
                    drop.append(key)
                continue
            if kind == "object" and vtype is dict:
                if value or child.is_meta or child.zero_fields:  # ({} of most structs has nothing to walk)
                    trail.append(key)
                    self.object(value, child)
                    trail.pop()
                continue
            elif kind == "array" and vtype is list:
                # An array whose items all decode as they are (args, env, mounts, ports) is seen
                # through here, without a call; any other goes to array(), which walks it whole.
                item_node = child.items
                if item_node is None:
                    pass
                elif item_node.kind == "object" and not item_node.is_meta:
                    item_keys = 0
                    for item in value:
                        if type(item) is not dict or not _is_plain_struct(item, item_node):
                            break
                        item_keys += len(item)
                    else:
                        report.keys += item_keys
                        continue
                elif item_node.plain is not None:
                    item_type = item_node.plain
                    for item in value:
                        if type(item) is not item_type:
                            break
                    else:
                        continue
                self.array(value, child, node, key)
                continue
            elif kind == "map" and vtype is dict:
                # (a map of plain values, labels and annotations, is seen through here, as map() would)
                item_type = child.values.plain if child.values is not None else None
                if item_type is not None:
                    for v in value.values():
                        if type(v) is not item_type:
                            break
                    else:
                        report.keys += len(value)
                        continue
                self.map(value, child, node, key)
                continue
            elif kind == "int-or-string" and (vtype is str or vtype is int):
                continue
            trail.append(key)
            new = self.value(value, child, node)
            trail.pop()
            if not new and key in omit:  # (0.0, a "" of []byte)
                if drop is None:
                    drop = []
                drop.append(key)
            elif new is not value:
                obj[key] = new
        if drop:
            for key in drop:
                del obj[key]
        for key, zero in node.zero_fields:
            if key not in obj:
                child = props.get(key)
                if child is not None and child.kind == "object":
                    # a struct's zero value, walked for its own such fields (an ObjectMeta's null time)
                    value = obj[key] = {}
                    trail.append(key)
                    self.object(value, child)
                    trail.pop()
                else:
                    obj[key] = zero()
        if node.is_meta and trail and "creationTimestamp" not in obj:
            # An embedded ObjectMeta (a template's) writes its zero creationTimestamp as null.
            obj["creationTimestamp"] = None


def _is_plain_struct(item: dict[str, Any], node: Node) -> bool:
    """Whether every field of a struct item is one its type decodes as it is (strings, bools, int32s),
    none is an empty value its type leaves out, and none its type always writes is missing."""
    plain_fields, omit = node.plain_fields, node.omit_empty
    for k, v in item.items():
        vtype = type(v)
        if vtype is not plain_fields.get(k) or (vtype is int and not -(2**31) <= v < 2**31) or not v and k in omit:
            return False
    for k, _ in node.zero_fields:
        if k not in item:
            return False
    return True


def _count_keys(value: Any) -> int:
    if isinstance(value, dict):
        return len(value) + sum(_count_keys(v) for v in value.values())
    if isinstance(value, list):
        return sum(_count_keys(v) for v in value)
    return 0


def _bad_base64_offset(value: str) -> int:
    allowed = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")
    for i, ch in enumerate(value):
        if ch not in allowed:
            return i
    return max(len(value) - (len(value) % 4 or 4), 0)


def decode_check(obj: dict[str, Any], node: Node) -> DecodeReport:
    """Walk obj against node in place: drop unknown fields and nulls, canonicalize quantities,
    and report unknown fields and the first type error."""
    report = DecodeReport()
    _Walker(report).object(obj, node)
    return report


def zero_value(node: Node) -> Any:
    """What Go writes for a struct left at its zero value: the fields without omitempty (the
    schema's required ones) at their zero values; lists and maps are left out (nil)."""
    if node.kind == "object":
        out = {}
        for name in node.required:
            child = node.props.get(name)
            if child is not None and (child.kind == "object" or child.kind in _SCALAR_ZEROS):
                out[name] = zero_value(child)
        return out
    return _SCALAR_ZEROS.get(node.kind)


_SCALAR_ZEROS: dict[str, Any] = {"integer": 0, "number": 0, "string": "", "boolean": False}


# --- validation (422 causes) ----------------------------------------------------------------------


def validate_schema(obj: Any, node: Node, path: str = "") -> list[StatusCause]:
    """Required fields and x-kubernetes-list-type uniqueness, every violation at once."""
    causes: list[StatusCause] = []
    _validate(obj, node, path, causes)
    return causes


def _validate(value: Any, node: Node, path: str, causes: list[StatusCause]) -> None:
    kind = node.kind
    if kind == "object" and isinstance(value, dict):
        prefix = f"{path}." if path else ""
        for name in node.required:
            if name not in value:
                causes.append(field_required(prefix + name))
        for key, child in node.props.items():
            sub = value.get(key)
            if sub is not None and child.kind in ("object", "array", "map"):
                _validate(sub, child, prefix + key, causes)
    elif kind == "array" and isinstance(value, list):
        items = node.items
        assert items is not None
        if node.list_type == "map" and node.map_keys:
            seen: set[tuple[Any, ...]] = set()
            for i, item in enumerate(value):
                if not isinstance(item, dict):
                    continue
                key = tuple(_hashable(item.get(k)) for k in node.map_keys)
                if key in seen:
                    causes.append(
                        StatusCause(
                            "FieldValueDuplicate",
                            f"Duplicate value: {_map_key_text(item, node.map_keys)}",
                            f"{path}[{i}]",
                        )
                    )
                seen.add(key)
        elif node.list_type == "set":
            seen_items: set[Any] = set()
            for i, item in enumerate(value):
                h = _hashable(item)
                if h in seen_items:
                    causes.append(field_duplicate(f"{path}[{i}]", item))
                seen_items.add(h)
        if items.kind in ("object", "array", "map"):
            for i, item in enumerate(value):
                _validate(item, items, f"{path}[{i}]", causes)
    elif kind == "map" and isinstance(value, dict):
        values = node.values
        assert values is not None
        if values.kind in ("object", "array", "map"):
            for k, v in value.items():
                _validate(v, values, f"{path}[{k}]", causes)


def _hashable(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(_hashable(v) for v in value)
    return value


def _map_key_text(item: dict[str, Any], keys: tuple[str, ...]) -> str:
    # kube shows the item's key fields as a Go map value
    inner = ", ".join(f'"{k}":{_go_repr(item.get(k))}' for k in keys if k in item)
    return f"map[string]interface {{}}{{{inner}}}"


def _go_repr(value: Any) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)

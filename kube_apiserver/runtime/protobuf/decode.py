"""Decoding of application/vnd.kubernetes.protobuf request bodies into the dicts their JSON form gives.

A body is the 4-byte magic b"k8s\\x00" and a runtime.Unknown message: typeMeta {apiVersion, kind},
raw (the object's own message), contentEncoding, contentType. The object is turned into what
encoding/json makes of the Go struct the apiserver would decode it into:

- fields are named by their `json` tags and come out in Go struct order, kind and apiVersion first;
- a non-pointer field's zero value is left out when the tag has omitempty (gogo-protobuf writes
  non-pointer fields even when zero); a pointer field on the wire is kept even when zero or false
  (proto2 presence); a non-pointer field without omitempty is emitted even when absent (zero);
- nested non-pointer structs are always emitted, as Go does ({}), inline structs are spliced in;
- nil slices, maps and pointers are left out rather than emitted as null;
- metav1.Time -> "2006-01-02T15:04:05Z" (seconds only, as Time's protobuf unmarshalling keeps),
  MicroTime -> six fraction digits, Duration -> Go's "1h2m3s", resource.Quantity -> its string,
  IntOrString -> int or string, []byte -> base64, RawExtension and FieldsV1 -> their JSON,
  named slices (ExtraValue, Verbs) -> lists, map entries -> dicts.

Unknown fields are skipped, as Go's generated unmarshallers do. Malformed input raises
ProtobufDecodeError (a ValueError) with a message for a 400 response.
"""

from __future__ import annotations

import base64
import struct
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson

from kube_apiserver.runtime.protobuf.schema import (
    NUMERIC_CODES,
    T_BOOL,
    T_BYTES,
    T_DOUBLE,
    T_DURATION,
    T_FIELDSV1,
    T_FIXED32,
    T_FIXED64,
    T_FLOAT,
    T_INT32,
    T_INT64,
    T_INTORSTRING,
    T_MESSAGE,
    T_MICROTIME,
    T_QUANTITY,
    T_SFIXED32,
    T_SFIXED64,
    T_SINT32,
    T_SINT64,
    T_STRING,
    T_TIME,
    T_UINT32,
    T_UINT64,
    Field,
    Message,
    TypeRef,
    UnknownMessageError,
    message,
    message_for_kind,
)

MAGIC = b"k8s\x00"
MEDIA_TYPE = "application/vnd.kubernetes.protobuf"

_MASK64 = (1 << 64) - 1
_UNPACK_Q = struct.Struct("<Q").unpack_from
_UNPACK_I = struct.Struct("<I").unpack_from
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_GO_ZERO_TIME_SECONDS = -62135596800  # time.Time{}.Unix()
_MISSING = object()


# the protobuf serializer's words for a body without the magic prefix
_NOT_PROTOBUF = (
    "provided data does not appear to be a protobuf message, expected prefix [" + " ".join(map(str, MAGIC)) + "]"
)


class ProtobufDecodeError(ValueError):
    """The body is not a valid Kubernetes protobuf object (the server answers 400)."""


def decode_protobuf(body: bytes) -> dict[str, Any]:
    """Decodes a Kubernetes protobuf body (magic + runtime.Unknown) into its JSON-shaped dict."""
    if not isinstance(body, bytes | bytearray | memoryview):
        raise ProtobufDecodeError("protobuf body must be bytes")
    body = bytes(body)
    if not body:
        raise ProtobufDecodeError("empty data")
    if body[:4] != MAGIC:
        raise ProtobufDecodeError(_NOT_PROTOBUF)
    api_version, kind, raw, content_encoding = _unknown(body, 4, len(body))
    if content_encoding:
        raise ProtobufDecodeError(f"unsupported protobuf contentEncoding {content_encoding!r}")
    try:
        msg = message_for_kind(api_version, kind)
    except UnknownMessageError as e:
        raise ProtobufDecodeError(str(e)) from None
    out: dict[str, Any] = {"kind": kind, "apiVersion": api_version}
    out.update(_decode(msg, body, raw[0], raw[1]))
    return out


def decode_message(data: bytes, message_name: str) -> dict[str, Any]:
    """Decodes one bare message (no magic, no envelope) by its full proto name."""
    try:
        msg = message(message_name)
    except UnknownMessageError as e:
        raise ProtobufDecodeError(str(e)) from None
    data = bytes(data)
    return _decode(msg, data, 0, len(data))


def peek_type_meta(body: bytes) -> tuple[str, str]:
    """(apiVersion, kind) of a protobuf body without decoding the object."""
    body = bytes(body)
    if body[:4] != MAGIC:
        raise ProtobufDecodeError(_NOT_PROTOBUF)
    api_version, kind, _, _ = _unknown(body, 4, len(body))
    return api_version, kind


# --- wire ---


def _varint(buf: bytes, pos: int, end: int) -> tuple[int, int]:
    result = 0
    shift = 0
    while True:
        if pos >= end:
            raise ProtobufDecodeError("unexpected end of protobuf data in a varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result & _MASK64, pos
        shift += 7
        if shift >= 70:
            raise ProtobufDecodeError("protobuf varint overflows 64 bits")


def _skip(buf: bytes, pos: int, end: int, wt: int) -> int:
    if wt == 0:
        return _varint(buf, pos, end)[1]
    if wt == 2:
        n, pos = _varint(buf, pos, end)
        pos += n
    elif wt == 1:
        pos += 8
    elif wt == 5:
        pos += 4
    else:
        raise ProtobufDecodeError(f"unsupported protobuf wire type {wt}")
    if pos > end:
        raise ProtobufDecodeError("unexpected end of protobuf data")
    return pos


def _unknown(buf: bytes, pos: int, end: int) -> tuple[str, str, tuple[int, int], str]:
    api_version = kind = content_encoding = ""
    raw = (pos, pos)
    while pos < end:
        tag, pos = _varint(buf, pos, end)
        num, wt = tag >> 3, tag & 7
        if num in (1, 2, 3, 4) and wt != 2:
            raise ProtobufDecodeError(f"proto: wrong wireType = {wt} for field {num} of runtime.Unknown")
        if wt != 2:
            pos = _skip(buf, pos, end, wt)
            continue
        n, pos = _varint(buf, pos, end)
        e = pos + n
        if e > end:
            raise ProtobufDecodeError("unexpected end of protobuf data in runtime.Unknown")
        if num == 1:
            p = pos
            while p < e:
                t2, p = _varint(buf, p, e)
                if t2 & 7 != 2:
                    p = _skip(buf, p, e, t2 & 7)
                    continue
                n2, p = _varint(buf, p, e)
                if p + n2 > e:
                    raise ProtobufDecodeError("unexpected end of protobuf data in runtime.TypeMeta")
                if t2 >> 3 == 1:
                    api_version = _str(buf, p, p + n2)
                elif t2 >> 3 == 2:
                    kind = _str(buf, p, p + n2)
                p += n2
        elif num == 2:
            raw = (pos, e)
        elif num == 3:
            content_encoding = _str(buf, pos, e)
        pos = e
    return api_version, kind, raw, content_encoding


def _str(buf: bytes, s: int, e: int) -> str:
    return buf[s:e].decode("utf-8", "replace")


class _FieldPlan:
    """How one field is read and emitted (derived from schema.Field once per message)."""

    __slots__ = (
        "field",
        "index",
        "json",
        "kind",
        "code",
        "repeated",
        "keep_zero",
        "inline",
        "sub",
        "default",
        "wire_type",
    )

    def __init__(self, f: Field, index: int) -> None:
        self.field = f
        self.index = index
        self.json = f.json
        self.repeated = f.repeated
        self.inline = f.inline
        self.wire_type = f.wire_type
        code = self.code = f.type.code
        # scalars: a zero value is kept for pointers (proto2 presence) and fields without omitempty
        self.keep_zero = f.pointer or not f.omitempty or f.repeated
        self.sub: Any = None
        self.default: Any = None  # factory of the value of a field absent from the wire, or None
        if f.is_map:
            self.kind = _K_MAP
        elif code == T_STRING:
            self.kind = _K_STRING
        elif code == T_BYTES:
            self.kind = _K_BYTES
        elif code == T_MESSAGE:
            m = f.type.message
            if m.item is not None:
                self.kind = _K_LIST
                self.sub = m.item
            else:
                self.kind = _K_MESSAGE
                self.sub = m
                self.keep_zero = True  # structs are never "empty" to encoding/json
        elif code >= T_TIME:
            self.kind = _K_SPECIAL
            self.keep_zero = True
        else:
            self.kind = _K_SCALAR
        if f.pointer or f.repeated or f.is_map or self.kind == _K_LIST:
            return
        if self.kind == _K_MESSAGE:  # a non-pointer struct: Go always emits it
            sub = self.sub
            self.default = lambda: _decode(sub, b"", 0, 0)
        elif self.kind == _K_SPECIAL:
            if _special(code, b"", 0, 0) is not None:
                self.default = lambda: _special(code, b"", 0, 0)
        elif not f.omitempty and self.kind != _K_BYTES:
            zero = _ZERO[code]
            self.default = lambda: zero


class _Plan:
    __slots__ = ("by_number", "order", "name", "defaults", "number_ordered", "has_inline")

    def __init__(self, msg: Message) -> None:
        self.name = _short(msg)
        self.order = tuple(_FieldPlan(f, i) for i, f in enumerate(msg.fields))
        self.by_number = {fp.field.number: fp for fp in self.order}
        self.defaults = tuple(fp for fp in self.order if fp.default is not None)
        numbers = [fp.field.number for fp in self.order]
        self.number_ordered = numbers == sorted(numbers)  # Go order is field number order
        self.has_inline = any(fp.inline for fp in self.order)


def zero_fields(message_name: str) -> tuple[tuple[str, Callable[[], Any]], ...]:
    """The fields Go's encoder writes even when a struct leaves them unset, each as (JSON name, factory of a
    fresh zero value): non-pointer structs (with their own such fields), Quantity "0", IntOrString 0,
    Duration "0s" and scalars without omitempty; an inline struct's fields in its place. The JSON decoder
    fills them in as decoding into the Go type would. Empty for a message without tables."""
    try:
        msg = message(message_name)
    except UnknownMessageError:
        return ()
    out: list[tuple[str, Callable[[], Any]]] = []
    for fp in _plan(msg).defaults:
        make = fp.default
        if fp.inline:
            for key in make():
                out.append((key, lambda make=make, key=key: make()[key]))
        else:
            out.append((fp.json, make))
    return tuple(out)


def go_zero_json(message_name: str) -> dict[str, Any]:
    """What encoding/json writes for the zero value of a message's Go struct, in struct order: structs (never
    empty to it) as their own zero, Time and the other special types as their MarshalJSON writes a zero
    (null, "0", 0), scalars without omitempty as their zero, and null for each pointer, slice and map without
    omitempty. The object of a watch's BOOKMARK is an empty object of the kind written so. {} for a message
    without tables."""
    try:
        return _zero_json(message(message_name))
    except UnknownMessageError:
        return {}


def _zero_json(msg: Message) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for index, f in enumerate(msg.fields):
        fp = _FieldPlan(f, index)
        if f.inline and fp.kind == _K_MESSAGE:
            out.update(_zero_json(fp.sub))
        elif f.pointer or f.repeated or f.is_map or fp.kind in (_K_LIST, _K_BYTES):
            if not f.omitempty:
                out[f.json] = None
        elif fp.kind == _K_MESSAGE:
            out[f.json] = _zero_json(fp.sub)
        elif fp.kind == _K_SPECIAL:
            out[f.json] = fp.default() if fp.default is not None else None
        elif not f.omitempty:
            out[f.json] = fp.default()
    return out


def _item_index(item: tuple[_FieldPlan, Any]) -> int:
    return item[0].index


_SMALL_IS_IDENTITY = frozenset({T_INT32, T_INT64, T_UINT32, T_UINT64, T_FIXED32, T_FIXED64})
_K_STRING, _K_BYTES, _K_SCALAR, _K_MESSAGE, _K_LIST, _K_SPECIAL, _K_MAP = range(7)
_plans: dict[Message, _Plan] = {}


def _plan(msg: Message) -> _Plan:
    p = _plans.get(msg)
    if p is None:
        p = _plans[msg] = _Plan(msg)
    return p


def _decode(msg: Message, buf: bytes, pos: int, end: int) -> dict[str, Any]:
    """The JSON dict of the message in buf[pos:end]."""
    plan = _plans.get(msg) or _plan(msg)
    by_number = plan.by_number
    present: dict[_FieldPlan, Any] = {}
    spans: dict[_FieldPlan, Any] | None = None  # non-repeated message fields, for merging a repeat
    ordered = plan.number_ordered
    last = 0
    while pos < end:
        tag = buf[pos]
        pos += 1
        if tag >= 0x80:
            tag, pos = _varint(buf, pos - 1, end)
        wt = tag & 7
        if tag < last:
            ordered = False
        last = tag
        fp = by_number.get(tag >> 3)
        if fp is None:
            if tag >> 3 == 0:
                raise ProtobufDecodeError(f"proto: illegal tag 0 (wire type {wt}) in {plan.name}")
            pos = _skip(buf, pos, end, wt)
            continue
        kind = fp.kind
        if wt == 2:
            if pos >= end:
                raise ProtobufDecodeError(f"unexpected end of protobuf data in {plan.name}")
            n = buf[pos]
            pos += 1
            if n >= 0x80:
                n, pos = _varint(buf, pos - 1, end)
            e = pos + n
            if e > end:
                raise ProtobufDecodeError(f"unexpected end of protobuf data in {plan.name}.{fp.json}")
            if kind == _K_STRING:
                v: Any = buf[pos:e].decode("utf-8", "replace")
            elif kind == _K_MESSAGE:
                if fp.repeated:
                    v = _decode(fp.sub, buf, pos, e)
                else:
                    if spans is None:
                        spans = {}
                    prev = spans.get(fp)
                    if prev is None:
                        spans[fp] = (pos, e)
                        v = _decode(fp.sub, buf, pos, e)
                    else:  # a message field seen twice merges: protobuf defines that as concatenation
                        merged = (prev if isinstance(prev, bytes) else buf[prev[0] : prev[1]]) + buf[pos:e]
                        spans[fp] = merged
                        v = _decode(fp.sub, merged, 0, len(merged))
            elif kind == _K_MAP:
                d = present.get(fp)
                if d is None:
                    d = present[fp] = {}
                _map_entry(fp, buf, pos, e, d)
                pos = e
                continue
            elif kind == _K_SPECIAL:
                v = _special(fp.code, buf, pos, e)
            elif kind == _K_BYTES:
                v = base64.b64encode(buf[pos:e]).decode("ascii")
            elif kind == _K_LIST:
                v = _list(fp.sub, buf, pos, e)
            elif fp.repeated:  # packed numeric
                lst = present.get(fp)
                if lst is None:
                    lst = present[fp] = []
                lst.extend(_packed(fp.code, buf, pos, e))
                pos = e
                continue
            else:
                raise ProtobufDecodeError(f"proto: wrong wireType = {wt} for field {fp.json} of {plan.name}")
            pos = e
        else:
            if wt != fp.wire_type or kind != _K_SCALAR:
                raise ProtobufDecodeError(f"proto: wrong wireType = {wt} for field {fp.json} of {plan.name}")
            if wt == 0:
                if pos >= end:
                    raise ProtobufDecodeError(f"unexpected end of protobuf data in {plan.name}.{fp.json}")
                v = buf[pos]
                if v < 0x80:
                    pos += 1
                else:
                    v, pos = _varint(buf, pos, end)
            elif wt == 1:
                if pos + 8 > end:
                    raise ProtobufDecodeError(f"unexpected end of protobuf data in {plan.name}.{fp.json}")
                v = _UNPACK_Q(buf, pos)[0]
                pos += 8
            elif wt == 5:
                if pos + 4 > end:
                    raise ProtobufDecodeError(f"unexpected end of protobuf data in {plan.name}.{fp.json}")
                v = _UNPACK_I(buf, pos)[0]
                pos += 4
            else:
                raise ProtobufDecodeError(f"unsupported protobuf wire type {wt} in {plan.name}")
            code = fp.code
            if code == T_BOOL:
                v = v != 0
            elif v >= 0x80000000 or code not in _SMALL_IS_IDENTITY:
                v = _scalar(code, v)
        if fp.repeated:
            lst = present.get(fp)
            if lst is None:
                present[fp] = [v]
            else:
                lst.append(v)
        elif v or fp.keep_zero:
            present[fp] = v
        elif present:
            present.pop(fp, None)  # a zero scalar of a non-pointer omitempty field: left out (last one wins)

    # Go struct order: the fields present, and the absent ones Go emits anyway (non-pointer structs, scalars
    # without omitempty), sorted by their place in the struct
    for fp in plan.defaults:
        if fp not in present:
            present[fp] = fp.default()
            ordered = False
    items: Any = present.items() if ordered or len(present) < 2 else sorted(present.items(), key=_item_index)
    if not plan.has_inline:
        return {fp.json: v for fp, v in items if v is not None}
    out: dict[str, Any] = {}
    for fp, v in items:
        if v is None:
            continue
        if fp.inline:
            out.update(v)
        else:
            out[fp.json] = v
    return out


_ZERO: dict[int, Any] = {
    T_STRING: "",
    T_INT32: 0,
    T_INT64: 0,
    T_UINT32: 0,
    T_UINT64: 0,
    T_BOOL: False,
    T_DOUBLE: 0,
    T_FLOAT: 0,
    T_SINT32: 0,
    T_SINT64: 0,
    T_FIXED32: 0,
    T_FIXED64: 0,
    T_SFIXED32: 0,
    T_SFIXED64: 0,
}


def _short(msg: Message) -> str:
    pkg, _, name = msg.name.rpartition(".")
    return f"{pkg.rpartition('.')[2]}.{name}"


def _scalar(code: int, v: int) -> Any:
    """A varint / fixed value (as unsigned int) as the JSON value of a numeric field."""
    if code == T_INT64:
        return v - (1 << 64) if v >= 1 << 63 else v
    if code == T_INT32:
        v &= 0xFFFFFFFF
        return v - (1 << 32) if v >= 1 << 31 else v
    if code == T_BOOL:
        return v != 0
    if code == T_DOUBLE:
        d = struct.unpack("<d", struct.pack("<Q", v))[0]
        return int(d) if d.is_integer() and abs(d) < 1e21 else d
    if code == T_FLOAT:
        d = struct.unpack("<f", struct.pack("<I", v))[0]
        return int(d) if d.is_integer() and abs(d) < 1e21 else d
    if code == T_UINT32:
        return v & 0xFFFFFFFF
    if code == T_SINT32 or code == T_SINT64:
        return (v >> 1) ^ -(v & 1)
    if code == T_SFIXED64:
        return v - (1 << 64) if v >= 1 << 63 else v
    if code == T_SFIXED32:
        return v - (1 << 32) if v >= 1 << 31 else v
    return v  # uint64, fixed32, fixed64


def _packed(code: int, buf: bytes, pos: int, end: int) -> list[Any]:
    out = []
    if code in (T_DOUBLE, T_FIXED64, T_SFIXED64):
        if (end - pos) % 8:
            raise ProtobufDecodeError("packed 64-bit field has a length that is not a multiple of 8")
        for p in range(pos, end, 8):
            out.append(_scalar(code, _UNPACK_Q(buf, p)[0]))
    elif code in (T_FLOAT, T_FIXED32, T_SFIXED32):
        if (end - pos) % 4:
            raise ProtobufDecodeError("packed 32-bit field has a length that is not a multiple of 4")
        for p in range(pos, end, 4):
            out.append(_scalar(code, _UNPACK_I(buf, p)[0]))
    else:
        while pos < end:
            v, pos = _varint(buf, pos, end)
            out.append(_scalar(code, v))
    return out


def _value(t: TypeRef, buf: bytes, s: int, e: int) -> Any:
    """The JSON value of a length-delimited field (string, bytes, message) in buf[s:e]."""
    code = t.code
    if code == T_STRING:
        return buf[s:e].decode("utf-8", "replace")
    if code == T_MESSAGE:
        m = t.message
        if m.item is not None:
            return _list(m.item, buf, s, e)
        return _decode(m, buf, s, e)
    if code == T_BYTES:
        return base64.b64encode(buf[s:e]).decode("ascii")
    return _special(code, buf, s, e)


def _list(item: TypeRef, buf: bytes, pos: int, end: int) -> list[Any]:
    """A named slice (ExtraValue, Verbs): message { repeated <item> items = 1; }."""
    out: list[Any] = []
    while pos < end:
        tag, pos = _varint(buf, pos, end)
        wt = tag & 7
        if tag >> 3 != 1:
            pos = _skip(buf, pos, end, wt)
            continue
        if wt == 2:
            n, pos = _varint(buf, pos, end)
            e = pos + n
            if e > end:
                raise ProtobufDecodeError("unexpected end of protobuf data in a list")
            if item.code in NUMERIC_CODES:
                out.extend(_packed(item.code, buf, pos, e))
            else:
                out.append(_value(item, buf, pos, e))
            pos = e
        elif wt == item.wire_type:
            if wt == 0:
                v, pos = _varint(buf, pos, end)
            elif wt == 1:
                v, pos = _UNPACK_Q(buf, pos)[0], pos + 8
            else:
                v, pos = _UNPACK_I(buf, pos)[0], pos + 4
            if pos > end:
                raise ProtobufDecodeError("unexpected end of protobuf data in a list")
            out.append(_scalar(item.code, v))
        else:
            raise ProtobufDecodeError(f"proto: wrong wireType = {wt} for a list item")
    return out


def _map_entry(fp: _FieldPlan, buf: bytes, pos: int, end: int, out: dict[str, Any]) -> None:
    """Adds one map entry message (key = 1, value = 2) in buf[pos:end] to out."""
    f = fp.field
    key_t, value_t = f.key, f.value
    assert key_t is not None and value_t is not None
    key: Any = _MISSING
    value: Any = _MISSING
    while pos < end:
        tag = buf[pos]
        pos += 1
        if tag >= 0x80:
            tag, pos = _varint(buf, pos - 1, end)
        num, wt = tag >> 3, tag & 7
        t = key_t if num == 1 else value_t if num == 2 else None
        if t is None:
            pos = _skip(buf, pos, end, wt)
            continue
        if wt != t.wire_type:
            raise ProtobufDecodeError(f"proto: wrong wireType = {wt} for a map entry of {f.json}")
        if wt == 2:
            if pos >= end:
                raise ProtobufDecodeError(f"unexpected end of protobuf data in a map entry of {f.json}")
            n = buf[pos]
            pos += 1
            if n >= 0x80:
                n, pos = _varint(buf, pos - 1, end)
            e = pos + n
            if e > end:
                raise ProtobufDecodeError(f"unexpected end of protobuf data in a map entry of {f.json}")
            if t.code == T_STRING:
                v: Any = buf[pos:e].decode("utf-8", "replace")
            else:
                v = _value(t, buf, pos, e)
            pos = e
        elif wt == 0:
            raw, pos = _varint(buf, pos, end)
            v = _scalar(t.code, raw)
        elif wt == 1:
            v, pos = _scalar(t.code, _UNPACK_Q(buf, pos)[0]), pos + 8
        else:
            v, pos = _scalar(t.code, _UNPACK_I(buf, pos)[0]), pos + 4
        if pos > end:
            raise ProtobufDecodeError(f"unexpected end of protobuf data in a map entry of {f.json}")
        if num == 1:
            key = v
        else:
            value = v
    if key is _MISSING:
        key = _ZERO.get(key_t.code, "")
    if value is _MISSING:
        value = _zero_value(value_t)
    out[key if isinstance(key, str) else str(key)] = value


def _zero_value(t: TypeRef) -> Any:
    if t.code == T_MESSAGE:
        return [] if t.message.item is not None else _decode(t.message, b"", 0, 0)
    if t.code == T_BYTES:
        return ""
    if t.code >= T_TIME:
        return _special(t.code, b"", 0, 0)
    return _ZERO[t.code]


# --- types with their own JSON forms ---


def _fields(buf: bytes, pos: int, end: int, what: str) -> dict[int, Any]:
    """Field number -> last value (int for varint / fixed, (start, end) for length-delimited)."""
    out: dict[int, Any] = {}
    while pos < end:
        tag, pos = _varint(buf, pos, end)
        num, wt = tag >> 3, tag & 7
        if wt == 0:
            out[num], pos = _varint(buf, pos, end)
        elif wt == 2:
            n, pos = _varint(buf, pos, end)
            if pos + n > end:
                raise ProtobufDecodeError(f"unexpected end of protobuf data in {what}")
            out[num] = (pos, pos + n)
            pos += n
        else:
            pos = _skip(buf, pos, end, wt)
    return out


def _int_field(fields: dict[int, Any], num: int, what: str) -> int:
    v = fields.get(num, 0)
    if isinstance(v, tuple):
        raise ProtobufDecodeError(f"proto: wrong wireType = 2 for field {num} of {what}")
    return v


def _special(code: int, buf: bytes, s: int, e: int) -> Any:
    if code == T_QUANTITY and e - s >= 2 and buf[s] == 0x0A and buf[s + 1] == e - s - 2:
        return buf[s + 2 : e].decode("utf-8", "replace") if e - s > 2 else "0"  # {string = 1}, the usual form
    return _special_slow(code, buf, s, e)


def _special_slow(code: int, buf: bytes, s: int, e: int) -> Any:
    if code == T_TIME or code == T_MICROTIME:
        if s == e:
            return None  # the zero time: null
        fields = _fields(buf, s, e, "Time")
        seconds = _scalar(T_INT64, _int_field(fields, 1, "Time"))
        nanos = _scalar(T_INT32, _int_field(fields, 2, "Time")) if code == T_MICROTIME else 0
        if seconds == _GO_ZERO_TIME_SECONDS and nanos == 0:
            return None
        try:
            t = _EPOCH + timedelta(seconds=seconds, microseconds=nanos // 1000)
        except OverflowError:
            raise ProtobufDecodeError(f"timestamp out of range: {seconds}s") from None
        if code == T_TIME:
            return f"{t.year:04d}-{t.month:02d}-{t.day:02d}T{t.hour:02d}:{t.minute:02d}:{t.second:02d}Z"
        return f"{t.year:04d}-{t.month:02d}-{t.day:02d}T{t.hour:02d}:{t.minute:02d}:{t.second:02d}.{t.microsecond:06d}Z"
    if code == T_QUANTITY:
        fields = _fields(buf, s, e, "Quantity")
        span = fields.get(1)
        if isinstance(span, tuple) and span[0] != span[1]:
            return _str(buf, span[0], span[1])
        return "0"
    if code == T_INTORSTRING:
        fields = _fields(buf, s, e, "IntOrString")
        kind = _int_field(fields, 1, "IntOrString")
        if kind == 1:
            span = fields.get(3)
            return _str(buf, span[0], span[1]) if isinstance(span, tuple) else ""
        if kind != 0:
            raise ProtobufDecodeError(f"impossible IntOrString.Type {kind}")
        return _scalar(T_INT32, _int_field(fields, 2, "IntOrString"))
    if code == T_DURATION:
        fields = _fields(buf, s, e, "Duration")
        return go_duration(_scalar(T_INT64, _int_field(fields, 1, "Duration")))
    # RawExtension {raw = 1} and FieldsV1 {Raw = 1}: embedded JSON (or a nested protobuf object)
    fields = _fields(buf, s, e, "RawExtension")
    span = fields.get(1)
    if not isinstance(span, tuple) or span[0] == span[1]:
        return None
    raw = buf[span[0] : span[1]]
    if raw[:4] == MAGIC:
        return decode_protobuf(raw)
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as err:
        what = "FieldsV1" if code == T_FIELDSV1 else "RawExtension"
        raise ProtobufDecodeError(f"{what} does not hold JSON: {err}") from None


def go_duration(ns: int) -> str:
    """time.Duration.String(): "1h2m3.5s", "1.5ms", "0s"."""
    if ns == 0:
        return "0s"
    neg = ns < 0
    u = -ns if neg else ns
    if u < 1_000_000_000:
        for unit, scale in (("ns", 1), ("µs", 1_000), ("ms", 1_000_000)):
            if u < scale * 1000:
                return ("-" if neg else "") + _frac(u, scale) + unit
    out = ""
    hours, rem = divmod(u, 3_600_000_000_000)
    minutes, rem = divmod(rem, 60_000_000_000)
    secs = _frac(rem, 1_000_000_000) + "s"
    if hours:
        out = f"{hours}h{minutes}m{secs}"
    elif minutes:
        out = f"{minutes}m{secs}"
    else:
        out = secs
    return ("-" if neg else "") + out


def _frac(v: int, scale: int) -> str:
    whole, frac = divmod(v, scale)
    if not frac:
        return str(whole)
    digits = len(str(scale)) - 1
    return f"{whole}.{str(frac).rjust(digits, '0').rstrip('0')}"


__all__ = [
    "MAGIC",
    "MEDIA_TYPE",
    "ProtobufDecodeError",
    "decode_message",
    "decode_protobuf",
    "go_duration",
    "peek_type_meta",
]

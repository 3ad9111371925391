"""Encoding JSON-shaped objects as application/vnd.kubernetes.protobuf (the inverse of decode.py).

Writes what gogo-protobuf's generated marshallers write for the Go struct the JSON decodes into:
fields in number order, non-pointer fields always (zero values included), pointer fields when
set, map entries sorted by key, repeated scalars unpacked (proto2), then wraps the object in the
magic prefix and a runtime.Unknown envelope.
"""

from __future__ import annotations

import base64
import re
import struct
from datetime import datetime
from typing import Any

import orjson

from kube_apiserver.runtime.protobuf.decode import MAGIC
from kube_apiserver.runtime.protobuf.schema import (
    T_BOOL,
    T_BYTES,
    T_DOUBLE,
    T_DURATION,
    T_FIXED32,
    T_FIXED64,
    T_FLOAT,
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
    Message,
    TypeRef,
    UnknownMessageError,
    message,
    message_for_kind,
)


class ProtobufEncodeError(ValueError):
    """The object cannot be written as protobuf (unknown kind, a value of the wrong type)."""


def encode_protobuf(obj: dict[str, Any]) -> bytes:
    """magic + runtime.Unknown{typeMeta{apiVersion, kind}, raw: the object, contentEncoding "", contentType ""}."""
    api_version, kind = obj.get("apiVersion") or "", obj.get("kind") or ""
    try:
        msg = message_for_kind(api_version, kind)
    except UnknownMessageError as e:
        raise ProtobufEncodeError(str(e)) from None
    raw = encode_message(obj, msg.name)
    type_meta = _ld(1, api_version.encode()) + _ld(2, kind.encode())
    return MAGIC + _ld(1, type_meta) + _ld(2, raw) + _ld(3, b"") + _ld(4, b"")


def encode_message(obj: dict[str, Any], message_name: str) -> bytes:
    """One bare message (no magic, no envelope) by its full proto name."""
    try:
        return _message(message(message_name), obj)
    except UnknownMessageError as e:
        raise ProtobufEncodeError(str(e)) from None
    except (TypeError, AttributeError, ValueError) as e:
        if isinstance(e, ProtobufEncodeError):
            raise
        raise ProtobufEncodeError(f"cannot encode {message_name.rpartition('.')[2]}: {e}") from None


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


def _ld(num: int, b: bytes) -> bytes:
    return _varint(num << 3 | 2) + _varint(len(b)) + b


def _message(msg: Message, obj: Any) -> bytes:
    if msg.item is not None:  # named slice
        return b"".join(_field(1, msg.item, v) for v in obj or ())
    if not isinstance(obj, dict):
        raise ProtobufEncodeError(f"{msg.name.rpartition('.')[2]} must be an object, not {type(obj).__name__}")
    out = []
    for f in sorted(msg.fields, key=lambda f: f.number):
        if f.inline:
            out.append(_ld(f.number, _message(f.type.message, obj)))
            continue
        v = obj.get(f.json)
        if f.is_map:
            if v:
                assert f.key is not None and f.value is not None
                for k in sorted(v):
                    out.append(_ld(f.number, _field(1, f.key, k) + _field(2, f.value, v[k])))
        elif f.repeated:
            for item in v or ():
                out.append(_field(f.number, f.type, item))
        elif v is not None:
            out.append(_field(f.number, f.type, v))
        elif not f.pointer and not (f.type.code == T_MESSAGE and f.type.message.item is not None):
            if f.type.code != T_BYTES:
                out.append(_field(f.number, f.type, None))
    return b"".join(out)


def _field(num: int, t: TypeRef, v: Any) -> bytes:
    """One field with value v (None: the Go zero value)."""
    code = t.code
    if code == T_STRING:
        return _ld(num, (v or "").encode())
    if code == T_BYTES:
        return _ld(num, base64.b64decode(v or ""))
    if code == T_MESSAGE:
        return _ld(num, _message(t.message, v if v is not None else ({} if t.message.item is None else [])))
    if code == T_TIME or code == T_MICROTIME:
        if not v:
            return _ld(num, b"")
        seconds, nanos = _parse_time(v)
        body = _varint(1 << 3) + _varint(seconds) + _varint(2 << 3) + _varint(nanos if code == T_MICROTIME else 0)
        return _ld(num, body)
    if code == T_QUANTITY:
        return _ld(num, _ld(1, str(v if v is not None else "0").encode()))
    if code == T_INTORSTRING:
        if isinstance(v, str):
            return _ld(num, _varint(1 << 3) + _varint(1) + _varint(2 << 3) + _varint(0) + _ld(3, v.encode()))
        return _ld(num, _varint(1 << 3) + _varint(0) + _varint(2 << 3) + _varint(int(v or 0)) + _ld(3, b""))
    if code == T_DURATION:
        return _ld(num, _varint(1 << 3) + _varint(_parse_duration(v or "0s")))
    if code > T_MESSAGE:  # RawExtension, FieldsV1: the JSON of the value
        return _ld(num, _ld(1, orjson.dumps(v)) if v is not None else b"")
    if code == T_BOOL:
        return _varint(num << 3) + (b"\x01" if v else b"\x00")
    if code == T_DOUBLE:
        return _varint(num << 3 | 1) + struct.pack("<d", float(v or 0))
    if code == T_FLOAT:
        return _varint(num << 3 | 5) + struct.pack("<f", float(v or 0))
    n = int(v or 0)
    if code in (T_FIXED64, T_SFIXED64):
        return _varint(num << 3 | 1) + struct.pack("<Q", n & ((1 << 64) - 1))
    if code in (T_FIXED32, T_SFIXED32):
        return _varint(num << 3 | 5) + struct.pack("<I", n & 0xFFFFFFFF)
    if code in (T_SINT32, T_SINT64):
        n = (n << 1) ^ (n >> 63)
    return _varint(num << 3) + _varint(n)


_TIME = re.compile(r"(\d{4})-(\d\d)-(\d\d)[Tt ](\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?([Zz]|[+-]\d\d:\d\d)$")


def _parse_time(s: str) -> tuple[int, int]:
    m = _TIME.match(s)
    if not m:
        raise ProtobufEncodeError(f"invalid RFC3339 time {s!r}")
    frac = m.group(7) or ""
    zone = m.group(8).upper()
    dt = datetime.fromisoformat(
        f"{m.group(1)}-{m.group(2)}-{m.group(3)}T{m.group(4)}:{m.group(5)}:{m.group(6)}"
        + ("+00:00" if zone == "Z" else zone)
    )
    return int(dt.timestamp()), int(frac.ljust(9, "0")) if frac else 0


_DURATION_UNITS = {
    "ns": 1,
    "us": 1_000,
    "µs": 1_000,
    "μs": 1_000,
    "ms": 1_000_000,
    "s": 1_000_000_000,
    "m": 60_000_000_000,
    "h": 3_600_000_000_000,
}
_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)")


def _parse_duration(s: str) -> int:
    """time.ParseDuration."""
    sign = -1 if s.startswith("-") else 1
    rest = s.lstrip("+-")
    if rest == "0":
        return 0
    total = 0
    pos = 0
    while pos < len(rest):
        m = _DURATION_PART.match(rest, pos)
        if not m:
            raise ProtobufEncodeError(f"invalid duration {s!r}")
        whole, _, frac = m.group(1).partition(".")
        unit = _DURATION_UNITS[m.group(2)]
        total += int(whole or 0) * unit + (int(frac) * unit // 10 ** len(frac) if frac else 0)
        pos = m.end()
    if not rest:
        raise ProtobufEncodeError(f"invalid duration {s!r}")
    return sign * total


__all__ = ["ProtobufEncodeError", "encode_message", "encode_protobuf"]

"""The checked AST of a compiled expression (cel.expr.CheckedExpr), read from the bytes
cel-expr-python's Expression.serialize() gives: the expression tree, each node's type and each call's
overload ids. The cost estimator walks it, as cel-go's checker.Cost walks its checked AST.

The protobuf wire format is read directly (a few message kinds, no descriptors needed)."""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any


def _varint(buf: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7


def fields(buf: bytes) -> list[tuple[int, int, Any]]:
    """(field number, wire type, value) of every field; length-delimited values as bytes."""
    out: list[tuple[int, int, Any]] = []
    pos, end = 0, len(buf)
    while pos < end:
        key, pos = _varint(buf, pos)
        num, wt = key >> 3, key & 7
        if wt == 0:
            val, pos = _varint(buf, pos)
        elif wt == 1:
            val = buf[pos : pos + 8]
            pos += 8
        elif wt == 2:
            n, pos = _varint(buf, pos)
            val = buf[pos : pos + n]
            pos += n
        elif wt == 5:
            val = buf[pos : pos + 4]
            pos += 4
        else:
            raise ValueError(f"unsupported wire type {wt}")
        out.append((num, wt, val))
    return out


def _signed(v: int) -> int:
    return v - (1 << 64) if v >= 1 << 63 else v


@dataclass
class Type:
    """A CEL type: kind is one of dyn, null, bool, int, uint, double, string, bytes, any, timestamp,
    duration, list, map, message, type_param, type, error, abstract, function; params hold element,
    key/value or abstract type parameters."""

    kind: str
    name: str = ""
    params: list[Type] = field(default_factory=list)


_PRIMITIVES = {1: "bool", 2: "int", 3: "uint", 4: "double", 5: "string", 6: "bytes"}
_WELL_KNOWN = {1: "any", 2: "timestamp", 3: "duration"}
DYN = Type("dyn")


def parse_type(buf: bytes) -> Type:
    for num, _, val in fields(buf):
        if num == 1:
            return Type("dyn")
        if num == 2:
            return Type("null")
        if num == 3:
            return Type(_PRIMITIVES.get(val, "dyn"))
        if num == 4:
            return Type(_PRIMITIVES.get(val, "dyn"))  # wrapper types behave as their primitive here
        if num == 5:
            return Type(_WELL_KNOWN.get(val, "dyn"))
        if num == 6:
            elem = next((parse_type(v) for n, _, v in fields(val) if n == 1), DYN)
            return Type("list", params=[elem])
        if num == 7:
            kv = {n: parse_type(v) for n, _, v in fields(val)}
            return Type("map", params=[kv.get(1, DYN), kv.get(2, DYN)])
        if num == 9:
            return Type("message", name=val.decode())
        if num == 10:
            return Type("type_param", name=val.decode())
        if num == 11:
            return Type("type", params=[parse_type(val)])
        if num == 12:
            return Type("error")
        if num == 14:
            name, params = "", []
            for n, _, v in fields(val):
                if n == 1:
                    name = v.decode()
                elif n == 2:
                    params.append(parse_type(v))
            return Type("abstract", name=name, params=params)
        if num == 8:
            return Type("function")
    return DYN


@dataclass
class Expr:
    """One node: kind is const, ident, select, call, list, map, struct or comprehension."""

    id: int
    kind: str
    value: Any = None  # const: the Python value (str, int, float, bool, bytes, None)
    name: str = ""  # ident name, select field, call function, comprehension iter var
    operand: Expr | None = None  # select operand, call target
    test_only: bool = False
    args: list[Expr] = field(default_factory=list)  # call args, list elements, map/struct values
    keys: list[Expr] = field(default_factory=list)  # map keys
    # comprehension parts
    iter_var2: str = ""
    accu_var: str = ""
    iter_range: Expr | None = None
    accu_init: Expr | None = None
    loop_condition: Expr | None = None
    loop_step: Expr | None = None
    result: Expr | None = None


def _const(buf: bytes) -> Any:
    for num, _, val in fields(buf):
        if num == 1:
            return None
        if num == 2:
            return bool(val)
        if num == 3:
            return _signed(val)
        if num == 4:
            return val
        if num == 5:
            return struct.unpack("<d", val)[0]
        if num == 6:
            return val.decode()
        if num == 7:
            return bytes(val)
    return None


def parse_expr(buf: bytes) -> Expr:
    eid, body = 0, None
    for num, _, val in fields(buf):
        if num == 2:
            eid = val
        elif num in (3, 4, 5, 6, 7, 8, 9):
            body = (num, val)
    if body is None:
        return Expr(eid, "const")
    num, val = body
    f = fields(val)
    if num == 3:
        return Expr(eid, "const", value=_const(val))
    if num == 4:
        return Expr(eid, "ident", name=next((v.decode() for n, _, v in f if n == 1), ""))
    if num == 5:
        e = Expr(eid, "select")
        for n, _, v in f:
            if n == 1:
                e.operand = parse_expr(v)
            elif n == 2:
                e.name = v.decode()
            elif n == 3:
                e.test_only = bool(v)
        return e
    if num == 6:
        e = Expr(eid, "call")
        for n, _, v in f:
            if n == 1:
                e.operand = parse_expr(v)
            elif n == 2:
                e.name = v.decode()
            elif n == 3:
                e.args.append(parse_expr(v))
        return e
    if num == 7:
        return Expr(eid, "list", args=[parse_expr(v) for n, _, v in f if n == 1])
    if num == 8:
        e = Expr(eid, "struct")
        for n, _, v in f:
            if n == 1:
                e.name = v.decode()
            elif n == 2:
                entry = {en: ev for en, _, ev in fields(v)}
                if 3 in entry:
                    e.kind = "map"
                    e.keys.append(parse_expr(entry[3]))
                e.args.append(parse_expr(entry[4]) if 4 in entry else Expr(0, "const"))
        if e.kind == "struct" and not e.name:
            e.kind = "map"
        return e
    e = Expr(eid, "comprehension")
    for n, _, v in f:
        if n == 1:
            e.name = v.decode()
        elif n == 2:
            e.iter_range = parse_expr(v)
        elif n == 3:
            e.accu_var = v.decode()
        elif n == 4:
            e.accu_init = parse_expr(v)
        elif n == 5:
            e.loop_condition = parse_expr(v)
        elif n == 6:
            e.loop_step = parse_expr(v)
        elif n == 7:
            e.result = parse_expr(v)
        elif n == 8:
            e.iter_var2 = v.decode()
    return e


@dataclass
class CheckedAST:
    expr: Expr
    types: dict[int, Type]
    overloads: dict[int, list[str]]
    references: dict[int, str]

    def type_of(self, e: Expr) -> Type:
        return self.types.get(e.id, DYN)


def parse_checked(serialized: bytes) -> CheckedAST:
    """The CheckedExpr inside the google.protobuf.Any that Expression.serialize() returns."""
    payload = serialized
    for num, _, val in fields(serialized):
        if num == 2:
            payload = val
    expr: Expr | None = None
    types: dict[int, Type] = {}
    overloads: dict[int, list[str]] = {}
    refs: dict[int, str] = {}
    for num, _, val in fields(payload):
        if num == 4:
            expr = parse_expr(val)
        elif num in (2, 3):
            key, entry = 0, b""
            for n, _, v in fields(val):
                if n == 1:
                    key = _signed(v)
                elif n == 2:
                    entry = v
            if num == 3:
                types[key] = parse_type(entry)
            else:
                ids, name = [], ""
                for n, _, v in fields(entry):
                    if n == 1:
                        name = v.decode()
                    elif n == 3:
                        ids.append(v.decode())
                overloads[key] = ids
                refs[key] = name
    return CheckedAST(expr or Expr(0, "const"), types, overloads, refs)

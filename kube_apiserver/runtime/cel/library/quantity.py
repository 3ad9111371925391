"""The quantity library (library.Quantity): resource.Quantity values in CEL.

quantity(<string>) <Quantity>, isQuantity(<string>) <bool>, and on a Quantity: sign, isInteger,
asInteger, asApproximateFloat, add/sub (a Quantity or an int), isGreaterThan, isLessThan, compareTo.
A Quantity value carries its exact value as the fraction "n/d", so equal quantities are equal values.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from cel_expr_python import cel

from kube_apiserver.runtime.cel.library import CELError, Decl, decl, overload
from kube_apiserver.runtime.cel.types import QUANTITY, QuantityType, unwrap, wrap
from kube_apiserver.runtime.quantity import QuantityError, parse_quantity

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_B, _I, _S, _D = cel.Type.BOOL, cel.Type.INT, cel.Type.STRING, cel.Type.DOUBLE


def _of(value: Fraction) -> Any:
    return wrap(QUANTITY, f"{value.numerator}/{value.denominator}")


def value_of(q: Any) -> Fraction:
    text = unwrap(q)
    return Fraction(text) if text else Fraction(0)


def quantity(text: str) -> Any:
    try:
        value, _ = parse_quantity(text)
    except QuantityError as e:
        raise CELError(str(e)) from None
    return _of(value)


def is_quantity(text: str) -> bool:
    try:
        parse_quantity(text)
    except QuantityError:
        return False
    return True


def _sign(q: Any) -> int:
    v = value_of(q)
    return (v > 0) - (v < 0)


def _is_integer(q: Any) -> bool:
    v = value_of(q)
    return v.denominator == 1 and _INT64_MIN <= v <= _INT64_MAX


def _as_integer(q: Any) -> int:
    v = value_of(q)
    if v.denominator != 1 or not _INT64_MIN <= v <= _INT64_MAX:
        raise CELError("cannot convert value to integer")
    return int(v)


def _add(q: Any, other: Any) -> Any:
    return _of(value_of(q) + (Fraction(other) if isinstance(other, int) else value_of(other)))


def _sub(q: Any, other: Any) -> Any:
    return _of(value_of(q) - (Fraction(other) if isinstance(other, int) else value_of(other)))


def _compare(q: Any, other: Any) -> int:
    a, b = value_of(q), value_of(other)
    return (a > b) - (a < b)


def decls() -> list[Decl]:
    Q = QuantityType
    out = [
        decl("quantity", [overload("string_to_quantity", Q, [_S], quantity)]),
        decl("isQuantity", [overload("is_quantity_string", _B, [_S], is_quantity)]),
        decl("sign", [overload("quantity_sign", _I, [Q], _sign, True)]),
        decl("isInteger", [overload("quantity_is_integer", _B, [Q], _is_integer, True)]),
        decl("asInteger", [overload("quantity_get_integer", _I, [Q], _as_integer, True)]),
        decl(
            "asApproximateFloat",
            [overload("quantity_get_float", _D, [Q], lambda q: float(value_of(q)), True)],
        ),
        decl(
            "add",
            [
                overload("quantity_add", Q, [Q, Q], _add, True),
                overload("quantity_add_int", Q, [Q, _I], _add, True),
            ],
        ),
        decl(
            "sub",
            [
                overload("quantity_sub", Q, [Q, Q], _sub, True),
                overload("quantity_sub_int", Q, [Q, _I], _sub, True),
            ],
        ),
        decl("isLessThan", [overload("quantity_less", _B, [Q, Q], lambda a, b: _compare(a, b) < 0, True)]),
        decl("isGreaterThan", [overload("quantity_greater", _B, [Q, Q], lambda a, b: _compare(a, b) > 0, True)]),
        decl("compareTo", [overload("quantity_compare_to", _I, [Q, Q], _compare, True)]),
    ]
    return out

"""Go's spelling of JSON values in error texts.

Patch errors quote the offending values the way Go's fmt prints a decoded JSON document
(map[string]interface{}, []interface{}, int64, float64, ...): `map[image:nginx name:web]`, `[1 2]`,
`<nil>`, and type names such as `map[string]interface {}`. kubectl shows these texts verbatim, so
they are reproduced here rather than approximated with Python's repr.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any


def go_type_name(value: Any) -> str:
    """reflect.TypeOf(v).String() for a value decoded from JSON by the apiserver (ints kept as int64)."""
    if value is None:
        return "%!s(<nil>)"  # %s of a nil reflect.Type
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "map[string]interface {}"
    if isinstance(value, list):
        return "[]interface {}"
    return type(value).__name__


def go_kind_name(value: Any) -> str:
    """reflect.Kind of a decoded JSON value."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "map"
    if isinstance(value, list):
        return "slice"
    return "invalid"


def go_float(f: float) -> str:
    """strconv.FormatFloat(f, 'g', -1, 64) as fmt's %v uses it: the shortest digits that round-trip,
    in exponent form below 1e-4 and from 1e+06 (%v decides with precision 6 for the shortest)."""
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "+Inf" if f > 0 else "-Inf"
    if f == 0:
        return "-0" if math.copysign(1.0, f) < 0 else "0"
    # repr gives the shortest round-trip digits, as Go's shortest formatting does.
    _, digit_tuple, exponent = Decimal(repr(abs(f))).normalize().as_tuple()
    digits = "".join(map(str, digit_tuple))
    point = len(digits) + int(exponent)  # position of the decimal point after the first digits
    sign = "-" if f < 0 else ""
    x = point - 1
    if x < -4 or x >= 6:
        body = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{body}e{'-' if x < 0 else '+'}{abs(x):02d}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return f"{sign}{digits}{'0' * (point - len(digits))}"
    return f"{sign}{digits[:point]}.{digits[point:]}"


def go_v(value: Any) -> str:
    """fmt's %v of a decoded JSON value."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return go_float(value)
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        # fmt prints maps with their keys sorted (byte order, which is code point order for str).
        return "map[" + " ".join(f"{k}:{go_v(value[k])}" for k in sorted(value)) + "]"
    if isinstance(value, list):
        return "[" + " ".join(go_v(v) for v in value) + "]"
    return str(value)


def go_s(value: Any) -> str:
    """fmt's %s of a decoded JSON value: strings as they are, anything else as %!s(type=value)."""
    if isinstance(value, str):
        return value
    if value is None:
        return "%!s(<nil>)"
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{go_s(value[k])}" for k in sorted(value)) + "]"
    if isinstance(value, list):
        return "[" + " ".join(go_s(v) for v in value) + "]"
    return f"%!s({go_type_name(value)}={go_v(value)})"


def go_quote(s: str) -> str:
    """strconv.Quote: Go's %q of a string."""
    out = ['"']
    for ch in s:
        cp = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\a":
            out.append("\\a")
        elif ch == "\b":
            out.append("\\b")
        elif ch == "\f":
            out.append("\\f")
        elif ch == "\v":
            out.append("\\v")
        elif cp < 0x20 or cp == 0x7F:
            out.append(f"\\x{cp:02x}")
        elif ch.isprintable() or ch == " ":
            out.append(ch)
        elif cp < 0x10000:
            out.append(f"\\u{cp:04x}")
        else:
            out.append(f"\\U{cp:08x}")
    out.append('"')
    return "".join(out)

"""resource.Quantity (k8s.io/apimachinery/pkg/api/resource): parsing and the canonical form
kube-apiserver writes back ("1024Mi" → "1Gi", "0.5" → "500m", "1000" → "1k").

Values are exact fractions; precision below nano is rounded up (away from zero) as upstream does.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from functools import lru_cache

QUANTITY_REGEX_TEXT = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
_QUANTITY = re.compile(QUANTITY_REGEX_TEXT)
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)$")
_EXPONENT = re.compile(r"[+-]?\d+")

ERR_FORMAT = f"quantities must match the regular expression '{QUANTITY_REGEX_TEXT}'"
ERR_SUFFIX = "unable to parse quantity's suffix"

BINARY_SI, DECIMAL_SI, DECIMAL_EXPONENT = "BinarySI", "DecimalSI", "DecimalExponent"
_BINARY = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_DECIMAL_BY_EXP = {v: k for k, v in _DECIMAL.items()}
_NANO = Fraction(1, 10**9)


class QuantityError(ValueError):
    pass


@lru_cache(maxsize=4096, typed=True)
def parse_quantity(text: str | int | float) -> tuple[Fraction, str]:
    """(value, format); QuantityError with kube's message when text is not a quantity."""
    if isinstance(text, bool):
        raise QuantityError(ERR_FORMAT)
    if isinstance(text, int):
        return Fraction(text), DECIMAL_SI
    if isinstance(text, float):
        if not math.isfinite(text):
            raise QuantityError(ERR_FORMAT)
        return _round_nano(Fraction(repr(text))), DECIMAL_SI
    if not text:
        raise QuantityError("quantities must match the regular expression '" + QUANTITY_REGEX_TEXT + "'")
    m = _QUANTITY.match(text)
    if not m:
        raise QuantityError(ERR_FORMAT)
    number, suffix = m.group(1), m.group(2)
    if not _NUMBER.match(number):
        raise QuantityError(ERR_FORMAT)
    value = Fraction(number)
    if suffix in _BINARY:
        value *= 1024 ** _BINARY[suffix]
        fmt = BINARY_SI
    elif suffix in _DECIMAL:
        value *= Fraction(10) ** _DECIMAL[suffix]
        fmt = DECIMAL_SI
    elif suffix[:1] in ("e", "E") and _EXPONENT.fullmatch(suffix[1:]):
        value *= Fraction(10) ** int(suffix[1:])
        fmt = DECIMAL_EXPONENT
    else:
        raise QuantityError(ERR_SUFFIX)
    return _round_nano(value), fmt


def _round_nano(value: Fraction) -> Fraction:
    scaled = value / _NANO
    if scaled.denominator == 1:
        return value
    rounded = math.ceil(scaled) if value > 0 else math.floor(scaled)
    return rounded * _NANO


def format_quantity(value: Fraction, fmt: str) -> str:
    """The canonical text of value in fmt (Quantity.String / CanonicalizeBytes)."""
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    mag = -value if value < 0 else value
    if fmt == BINARY_SI and (mag < 1024 or mag.denominator != 1):
        fmt = DECIMAL_SI
    if fmt == BINARY_SI:
        n = int(mag)
        for name, power in sorted(_BINARY.items(), key=lambda kv: -kv[1]):
            unit = 1024**power
            if n % unit == 0:
                return f"{sign}{n // unit}{name}"
        return f"{sign}{n}"
    nanos = int(mag / _NANO)
    exp = -9
    while nanos % 1000 == 0 and (fmt == DECIMAL_EXPONENT or exp < 18):
        nanos //= 1000
        exp += 3
    if fmt == DECIMAL_EXPONENT:
        return f"{sign}{nanos}" + (f"e{exp}" if exp else "")
    return f"{sign}{nanos}{_DECIMAL_BY_EXP[exp]}"


@lru_cache(maxsize=4096, typed=True)
def canonical_quantity(text: str | int | float) -> str:
    value, fmt = parse_quantity(text)
    return format_quantity(value, fmt)


@lru_cache(maxsize=4096, typed=True)
def round_up_milli(text: str | int | float) -> str | None:
    """Quantity.RoundUp(Milli), as SetDefaults_ResourceList applies it: the canonical text of the
    quantity rounded away from zero to milli precision, or None when it has no finer digits."""
    value, fmt = parse_quantity(text)
    millis, rest = divmod(value.numerator * 1000, value.denominator)
    if not rest:
        return None
    if value > 0:
        millis += 1  # divmod floors: one more milli is the ceiling
    return format_quantity(Fraction(millis, 1000), fmt)


def quantity_value(text: str | int | float) -> Fraction:
    """The exact value, for comparisons (requests ≤ limits)."""
    return parse_quantity(text)[0]

"""Int-or-percent fields (maxSurge, maxUnavailable, minAvailable): apps validation's
ValidatePositiveIntOrPercent and IsNotMoreThan100Percent, which policy reuses too."""

from __future__ import annotations

import re
from typing import Any

from kube_apiserver.apis.validation_util import field, gorepr
from kube_apiserver.apis.validation_util.names import is_valid_percent
from kube_apiserver.runtime.errors import StatusCause

_ATOI_RE = re.compile(r"[+-]?[0-9]+")


def percent_value(value: Any) -> int | None:
    """getPercentValue: the number of a valid "N%" string, else None."""
    if not isinstance(value, str) or is_valid_percent(value):
        return None
    return int(value[:-1])


def int_or_percent_value(value: Any) -> int:
    """getIntOrPercentValue: the percent number, else IntOrString.IntValue() (Atoi of a string, 0 on error)."""
    pct = percent_value(value)
    if pct is not None:
        return pct
    if field.is_int(value):
        return value
    if isinstance(value, str) and _ATOI_RE.fullmatch(value):
        return int(value)
    return 0


def validate_positive_int_or_percent(value: Any, path: str) -> list[StatusCause]:
    if isinstance(value, str):
        return [field.invalid(path, gorepr.int_or_string(value), msg) for msg in is_valid_percent(value)]
    if field.is_int(value):
        return field.validate_nonnegative_field(value, path)
    return []


def is_not_more_than_100_percent(value: Any, path: str) -> list[StatusCause]:
    pct = percent_value(value)
    if pct is None or pct <= 100:
        return []
    return [field.invalid(path, gorepr.int_or_string(value), "must not be greater than 100%")]

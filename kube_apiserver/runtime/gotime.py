"""metav1.Time and metav1.MicroTime as kube reads and writes them: Go's time.Parse of the RFC3339 layouts
(any offset, a fractional second where the layout allows one) and the UTC forms they are written back in
(Time to the second, MicroTime to the microsecond). A value Go refuses gets time.Parse's own words."""

from __future__ import annotations

import calendar
from datetime import UTC, datetime, timedelta

RFC3339 = "2006-01-02T15:04:05Z07:00"
RFC3339_MICRO = "2006-01-02T15:04:05.000000Z07:00"


class TimeParseError(ValueError):
    pass


def _error(value: str, layout: str, rest: str, element: str) -> TimeParseError:
    return TimeParseError(f'parsing time "{value}" as "{layout}": cannot parse "{rest}" as "{element}"')


def _range_error(value: str, what: str) -> TimeParseError:
    return TimeParseError(f'parsing time "{value}": {what} out of range')


def _digits(s: str, n: int) -> bool:
    return len(s) >= n and all("0" <= c <= "9" for c in s[:n])


def parse(value: str, micro: bool = False) -> datetime:
    """time.Parse(RFC3339 or RFC3339Micro, value), in UTC."""
    layout = RFC3339_MICRO if micro else RFC3339
    rest = value
    if not _digits(rest, 4):
        raise _error(value, layout, rest, "2006")
    year, rest = int(rest[:4]), rest[4:]
    fields = []
    # month, day, hour, minute, second: each after its separator; two digits (the hour may be one)
    for sep, element, what, lo, hi in (
        ("-", "01", "month", 1, 12),
        ("-", "02", "day", 1, 31),
        ("T", "15", "hour", 0, 23),
        (":", "04", "minute", 0, 59),
        (":", "05", "second", 0, 59),
    ):
        if not rest.startswith(sep):
            raise _error(value, layout, rest, sep)
        rest = rest[1:]
        width = 2 if _digits(rest, 2) else 1 if element == "15" and _digits(rest, 1) else 0
        if not width:
            raise _error(value, layout, rest, element)
        n, rest = int(rest[:width]), rest[width:]
        if not lo <= n <= hi:
            raise _range_error(value, what)
        fields.append(n)
    micros = 0
    if micro:  # exactly six digits after a period (or comma)
        if len(rest) < 7 or rest[0] not in ".," or not _digits(rest[1:], 6):
            raise _error(value, layout, rest, ".000000")
        micros, rest = int(rest[1:7]), rest[7:]
    elif len(rest) >= 2 and rest[0] in ".," and _digits(rest[1:], 1):
        # RFC3339 reads any fraction the value has (Time then drops it when written)
        n = 1
        while n < len(rest) and "0" <= rest[n] <= "9":
            n += 1
        micros, rest = int((rest[1:n] + "000000")[:6]), rest[n:]
    zone = "Z07:00"
    offset = 0
    if rest.startswith("Z"):
        rest = rest[1:]
    else:
        if (
            len(rest) < 6
            or rest[0] not in "+-"
            or rest[3] != ":"
            or not _digits(rest[1:], 2)
            or not _digits(rest[4:], 2)
        ):
            raise _error(value, layout, rest, zone)
        hours, minutes = int(rest[1:3]), int(rest[4:6])
        if hours > 24:
            raise _range_error(value, "time zone offset hour")
        if minutes > 59:
            raise _range_error(value, "time zone offset minute")
        offset = (hours * 60 + minutes) * (-1 if rest[0] == "-" else 1)
        rest = rest[6:]
    if rest:
        raise TimeParseError(f'parsing time "{value}": extra text: "{rest}"')
    month, day, hour, minute, second = fields
    if day > calendar.monthrange(year or 2000, month)[1]:  # (year 0 is a leap year, as 2000)
        raise _range_error(value, "day")
    try:
        return datetime(year, month, day, hour, minute, second, micros, tzinfo=UTC) - timedelta(minutes=offset)
    except (ValueError, OverflowError):  # year 0, or an offset past year 1: valid in Go, not in datetime
        raise _Unrepresentable(value) from None


class _Unrepresentable(ValueError):
    """A time Go reads but Python's datetime cannot hold; it is kept as written."""


def format_time(t: datetime) -> str:
    """metav1.Time.MarshalJSON: UTC, RFC3339 to the second."""
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def format_micro_time(t: datetime) -> str:
    """metav1.MicroTime.MarshalJSON: UTC, RFC3339 with six fraction digits."""
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def normalize(value: str, micro: bool = False) -> str:
    """The value as kube writes it back after reading it: parsed, then formatted in UTC."""
    try:
        t = parse(value, micro)
    except _Unrepresentable:
        return value
    return format_micro_time(t) if micro else format_time(t)

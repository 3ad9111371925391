"""The CronJob schedule syntax kube-apiserver accepts: github.com/robfig/cron/v3 ParseStandard
(five fields minute hour day-of-month month day-of-week, or a descriptor: @yearly, @annually,
@monthly, @weekly, @daily, @midnight, @hourly, @every <Go duration>), returning that library's
error texts, which kube shows after the schedule."""

from __future__ import annotations

import re
import zoneinfo
from dataclasses import dataclass, field

_DESCRIPTORS = frozenset({"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"})
_MONTHS = {
    m: i + 1 for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"))
}
_DAYS = {d: i for i, d in enumerate(("sun", "mon", "tue", "wed", "thu", "fri", "sat"))}


@dataclass(frozen=True)
class _Bounds:
    lo: int
    hi: int
    names: dict[str, int] = field(default_factory=dict)


# Second is not part of a standard spec: the parser fills "0" for it.
_FIELDS = (
    ("0", _Bounds(0, 59)),  # second
    (None, _Bounds(0, 59)),  # minute
    (None, _Bounds(0, 23)),  # hour
    (None, _Bounds(1, 31)),  # day of month
    (None, _Bounds(1, 12, _MONTHS)),  # month
    (None, _Bounds(0, 6, _DAYS)),  # day of week
)

_ATOI_RE = re.compile(r"[+-]?[0-9]+")
_INT64 = 2**63


class CronError(ValueError):
    pass


def go_atoi(expr: str) -> int:
    """strconv.Atoi, raising with Go's NumError text."""
    if not _ATOI_RE.fullmatch(expr) or not expr.isascii():
        raise CronError(f'strconv.Atoi: parsing "{expr}": invalid syntax')
    n = int(expr)
    if not -_INT64 <= n < _INT64:
        raise CronError(f'strconv.Atoi: parsing "{expr}": value out of range')
    return n


def _must_parse_int(expr: str) -> int:
    try:
        num = go_atoi(expr)
    except CronError as e:
        raise CronError(f"failed to parse int from {expr}: {e}") from None
    if num < 0:
        raise CronError(f"negative number ({num}) not allowed: {expr}")
    return num


def _parse_int_or_name(expr: str, names: dict[str, int]) -> int:
    if names and expr.lower() in names:
        return names[expr.lower()]
    return _must_parse_int(expr)


def _check_range(expr: str, bounds: _Bounds) -> None:
    range_and_step = expr.split("/")
    low_and_high = range_and_step[0].split("-")
    single = len(low_and_high) == 1
    if low_and_high[0] in ("*", "?"):
        start, end = bounds.lo, bounds.hi
    else:
        start = _parse_int_or_name(low_and_high[0], bounds.names)
        if len(low_and_high) == 1:
            end = start
        elif len(low_and_high) == 2:
            end = _parse_int_or_name(low_and_high[1], bounds.names)
        else:
            raise CronError(f"too many hyphens: {expr}")
    if len(range_and_step) == 1:
        step = 1
    elif len(range_and_step) == 2:
        step = _must_parse_int(range_and_step[1])
        if single:  # "N/step" means "N-max/step"
            end = bounds.hi
    else:
        raise CronError(f"too many slashes: {expr}")
    if start < bounds.lo:
        raise CronError(f"beginning of range ({start}) below minimum ({bounds.lo}): {expr}")
    if end > bounds.hi:
        raise CronError(f"end of range ({end}) above maximum ({bounds.hi}): {expr}")
    if start > end:
        raise CronError(f"beginning of range ({start}) beyond end of range ({end}): {expr}")
    if step == 0:
        raise CronError(f"step of range should be a positive number: {expr}")


def _check_field(value: str, bounds: _Bounds) -> None:
    for expr in (part for part in value.split(",") if part):  # strings.FieldsFunc drops empty parts
        _check_range(expr, bounds)


def parse_standard(spec: str) -> str | None:
    """cron.ParseStandard: None when the spec parses, else the library's error text."""
    try:
        _parse_standard(spec)
    except CronError as e:
        return str(e)
    return None


def _parse_standard(spec: str) -> None:
    if not spec:
        raise CronError("empty spec string")
    if spec.startswith(("TZ=", "CRON_TZ=")):
        i = spec.find(" ")
        eq = spec.find("=")
        name = spec[eq + 1 : i] if i >= 0 else spec[eq + 1 :]
        err = load_location(name)
        if err:
            raise CronError(f"provided bad location {name}: {err}")
        spec = spec[i:].strip() if i >= 0 else ""
    if spec.startswith("@"):
        _parse_descriptor(spec)
        return
    fields = spec.split()
    if len(fields) != 5:
        raise CronError(f"expected exactly 5 fields, found {len(fields)}: [{' '.join(fields)}]")
    for (fixed, bounds), value in zip(_FIELDS, ["0", *fields], strict=True):
        _check_field(fixed or value, bounds)


def _parse_descriptor(descriptor: str) -> None:
    if descriptor in _DESCRIPTORS:
        return
    every = "@every "
    if descriptor.startswith(every):
        err = go_parse_duration_error(descriptor[len(every) :])
        if err:
            raise CronError(f"failed to parse duration {descriptor}: {err}")
        return
    raise CronError(f"unrecognized descriptor: {descriptor}")


_UNITS = {"ns", "us", "µs", "μs", "ms", "s", "m", "h"}


def _go_time_quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def go_parse_duration_error(orig: str) -> str | None:
    """time.ParseDuration's error for `orig`, or None when it is a valid duration."""
    invalid = f"time: invalid duration {_go_time_quote(orig)}"
    s = orig
    if s and s[0] in "+-":
        s = s[1:]
    if s == "0":
        return None
    if not s:
        return invalid
    while s:
        if not (s[0] == "." or "0" <= s[0] <= "9"):
            return invalid
        m = re.match(r"[0-9]*", s)
        int_part = m.group(0) if m else ""
        s = s[len(int_part) :]
        frac = ""
        if s.startswith("."):
            s = s[1:]
            m = re.match(r"[0-9]*", s)
            frac = m.group(0) if m else ""
            s = s[len(frac) :]
        if not int_part and not frac:
            return invalid
        i = 0
        while i < len(s) and not (s[i] == "." or "0" <= s[i] <= "9"):
            i += 1
        if i == 0:
            return f"time: missing unit in duration {_go_time_quote(orig)}"
        unit, s = s[:i], s[i:]
        if unit not in _UNITS:
            return f"time: unknown unit {_go_time_quote(unit)} in duration {_go_time_quote(orig)}"
        if int_part and int(int_part) >= _INT64:
            return invalid
    return None


def load_location(name: str) -> str | None:
    """time.LoadLocation's error for `name` (None when Go would load it): "", UTC and Local are
    built in, anything else must be in the IANA database."""
    if name in ("", "UTC", "Local"):
        return None
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError, TypeError):
        return f"unknown time zone {name}"
    return None

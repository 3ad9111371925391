"""Flag value types shared by the option groups: each raises argparse.ArgumentTypeError with a one-line message."""

from __future__ import annotations

import argparse
import csv
import ipaddress
from typing import Any

from kube_apiserver.server.filters.timeout import parse_go_duration


class SliceFlag(argparse.Action):
    """A pflag slice flag (stringSlice and the like): each use is parsed by the argument's type into a list; the
    first use replaces the default and later uses add to it (--authorization-mode=Node --authorization-mode=RBAC
    is Node,RBAC, as pflag appends)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.used = False  # a parser (and its actions) is built for each parse

    def __call__(self, parser: Any, namespace: argparse.Namespace, values: Any, option_string: Any = None) -> None:
        items = list(getattr(namespace, self.dest, None) or []) if self.used else []
        items.extend(values if isinstance(values, list) else [values])
        setattr(namespace, self.dest, items)
        self.used = True


class MapFlag(argparse.Action):
    """A map flag (mapStringBool, ConfigurationMap): each use is parsed by the argument's type into a dict; the
    first use replaces the default and later uses are merged into it, a later key winning."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.used = False

    def __call__(self, parser: Any, namespace: argparse.Namespace, values: Any, option_string: Any = None) -> None:
        merged = dict(getattr(namespace, self.dest, None) or {}) if self.used else {}
        merged.update(values)
        setattr(namespace, self.dest, merged)
        self.used = True


def csv_list(value: str) -> list[str]:
    """pflag's StringSlice value: a CSV record."""
    return next(csv.reader([value]), [])


def bool_flag(value: str) -> bool:
    v = value.lower()
    if v in ("true", "1", "t"):
        return True
    if v in ("false", "0", "f"):
        return False
    raise argparse.ArgumentTypeError(f'invalid boolean "{value}"')


def duration_flag(value: str) -> float:
    try:
        return parse_go_duration(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f'invalid duration "{value}"') from None


def port_flag(value: str) -> int:
    if not (value.isascii() and value.isdigit()) or not 0 < int(value) < 65536:
        raise argparse.ArgumentTypeError(f'"{value}" is not a valid port (1-65535)')
    return int(value)


def ip_flag(value: str) -> str:
    try:
        return str(ipaddress.ip_address(value))
    except ValueError:
        raise argparse.ArgumentTypeError(f'"{value}" is not a valid IP address') from None


def cidr_flag(value: str) -> str:
    try:
        net = ipaddress.ip_network(value, strict=False)
    except ValueError:
        raise argparse.ArgumentTypeError(f'"{value}" is not a valid CIDR') from None
    if net.num_addresses < 4:
        raise argparse.ArgumentTypeError(f'service IP range "{value}" is too small')
    return str(net)


def port_range_flag(value: str) -> tuple[int, int]:
    try:
        lo, hi = (int(p) for p in value.split("-", 1))
    except ValueError:
        raise argparse.ArgumentTypeError(f'"{value}" is not a port range such as 30000-32767') from None
    if not 0 < lo <= hi < 65536:
        raise argparse.ArgumentTypeError(f'"{value}" is not a valid port range')
    return lo, hi


def positive_flag(value: str) -> int:
    if not (value.isascii() and value.lstrip("-").isdigit()) or int(value) < 0:
        raise argparse.ArgumentTypeError(f'"{value}" must be a non-negative integer')
    return int(value)


def int64_flag(value: str) -> int:
    """An int64 flag, in strconv.ParseInt's words when it is not one."""
    if not (value.isascii() and value.lstrip("+-").isdigit()):
        raise argparse.ArgumentTypeError(f'strconv.ParseInt: parsing "{value}": invalid syntax')
    n = int(value)
    if not -(2**63) <= n < 2**63:
        raise argparse.ArgumentTypeError(f'strconv.ParseInt: parsing "{value}": value out of range')
    return n


def map_string_bool_flag(value: str) -> dict[str, bool]:
    """A mapStringBool flag (--feature-gates): comma-separated key=bool pairs."""
    out: dict[str, bool] = {}
    for pair in (p.strip() for p in value.split(",")):
        if not pair:
            continue
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise argparse.ArgumentTypeError(f'missing bool value for "{pair}"')
        try:
            out[key.strip()] = bool_flag(raw.strip())
        except argparse.ArgumentTypeError:
            raise argparse.ArgumentTypeError(f"invalid value of {key.strip()}: {raw.strip()}") from None
    return out


def map_string_string_flag(value: str) -> dict[str, str]:
    """A mapStringString flag (--runtime-config): comma-separated key=value pairs (a bare key means "true")."""
    out: dict[str, str] = {}
    for pair in (p.strip() for p in value.split(",")):
        if pair:
            key, sep, raw = pair.partition("=")
            out[key.strip()] = raw.strip() if sep else "true"
    return out

"""The string formats a CRD schema may name and the checks kube-openapi's format registry makes
(apiextensions-apiserver accepts these names; unknown formats are not checked)."""

from __future__ import annotations

import base64
import binascii
import ipaddress
import re
from collections.abc import Callable

_DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")
_DATE = re.compile(r"^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_HOSTNAME = re.compile(
    r"^([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$"
)
_UUID = re.compile(r"^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$")
_UUID_V = {
    v: re.compile(
        rf"^[0-9a-fA-F]{{8}}-?[0-9a-fA-F]{{4}}-?{v}[0-9a-fA-F]{{3}}-?[89abAB][0-9a-fA-F]{{3}}-?[0-9a-fA-F]{{12}}$"
    )
    for v in "345"
}
_MAC = re.compile(r"^([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$")
_DURATION = re.compile(r"^(-?\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$|^0$")
_URI = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:[^\s]*$|^/[^\s]*$")
_BSON = re.compile(r"^[0-9a-fA-F]{24}$")


def _ip(version: int) -> Callable[[str], bool]:
    def check(value: str) -> bool:
        try:
            return ipaddress.ip_address(value).version == version
        except ValueError:
            return False

    return check


def _cidr(value: str) -> bool:
    try:
        ipaddress.ip_network(value, strict=False)
    except ValueError:
        return False
    return "/" in value


def _byte(value: str) -> bool:
    try:
        base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


FORMATS: dict[str, Callable[[str], bool]] = {
    "date-time": lambda v: bool(_DATE_TIME.match(v)),
    "datetime": lambda v: bool(_DATE_TIME.match(v)),
    "date": lambda v: bool(_DATE.match(v)),
    "email": lambda v: bool(_EMAIL.match(v)),
    "hostname": lambda v: bool(_HOSTNAME.match(v)) and len(v) <= 255,
    "ipv4": _ip(4),
    "ipv6": _ip(6),
    "cidr": _cidr,
    "mac": lambda v: bool(_MAC.match(v)),
    "uuid": lambda v: bool(_UUID.match(v)),
    "uuid3": lambda v: bool(_UUID_V["3"].match(v)),
    "uuid4": lambda v: bool(_UUID_V["4"].match(v)),
    "uuid5": lambda v: bool(_UUID_V["5"].match(v)),
    "duration": lambda v: bool(_DURATION.match(v)),
    "uri": lambda v: bool(_URI.match(v)),
    "byte": _byte,
    "bsonobjectid": lambda v: bool(_BSON.match(v)),
}


def check_format(fmt: str, value: str) -> bool:
    """Whether value is valid in format fmt (True for formats kube does not check)."""
    check = FORMATS.get(fmt)
    return True if check is None else check(value)

"""IP and CIDR checks of util/validation/ip.go and core validation (ValidateEndpointIP), on Go's
parsing rules: k8s.io/utils/net's "sloppy" parsers accept IPv4 octets with leading zeros (strict
validation then rejects them), IPv6 zones are never accepted, and net.IP.String prints an
IPv4-mapped IPv6 address in dotted form."""

from __future__ import annotations

import ipaddress
import re

from kube_apiserver.apis.validation_util import field
from kube_apiserver.runtime.errors import StatusCause
from kube_apiserver.runtime.labels import go_quote

IPAddr = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNet = ipaddress.IPv4Network | ipaddress.IPv6Network

_V4_RE = re.compile(r"[0-9]+(\.[0-9]+){3}")
_DIGITS_RE = re.compile(r"[0-9]+")


def parse_ip_sloppy(value: str) -> IPAddr | None:
    """netutils.ParseIPSloppy."""
    if not isinstance(value, str) or not value.isascii() or "%" in value:
        return None
    if _V4_RE.fullmatch(value):
        octets = [int(p) for p in value.split(".")]
        if any(o > 255 for o in octets):
            return None
        return ipaddress.IPv4Address(".".join(map(str, octets)))
    if ":" not in value:
        return None
    try:
        return ipaddress.IPv6Address(value)
    except ValueError:
        return None


def _has_leading_zeros(value: str) -> bool:
    """What netip.ParseAddr rejects but the sloppy parser accepts: a 0-prefixed IPv4 octet."""
    v4 = value.rsplit(":", 1)[-1]
    return bool(_V4_RE.fullmatch(v4)) and any(len(p) > 1 and p[0] == "0" for p in v4.split("."))


def is_4in6(ip: IPAddr) -> bool:
    return isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None


def ip_string(ip: IPAddr) -> str:
    """net.IP.String."""
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ip)


def is_v4(ip: IPAddr) -> bool:
    """net.IP.To4() != nil: IPv4 and IPv4-mapped IPv6 addresses."""
    return isinstance(ip, ipaddress.IPv4Address) or is_4in6(ip)


def is_valid_ip(path: str, value: str) -> list[StatusCause]:
    """IsValidIP: a valid IP in canonical form."""
    ip = parse_ip_sloppy(value)
    if ip is None:
        return [field.invalid(path, value, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")]
    errs = []
    if _has_leading_zeros(value):
        errs.append(field.invalid(path, value, "must not have leading 0s"))
    if is_4in6(ip):
        errs.append(field.invalid(path, value, "must not be an IPv4-mapped IPv6 address"))
    if errs:
        return errs
    if value != ip_string(ip):
        errs.append(field.invalid(path, value, f"must be in canonical form ({go_quote(ip_string(ip))})"))
    return errs


def is_valid_ipv4_address(path: str, value: str) -> list[StatusCause]:
    ip = parse_ip_sloppy(value)
    if ip is None or not is_v4(ip):
        return [field.invalid(path, value, "must be a valid IPv4 address")]
    return []


def is_valid_ipv6_address(path: str, value: str) -> list[StatusCause]:
    ip = parse_ip_sloppy(value)
    if ip is None or is_v4(ip):
        return [field.invalid(path, value, "must be a valid IPv6 address")]
    return []


def parse_cidr_sloppy(value: str) -> tuple[IPAddr, IPNet] | None:
    """netutils.ParseCIDRSloppy: the address and its network (host bits cleared)."""
    if not isinstance(value, str):
        return None
    addr, sep, prefix = value.partition("/")
    if not sep or not _DIGITS_RE.fullmatch(prefix):
        return None
    ip = parse_ip_sloppy(addr)
    if ip is None:
        return None
    bits = int(prefix)
    if bits > ip.max_prefixlen:
        return None
    network = ipaddress.ip_network(f"{ip}/{bits}", strict=False)
    return ip, network


def network_string(network: IPNet) -> str:
    return f"{network.network_address}/{network.prefixlen}"


def is_valid_cidr_for_legacy_field(path: str, value: str) -> list[StatusCause]:
    """IsValidCIDRForLegacyField without StrictIPCIDRValidation (alpha, off in 1.33)."""
    if parse_cidr_sloppy(value) is None:
        return [field.invalid(path, value, "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)")]
    return []


def is_valid_cidr(path: str, value: str) -> list[StatusCause]:
    """IsValidCIDR: a subnet (no host bits) in canonical form."""
    parsed = parse_cidr_sloppy(value)
    if parsed is None:
        return [field.invalid(path, value, "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)")]
    ip, network = parsed
    addr, _, prefix = value.partition("/")
    if _has_leading_zeros(addr) or (len(prefix) > 1 and prefix[0] == "0"):
        return [field.invalid(path, value, "must not have leading 0s in IP or prefix length")]
    if is_4in6(ip):
        return [field.invalid(path, value, "must not have an IPv4-mapped IPv6 address")]
    if ip != network.network_address:
        return [field.invalid(path, value, "must not have bits set beyond the prefix length")]
    canonical = network_string(network)
    if value != canonical:
        return [field.invalid(path, value, f"must be in canonical form ({go_quote(canonical)})")]
    return []


_LINK_LOCAL_MULTICAST_V4 = ipaddress.ip_network("224.0.0.0/24")
_LINK_LOCAL_MULTICAST_V6 = ipaddress.ip_network("ff02::/16")


def validate_endpoint_ip(value: str, path: str) -> list[StatusCause]:
    """ValidateEndpointIP: no unspecified, loopback or link-local addresses as endpoints."""
    ip = parse_ip_sloppy(value)
    if ip is None:
        return [field.invalid(path, value, "must be a valid IP address")]
    if is_4in6(ip):
        ip = ip.ipv4_mapped  # type: ignore[union-attr]
    errs = []
    if ip.is_unspecified:
        errs.append(field.invalid(path, value, f"may not be unspecified ({value})"))
    if ip.is_loopback:
        errs.append(field.invalid(path, value, "may not be in the loopback range (127.0.0.0/8, ::1/128)"))
    if ip.is_link_local and not ip.is_multicast:
        errs.append(field.invalid(path, value, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"))
    in_ll_multicast = (
        ip in _LINK_LOCAL_MULTICAST_V4 if isinstance(ip, ipaddress.IPv4Address) else ip in _LINK_LOCAL_MULTICAST_V6
    )
    if in_ll_multicast:
        errs.append(
            field.invalid(path, value, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)")
        )
    return errs

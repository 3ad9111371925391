"""The IP and CIDR libraries (library.IP, library.CIDR): net.IP and net.CIDR values.

ip(<string>), isIP(<string>), ip.isCanonical(<string>), string(<IP>), and on an IP: family,
isUnspecified, isLoopback, isLinkLocalMulticast, isLinkLocalUnicast, isGlobalUnicast.
cidr(<string>), isCIDR(<string>), string(<CIDR>), and on a CIDR: containsIP, containsCIDR, ip,
masked, prefixLength. As Go's netip: no zones, and IPv4-mapped IPv6 addresses are refused."""

from __future__ import annotations

import ipaddress
from typing import Any

from cel_expr_python import cel

from kube_apiserver.runtime.cel.library import CELError, Decl, decl, overload
from kube_apiserver.runtime.cel.types import CIDR, IP, CIDRType, IPType, unwrap, wrap

_S, _B, _I = cel.Type.STRING, cel.Type.BOOL, cel.Type.INT
Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Interface = ipaddress.IPv4Interface | ipaddress.IPv6Interface


def _parse_ip(text: str) -> Address:
    if "%" in text:
        raise ValueError("IP address with zone value is not allowed")
    try:
        addr = ipaddress.ip_address(text)
    except ValueError:
        raise ValueError(f"ParseAddr({text!r}): unable to parse IP") from None
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        raise ValueError("IPv4-mapped IPv6 address is not allowed")
    return addr


def _parse_cidr(text: str) -> Interface:
    if "%" in text:
        raise ValueError("CIDR with zone value is not allowed")
    addr, sep, bits = text.partition("/")
    if not sep or not (bits.isascii() and bits.isdigit()) or (len(bits) > 1 and bits.startswith("0")):
        raise ValueError(f"netip.ParsePrefix({text!r}): bad bits after slash: {bits!r}")
    try:
        iface = ipaddress.ip_interface(text)
    except ValueError:
        raise ValueError(f"netip.ParsePrefix({text!r}): ParseAddr({addr!r}): unable to parse IP") from None
    if isinstance(iface, ipaddress.IPv6Interface) and iface.ip.ipv4_mapped is not None:
        raise ValueError("IPv4-mapped IPv6 address is not allowed")
    return iface


def ip(text: str) -> Any:
    try:
        return wrap(IP, str(_parse_ip(text)))
    except ValueError as e:
        raise CELError(f"IP Address {_go_quote(text)} parse error during conversion from string: {e}") from None


def is_ip(text: str) -> bool:
    try:
        _parse_ip(text)
    except ValueError:
        return False
    return True


def is_canonical(text: str) -> bool:
    try:
        return str(_parse_ip(text)) == text
    except ValueError as e:
        raise CELError(f"IP Address {_go_quote(text)} parse error during conversion from string: {e}") from None


def cidr(text: str) -> Any:
    try:
        iface = _parse_cidr(text)
    except ValueError as e:
        raise CELError(f"network address {_go_quote(text)} parse error during conversion from string: {e}") from None
    return wrap(CIDR, f"{iface.ip}/{iface.network.prefixlen}")


def is_cidr(text: str) -> bool:
    try:
        _parse_cidr(text)
    except ValueError:
        return False
    return True


def _go_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _addr(v: Any) -> Address:
    return ipaddress.ip_address(unwrap(v))


def _iface(v: Any) -> Interface:
    return ipaddress.ip_interface(unwrap(v))


def _contains_ip(c: Any, other: Any) -> bool:
    addr = _parse_ip(other) if isinstance(other, str) else _addr(other)
    net = _iface(c).network
    return addr.version == net.version and addr in net


def _contains_cidr(c: Any, other: Any) -> bool:
    if isinstance(other, str):
        try:
            inner = _parse_cidr(other).network
        except ValueError as e:
            raise CELError(str(e)) from None
    else:
        inner = _iface(other).network
    outer = _iface(c).network
    return inner.version == outer.version and inner.prefixlen >= outer.prefixlen and inner.subnet_of(outer)  # type: ignore[arg-type]


def _masked(c: Any) -> Any:
    net = _iface(c).network
    return wrap(CIDR, str(net))


def _global_unicast(v: Any) -> bool:
    a = _addr(v)
    if a.is_unspecified or a.is_loopback or a.is_multicast or a.is_link_local:
        return False
    return not (a.version == 4 and int(a) == 0xFFFFFFFF)


def decls() -> list[Decl]:
    P, C = IPType, CIDRType
    out = [
        decl(
            "ip",
            [
                overload("string_to_ip", P, [_S], ip),
                overload("cidr_ip", P, [C], lambda c: wrap(IP, str(_iface(c).ip)), True),
            ],
        ),
        decl("isIP", [overload("is_ip", _B, [_S], is_ip)]),
        decl("ip.isCanonical", [overload("ip_is_canonical", _B, [_S], is_canonical)]),
        decl(
            "string",
            [
                overload("ip_to_string", _S, [P], unwrap),
                # no implementation of its own: at run time both are messages, and the IP one serves
                overload("cidr_to_string", _S, [C]),
            ],
        ),
        decl("family", [overload("ip_family", _I, [P], lambda v: _addr(v).version, True)]),
        decl("isUnspecified", [overload("ip_is_unspecified", _B, [P], lambda v: _addr(v).is_unspecified, True)]),
        decl("isLoopback", [overload("ip_is_loopback", _B, [P], lambda v: _addr(v).is_loopback, True)]),
        decl(
            "isLinkLocalMulticast",
            [
                overload(
                    "ip_is_link_local_multicast",
                    _B,
                    [P],
                    lambda v: (
                        _addr(v) in ipaddress.ip_network("224.0.0.0/24" if _addr(v).version == 4 else "ff02::/16")
                    ),
                    True,
                )
            ],
        ),
        decl(
            "isLinkLocalUnicast",
            [
                overload(
                    "ip_is_link_local_unicast",
                    _B,
                    [P],
                    lambda v: (
                        _addr(v) in ipaddress.ip_network("169.254.0.0/16" if _addr(v).version == 4 else "fe80::/10")
                    ),
                    True,
                )
            ],
        ),
        decl("isGlobalUnicast", [overload("ip_is_global_unicast", _B, [P], _global_unicast, True)]),
        decl("cidr", [overload("string_to_cidr", C, [_S], cidr)]),
        decl("isCIDR", [overload("is_cidr", _B, [_S], is_cidr)]),
        decl(
            "containsIP",
            [
                overload("cidr_contains_ip_string", _B, [C, _S], _contains_ip, True),
                overload("cidr_contains_ip_ip", _B, [C, P], _contains_ip, True),
            ],
        ),
        decl(
            "containsCIDR",
            [
                overload("cidr_contains_cidr_string", _B, [C, _S], _contains_cidr, True),
                overload("cidr_contains_cidr", _B, [C, C], _contains_cidr, True),
            ],
        ),
        decl("masked", [overload("cidr_masked", C, [C], _masked, True)]),
        decl(
            "prefixLength",
            [overload("cidr_prefix_length", _I, [C], lambda c: _iface(c).network.prefixlen, True)],
        ),
    ]
    return out

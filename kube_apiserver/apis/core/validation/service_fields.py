"""Helpers of Service validation: Go's rendering of values in field errors, IP family tests,
ValidateNonSpecialIP and ValidateLoadBalancerStatus (pkg/apis/core/validation)."""

from __future__ import annotations

import ipaddress
from typing import Any

from kube_apiserver.runtime.errors import (
    StatusCause,
    field_forbidden,
    field_invalid,
    field_not_supported,
    field_required,
)
from kube_apiserver.runtime.labels import go_quote
from kube_apiserver.runtime.validation.names import is_dns1123_subdomain, is_valid_ip, parse_ip_sloppy

SUPPORTED_LOAD_BALANCER_IP_MODES = ["Proxy", "VIP"]


# Accessors: a value of the wrong JSON type counts as absent (the decoder has reported it).


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def as_str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def as_int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def spec_of(svc: dict[str, Any]) -> dict[str, Any]:
    return as_dict(svc.get("spec"))


def cluster_ips(spec: dict[str, Any]) -> list[str]:
    return [as_str(ip) for ip in as_list(spec.get("clusterIPs"))]


def ip_families(spec: dict[str, Any]) -> list[str]:
    return [as_str(f) for f in as_list(spec.get("ipFamilies"))]


def is_headless_service(spec: dict[str, Any]) -> bool:
    ips = cluster_ips(spec)
    return len(ips) == 1 and ips[0] == "None"


def go_string_slice(values: list[str] | None, type_name: str = "[]string") -> str:
    """Go's %#v of a string slice: `[]string{"a", "b"}`, `[]string{}`, or `[]string(nil)` when unset."""
    if values is None:
        return f"{type_name}(nil)"
    return type_name + "{" + ", ".join(go_quote(v) for v in values) + "}"


def go_ip_families(values: list[str] | None) -> str:
    return go_string_slice(values, "[]core.IPFamily")


def invalid_raw(path: str, shown: str, detail: str) -> StatusCause:
    """field.Invalid with a value already rendered the Go way (a slice, a struct)."""
    return StatusCause("FieldValueInvalid", f"Invalid value: {shown}: {detail}", path)


def family_of(ip: str) -> str:
    """ "IPv4", "IPv6" or "" for what is not an IP. An IPv4-mapped IPv6 address counts as IPv4, as in Go."""
    addr = parse_ip_sloppy(ip)
    if addr is None:
        return ""
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is None:
        return "IPv6"
    return "IPv4"


def is_ipv6_string(ip: str) -> bool:
    return family_of(ip) == "IPv6"


def _is_link_local_multicast(addr: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    # net.IP.IsLinkLocalMulticast: 224.0.0.0/24, or ff02::/16 (any flags nibble).
    if isinstance(addr, ipaddress.IPv4Address):
        return addr in ipaddress.IPv4Network("224.0.0.0/24")
    packed = addr.packed
    return packed[0] == 0xFF and packed[1] & 0x0F == 0x02


def validate_non_special_ip(ip: str, path: str) -> list[StatusCause]:
    """ValidateNonSpecialIP: no unspecified, loopback or link-local addresses (external IPs, endpoints)."""
    addr = parse_ip_sloppy(ip)
    if addr is None:
        return [field_invalid(path, ip, "must be a valid IP address")]
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        addr = addr.ipv4_mapped
    causes = []
    if addr.is_unspecified:
        causes.append(field_invalid(path, ip, f"may not be unspecified ({ip})"))
    if addr.is_loopback:
        causes.append(field_invalid(path, ip, "may not be in the loopback range (127.0.0.0/8, ::1/128)"))
    if addr.is_link_local:
        causes.append(field_invalid(path, ip, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"))
    if _is_link_local_multicast(addr):
        causes.append(field_invalid(path, ip, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"))
    return causes


def validate_load_balancer_status(lb: Any, spec: dict[str, Any]) -> list[StatusCause]:
    """ValidateLoadBalancerStatus of status.loadBalancer (LoadBalancerIPMode is GA in 1.33)."""
    ingress = lb.get("ingress") if isinstance(lb, dict) else None
    ingress = ingress if isinstance(ingress, list) else []
    path = "status.loadBalancer.ingress"
    if spec.get("type") != "LoadBalancer" and ingress:
        return [field_forbidden(path, "may only be used when `spec.type` is 'LoadBalancer'")]
    causes: list[StatusCause] = []
    for i, ing in enumerate(ingress):
        ing = ing if isinstance(ing, dict) else {}
        ip = ing.get("ip") if isinstance(ing.get("ip"), str) else ""
        mode = ing.get("ipMode")
        if ip:
            causes += is_valid_ip(f"{path}[{i}].ip", ip)
        if mode is None:
            if ip:
                causes.append(field_required(f"{path}[{i}].ipMode", "must be specified when `ip` is set"))
        elif not ip:
            causes.append(field_forbidden(f"{path}[{i}].ipMode", "may not be specified when `ip` is not set"))
        elif mode not in SUPPORTED_LOAD_BALANCER_IP_MODES:
            causes.append(field_not_supported(f"{path}[{i}].ipMode", mode, SUPPORTED_LOAD_BALANCER_IP_MODES))
        hostname = ing.get("hostname") if isinstance(ing.get("hostname"), str) else ""
        if hostname:
            causes += [field_invalid(f"{path}[{i}].hostname", hostname, m) for m in is_dns1123_subdomain(hostname)]
            if parse_ip_sloppy(hostname) is not None:
                causes.append(field_invalid(f"{path}[{i}].hostname", hostname, "must be a DNS name, not an IP address"))
    return causes


# --- warnings (pkg/api/service/warnings.go GetWarningsForService; util/validation GetWarningsForIP/CIDR) ---


def get_warnings_for_ip(path: str, value: str) -> list[str]:
    """Leading zeros and IPv4-mapped IPv6 are to become invalid; IPv6 should be RFC 5952 canonical."""
    if parse_ip_sloppy(value) is None:
        return []
    try:
        strict = ipaddress.ip_address(value)
    except ValueError:
        strict = None
    if strict is None or isinstance(strict, ipaddress.IPv6Address) and strict.ipv4_mapped is not None:
        shown = canonical_ip_string(value)
        return [
            f"{path}: non-standard IP address {go_quote(value)} will be considered invalid in a future "
            f"Kubernetes release: use {go_quote(shown)}"
        ]
    if strict.version == 6 and str(strict) != value:
        return [
            f"{path}: IPv6 address {go_quote(value)} should be in RFC 5952 canonical format ({go_quote(str(strict))})"
        ]
    return []


def canonical_ip_string(value: str) -> str:
    addr = parse_ip_sloppy(value)
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        return str(addr.ipv4_mapped)
    return str(addr) if addr is not None else value


def get_warnings_for_cidr(path: str, value: str) -> list[str]:
    ip_part, _, bits = value.partition("/")
    addr = parse_ip_sloppy(ip_part)
    if addr is None or not bits.isascii() or not bits.isdigit():
        return []
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None and int(bits) >= 96:
        addr, length = addr.ipv4_mapped, int(bits) - 96  # Go hands back the IPv4 network
    else:
        length = int(bits)
    if length > addr.max_prefixlen:
        return []
    network = ipaddress.ip_network(f"{addr}/{length}", strict=False)
    warnings = []
    if network.network_address != addr:
        warnings.append(
            f"{path}: CIDR value {go_quote(value)} is ambiguous in this context (should be "
            f"{go_quote(str(network))} or {go_quote(f'{addr}/{addr.max_prefixlen}')}?)"
        )
    try:
        strict = ipaddress.ip_address(ip_part)
    except ValueError:
        strict = None
    mapped = isinstance(strict, ipaddress.IPv6Address) and strict.ipv4_mapped is not None
    if strict is None or mapped or bits != str(int(bits)):
        warnings.append(
            f"{path}: non-standard CIDR value {go_quote(value)} will be considered invalid in a future "
            f"Kubernetes release: use {go_quote(str(network))}"
        )
    if not warnings and isinstance(strict, ipaddress.IPv6Address) and f"{strict}/{bits}" != value:
        warnings.append(
            f"{path}: IPv6 CIDR value {go_quote(value)} should be in RFC 5952 canonical format "
            f"({go_quote(f'{strict}/{bits}')})"
        )
    return warnings


def get_warnings_for_service(svc: dict[str, Any]) -> list[str]:
    annotations = as_dict(as_dict(svc.get("metadata")).get("annotations"))
    spec = spec_of(svc)
    svc_type = spec.get("type")
    warnings = []
    if "service.kubernetes.io/topology-aware-hints" in annotations:
        warnings.append(
            "annotation service.kubernetes.io/topology-aware-hints is deprecated, please use "
            "service.kubernetes.io/topology-mode instead"
        )
    cluster_ip = as_str(spec.get("clusterIP"))
    if cluster_ip and cluster_ip != "None":
        for i, ip in enumerate(cluster_ips(spec)):
            warnings += get_warnings_for_ip(f"spec.clusterIPs[{i}]", ip)
    external_ips = [as_str(ip) for ip in as_list(spec.get("externalIPs"))]
    if svc_type == "ClusterIP" and cluster_ip == "None":
        if spec.get("loadBalancerIP"):
            warnings.append("spec.loadBalancerIP is ignored for headless services")
        if external_ips:
            warnings.append("spec.externalIPs is ignored for headless services")
        if spec.get("sessionAffinity") != "None":
            warnings.append("spec.SessionAffinity is ignored for headless services")
    for i, ip in enumerate(external_ips):
        warnings += get_warnings_for_ip(f"spec.externalIPs[{i}]", ip)
    if as_str(spec.get("loadBalancerIP")):
        warnings += get_warnings_for_ip("spec.loadBalancerIP", as_str(spec.get("loadBalancerIP")))
    for i, cidr in enumerate(as_list(spec.get("loadBalancerSourceRanges"))):
        warnings += get_warnings_for_cidr(f"spec.loadBalancerSourceRanges[{i}]", as_str(cidr))
    if svc_type == "ExternalName" and external_ips:
        warnings.append('spec.externalIPs is ignored when spec.type is "ExternalName"')
    if svc_type != "ExternalName" and as_str(spec.get("externalName")):
        warnings.append('spec.externalName is ignored when spec.type is not "ExternalName"')
    return warnings

"""Validation of a Service's cluster IPs, IP families and IP family policy (pkg/apis/core/validation:
ValidateServiceClusterIPsRelatedFields, validateUpgradeDowngradeClusterIPs,
validateUpgradeDowngradeIPFamilies). Slices in messages are rendered as Go's %#v renders them."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.core.validation.service_fields import (
    as_str,
    cluster_ips,
    go_ip_families,
    go_string_slice,
    invalid_raw,
    ip_families,
    is_headless_service,
    is_ipv6_string,
    spec_of,
)
from kube_apiserver.runtime.errors import (
    StatusCause,
    field_duplicate,
    field_invalid,
    field_not_supported,
    field_required,
)
from kube_apiserver.runtime.validation.names import is_valid_ip

SUPPORTED_IP_FAMILIES = ["IPv4", "IPv6"]
SUPPORTED_IP_FAMILY_POLICIES = ["PreferDualStack", "RequireDualStack", "SingleStack"]


def validate_service_cluster_ips_related_fields(svc: dict[str, Any]) -> list[StatusCause]:
    """ValidateServiceClusterIPsRelatedFields: clusterIP/clusterIPs in sync, families and policy values,
    IPs well formed and one per family. Also run by the allocator before it allocates."""
    spec = spec_of(svc)
    if spec.get("type") == "ExternalName":
        return []  # checked by the type-specific rules: all must be unset
    causes: list[StatusCause] = []
    ips = cluster_ips(spec)
    shown = go_string_slice(ips if spec.get("clusterIPs") is not None else None)
    cluster_ip = as_str(spec.get("clusterIP"))
    if cluster_ip:
        if not ips:
            causes.append(field_required("spec.clusterIPs"))
        elif ips[0] != cluster_ip:
            causes.append(invalid_raw("spec.clusterIPs", shown, "first value must match `clusterIP`"))
    elif ips:
        causes.append(invalid_raw("spec.clusterIPs", shown, "must be empty when `clusterIP` is not specified"))
    families = ip_families(spec)
    seen: set[str] = set()
    for i, family in enumerate(families):
        if family not in SUPPORTED_IP_FAMILIES:
            causes.append(field_not_supported(f"spec.ipFamilies[{i}]", family, SUPPORTED_IP_FAMILIES))
        if family in seen:
            causes.append(field_duplicate(f"spec.ipFamilies[{i}]", family))
        seen.add(family)
    policy = spec.get("ipFamilyPolicy")
    if policy is not None and policy not in SUPPORTED_IP_FAMILY_POLICIES:
        causes.append(field_not_supported("spec.ipFamilyPolicy", policy, SUPPORTED_IP_FAMILY_POLICIES))
    invalid_ips = False
    for i, ip in enumerate(ips):
        if i == 0 and ip == "None":
            if len(ips) > 1:
                invalid_ips = True
                causes.append(invalid_raw("spec.clusterIPs", shown, "'None' must be the first and only value"))
            continue
        errs = is_valid_ip(f"spec.clusterIPs[{i}]", ip)
        invalid_ips = invalid_ips or bool(errs)
        causes += errs
    if len(ips) > 2:
        causes.append(invalid_raw("spec.clusterIPs", shown, "may only hold up to 2 values"))
    # A bad IP or a misplaced None would make the checks below report nonsense.
    if invalid_ips:
        return causes
    if len(ips) > 1 and len({is_ipv6_string(ip) for ip in ips}) < 2:
        causes.append(invalid_raw("spec.clusterIPs", shown, "may specify no more than one IP for each IP family"))
    if not is_headless_service(spec) and ips and families:
        for i, ip in enumerate(ips[: len(families)]):
            if families[i] == "IPv4" and is_ipv6_string(ip):
                causes.append(
                    field_invalid(
                        f"spec.clusterIPs[{i}]", ip, f"expected an IPv4 value as indicated by `ipFamilies[{i}]`"
                    )
                )
            if families[i] == "IPv6" and not is_ipv6_string(ip):
                causes.append(
                    field_invalid(
                        f"spec.clusterIPs[{i}]", ip, f"expected an IPv6 value as indicated by `ipFamilies[{i}]`"
                    )
                )
    return causes


def validate_upgrade_downgrade_cluster_ips(old: dict[str, Any], new: dict[str, Any]) -> list[StatusCause]:
    if "ExternalName" in (new.get("type"), old.get("type")):
        return []
    if is_headless_service(old) and is_headless_service(new):
        return []
    old_ips, new_ips = cluster_ips(old), cluster_ips(new)
    shown = go_string_slice(new_ips if new.get("clusterIPs") is not None else None)
    causes = []
    if len(old_ips) == len(new_ips):
        for i, ip in enumerate(old_ips):
            if ip != new_ips[i]:
                causes.append(invalid_raw(f"spec.clusterIPs[{i}]", shown, "may not change once set"))
    elif len(old_ips) > len(new_ips):
        if not new_ips:
            causes.append(invalid_raw("spec.clusterIPs[0]", shown, "primary clusterIP can not be unset"))
        if old_ips and new_ips and new_ips[0] != old_ips[0]:
            causes.append(invalid_raw("spec.clusterIPs[0]", shown, "may not change once set"))
        if len(new_ips) == 1 and new.get("ipFamilyPolicy") != "SingleStack":
            causes.append(
                field_invalid(
                    "spec.ipFamilyPolicy",
                    new.get("ipFamilyPolicy"),
                    "must be set to 'SingleStack' when releasing the secondary clusterIP",
                )
            )
    elif old_ips and new_ips[0] != old_ips[0]:
        causes.append(invalid_raw("spec.clusterIPs[0]", shown, "may not change once set"))
    return causes


def validate_upgrade_downgrade_ip_families(old: dict[str, Any], new: dict[str, Any]) -> list[StatusCause]:
    if "ExternalName" in (new.get("type"), old.get("type")):
        return []
    if is_headless_service(old) or is_headless_service(new):
        return []  # headless services may change families, and so may services turning (un)headless
    old_f, new_f = ip_families(old), ip_families(new)
    families_shown = go_ip_families(new_f if new.get("ipFamilies") is not None else None)
    # Upstream shows the clusterIPs, not the families, in two of these errors.
    ips_shown = go_string_slice(cluster_ips(new) if new.get("clusterIPs") is not None else None)
    causes = []
    if len(old_f) == len(new_f):
        for i, family in enumerate(old_f):
            if family != new_f[i]:
                causes.append(invalid_raw("spec.ipFamilies[0]", families_shown, "may not change once set"))
    elif len(old_f) > len(new_f):
        if not cluster_ips(new):
            causes.append(invalid_raw("spec.ipFamilies[0]", families_shown, "primary ipFamily can not be unset"))
        if new_f and new_f[0] != old_f[0]:
            causes.append(invalid_raw("spec.ipFamilies[0]", ips_shown, "may not change once set"))
        if len(new_f) == 1 and new.get("ipFamilyPolicy") != "SingleStack":
            causes.append(
                field_invalid(
                    "spec.ipFamilyPolicy",
                    new.get("ipFamilyPolicy"),
                    "must be set to 'SingleStack' when releasing the secondary ipFamily",
                )
            )
    elif old_f and new_f and new_f[0] != old_f[0]:
        causes.append(invalid_raw("spec.ipFamilies[0]", ips_shown, "may not change once set"))
    return causes

"""IPAddress and ServiceCIDR validation (ValidateIPAddress, ValidateServiceCIDR)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.validation_util import field, gorepr
from kube_apiserver.apis.validation_util.names import is_dns1123_subdomain, is_valid_path_segment_name
from kube_apiserver.apis.validation_util.net import is_valid_cidr, is_valid_ip, parse_cidr_sloppy
from kube_apiserver.runtime.errors import StatusCause


def validate_ip_address(obj: dict[str, Any]) -> list[StatusCause]:
    # ValidateIPAddressName: the name is the IP, in canonical form.
    name = field.meta_of(obj).get("name")
    errs = is_valid_ip("metadata.name", name) if isinstance(name, str) and name else []
    parent = field.spec_of(obj).get("parentRef")
    if parent is None:
        errs.append(field.required("spec.parentRef", ""))
        return errs
    parent = field.as_dict(parent)
    path = "spec.parentRef"
    group = field.as_str(parent.get("group"))
    if group:
        errs.extend(field.invalid(field.child(path, "group"), group, msg) for msg in is_dns1123_subdomain(group))
    for name_field in ("resource", "name"):
        value = field.as_str(parent.get(name_field))
        if not value:
            errs.append(field.required(field.child(path, name_field), ""))
        else:
            errs.extend(
                field.invalid(field.child(path, name_field), value, msg) for msg in is_valid_path_segment_name(value)
            )
    namespace = field.as_str(parent.get("namespace"))
    if namespace:
        errs.extend(
            field.invalid(field.child(path, "namespace"), namespace, msg)
            for msg in is_valid_path_segment_name(namespace)
        )
    return errs


def _parent_ref_value(ref: Any) -> gorepr.GoValue:
    if ref is None:
        return gorepr.GoValue("null")
    r = field.as_dict(ref)
    return gorepr.struct(
        "networking.ParentReference",
        [
            (go, field.as_str(r.get(js)))
            for go, js in (("Group", "group"), ("Resource", "resource"), ("Namespace", "namespace"), ("Name", "name"))
        ],
    )


def validate_ip_address_update(new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
    ref = field.spec_of(new).get("parentRef")
    return field.validate_immutable_field(
        ref, field.spec_of(old).get("parentRef"), "spec.parentRef", _parent_ref_value(ref)
    )


def _spec_value(cidrs: Any) -> gorepr.GoValue:
    return gorepr.struct("networking.ServiceCIDRSpec", [("CIDRs", gorepr.string_slice(cidrs))])


def validate_service_cidr(obj: dict[str, Any]) -> list[StatusCause]:
    raw = field.spec_of(obj).get("cidrs")
    cidrs = field.as_list(raw)
    path = "spec.cidrs"
    if not cidrs:
        return [field.required(path, "at least one CIDR required")]
    if len(cidrs) > 2:
        return [field.invalid(path, _spec_value(raw), "may only hold up to 2 values")]
    if len(cidrs) == 2:
        parsed = [parse_cidr_sloppy(c) if isinstance(c, str) else None for c in cidrs]
        if any(p is None for p in parsed) or parsed[0][1].version == parsed[1][1].version:  # type: ignore[index]
            return [
                field.invalid(
                    path,
                    _spec_value(raw),
                    "may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64",
                )
            ]
    errs = []
    for i, cidr in enumerate(cidrs):
        errs.extend(is_valid_cidr(field.index(path, i), field.as_str(cidr)))
    return errs


def validate_service_cidr_update(new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
    cidrs = field.spec_of(new).get("cidrs")
    return field.validate_immutable_field(
        cidrs, field.spec_of(old).get("cidrs"), "spec.cidrs", gorepr.string_slice(cidrs)
    )


VALIDATORS = {
    ("v1", "IPAddress"): validate_ip_address,
    ("v1", "ServiceCIDR"): validate_service_cidr,
}
UPDATE_VALIDATORS = {
    ("v1", "IPAddress"): validate_ip_address_update,
    ("v1", "ServiceCIDR"): validate_service_cidr_update,
}

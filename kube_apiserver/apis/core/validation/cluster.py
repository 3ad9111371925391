"""Namespace, Node, Endpoints and Event (pkg/apis/core/validation: ValidateNamespace, ValidateNode,
ValidateNodeUpdate, ValidateEndpoints, and events.go's checks for core/v1 Events)."""

from __future__ import annotations

import ipaddress
from typing import Any

from kube_apiserver.apis.core.validation.common import (
    as_dict,
    as_list,
    as_str,
    go_typed_slice,
    is_int,
    validate_dns1123_label,
    validate_dns1123_subdomain,
    validate_qualified_name,
)
from kube_apiserver.apis.core.validation.containers import PROTOCOLS
from kube_apiserver.apis.core.validation.resources import validate_resource_quantity_value
from kube_apiserver.apis.core.validation.scheduling import validate_node_taints
from kube_apiserver.runtime.errors import (
    GoRepr,
    StatusCause,
    field_duplicate,
    field_forbidden,
    field_invalid,
    field_not_supported,
    field_required,
)
from kube_apiserver.runtime.validation.names import (
    is_valid_cidr,
    is_valid_ip,
    is_valid_port_num,
    name_is_dns_subdomain,
    parse_ip_sloppy,
)
from kube_apiserver.runtime.validation.objectmeta import validate_finalizer_name, validate_kube_finalizer_name

# --- Namespace ----------------------------------------------------------------------------------------------------


def validate_namespace(obj: dict[str, Any]) -> list[StatusCause]:
    causes: list[StatusCause] = []
    for name in as_list(as_dict(obj.get("spec")).get("finalizers")):
        # kube reports every spec finalizer at the list's path, without an index.
        causes += validate_finalizer_name(name, "spec.finalizers")
        causes += validate_kube_finalizer_name(name, "spec.finalizers")
    return causes


# --- Node ---------------------------------------------------------------------------------------------------------


def _node_resources(obj: dict[str, Any]) -> list[StatusCause]:
    causes: list[StatusCause] = []
    status = as_dict(obj.get("status"))
    for table in ("capacity", "allocatable"):
        for name, value in as_dict(status.get(table)).items():
            causes += validate_resource_quantity_value(name, value, f"status.{table}.{name}")
    return causes


def _pod_cidrs(cidrs: list[Any]) -> list[StatusCause]:
    causes: list[StatusCause] = []
    for i, cidr in enumerate(cidrs):
        causes += is_valid_cidr(f"spec.podCIDRs[{i}]", as_str(cidr))
    if len(cidrs) > 1:
        families = {4 if "." in as_str(c).split("/")[0] else 6 for c in cidrs}
        if len(families) != 2 or len(cidrs) > 2:
            detail = "may specify no more than one CIDR for each IP family"
            causes.append(field_invalid("spec.podCIDRs", go_typed_slice("string", cidrs), detail))
        seen: set[Any] = set()
        for i, cidr in enumerate(cidrs):
            if cidr in seen:
                causes.append(field_duplicate(f"spec.podCIDRs[{i}]", cidr))
            seen.add(cidr)
    return causes


def validate_node(obj: dict[str, Any]) -> list[StatusCause]:
    spec = as_dict(obj.get("spec"))
    # kube reports the taints under metadata (it validates them with the metadata's path).
    causes = validate_node_taints(spec.get("taints"), "metadata.taints")
    causes += _node_resources(obj)
    cidrs = as_list(spec.get("podCIDRs"))
    if cidrs:
        causes += _pod_cidrs(cidrs)
    return causes


def validate_node_update(new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
    causes: list[StatusCause] = []
    seen: list[Any] = []
    for i, address in enumerate(as_list(as_dict(new.get("status")).get("addresses"))):
        if address in seen:
            shown = GoRepr(
                f'core.NodeAddress{{Type:"{as_str(as_dict(address).get("type"))}", Address:"{as_str(as_dict(address).get("address"))}"}}'
            )
            causes.append(field_duplicate(f"status.addresses[{i}]", shown))
        seen.append(address)
    new_spec, old_spec = as_dict(new.get("spec")), as_dict(old.get("spec"))
    old_cidrs, new_cidrs = as_list(old_spec.get("podCIDRs")), as_list(new_spec.get("podCIDRs"))
    detail = 'node updates may not change podCIDR except from "" to valid'
    if old_cidrs:
        if len(old_cidrs) != len(new_cidrs):
            causes.append(field_forbidden("spec.podCIDRs", detail))
        else:
            causes += [
                field_forbidden("spec.podCIDRs", detail) for o, n in zip(old_cidrs, new_cidrs, strict=True) if o != n
            ]
    old_provider = as_str(old_spec.get("providerID"))
    if old_provider and old_provider != as_str(new_spec.get("providerID")):
        causes.append(
            field_forbidden("spec.providerID", 'node updates may not change providerID except from "" to valid')
        )
    if as_str(new_spec.get("externalID")) != as_str(old_spec.get("externalID")):
        causes.append(field_forbidden("spec.externalID", "may not be updated"))
    return causes


# --- Endpoints ----------------------------------------------------------------------------------------------------


def validate_non_special_ip(ip: str, path: str) -> list[StatusCause]:
    addr = parse_ip_sloppy(ip)
    if addr is None:
        return [field_invalid(path, ip, "must be a valid IP address")]
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        addr = addr.ipv4_mapped
    causes: list[StatusCause] = []
    if addr.is_unspecified:
        causes.append(field_invalid(path, ip, f"may not be unspecified ({ip})"))
    if addr.is_loopback:
        causes.append(field_invalid(path, ip, "may not be in the loopback range (127.0.0.0/8, ::1/128)"))
    if addr.is_link_local:
        causes.append(field_invalid(path, ip, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"))
    link_local_multicast = (
        addr in ipaddress.ip_network("224.0.0.0/24")
        if isinstance(addr, ipaddress.IPv4Address)
        else addr.is_multicast and (int(addr) >> 112) & 0xF == 2
    )
    if link_local_multicast:
        causes.append(field_invalid(path, ip, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"))
    return causes


def _endpoint_address(address: dict[str, Any], path: str, own: bool) -> list[StatusCause]:
    ip = as_str(address.get("ip"))
    causes = is_valid_ip(f"{path}.ip", ip)
    if as_str(address.get("hostname")):
        causes += validate_dns1123_label(address["hostname"], f"{path}.hostname")
    node_name = address.get("nodeName")
    if isinstance(node_name, str):
        causes += [field_invalid(f"{path}.nodeName", node_name, m) for m in name_is_dns_subdomain(node_name)]
    if own:
        # The apiserver's own endpoints carry its advertised address. kube-apiserver never advertises
        # a loopback address (it picks a host interface instead); this server may, when it serves on
        # loopback only, so its own record is exempt from the special-address rule.
        return causes
    return causes + validate_non_special_ip(ip, f"{path}.ip")


def _endpoint_port(port: dict[str, Any], require_name: bool, path: str) -> list[StatusCause]:
    causes: list[StatusCause] = []
    name = as_str(port.get("name"))
    if require_name and not name:
        causes.append(field_required(f"{path}.name"))
    elif name:
        causes += validate_dns1123_label(name, f"{path}.name")
    number = port.get("port", 0)
    if is_int(number):
        causes += [field_invalid(f"{path}.port", number, m) for m in is_valid_port_num(number)]
    protocol = as_str(port.get("protocol"))
    if not protocol:
        causes.append(field_required(f"{path}.protocol"))
    elif protocol not in PROTOCOLS:
        causes.append(field_not_supported(f"{path}.protocol", protocol, PROTOCOLS))
    if port.get("appProtocol") is not None:
        causes += validate_qualified_name(as_str(port["appProtocol"]), f"{path}.appProtocol")
    return causes


def validate_endpoints(obj: dict[str, Any]) -> list[StatusCause]:
    causes: list[StatusCause] = []
    meta = as_dict(obj.get("metadata"))
    own = meta.get("namespace") == "default" and meta.get("name") == "kubernetes"
    for i, subset in enumerate(map(as_dict, as_list(obj.get("subsets")))):
        path = f"subsets[{i}]"
        addresses, not_ready = as_list(subset.get("addresses")), as_list(subset.get("notReadyAddresses"))
        if not addresses and not not_ready:
            causes.append(field_required(path, "must specify `addresses` or `notReadyAddresses`"))
        for j, address in enumerate(addresses):
            causes += _endpoint_address(as_dict(address), f"{path}.addresses[{j}]", own)
        for j, address in enumerate(not_ready):
            causes += _endpoint_address(as_dict(address), f"{path}.notReadyAddresses[{j}]", own)
        ports = as_list(subset.get("ports"))
        for j, port in enumerate(ports):
            causes += _endpoint_port(as_dict(port), len(ports) > 1, f"{path}.ports[{j}]")
    return causes


# --- Event (core/v1: the legacy rules only) -----------------------------------------------------------------------


def validate_event(obj: dict[str, Any]) -> list[StatusCause]:
    causes: list[StatusCause] = []
    namespace = as_str(as_dict(obj.get("metadata")).get("namespace"))
    involved_ns = as_str(as_dict(obj.get("involvedObject")).get("namespace"))
    mismatch = field_invalid("involvedObject.namespace", involved_ns, "does not match event.namespace")
    if not obj.get("eventTime"):
        if (not involved_ns and namespace not in ("", "default")) or (involved_ns and namespace != involved_ns):
            causes.append(mismatch)
    else:
        if not involved_ns and namespace not in ("default", "kube-system"):
            causes.append(mismatch)
        controller = as_str(obj.get("reportingComponent"))
        if not controller:
            causes.append(field_required("reportingComponent"))
        causes += validate_qualified_name(controller, "reportingComponent")
        for key, limit in (("reportingInstance", 128), ("action", 128), ("reason", 128)):
            value = as_str(obj.get(key))
            if not value:
                causes.append(field_required(key))
            if len(value) > limit:
                causes.append(field_invalid(key, "", f"can have at most {limit} characters"))
        if len(as_str(obj.get("message"))) > 1024:
            causes.append(field_invalid("message", "", "can have at most 1024 characters"))
    return causes + validate_dns1123_subdomain(namespace, "namespace")


VALIDATORS = {
    ("v1", "Namespace"): validate_namespace,
    ("v1", "Node"): validate_node,
    ("v1", "Endpoints"): validate_endpoints,
    ("v1", "Event"): validate_event,
}
UPDATE_VALIDATORS = {("v1", "Node"): validate_node_update}

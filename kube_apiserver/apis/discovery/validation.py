"""EndpointSlice validation (pkg/apis/discovery/validation: ValidateEndpointSlice and its update)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.validation_util import field
from kube_apiserver.apis.validation_util.names import (
    is_dns1123_label,
    is_dns1123_subdomain,
    is_fully_qualified_domain_name,
    validate_qualified_name,
)
from kube_apiserver.apis.validation_util.net import (
    is_valid_ipv4_address,
    is_valid_ipv6_address,
    validate_endpoint_ip,
)
from kube_apiserver.runtime.errors import StatusCause
from kube_apiserver.runtime.validation.metav1 import validate_labels
from kube_apiserver.runtime.validation.names import is_valid_label_value

ADDRESS_TYPES = ["FQDN", "IPv4", "IPv6"]
PROTOCOLS = ["SCTP", "TCP", "UDP"]
MAX_TOPOLOGY_LABELS = 16
MAX_ADDRESSES = 100
MAX_PORTS = 20000
MAX_ENDPOINTS = 1000
MAX_ZONE_HINTS = 8
TOPOLOGY_ZONE_LABEL = "topology.kubernetes.io/zone"


def validate_endpoint_slice(obj: dict[str, Any]) -> list[StatusCause]:
    address_type = obj.get("addressType", "")
    errs = []
    if address_type == "":
        errs.append(field.required("addressType", ""))
    elif address_type not in ADDRESS_TYPES:
        errs.append(field.not_supported("addressType", address_type, ADDRESS_TYPES))
    meta = field.as_dict(obj.get("metadata"))
    # The apiserver's own slice carries its advertised address, which may be loopback here (a server
    # serving on loopback only); kube-apiserver never advertises one, so it needs no such exemption.
    own = meta.get("namespace") == "default" and meta.get("name") == "kubernetes"
    errs.extend(_validate_endpoints(field.as_list(obj.get("endpoints")), address_type, "endpoints", own))
    errs.extend(_validate_ports(field.as_list(obj.get("ports")), "ports"))
    return errs


def _validate_endpoints(endpoints: list[Any], address_type: Any, path: str, own: bool = False) -> list[StatusCause]:
    if len(endpoints) > MAX_ENDPOINTS:
        return [field.too_many(path, len(endpoints), MAX_ENDPOINTS)]
    errs = []
    for i, endpoint in enumerate(endpoints):
        endpoint = field.as_dict(endpoint)
        endpoint_path = field.index(path, i)
        addresses = field.as_list(endpoint.get("addresses"))
        addresses_path = field.child(endpoint_path, "addresses")
        if not addresses:
            errs.append(field.required(addresses_path, "must contain at least 1 address"))
        elif len(addresses) > MAX_ADDRESSES:
            errs.append(field.too_many(addresses_path, len(addresses), MAX_ADDRESSES))
        for j, address in enumerate(addresses):
            address = field.as_str(address)
            address_path = field.index(addresses_path, j)
            if address_type == "IPv4":
                errs.extend(is_valid_ipv4_address(address_path, address))
                if not own:
                    errs.extend(validate_endpoint_ip(address, address_path))
            elif address_type == "IPv6":
                errs.extend(is_valid_ipv6_address(address_path, address))
                if not own:
                    errs.extend(validate_endpoint_ip(address, address_path))
            elif address_type == "FQDN":
                errs.extend(is_fully_qualified_domain_name(address_path, address))
        node_name = endpoint.get("nodeName")
        if isinstance(node_name, str):
            errs.extend(
                field.invalid(field.child(endpoint_path, "nodeName"), node_name, msg)
                for msg in is_dns1123_subdomain(node_name)
            )
        topology = endpoint.get("deprecatedTopology")
        topology_path = field.child(endpoint_path, "deprecatedTopology")
        if isinstance(topology, dict):
            if len(topology) > MAX_TOPOLOGY_LABELS:
                errs.append(field.too_many(topology_path, len(topology), MAX_TOPOLOGY_LABELS))
            errs.extend(validate_labels(topology, topology_path))
        hostname = endpoint.get("hostname")
        if isinstance(hostname, str):
            errs.extend(
                field.invalid(field.child(endpoint_path, "hostname"), hostname, msg)
                for msg in is_dns1123_label(hostname)
            )
        hints = endpoint.get("hints")
        if isinstance(hints, dict):
            errs.extend(_validate_hints(hints, field.child(endpoint_path, "hints")))
    return errs


def _validate_hints(hints: dict[str, Any], path: str) -> list[StatusCause]:
    zones = field.as_list(hints.get("forZones"))
    zones_path = field.child(path, "forZones")
    if len(zones) > MAX_ZONE_HINTS:
        return [field.too_many(zones_path, len(zones), MAX_ZONE_HINTS)]
    errs = []
    seen: set[str] = set()
    for i, zone in enumerate(zones):
        name = field.as_str(field.as_dict(zone).get("name"))
        zone_path = field.child(field.index(zones_path, i), "name")
        if name in seen:
            errs.append(field.duplicate(zone_path, name))
        seen.add(name)
        errs.extend(field.invalid(zone_path, name, msg) for msg in is_valid_label_value(name))
    return errs


def _validate_ports(ports: list[Any], path: str) -> list[StatusCause]:
    if len(ports) > MAX_PORTS:
        return [field.too_many(path, len(ports), MAX_PORTS)]
    errs = []
    names: set[str] = set()
    for i, port in enumerate(ports):
        port = field.as_dict(port)
        port_path = field.index(path, i)
        name = field.as_str(port.get("name"))
        if name:
            errs.extend(field.invalid(field.child(port_path, "name"), name, msg) for msg in is_dns1123_label(name))
        if name in names:
            errs.append(field.duplicate(field.child(port_path, "name"), name))
        names.add(name)
        protocol = port.get("protocol")
        if protocol is None:
            errs.append(field.required(field.child(port_path, "protocol"), ""))
        elif protocol not in PROTOCOLS:
            errs.append(field.not_supported(field.child(port_path, "protocol"), protocol, PROTOCOLS))
        app_protocol = port.get("appProtocol")
        if isinstance(app_protocol, str):
            errs.extend(validate_qualified_name(app_protocol, field.child(port_path, "appProtocol")))
    return errs


def validate_endpoint_slice_update(new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
    return field.validate_immutable_field(new.get("addressType"), old.get("addressType"), "addressType")


VALIDATORS = {("v1", "EndpointSlice"): validate_endpoint_slice}
UPDATE_VALIDATORS = {("v1", "EndpointSlice"): validate_endpoint_slice_update}

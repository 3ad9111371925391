"""How the Service registry reads a client's intent from the interlinked fields
(pkg/registry/core/service/storage normalizeClusterIPs and patchAllocatedValues, and the strategy's
dropTypeDependentFields), and the canonical form of a stored spec.

Clients written before clusterIPs existed send only clusterIP; clients that omit the allocated values
(kubectl replace of the original manifest) must get them back rather than an error.
"""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.core.validation.service_fields import as_dict, as_int, as_list, spec_of
from kube_apiserver.apis.core.validation.services import needs_health_check
from kube_apiserver.controlplane.service_alloc import needs_cluster_ip, needs_node_port, same_list

# ServiceSpec and ServicePort in the order the Go structs serialize them.
SPEC_ORDER = (
    "ports",
    "selector",
    "clusterIP",
    "clusterIPs",
    "type",
    "externalIPs",
    "sessionAffinity",
    "loadBalancerIP",
    "loadBalancerSourceRanges",
    "externalName",
    "externalTrafficPolicy",
    "healthCheckNodePort",
    "publishNotReadyAddresses",
    "sessionAffinityConfig",
    "ipFamilies",
    "ipFamilyPolicy",
    "allocateLoadBalancerNodePorts",
    "loadBalancerClass",
    "internalTrafficPolicy",
    "trafficDistribution",
)
PORT_ORDER = ("name", "protocol", "appProtocol", "port", "targetPort", "nodePort")
# Fields tagged omitempty whose zero value (not only null) disappears when Go writes the object.
_SPEC_OMIT_ZERO = {
    "ports",
    "selector",
    "clusterIP",
    "clusterIPs",
    "externalIPs",
    "loadBalancerIP",
    "loadBalancerSourceRanges",
    "externalName",
    "externalTrafficPolicy",
    "healthCheckNodePort",
    "publishNotReadyAddresses",
    "ipFamilies",
}
_PORT_OMIT_ZERO = {"name", "protocol", "nodePort"}


def normalize_cluster_ips(svc: dict[str, Any], old: dict[str, Any] | None) -> None:
    """Keep clusterIP and clusterIPs in sync: an old client manages only the first, a new one both."""
    spec = spec_of(svc)
    if spec is not svc.get("spec"):
        return
    cluster_ip = spec.get("clusterIP") or ""
    ips = as_list(spec.get("clusterIPs"))
    if old is None:
        if cluster_ip and not ips:
            spec["clusterIPs"] = [cluster_ip]
        return
    old_spec = spec_of(old)
    old_ip = old_spec.get("clusterIP") or ""
    old_ips = as_list(old_spec.get("clusterIPs"))
    # An old client patching some other field sends no clusterIPs.
    if old_ips and not ips and old_ip == cluster_ip:
        spec["clusterIPs"] = list(old_ips)
    if old_ip != cluster_ip:
        same = same_list(old_spec.get("clusterIPs"), spec.get("clusterIPs"))
        if old_ip and not cluster_ip:
            if same:
                spec.pop("clusterIPs", None)  # clearing clusterIP clears both; a change is for validation
        elif same:
            spec["clusterIPs"] = [cluster_ip]


def patch_allocated_values(svc: dict[str, Any], old: dict[str, Any]) -> None:
    """Fill in what was allocated when the client left it out, so that re-sending the same manifest
    succeeds."""
    spec, old_spec = spec_of(svc), spec_of(old)
    if spec is not svc.get("spec"):
        return
    if needs_cluster_ip(old_spec) and needs_cluster_ip(spec):
        if not spec.get("clusterIP") and old_spec.get("clusterIP"):
            spec["clusterIP"] = old_spec["clusterIP"]
        if not as_list(spec.get("clusterIPs")) and as_list(old_spec.get("clusterIPs")):
            spec["clusterIPs"] = list(old_spec["clusterIPs"])
    if needs_node_port(old_spec) and needs_node_port(spec):
        old_ports = [as_dict(p) for p in as_list(old_spec.get("ports"))]
        new_ports = [p for p in as_list(spec.get("ports")) if isinstance(p, dict)]
        # Ports kept by number cannot be patched in; others are matched by name.
        used = {as_int(p.get("nodePort")) for p in old_ports} & {as_int(p.get("nodePort")) for p in new_ports}
        used.discard(0)
        by_name = {p.get("name") or "": as_int(p.get("nodePort")) for p in old_ports}
        for port in new_ports:
            if not as_int(port.get("nodePort")):
                value = by_name.get(port.get("name") or "", 0)
                if value and value not in used:
                    port["nodePort"] = value
    if needs_health_check(old_spec) and needs_health_check(spec):
        if not as_int(spec.get("healthCheckNodePort")) and old_spec.get("healthCheckNodePort"):
            spec["healthCheckNodePort"] = old_spec["healthCheckNodePort"]


def drop_type_dependent_fields(svc: dict[str, Any], old: dict[str, Any]) -> None:
    """On a change of type, clear what the new type does not use, when the user left it as it was
    (a changed value is the user's, for validation to judge). Allocations were released already."""
    spec, old_spec = spec_of(svc), spec_of(old)
    if spec is not svc.get("spec"):
        return
    if needs_cluster_ip(old_spec) and not needs_cluster_ip(spec):
        if old_spec.get("clusterIP") == spec.get("clusterIP") and same_list(
            old_spec.get("clusterIPs"), spec.get("clusterIPs")
        ):
            spec.pop("clusterIP", None)
            spec.pop("clusterIPs", None)
        if old_spec.get("ipFamilies") == spec.get("ipFamilies"):
            spec.pop("ipFamilies", None)
        if old_spec.get("ipFamilyPolicy") == spec.get("ipFamilyPolicy"):
            spec.pop("ipFamilyPolicy", None)
    if needs_node_port(old_spec) and not needs_node_port(spec):
        old_numbers = {as_int(as_dict(p).get("nodePort")) for p in as_list(old_spec.get("ports"))}
        new_numbers = {as_int(as_dict(p).get("nodePort")) for p in as_list(spec.get("ports"))}
        if new_numbers - {0} <= old_numbers:  # no net-new NodePorts
            for port in as_list(spec.get("ports")):
                if isinstance(port, dict):
                    port.pop("nodePort", None)
    if needs_health_check(old_spec) and not needs_health_check(spec):
        if old_spec.get("healthCheckNodePort") == spec.get("healthCheckNodePort"):
            spec.pop("healthCheckNodePort", None)
    if old_spec.get("type") == "LoadBalancer" and spec.get("type") != "LoadBalancer":
        old_alloc, alloc = old_spec.get("allocateLoadBalancerNodePorts"), spec.get("allocateLoadBalancerNodePorts")
        if alloc is not None and old_alloc is not None and alloc == old_alloc:
            spec.pop("allocateLoadBalancerNodePorts", None)
        if old_spec.get("loadBalancerClass") == spec.get("loadBalancerClass"):
            spec.pop("loadBalancerClass", None)
    if needs_node_port(old_spec) and not needs_node_port(spec):
        if old_spec.get("externalTrafficPolicy") == spec.get("externalTrafficPolicy"):
            spec.pop("externalTrafficPolicy", None)
    if spec.get("type") != "LoadBalancer":
        # Load-balancer de-provisioning is asynchronous, but users need not see that.
        status = svc.get("status")
        if isinstance(status, dict):
            status["loadBalancer"] = {}


def _ordered(obj: dict[str, Any], order: tuple[str, ...], omit_zero: set[str]) -> dict[str, Any]:
    out = {k: obj[k] for k in order if k in obj}
    out.update((k, v) for k, v in obj.items() if k not in out)
    return {
        k: v
        for k, v in out.items()
        if v is not None and not (k in omit_zero and (v == "" or v == 0 or v is False or v == [] or v == {}))
    }


def canonical_spec(svc: dict[str, Any]) -> None:
    """The spec as kube-apiserver would write it: Go's field order, omitempty zero values gone."""
    spec = svc.get("spec")
    if not isinstance(spec, dict):
        return
    ports = spec.get("ports")
    if isinstance(ports, list):
        spec["ports"] = [_ordered(p, PORT_ORDER, _PORT_OMIT_ZERO) if isinstance(p, dict) else p for p in ports]
    ordered = _ordered(spec, SPEC_ORDER, _SPEC_OMIT_ZERO)
    spec.clear()
    spec.update(ordered)

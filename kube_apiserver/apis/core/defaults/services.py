"""Service defaults (pkg/apis/core/v1/defaults.go SetDefaults_Service).

The fields set when a Service is allocated (clusterIP, clusterIPs, ipFamilies, ipFamilyPolicy,
nodePorts) are not defaults: the Service REST fills them in (controlplane/service_alloc.py), since
they depend on the flags and on what is already allocated.
"""

from __future__ import annotations

from typing import Any

# v1.DefaultClientIPServiceAffinitySeconds: three hours.
DEFAULT_CLIENT_IP_SERVICE_AFFINITY_SECONDS = 10800


def externally_accessible(spec: dict[str, Any]) -> bool:
    """pkg/api/v1/service ExternallyAccessible: reachable from outside the cluster."""
    kind = spec.get("type")
    return (
        kind in ("LoadBalancer", "NodePort")
        or kind == "ClusterIP"
        and isinstance(spec.get("externalIPs"), list)
        and len(spec["externalIPs"]) > 0
    )


def _empty_target_port(value: Any) -> bool:
    # intstr.FromInt32(0) or intstr.FromString(""): absent, 0 or "" all mean "same as port".
    return value is None or value == 0 and not isinstance(value, bool) or value == ""


def set_defaults_service(obj: dict[str, Any]) -> None:
    spec = obj.get("spec")
    if spec is None:
        spec = obj["spec"] = {}
    if not isinstance(spec, dict):
        return
    if not spec.get("sessionAffinity"):
        spec["sessionAffinity"] = "None"
    if spec["sessionAffinity"] == "None":
        spec.pop("sessionAffinityConfig", None)
    elif spec["sessionAffinity"] == "ClientIP":
        config = spec.get("sessionAffinityConfig")
        client_ip = config.get("clientIP") if isinstance(config, dict) else None
        if not isinstance(client_ip, dict) or client_ip.get("timeoutSeconds") is None:
            spec["sessionAffinityConfig"] = {"clientIP": {"timeoutSeconds": DEFAULT_CLIENT_IP_SERVICE_AFFINITY_SECONDS}}
    if not spec.get("type"):
        spec["type"] = "ClusterIP"
    ports = spec.get("ports")
    for port in ports if isinstance(ports, list) else ():
        if not isinstance(port, dict):
            continue
        if not port.get("protocol"):
            port["protocol"] = "TCP"
        if _empty_target_port(port.get("targetPort")):
            port["targetPort"] = port.get("port", 0)
    # Externally reachable services default to the cluster-wide policy, for consistency.
    if externally_accessible(spec) and not spec.get("externalTrafficPolicy"):
        spec["externalTrafficPolicy"] = "Cluster"
    if spec.get("internalTrafficPolicy") is None and spec["type"] in ("NodePort", "LoadBalancer", "ClusterIP"):
        spec["internalTrafficPolicy"] = "Cluster"
    if spec["type"] == "LoadBalancer":
        if spec.get("allocateLoadBalancerNodePorts") is None:
            spec["allocateLoadBalancerNodePorts"] = True
        _default_ingress_ip_mode(obj)


def _default_ingress_ip_mode(obj: dict[str, Any]) -> None:
    status = obj.get("status")
    lb = status.get("loadBalancer") if isinstance(status, dict) else None
    ingress = lb.get("ingress") if isinstance(lb, dict) else None
    for ing in ingress if isinstance(ingress, list) else ():
        if isinstance(ing, dict) and ing.get("ip") and ing.get("ipMode") is None:
            ing["ipMode"] = "VIP"


DEFAULTERS = {("v1", "Service"): set_defaults_service}

"""Printers for services and endpoints (printers.go printService, printEndpoints)."""

from __future__ import annotations

import ipaddress
from typing import Any

from kube_apiserver.apis.printing import (
    AGE_COLUMN,
    NAME_COLUMN,
    age,
    col,
    d,
    dicts,
    format_labels,
    lst,
    name,
    num,
    text,
)
from kube_apiserver.registry.resource_spec import TablePrinter


def load_balancer_ingress(status: Any) -> str:
    """loadBalancerStatusStringer (wide: the apiserver never clips it): sorted unique IPs/hostnames."""
    found: set[str] = set()
    for ingress in dicts(d(status).get("ingress")):
        if text(ingress.get("ip")):
            found.add(text(ingress.get("ip")))
        elif text(ingress.get("hostname")):
            found.add(text(ingress.get("hostname")))
    return ",".join(sorted(found))


def _external_ip(svc: dict[str, Any], svc_type: str) -> str:
    spec = d(svc.get("spec"))
    external_ips = [text(ip) for ip in lst(spec.get("externalIPs"))]
    if svc_type in ("ClusterIP", "NodePort"):
        return ",".join(external_ips) if external_ips else "<none>"
    if svc_type == "LoadBalancer":
        lb_ips = load_balancer_ingress(d(svc.get("status")).get("loadBalancer"))
        if external_ips:
            results = lb_ips.split(",") if lb_ips else []
            return ",".join(results + external_ips)
        return lb_ips or "<pending>"
    if svc_type == "ExternalName":
        return text(spec.get("externalName"))
    return "<unknown>"


def port_string(ports: Any) -> str:
    """makePortString: "80/TCP", "80:30080/TCP" when a nodePort is set."""
    pieces = []
    for port in dicts(ports):
        protocol = text(port.get("protocol")) or "TCP"  # defaulted upstream
        node_port = num(port.get("nodePort"))
        if node_port > 0:
            pieces.append(f"{num(port.get('port'))}:{node_port}/{protocol}")
        else:
            pieces.append(f"{num(port.get('port'))}/{protocol}")
    return ",".join(pieces)


def service_row(svc: dict[str, Any], now: float) -> list[Any]:
    spec = d(svc.get("spec"))
    svc_type = text(spec.get("type")) or "ClusterIP"  # SetDefaults_Service
    cluster_ips = [text(ip) for ip in lst(spec.get("clusterIPs"))]
    if not cluster_ips and text(spec.get("clusterIP")):
        cluster_ips = [text(spec.get("clusterIP"))]
    return [
        name(svc),
        svc_type,
        cluster_ips[0] if cluster_ips else "<none>",
        _external_ip(svc, svc_type),
        port_string(spec.get("ports")) or "<none>",
        age(svc, now),
        format_labels(spec.get("selector")),
    ]


SERVICE_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col("Type", description="type determines how the Service is exposed."),
        col("Cluster-IP", description="clusterIP is the IP address of the service and is usually assigned randomly."),
        col(
            "External-IP",
            description="externalIPs is a list of IP addresses for which nodes in the cluster will also accept "
            "traffic for this service.",
        ),
        col("Port(s)", description="The list of ports that are exposed by this service."),
        AGE_COLUMN,
        col(
            "Selector",
            priority=1,
            description="Route service traffic to pods with label keys and values matching this selector.",
        ),
    ),
    row=service_row,
)


def _join_host_port(host: str, port: int) -> str:
    """net.JoinHostPort: IPv6 literals get brackets."""
    try:
        if isinstance(ipaddress.ip_address(host), ipaddress.IPv6Address):
            return f"[{host}]:{port}"
    except ValueError:
        if ":" in host:
            return f"[{host}]:{port}"
    return f"{host}:{port}"


def format_endpoints(endpoints: dict[str, Any]) -> str:
    """formatEndpoints with ports=nil: up to 3 "ip:port" entries, then " + N more..."."""
    subsets = dicts(endpoints.get("subsets"))
    if not subsets:
        return "<none>"
    listed: list[str] = []
    limit = 3
    more = False
    count = 0
    for subset in subsets:
        addresses = dicts(subset.get("addresses"))
        ports = dicts(subset.get("ports"))
        if not ports:
            count += len(addresses)
            for address in addresses:
                if len(listed) == limit:
                    more = True
                    break
                listed.append(text(address.get("ip")))
            continue
        for port in ports:
            count += len(addresses)
            for address in addresses:
                if len(listed) == limit:
                    more = True
                    break
                listed.append(_join_host_port(text(address.get("ip")), num(port.get("port"))))
    ret = ",".join(listed)
    if more:
        return f"{ret} + {count - limit} more..."
    return ret


def endpoints_row(obj: dict[str, Any], now: float) -> list[Any]:
    return [name(obj), format_endpoints(obj), age(obj, now)]


ENDPOINTS_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col(
            "Endpoints",
            description="The set of all endpoints is the union of all subsets. Addresses are placed into subsets "
            "according to the IPs they share.",
        ),
        AGE_COLUMN,
    ),
    row=endpoints_row,
)

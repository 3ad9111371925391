"""Printers for networking.k8s.io/v1 (printers.go printIngress, printServiceCIDR, ...)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.core.printers_network import load_balancer_ingress
from kube_apiserver.apis.printing import (
    AGE_COLUMN,
    NAME_COLUMN,
    age,
    col,
    d,
    dicts,
    format_label_selector,
    get,
    lst,
    name,
    text,
)
from kube_apiserver.registry.resource_spec import TablePrinter


def format_hosts(rules: Any) -> str:
    """formatHosts: up to 3 hosts, "*" when no rule names one."""
    items = dicts(rules)
    listed: list[str] = []
    limit = 3
    more = False
    for rule in items:
        if len(listed) == limit:
            more = True
        if not more and text(rule.get("host")):
            listed.append(text(rule.get("host")))
    if not listed:
        return "*"
    ret = ",".join(listed)
    if more:
        return f"{ret} + {len(items) - limit} more..."
    return ret


def ingress_row(obj: dict[str, Any], now: float) -> list[Any]:
    spec = d(obj.get("spec"))
    class_name = spec.get("ingressClassName")
    return [
        name(obj),
        "<none>" if class_name is None else text(class_name),
        format_hosts(spec.get("rules")),
        load_balancer_ingress(get(obj, "status", "loadBalancer")),
        "80, 443" if lst(spec.get("tls")) else "80",
        age(obj, now),
    ]


INGRESS_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col(
            "Class",
            description="The name of the IngressClass resource that should be used for additional configuration",
        ),
        col("Hosts", description="Hosts that incoming requests are matched against before the ingress rule"),
        col("Address", description="Address is a list containing ingress points for the load-balancer"),
        col("Ports", description="Ports of TLS configurations that open"),
        AGE_COLUMN,
    ),
    row=ingress_row,
)


def ingress_class_row(obj: dict[str, Any], now: float) -> list[Any]:
    spec = d(obj.get("spec"))
    parameters = "<none>"
    params = spec.get("parameters")
    if isinstance(params, dict):
        parameters = text(params.get("kind"))
        if params.get("apiGroup") is not None:
            parameters += "." + text(params.get("apiGroup"))
        parameters += "/" + text(params.get("name"))
    return [name(obj), text(spec.get("controller")), parameters, age(obj, now)]


INGRESS_CLASS_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col("Controller", description="Controller that is responsible for handling this class"),
        col("Parameters", description="A reference to a resource with additional parameters"),
        AGE_COLUMN,
    ),
    row=ingress_class_row,
)


def network_policy_row(obj: dict[str, Any], now: float) -> list[Any]:
    return [name(obj), format_label_selector(d(get(obj, "spec", "podSelector"))), age(obj, now)]


NETWORK_POLICY_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col("Pod-Selector", description="Selects the pods to which this NetworkPolicy object applies."),
        AGE_COLUMN,
    ),
    row=network_policy_row,
)


def service_cidr_row(obj: dict[str, Any], now: float) -> list[Any]:
    return [name(obj), ",".join(text(c) for c in lst(get(obj, "spec", "cidrs"))), age(obj, now)]


SERVICE_CIDR_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col(
            "CIDRs",
            description='CIDRs defines the IP blocks in CIDR notation (e.g. "192.168.0.0/24" or "2001:db8::/64") '
            "from which to assign service cluster IPs.",
        ),
        AGE_COLUMN,
    ),
    row=service_cidr_row,
)


def ip_address_row(obj: dict[str, Any], now: float) -> list[Any]:
    ref = get(obj, "spec", "parentRef")
    parent = "<none>"
    if isinstance(ref, dict):
        resource = text(ref.get("resource"))
        group = text(ref.get("group"))
        parent = (f"{resource}.{group}" if group else resource).lower()
        if text(ref.get("namespace")):
            parent += "/" + text(ref.get("namespace"))
        parent += "/" + text(ref.get("name"))
    # Upstream also appends an AGE cell that has no column definition (kubectl ignores it);
    # it is left out so that every row matches its columns.
    return [name(obj), parent]


IP_ADDRESS_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col("ParentRef", description="ParentRef references the resource that an IPAddress is attached to."),
    ),
    row=ip_address_row,
)

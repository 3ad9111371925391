"""networking.k8s.io/v1 defaults (pkg/apis/networking/v1/defaults.go). Ingress, IPAddress and
ServiceCIDR have none."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.core.defaults.fields import child, default, items

PROTOCOL_TCP = "TCP"


def set_object_defaults_network_policy(obj: dict[str, Any]) -> None:
    spec = child(obj, "spec", create=True)
    if spec is None:
        return
    if not spec.get("policyTypes"):
        # every policy is at least about ingress; it is about egress too when it has egress rules
        types = ["Ingress"]
        if spec.get("egress"):
            types.append("Egress")
        spec["policyTypes"] = types
    for direction in ("ingress", "egress"):
        for rule in items(spec, direction):
            for port in items(rule, "ports"):
                default(port, "protocol", PROTOCOL_TCP)


def set_object_defaults_ingress_class(obj: dict[str, Any]) -> None:
    parameters = child(child(obj, "spec"), "parameters")
    if parameters is not None:
        default(parameters, "scope", "Cluster")


DEFAULTERS = {
    ("v1", "NetworkPolicy"): set_object_defaults_network_policy,
    ("v1", "IngressClass"): set_object_defaults_ingress_class,
}

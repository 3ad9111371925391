"""networking.k8s.io/v1 as kube-apiserver 1.33's discovery lists it (IPAddress and ServiceCIDR are GA in 1.33)."""

from __future__ import annotations

from kube_apiserver.apis.common import status
from kube_apiserver.apis.networking.printers import (
    INGRESS_CLASS_PRINTER,
    INGRESS_PRINTER,
    IP_ADDRESS_PRINTER,
    NETWORK_POLICY_PRINTER,
    SERVICE_CIDR_PRINTER,
)
from kube_apiserver.registry.resource_spec import ResourceSpec

GROUP = "networking.k8s.io"
VERSION = "v1"

RESOURCES: list[ResourceSpec] = [
    ResourceSpec(GROUP, VERSION, "ingressclasses", "IngressClass", False, printer=INGRESS_CLASS_PRINTER),
    ResourceSpec(
        GROUP,
        VERSION,
        "ingresses",
        "Ingress",
        True,
        short_names=("ing",),
        subresources=(status("Ingress"),),
        printer=INGRESS_PRINTER,
    ),
    ResourceSpec(GROUP, VERSION, "ipaddresses", "IPAddress", False, short_names=("ip",), printer=IP_ADDRESS_PRINTER),
    # networkpolicies have no status subresource (NetworkPolicyStatus was removed in 1.28)
    ResourceSpec(
        GROUP,
        VERSION,
        "networkpolicies",
        "NetworkPolicy",
        True,
        short_names=("netpol",),
        printer=NETWORK_POLICY_PRINTER,
    ),
    ResourceSpec(
        GROUP,
        VERSION,
        "servicecidrs",
        "ServiceCIDR",
        False,
        subresources=(status("ServiceCIDR"),),
        printer=SERVICE_CIDR_PRINTER,
    ),
]

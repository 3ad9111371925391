"""discovery.k8s.io/v1 as kube-apiserver 1.33's discovery lists it."""

from __future__ import annotations

from kube_apiserver.apis.discovery.printers import ENDPOINT_SLICE_PRINTER
from kube_apiserver.registry.resource_spec import ResourceSpec

GROUP = "discovery.k8s.io"
VERSION = "v1"

RESOURCES: list[ResourceSpec] = [
    ResourceSpec(GROUP, VERSION, "endpointslices", "EndpointSlice", True, printer=ENDPOINT_SLICE_PRINTER),
]

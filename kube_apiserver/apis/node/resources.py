"""node.k8s.io/v1 as kube-apiserver 1.33's discovery lists it."""

from __future__ import annotations

from kube_apiserver.apis.node.printers import RUNTIME_CLASS_PRINTER
from kube_apiserver.registry.resource_spec import ResourceSpec

GROUP = "node.k8s.io"
VERSION = "v1"

RESOURCES: list[ResourceSpec] = [
    ResourceSpec(GROUP, VERSION, "runtimeclasses", "RuntimeClass", False, printer=RUNTIME_CLASS_PRINTER),
]

"""flowcontrol.apiserver.k8s.io/v1 as kube-apiserver 1.33's discovery lists it."""

from __future__ import annotations

from kube_apiserver.apis.common import status
from kube_apiserver.apis.flowcontrol.printers import FLOW_SCHEMA_PRINTER, PRIORITY_LEVEL_PRINTER
from kube_apiserver.registry.resource_spec import ResourceSpec

GROUP = "flowcontrol.apiserver.k8s.io"
VERSION = "v1"

RESOURCES: list[ResourceSpec] = [
    ResourceSpec(
        GROUP,
        VERSION,
        "flowschemas",
        "FlowSchema",
        False,
        subresources=(status("FlowSchema"),),
        printer=FLOW_SCHEMA_PRINTER,
    ),
    ResourceSpec(
        GROUP,
        VERSION,
        "prioritylevelconfigurations",
        "PriorityLevelConfiguration",
        False,
        subresources=(status("PriorityLevelConfiguration"),),
        printer=PRIORITY_LEVEL_PRINTER,
    ),
]

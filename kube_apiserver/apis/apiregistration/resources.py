"""apiregistration.k8s.io/v1 as kube-apiserver 1.33's discovery lists it."""

from __future__ import annotations

from kube_apiserver.apis.apiregistration.printers import API_SERVICE_PRINTER
from kube_apiserver.apis.common import API_EXTENSIONS, status
from kube_apiserver.registry.resource_spec import ResourceSpec

GROUP = "apiregistration.k8s.io"
VERSION = "v1"

RESOURCES: list[ResourceSpec] = [
    ResourceSpec(
        GROUP,
        VERSION,
        "apiservices",
        "APIService",
        False,
        categories=API_EXTENSIONS,
        subresources=(status("APIService"),),
        printer=API_SERVICE_PRINTER,
    ),
]

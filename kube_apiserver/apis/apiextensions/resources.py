"""apiextensions.k8s.io/v1 as kube-apiserver 1.33's discovery lists it.

CRDs have no printer upstream: the default NAME / CREATED AT table.
"""

from __future__ import annotations

from kube_apiserver.apis.common import API_EXTENSIONS, status
from kube_apiserver.apis.printing import DEFAULT_TABLE_PRINTER
from kube_apiserver.registry.resource_spec import ResourceSpec

GROUP = "apiextensions.k8s.io"
VERSION = "v1"

RESOURCES: list[ResourceSpec] = [
    ResourceSpec(
        GROUP,
        VERSION,
        "customresourcedefinitions",
        "CustomResourceDefinition",
        False,
        short_names=("crd", "crds"),
        categories=API_EXTENSIONS,
        subresources=(status("CustomResourceDefinition"),),
        printer=DEFAULT_TABLE_PRINTER,
    ),
]

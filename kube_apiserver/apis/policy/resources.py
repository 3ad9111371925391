"""policy/v1 as kube-apiserver 1.33's discovery lists it (evictions are a pods subresource)."""

from __future__ import annotations

from kube_apiserver.apis.common import status
from kube_apiserver.apis.policy.printers import PDB_PRINTER
from kube_apiserver.registry.resource_spec import ResourceSpec

GROUP = "policy"
VERSION = "v1"

RESOURCES: list[ResourceSpec] = [
    ResourceSpec(
        GROUP,
        VERSION,
        "poddisruptionbudgets",
        "PodDisruptionBudget",
        True,
        short_names=("pdb",),
        subresources=(status("PodDisruptionBudget"),),
        printer=PDB_PRINTER,
    ),
]

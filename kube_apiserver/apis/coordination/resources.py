"""coordination.k8s.io/v1 as kube-apiserver 1.33's discovery lists it (LeaseCandidate is not GA)."""

from __future__ import annotations

from kube_apiserver.apis.coordination.printers import LEASE_PRINTER
from kube_apiserver.registry.resource_spec import ResourceSpec

GROUP = "coordination.k8s.io"
VERSION = "v1"

RESOURCES: list[ResourceSpec] = [
    ResourceSpec(GROUP, VERSION, "leases", "Lease", True, printer=LEASE_PRINTER),
]

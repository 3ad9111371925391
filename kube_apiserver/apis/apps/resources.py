"""apps/v1 as kube-apiserver 1.33's discovery lists it."""

from __future__ import annotations

from kube_apiserver.apis.apps.printers import (
    CONTROLLER_REVISION_PRINTER,
    DAEMON_SET_PRINTER,
    DEPLOYMENT_PRINTER,
    REPLICA_SET_PRINTER,
    STATEFUL_SET_PRINTER,
)
from kube_apiserver.apis.common import ALL, scale, status
from kube_apiserver.registry.resource_spec import ResourceSpec

GROUP = "apps"
VERSION = "v1"

# apps/v1 registers no field label conversions: only metadata.name / metadata.namespace are
# accepted (ReplicaSetToSelectableFields' status.replicas is unreachable through apps/v1).
RESOURCES: list[ResourceSpec] = [
    ResourceSpec(
        GROUP, VERSION, "controllerrevisions", "ControllerRevision", True, printer=CONTROLLER_REVISION_PRINTER
    ),
    ResourceSpec(
        GROUP,
        VERSION,
        "daemonsets",
        "DaemonSet",
        True,
        short_names=("ds",),
        categories=ALL,
        subresources=(status("DaemonSet"),),
        printer=DAEMON_SET_PRINTER,
    ),
    ResourceSpec(
        GROUP,
        VERSION,
        "deployments",
        "Deployment",
        True,
        short_names=("deploy",),
        categories=ALL,
        subresources=(scale(), status("Deployment")),
        printer=DEPLOYMENT_PRINTER,
    ),
    ResourceSpec(
        GROUP,
        VERSION,
        "replicasets",
        "ReplicaSet",
        True,
        short_names=("rs",),
        categories=ALL,
        subresources=(scale(), status("ReplicaSet")),
        printer=REPLICA_SET_PRINTER,
    ),
    ResourceSpec(
        GROUP,
        VERSION,
        "statefulsets",
        "StatefulSet",
        True,
        short_names=("sts",),
        categories=ALL,
        subresources=(scale(), status("StatefulSet")),
        printer=STATEFUL_SET_PRINTER,
    ),
]

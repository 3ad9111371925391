"""rbac.authorization.k8s.io/v1 as kube-apiserver 1.33's discovery lists it."""

from __future__ import annotations

from kube_apiserver.apis.rbac.printers import (
    CLUSTER_ROLE_BINDING_PRINTER,
    CLUSTER_ROLE_PRINTER,
    ROLE_BINDING_PRINTER,
    ROLE_PRINTER,
)
from kube_apiserver.registry.resource_spec import ResourceSpec

GROUP = "rbac.authorization.k8s.io"
VERSION = "v1"

RESOURCES: list[ResourceSpec] = [
    ResourceSpec(
        GROUP, VERSION, "clusterrolebindings", "ClusterRoleBinding", False, printer=CLUSTER_ROLE_BINDING_PRINTER
    ),
    ResourceSpec(GROUP, VERSION, "clusterroles", "ClusterRole", False, printer=CLUSTER_ROLE_PRINTER),
    ResourceSpec(GROUP, VERSION, "rolebindings", "RoleBinding", True, printer=ROLE_BINDING_PRINTER),
    ResourceSpec(GROUP, VERSION, "roles", "Role", True, printer=ROLE_PRINTER),
]

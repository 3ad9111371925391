"""The built-in API groups kube-apiserver 1.33 serves (GA versions only), one package per group.

``builtin_resources()`` lists them core first, then in the order kube-apiserver's ``/apis`` lists
the groups: the aggregator's own apiregistration.k8s.io, then the others by descending group
priority (ties broken by APIService name, so admissionregistration before apiextensions).
Within a group/version resources keep discovery's alphabetical order.
"""

from __future__ import annotations

from kube_apiserver.apis.admissionregistration.resources import RESOURCES as _ADMISSIONREGISTRATION
from kube_apiserver.apis.apiextensions.resources import RESOURCES as _APIEXTENSIONS
from kube_apiserver.apis.apiregistration.resources import RESOURCES as _APIREGISTRATION
from kube_apiserver.apis.apps.resources import RESOURCES as _APPS
from kube_apiserver.apis.authentication.resources import RESOURCES as _AUTHENTICATION
from kube_apiserver.apis.authorization.resources import RESOURCES as _AUTHORIZATION
from kube_apiserver.apis.autoscaling.resources import RESOURCES as _AUTOSCALING
from kube_apiserver.apis.batch.resources import RESOURCES as _BATCH
from kube_apiserver.apis.certificates.resources import RESOURCES as _CERTIFICATES
from kube_apiserver.apis.coordination.resources import RESOURCES as _COORDINATION
from kube_apiserver.apis.core.resources import RESOURCES as _CORE
from kube_apiserver.apis.discovery.resources import RESOURCES as _DISCOVERY
from kube_apiserver.apis.events.resources import RESOURCES as _EVENTS
from kube_apiserver.apis.flowcontrol.resources import RESOURCES as _FLOWCONTROL
from kube_apiserver.apis.networking.resources import RESOURCES as _NETWORKING
from kube_apiserver.apis.node.resources import RESOURCES as _NODE
from kube_apiserver.apis.policy.resources import RESOURCES as _POLICY
from kube_apiserver.apis.rbac.resources import RESOURCES as _RBAC
from kube_apiserver.apis.scheduling.resources import RESOURCES as _SCHEDULING
from kube_apiserver.apis.storage.resources import RESOURCES as _STORAGE
from kube_apiserver.registry.resource_spec import ResourceSpec

# (group, version) -> (groupPriorityMinimum, versionPriority), from kube-apiserver's
# apiVersionPriorities (cmd/kube-apiserver/app/aggregator.go merged with
# pkg/controlplane/apiserver DefaultGenericAPIServicePriorities), for the versions served here.
# apiregistration.k8s.io has no entry upstream: the aggregator lists its own group first.
GROUP_PRIORITY: dict[tuple[str, str], tuple[int, int]] = {
    ("", "v1"): (18000, 1),
    ("apps", "v1"): (17800, 15),
    ("events.k8s.io", "v1"): (17750, 15),
    ("authentication.k8s.io", "v1"): (17700, 15),
    ("authorization.k8s.io", "v1"): (17600, 15),
    ("autoscaling", "v2"): (17500, 30),
    ("autoscaling", "v1"): (17500, 15),
    ("batch", "v1"): (17400, 15),
    ("certificates.k8s.io", "v1"): (17300, 15),
    ("networking.k8s.io", "v1"): (17200, 15),
    ("policy", "v1"): (17100, 15),
    ("rbac.authorization.k8s.io", "v1"): (17000, 15),
    ("storage.k8s.io", "v1"): (16800, 15),
    ("admissionregistration.k8s.io", "v1"): (16700, 15),
    ("apiextensions.k8s.io", "v1"): (16700, 15),
    ("scheduling.k8s.io", "v1"): (16600, 15),
    ("coordination.k8s.io", "v1"): (16500, 15),
    ("node.k8s.io", "v1"): (16300, 15),
    ("discovery.k8s.io", "v1"): (16200, 15),
    ("flowcontrol.apiserver.k8s.io", "v1"): (16100, 21),
}

# The order of /apis (and of aggregated discovery) in a 1.33 kube-apiserver.
GROUP_ORDER: tuple[str, ...] = (
    "apiregistration.k8s.io",
    "apps",
    "events.k8s.io",
    "authentication.k8s.io",
    "authorization.k8s.io",
    "autoscaling",
    "batch",
    "certificates.k8s.io",
    "networking.k8s.io",
    "policy",
    "rbac.authorization.k8s.io",
    "storage.k8s.io",
    "admissionregistration.k8s.io",
    "apiextensions.k8s.io",
    "scheduling.k8s.io",
    "coordination.k8s.io",
    "node.k8s.io",
    "discovery.k8s.io",
    "flowcontrol.apiserver.k8s.io",
)

_BY_GROUP: dict[str, list[ResourceSpec]] = {
    "apiregistration.k8s.io": _APIREGISTRATION,
    "apps": _APPS,
    "events.k8s.io": _EVENTS,
    "authentication.k8s.io": _AUTHENTICATION,
    "authorization.k8s.io": _AUTHORIZATION,
    "autoscaling": _AUTOSCALING,
    "batch": _BATCH,
    "certificates.k8s.io": _CERTIFICATES,
    "networking.k8s.io": _NETWORKING,
    "policy": _POLICY,
    "rbac.authorization.k8s.io": _RBAC,
    "storage.k8s.io": _STORAGE,
    "admissionregistration.k8s.io": _ADMISSIONREGISTRATION,
    "apiextensions.k8s.io": _APIEXTENSIONS,
    "scheduling.k8s.io": _SCHEDULING,
    "coordination.k8s.io": _COORDINATION,
    "node.k8s.io": _NODE,
    "discovery.k8s.io": _DISCOVERY,
    "flowcontrol.apiserver.k8s.io": _FLOWCONTROL,
}


def builtin_resources() -> list[ResourceSpec]:
    """Every built-in resource: core/v1 first, then the groups in /apis order."""
    resources = list(_CORE)
    for group in GROUP_ORDER:
        resources.extend(_BY_GROUP[group])
    return resources


__all__ = ["GROUP_ORDER", "GROUP_PRIORITY", "builtin_resources"]

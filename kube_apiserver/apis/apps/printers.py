"""Printers for apps/v1 (printers.go printDeployment, printReplicaSet, ...)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.printing import (
    AGE_COLUMN,
    CONTAINERS_DOC,
    IMAGES_DOC,
    NAME_COLUMN,
    age,
    col,
    dicts,
    format_label_selector,
    format_labels,
    get,
    layout_containers,
    meta,
    name,
    num,
    selector_string,
    template_containers,
    text,
)
from kube_apiserver.registry.resource_spec import TablePrinter


def _replicas(obj: dict[str, Any]) -> int:
    """spec.replicas, defaulted to 1 like apps/v1 defaulting does."""
    return num(get(obj, "spec", "replicas"), 1)


def _status(obj: dict[str, Any], field: str) -> int:
    return num(get(obj, "status", field))


def _wide(obj: dict[str, Any]) -> list[str]:
    names, images = layout_containers(template_containers(obj))
    return [names, images]


# ---------------------------------------------------------------------------------------------
# deployments


def deployment_row(obj: dict[str, Any], now: float) -> list[Any]:
    selector = selector_string(get(obj, "spec", "selector"))
    return [
        name(obj),
        f"{_status(obj, 'readyReplicas')}/{_replicas(obj)}",
        _status(obj, "updatedReplicas"),
        _status(obj, "availableReplicas"),
        age(obj, now),
        *_wide(obj),
        "<invalid>" if selector is None else selector,
    ]


DEPLOYMENT_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col("Ready", description="Number of the pod with ready state"),
        col(
            "Up-to-date",
            description="Total number of non-terminated pods targeted by this deployment that have the desired "
            "template spec.",
        ),
        col(
            "Available",
            description="Total number of available pods (ready for at least minReadySeconds) targeted by this "
            "deployment.",
        ),
        AGE_COLUMN,
        col("Containers", priority=1, description=CONTAINERS_DOC),
        col("Images", priority=1, description=IMAGES_DOC),
        col("Selector", priority=1, description="Label selector for pods."),
    ),
    row=deployment_row,
)

# ---------------------------------------------------------------------------------------------
# replicasets


def replica_set_row(obj: dict[str, Any], now: float) -> list[Any]:
    return [
        name(obj),
        _replicas(obj),
        _status(obj, "replicas"),
        _status(obj, "readyReplicas"),
        age(obj, now),
        *_wide(obj),
        format_label_selector(get(obj, "spec", "selector")),
    ]


REPLICA_SET_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col("Desired", "integer", "Replicas is the number of desired replicas."),
        col("Current", "integer", "Replicas is the most recently observed number of replicas."),
        col("Ready", "integer", "The number of ready replicas for this replica set."),
        AGE_COLUMN,
        col("Containers", priority=1, description=CONTAINERS_DOC),
        col("Images", priority=1, description=IMAGES_DOC),
        col(
            "Selector",
            priority=1,
            description="Selector is a label query over pods that should match the replica count.",
        ),
    ),
    row=replica_set_row,
)

# ---------------------------------------------------------------------------------------------
# statefulsets


def stateful_set_row(obj: dict[str, Any], now: float) -> list[Any]:
    return [name(obj), f"{_status(obj, 'readyReplicas')}/{_replicas(obj)}", age(obj, now), *_wide(obj)]


STATEFUL_SET_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col("Ready", description="Number of the pod with ready state"),
        AGE_COLUMN,
        col("Containers", priority=1, description=CONTAINERS_DOC),
        col("Images", priority=1, description=IMAGES_DOC),
    ),
    row=stateful_set_row,
)

# ---------------------------------------------------------------------------------------------
# daemonsets


def daemon_set_row(obj: dict[str, Any], now: float) -> list[Any]:
    return [
        name(obj),
        _status(obj, "desiredNumberScheduled"),
        _status(obj, "currentNumberScheduled"),
        _status(obj, "numberReady"),
        _status(obj, "updatedNumberScheduled"),
        _status(obj, "numberAvailable"),
        format_labels(get(obj, "spec", "template", "spec", "nodeSelector")),
        age(obj, now),
        *_wide(obj),
        format_label_selector(get(obj, "spec", "selector")),
    ]


DAEMON_SET_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col(
            "Desired",
            "integer",
            "The total number of nodes that should be running the daemon pod (including nodes correctly running the "
            "daemon pod).",
        ),
        col(
            "Current",
            "integer",
            "The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.",
        ),
        col(
            "Ready",
            "integer",
            "The number of nodes that should be running the daemon pod and have one or more of the daemon pod "
            "running and ready.",
        ),
        col("Up-to-date", "integer", "The total number of nodes that are running updated daemon pod"),
        col(
            "Available",
            "integer",
            "The number of nodes that should be running the daemon pod and have one or more of the daemon pod "
            "running and available (ready for at least spec.minReadySeconds)",
        ),
        col(
            "Node Selector",
            description="NodeSelector is a selector which must be true for the pod to fit on a node.",
        ),
        AGE_COLUMN,
        col("Containers", priority=1, description=CONTAINERS_DOC),
        col("Images", priority=1, description=IMAGES_DOC),
        col("Selector", priority=1, description="A label query over pods that are managed by the daemon set."),
    ),
    row=daemon_set_row,
)

# ---------------------------------------------------------------------------------------------
# controllerrevisions


def controller_of(obj: dict[str, Any]) -> str:
    """The controller owner as "kind.group/name" (formatResourceName), "<none>" without one."""
    for ref in dicts(meta(obj).get("ownerReferences")):
        if ref.get("controller") is True:
            api_version = text(ref.get("apiVersion"))
            group = api_version.split("/", 1)[0] if "/" in api_version else ""
            kind = text(ref.get("kind"))
            if not kind and not group:
                return text(ref.get("name"))
            group_kind = f"{kind}.{group}" if group else kind
            return f"{group_kind.lower()}/{text(ref.get('name'))}"
    return "<none>"


def controller_revision_row(obj: dict[str, Any], now: float) -> list[Any]:
    return [name(obj), controller_of(obj), num(obj.get("revision")), age(obj, now)]


CONTROLLER_REVISION_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col("Controller", description="Controller of the object"),
        col("Revision", description="Revision indicates the revision of the state represented by Data."),
        AGE_COLUMN,
    ),
    row=controller_revision_row,
)

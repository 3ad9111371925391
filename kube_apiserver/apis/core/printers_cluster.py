"""Printers for nodes, namespaces, componentstatuses and events (printers.go printNode, printEvent, ...)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.printing import (
    AGE_COLUMN,
    NAME_COLUMN,
    NAME_DOC,
    age,
    col,
    d,
    dicts,
    first_non_empty,
    get,
    meta,
    name,
    num,
    since,
    text,
)
from kube_apiserver.registry.resource_spec import TablePrinter

# ---------------------------------------------------------------------------------------------
# nodes

_NODE_ROLE_PREFIX = "node-role.kubernetes.io/"
_NODE_ROLE_LABEL = "kubernetes.io/role"


def node_roles(node: dict[str, Any]) -> list[str]:
    """findNodeRoles: node-role.kubernetes.io/<role> label keys and the kubernetes.io/role label value."""
    roles: set[str] = set()
    for key, value in d(meta(node).get("labels")).items():
        if key.startswith(_NODE_ROLE_PREFIX):
            role = key[len(_NODE_ROLE_PREFIX) :]
            if role:
                roles.add(role)
        elif key == _NODE_ROLE_LABEL and text(value):
            roles.add(text(value))
    return sorted(roles)


def node_status(node: dict[str, Any]) -> str:
    """Ready / NotReady / Unknown, plus SchedulingDisabled for a cordoned node."""
    statuses: list[str] = []
    ready = None
    for cond in dicts(get(node, "status", "conditions")):
        if cond.get("type") == "Ready":
            ready = cond  # printNode keeps the last condition of each type
    if ready is not None:
        statuses.append("Ready" if ready.get("status") == "True" else "NotReady")
    if not statuses:
        statuses.append("Unknown")
    if get(node, "spec", "unschedulable") is True:
        statuses.append("SchedulingDisabled")
    return ",".join(statuses)


def _node_address(node: dict[str, Any], address_type: str) -> str:
    for address in dicts(get(node, "status", "addresses")):
        if address.get("type") == address_type:
            return text(address.get("address"))
    return "<none>"


def node_row(node: dict[str, Any], now: float) -> list[Any]:
    info = d(get(node, "status", "nodeInfo"))
    return [
        name(node),
        node_status(node),
        ",".join(node_roles(node)) or "<none>",
        age(node, now),
        text(info.get("kubeletVersion")),
        _node_address(node, "InternalIP"),
        _node_address(node, "ExternalIP"),
        text(info.get("osImage")) or "<unknown>",
        text(info.get("kernelVersion")) or "<unknown>",
        text(info.get("containerRuntimeVersion")) or "<unknown>",
    ]


_ADDRESSES_DOC = "List of addresses reachable to the node."

NODE_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col("Status", description="The status of the node"),
        col("Roles", description="The roles of the node"),
        AGE_COLUMN,
        col("Version", description="Kubelet Version reported by the node."),
        col("Internal-IP", priority=1, description=_ADDRESSES_DOC),
        col("External-IP", priority=1, description=_ADDRESSES_DOC),
        col(
            "OS-Image",
            priority=1,
            description="OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).",
        ),
        col("Kernel-Version", priority=1, description="Kernel Version reported by the node from 'uname -r'."),
        col(
            "Container-Runtime",
            priority=1,
            description="ContainerRuntime Version reported by the node through runtime remote API "
            "(e.g. containerd://1.4.2).",
        ),
    ),
    row=node_row,
)

# ---------------------------------------------------------------------------------------------
# namespaces


def namespace_row(obj: dict[str, Any], now: float) -> list[Any]:
    # SetDefaults_NamespaceStatus: phase defaults to Active
    return [name(obj), text(get(obj, "status", "phase")) or "Active", age(obj, now)]


NAMESPACE_PRINTER = TablePrinter(
    columns=(NAME_COLUMN, col("Status", description="The status of the namespace"), AGE_COLUMN),
    row=namespace_row,
)

# ---------------------------------------------------------------------------------------------
# componentstatuses


def component_status_row(obj: dict[str, Any], now: float) -> list[Any]:
    status, message, error = "Unknown", "", ""
    for cond in dicts(obj.get("conditions")):
        if cond.get("type") == "Healthy":
            status = "Healthy" if cond.get("status") == "True" else "Unhealthy"
            message = text(cond.get("message"))
            error = text(cond.get("error"))
            break
    return [name(obj), status, message, error]


COMPONENT_STATUS_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col("Status", description="Status of the component conditions"),
        col("Message", description="Message of the component conditions"),
        col("Error", description="Error of the component conditions"),
    ),
    row=component_status_row,
)

# ---------------------------------------------------------------------------------------------
# events (core/v1 shape; events.k8s.io/v1 objects are mapped onto it by the events package)


def format_event_source(event: dict[str, Any]) -> str:
    """formatEventSource: "component, host", falling back to reportingComponent / reportingInstance."""
    source = d(event.get("source"))
    component = first_non_empty(text(source.get("component")), text(event.get("reportingComponent")))
    instance = first_non_empty(text(source.get("host")), text(event.get("reportingInstance")))
    return component if not instance else f"{component}, {instance}"


def event_row(event: dict[str, Any], now: float) -> list[Any]:
    if event.get("firstTimestamp"):
        first_seen = since(event.get("firstTimestamp"), now)
    else:
        first_seen = since(event.get("eventTime"), now)
    last_seen = since(event.get("lastTimestamp"), now) if event.get("lastTimestamp") else first_seen
    count = num(event.get("count"))
    series = event.get("series")
    if isinstance(series, dict):
        last_seen = since(series.get("lastObservedTime"), now)
        count = num(series.get("count"))
    elif count == 0:
        count = 1  # singleton events don't have a count set in the new API
    involved = d(event.get("involvedObject"))
    kind = text(involved.get("kind")).lower()
    target = f"{kind}/{text(involved.get('name'))}" if text(involved.get("name")) else kind
    return [
        last_seen,
        text(event.get("type")),
        text(event.get("reason")),
        target,
        text(involved.get("fieldPath")),
        format_event_source(event),
        text(event.get("message")).strip(),
        first_seen,
        count,
        name(event),
    ]


EVENT_PRINTER = TablePrinter(
    columns=(
        col("Last Seen", description="The time at which the most recent occurrence of this event was recorded."),
        col("Type", description="Type of this event (Normal, Warning), new types could be added in the future"),
        col(
            "Reason",
            description="This should be a short, machine understandable string that gives the reason for the "
            "transition into the object's current status.",
        ),
        col("Object", description="The object that this event is about."),
        col(
            "Subobject",
            priority=1,
            description="If referring to a piece of an object instead of an entire object, this string should "
            "contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2].",
        ),
        col(
            "Source",
            priority=1,
            description="The component reporting this event. Should be a short machine understandable string.",
        ),
        col("Message", description="A human-readable description of the status of this operation."),
        col(
            "First Seen",
            priority=1,
            description="The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)",
        ),
        col("Count", priority=1, description="The number of times this event has occurred."),
        col("Name", priority=1, format="name", description=NAME_DOC),
    ),
    row=event_row,
)

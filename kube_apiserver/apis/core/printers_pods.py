"""Printers for pods, podtemplates and replicationcontrollers (printers.go printPod, ...)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.printing import (
    AGE_COLUMN,
    CONTAINERS_DOC,
    IMAGES_DOC,
    NAME_COLUMN,
    age,
    col,
    condition,
    d,
    dicts,
    format_labels,
    get,
    human_duration,
    is_deleting,
    layout_containers,
    name,
    num,
    parse_time,
    template_containers,
    text,
)
from kube_apiserver.registry.resource_spec import TablePrinter

# ---------------------------------------------------------------------------------------------
# pods


def _restartable(container: dict[str, Any]) -> bool:
    """podutil.IsRestartableInitContainer: an init container with restartPolicy Always (a sidecar)."""
    return container.get("restartPolicy") == "Always"


def _later(current: float | None, candidate: Any) -> float | None:
    """The later of two times, as metav1.Time.Before is used in printPod."""
    t = parse_time(candidate)
    if t is None:
        return current
    if current is None or current < t:
        return t
    return current


def _initialized(status: dict[str, Any]) -> bool:
    cond = condition(status.get("conditions"), "Initialized")
    return cond is not None and cond.get("status") == "True"


def _ready_condition(status: dict[str, Any]) -> bool:
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in dicts(status.get("conditions")))


def pod_status_reason(pod: dict[str, Any]) -> tuple[str, int, int, float | None, int]:
    """The STATUS / READY / RESTARTS logic of printPod.

    Returns (reason, ready containers, restarts, time of the last restart, total containers).
    """
    spec = d(pod.get("spec"))
    status = d(pod.get("status"))
    init_containers = dicts(spec.get("initContainers"))
    restartable = {text(c.get("name")) for c in init_containers if _restartable(c)}
    total = len(dicts(spec.get("containers"))) + len(restartable)
    ready = 0
    restarts = 0
    sidecar_restarts = 0
    last_restart: float | None = None
    last_sidecar_restart: float | None = None

    # The pod strategy sets phase Pending on create; treat a missing phase the same way.
    phase = text(status.get("phase")) or "Pending"
    reason = text(status.get("reason")) or phase
    for cond in dicts(status.get("conditions")):
        if cond.get("type") == "PodScheduled" and cond.get("reason") == "SchedulingGated":
            reason = "SchedulingGated"

    initializing = False
    for index, cs in enumerate(dicts(status.get("initContainerStatuses"))):
        count = num(cs.get("restartCount"))
        restarts += count
        finished = get(cs, "lastState", "terminated", "finishedAt")
        last_restart = _later(last_restart, finished)
        is_sidecar = text(cs.get("name")) in restartable
        if is_sidecar:
            sidecar_restarts += count
            last_sidecar_restart = _later(last_sidecar_restart, finished)
        state = d(cs.get("state"))
        terminated = state.get("terminated")
        waiting = state.get("waiting")
        if isinstance(terminated, dict) and num(terminated.get("exitCode")) == 0:
            continue
        if is_sidecar and cs.get("started") is True:
            if cs.get("ready") is True:
                ready += 1
            continue
        if isinstance(terminated, dict):
            if not text(terminated.get("reason")):
                if num(terminated.get("signal")) != 0:
                    reason = f"Init:Signal:{num(terminated.get('signal'))}"
                else:
                    reason = f"Init:ExitCode:{num(terminated.get('exitCode'))}"
            else:
                reason = "Init:" + text(terminated.get("reason"))
        elif isinstance(waiting, dict) and text(waiting.get("reason")) and waiting.get("reason") != "PodInitializing":
            reason = "Init:" + text(waiting.get("reason"))
        else:
            reason = f"Init:{index}/{len(init_containers)}"
        initializing = True
        break

    if not initializing or _initialized(status):
        restarts = sidecar_restarts
        last_restart = last_sidecar_restart
        has_running = False
        for cs in reversed(dicts(status.get("containerStatuses"))):
            restarts += num(cs.get("restartCount"))
            last_restart = _later(last_restart, get(cs, "lastState", "terminated", "finishedAt"))
            state = d(cs.get("state"))
            waiting = state.get("waiting")
            terminated = state.get("terminated")
            if isinstance(waiting, dict) and text(waiting.get("reason")):
                reason = text(waiting.get("reason"))
            elif isinstance(terminated, dict) and text(terminated.get("reason")):
                reason = text(terminated.get("reason"))
            elif isinstance(terminated, dict):
                if num(terminated.get("signal")) != 0:
                    reason = f"Signal:{num(terminated.get('signal'))}"
                else:
                    reason = f"ExitCode:{num(terminated.get('exitCode'))}"
            elif cs.get("ready") is True and isinstance(state.get("running"), dict):
                has_running = True
                ready += 1
        # a pod whose containers "Completed" but one still runs is Running (or NotReady)
        if reason == "Completed" and has_running:
            reason = "Running" if _ready_condition(status) else "NotReady"

    if is_deleting(pod) and status.get("reason") == "NodeLost":
        reason = "Unknown"
    elif is_deleting(pod) and phase not in ("Succeeded", "Failed"):
        reason = "Terminating"
    return reason, ready, restarts, last_restart, total


def _pod_ip(status: dict[str, Any]) -> str:
    ips = dicts(status.get("podIPs"))
    ip = text(ips[0].get("ip")) if ips else text(status.get("podIP"))
    return ip or "<none>"


def _readiness_gates(pod: dict[str, Any]) -> str:
    gates = dicts(get(pod, "spec", "readinessGates"))
    if not gates:
        return "<none>"
    conditions = dicts(get(pod, "status", "conditions"))
    true_count = 0
    for gate in gates:
        for cond in conditions:
            if cond.get("type") == gate.get("conditionType"):
                if cond.get("status") == "True":
                    true_count += 1
                break
    return f"{true_count}/{len(gates)}"


def pod_row(pod: dict[str, Any], now: float) -> list[Any]:
    reason, ready, restarts, last_restart, total = pod_status_reason(pod)
    restarts_cell = str(restarts)
    if restarts != 0 and last_restart is not None:
        restarts_cell = f"{restarts} ({human_duration(now - last_restart)} ago)"
    status = d(pod.get("status"))
    return [
        name(pod),
        f"{ready}/{total}",
        reason,
        restarts_cell,
        age(pod, now),
        _pod_ip(status),
        text(get(pod, "spec", "nodeName")) or "<none>",
        text(status.get("nominatedNodeName")) or "<none>",
        _readiness_gates(pod),
    ]


# The row conditions printPod gives a pod that has finished (podSuccessConditions, podFailedConditions): a
# client can tell a completed pod from a running one without reading its phase out of the object.
_POD_ROW_CONDITIONS: dict[str, list[dict[str, str]]] = {
    "Succeeded": [
        {"type": "Completed", "status": "True", "reason": "Succeeded", "message": "The pod has completed successfully."}
    ],
    "Failed": [{"type": "Completed", "status": "True", "reason": "Failed", "message": "The pod failed."}],
}


def pod_row_conditions(pod: dict[str, Any]) -> list[dict[str, str]] | None:
    return _POD_ROW_CONDITIONS.get(text(get(pod, "status", "phase")))


POD_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col("Ready", description="The aggregate readiness state of this pod for accepting traffic."),
        col("Status", description="The aggregate status of the containers in this pod."),
        col(
            "Restarts",
            description="The number of times the containers in this pod have been restarted and when the last "
            "container in this pod has restarted.",
        ),
        AGE_COLUMN,
        col(
            "IP",
            priority=1,
            description="podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet "
            "allocated.",
        ),
        col("Node", priority=1, description="NodeName indicates in which node this pod is scheduled."),
        col(
            "Nominated Node",
            priority=1,
            description="nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot "
            "be scheduled right away as preemption victims receive their graceful termination periods.",
        ),
        col(
            "Readiness Gates",
            priority=1,
            description="If specified, all readiness gates will be evaluated for pod readiness.",
        ),
    ),
    row=pod_row,
    conditions=pod_row_conditions,
)

# ---------------------------------------------------------------------------------------------
# podtemplates


def pod_template_row(obj: dict[str, Any], now: float) -> list[Any]:
    names, images = layout_containers(get(obj, "template", "spec", "containers"))
    return [name(obj), names, images, format_labels(get(obj, "template", "metadata", "labels"))]


POD_TEMPLATE_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col("Containers", description=CONTAINERS_DOC),
        col("Images", description=IMAGES_DOC),
        col("Pod Labels", description="The labels for the pod template."),
    ),
    row=pod_template_row,
)

# ---------------------------------------------------------------------------------------------
# replicationcontrollers


def replication_controller_row(obj: dict[str, Any], now: float) -> list[Any]:
    spec = d(obj.get("spec"))
    status = d(obj.get("status"))
    names, images = layout_containers(template_containers(obj))
    selector = spec.get("selector")
    if not d(selector):
        # SetDefaults_ReplicationController: the selector defaults to the template's labels
        selector = get(spec, "template", "metadata", "labels")
    return [
        name(obj),
        num(spec.get("replicas"), 1),  # SetDefaults_ReplicationController: 1
        num(status.get("replicas")),
        num(status.get("readyReplicas")),
        age(obj, now),
        names,
        images,
        format_labels(selector),
    ]


REPLICATION_CONTROLLER_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col("Desired", "integer", "Replicas is the number of desired replicas."),
        col("Current", "integer", "Replicas is the most recently observed number of replicas."),
        col("Ready", "integer", "The number of ready replicas for this replication controller."),
        AGE_COLUMN,
        col("Containers", priority=1, description=CONTAINERS_DOC),
        col("Images", priority=1, description=IMAGES_DOC),
        col(
            "Selector",
            priority=1,
            description="Selector is a label query over pods that should match the Replicas count.",
        ),
    ),
    row=replication_controller_row,
)

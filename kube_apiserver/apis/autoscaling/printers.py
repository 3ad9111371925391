"""The HorizontalPodAutoscaler printer (printers.go printHorizontalPodAutoscaler, formatHPAMetrics).

Upstream prints the internal (v2-shaped) object for both autoscaling/v1 and autoscaling/v2; here a
v1-shaped dict (targetCPUUtilizationPercentage) is first mapped onto the v2 shape.
"""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.autoscaling.conversion import hpa_v1_to_v2
from kube_apiserver.apis.printing import AGE_COLUMN, NAME_COLUMN, age, col, d, dicts, get, name, num, text
from kube_apiserver.registry.resource_spec import TablePrinter

DEFAULT_CPU_UTILIZATION = 80  # autoscaling/v2 defaulting when no metric is given


def _qty(value: Any) -> str:
    """(*resource.Quantity).String(): "<nil>" for a nil pointer."""
    return "<nil>" if value is None else text(value, "<nil>")


def _metrics(hpa: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """spec.metrics and status.currentMetrics, mapping autoscaling/v1's CPU fields onto them."""
    if hpa.get("apiVersion") == "autoscaling/v1":  # with the metrics its round-trip annotations keep
        hpa = hpa_v1_to_v2(hpa)
    spec = d(hpa.get("spec"))
    status = d(hpa.get("status"))
    specs = dicts(spec.get("metrics"))
    statuses = dicts(status.get("currentMetrics"))
    if not specs:
        target = spec.get("targetCPUUtilizationPercentage")
        utilization = num(target) if target is not None else DEFAULT_CPU_UTILIZATION
        specs = [{"type": "Resource", "resource": {"name": "cpu", "target": {"averageUtilization": utilization}}}]
        current = status.get("currentCPUUtilizationPercentage")
        if not statuses and current is not None:
            statuses = [
                {"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": num(current)}}}
            ]
    return specs, statuses


def _value_metric(spec: dict[str, Any], status: dict[str, Any] | None) -> str:
    """External and Object metrics: an average value or a value target."""
    target = d(spec.get("target"))
    current = d(d(status).get("current"))
    if target.get("averageValue") is not None:
        cur = "<unknown>"
        if status is not None and current.get("averageValue") is not None:
            cur = _qty(current.get("averageValue"))
        return f"{cur}/{_qty(target.get('averageValue'))} (avg)"
    cur = _qty(current.get("value")) if status is not None else "<unknown>"
    return f"{cur}/{_qty(target.get('value'))}"


def _resource_metric(spec: dict[str, Any], status: dict[str, Any] | None) -> str:
    """Resource and ContainerResource metrics."""
    target = d(spec.get("target"))
    current = d(d(status).get("current"))
    resource = text(spec.get("name"))
    if target.get("averageValue") is not None:
        cur = _qty(current.get("averageValue")) if status is not None else "<unknown>"
        return f"{resource}: {cur}/{_qty(target.get('averageValue'))}"
    cur = "<unknown>"
    if status is not None and current.get("averageUtilization") is not None:
        cur = f"{num(current.get('averageUtilization'))}%"
    goal = "<auto>"
    if target.get("averageUtilization") is not None:
        goal = f"{num(target.get('averageUtilization'))}%"
    return f"{resource}: {cur}/{goal}"


_FIELDS = {
    "External": "external",
    "Object": "object",
    "Pods": "pods",
    "Resource": "resource",
    "ContainerResource": "containerResource",
}


def format_hpa_metrics(specs: list[dict[str, Any]], statuses: list[dict[str, Any]]) -> str:
    if not specs:
        return "<none>"
    listed: list[str] = []
    for i, spec in enumerate(specs):
        metric_type = text(spec.get("type"))
        field = _FIELDS.get(metric_type)
        if field is None:
            listed.append("<unknown type>")
            continue
        source = d(spec.get(field))
        status = None
        if i < len(statuses) and isinstance(statuses[i].get(field), dict):
            status = statuses[i][field]
        if metric_type in ("External", "Object"):
            listed.append(_value_metric(source, status))
        elif metric_type == "Pods":
            cur = _qty(get(status, "current", "averageValue")) if status is not None else "<unknown>"
            listed.append(f"{cur}/{_qty(get(source, 'target', 'averageValue'))}")
        else:
            listed.append(_resource_metric(source, status))
    limit = 2
    if len(listed) > limit:
        return f"{', '.join(listed[:limit])} + {len(listed) - limit} more..."
    return ", ".join(listed)


def hpa_row(hpa: dict[str, Any], now: float) -> list[Any]:
    spec = d(hpa.get("spec"))
    ref = d(spec.get("scaleTargetRef"))
    min_replicas = spec.get("minReplicas")
    specs, statuses = _metrics(hpa)
    return [
        name(hpa),
        f"{text(ref.get('kind'))}/{text(ref.get('name'))}",
        format_hpa_metrics(specs, statuses),
        str(num(min_replicas)) if min_replicas is not None else "1",  # minReplicas defaults to 1
        num(spec.get("maxReplicas")),
        num(get(hpa, "status", "currentReplicas")),
        age(hpa, now),
    ]


HPA_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col(
            "Reference",
            description="scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should be collected, as well as to actually change the replica count.",
        ),
        col(
            "Targets",
            description="metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used).",
        ),
        col(
            "MinPods",
            description="minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.",
        ),
        col(
            "MaxPods",
            description="maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up.",
        ),
        col(
            "Replicas",
            description="currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the autoscaler.",
        ),
        AGE_COLUMN,
    ),
    row=hpa_row,
)


# ---------------------------------------------------------------------------------------------
# Scale (the scale subresource of deployments, replicasets, statefulsets and replicationcontrollers)


def scale_row(scale: dict[str, Any], now: float) -> list[Any]:
    return [
        name(scale),
        num(get(scale, "spec", "replicas")),
        num(get(scale, "status", "replicas")),
        age(scale, now),
    ]


# printScale's columns; unlike most printers' Name column, this one has no "name" format.
SCALE_PRINTER = TablePrinter(
    columns=(
        col("Name", description=NAME_COLUMN.description),
        col("Desired", "integer", description="replicas is the desired number of instances for the scaled object."),
        col(
            "Available",
            "integer",
            description="replicas is the actual number of observed instances of the scaled object.",
        ),
        AGE_COLUMN,
    ),
    row=scale_row,
)

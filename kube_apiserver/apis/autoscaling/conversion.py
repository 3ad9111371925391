"""autoscaling/v1 ↔ autoscaling/v2 HorizontalPodAutoscaler (pkg/apis/autoscaling/v1/conversion.go).

autoscaling/v2 is the storage version (the group's preferred version; kube 1.33 stores HPAs as v2).
autoscaling/v1 only has targetCPUUtilizationPercentage and currentCPUUtilizationPercentage; what
else v2 says is kept, as kube does, in four annotations of the v1 object, so that a v1 client that
reads an HPA and writes it back loses nothing:

  autoscaling.alpha.kubernetes.io/metrics          the metrics other than a CPU utilization target
  autoscaling.alpha.kubernetes.io/current-metrics  status.currentMetrics (all of them)
  autoscaling.alpha.kubernetes.io/conditions       status.conditions
  autoscaling.alpha.kubernetes.io/behavior         spec.behavior

The first three hold JSON of the v1 annotation types (metrics_v1.py); the behavior is JSON of
kube's internal HorizontalPodAutoscalerBehavior, which has no json tags, hence Go field names
("ScaleUp", "StabilizationWindowSeconds", ...) and nulls for unset pointers. Going back to v2 the
annotations become fields again and are dropped; a malformed one is ignored ("only move
well-formed data from annotations to fields"), as are round-trip annotations a v2 object carries.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from kube_apiserver.apis.autoscaling import metrics_v1 as m1

METRIC_SPECS_ANNOTATION = "autoscaling.alpha.kubernetes.io/metrics"
METRIC_STATUSES_ANNOTATION = "autoscaling.alpha.kubernetes.io/current-metrics"
CONDITIONS_ANNOTATION = "autoscaling.alpha.kubernetes.io/conditions"
BEHAVIOR_SPECS_ANNOTATION = "autoscaling.alpha.kubernetes.io/behavior"
ROUND_TRIP_ANNOTATIONS = (
    METRIC_SPECS_ANNOTATION,
    BEHAVIOR_SPECS_ANNOTATION,
    METRIC_STATUSES_ANNOTATION,
    CONDITIONS_ANNOTATION,
)
# The CPU target autoscaling/v1 formerly left to the controller; the conversion makes it explicit.
DEFAULT_CPU_UTILIZATION = 80

# encoding/json escapes these inside strings; orjson does not.
_GO_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def go_json(value: Any) -> str:
    """value as Go's json.Marshal writes it: compact, HTML characters escaped."""
    text = orjson.dumps(value).decode()
    for ch, esc in _GO_ESCAPES.items():
        if ch in text:
            text = text.replace(ch, esc)
    return text


def _dict(v: Any) -> dict[str, Any]:
    return v if isinstance(v, dict) else {}


def _copy_meta(obj: dict[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata")
    return orjson.loads(orjson.dumps(meta)) if isinstance(meta, dict) else {}


def _drop_round_trip_annotations(meta: dict[str, Any]) -> None:
    """DropRoundTripHorizontalPodAutoscalerAnnotations; an emptied map goes (omitempty)."""
    ann = meta.get("annotations")
    if not isinstance(ann, dict) or not any(k in ann for k in ROUND_TRIP_ANNOTATIONS):
        return
    for k in ROUND_TRIP_ANNOTATIONS:
        ann.pop(k, None)
    if not ann:
        del meta["annotations"]


def _annotation_json(meta: dict[str, Any], key: str) -> tuple[bool, Any]:
    """(present and well-formed JSON, the decoded value)."""
    ann = meta.get("annotations")
    if not isinstance(ann, dict) or not isinstance(ann.get(key), str):
        return False, None
    try:
        return True, orjson.loads(ann[key])
    except orjson.JSONDecodeError:
        return False, None


def _list_of_objects(value: Any) -> list[Any] | None:
    """A JSON list Go could unmarshal into a slice of structs (null is an empty slice)."""
    if value is None:
        return []
    if isinstance(value, list) and all(v is None or isinstance(v, dict) for v in value):
        return value
    return None


def _cpu_resource(metric: dict[str, Any]) -> bool:
    res = metric.get("resource")
    return isinstance(res, dict) and res.get("name") == "cpu"


def _cpu_utilization_target(metric: Any) -> Any:
    """The averageUtilization of a Resource cpu metric's target, None when it has none."""
    if not isinstance(metric, dict) or metric.get("type") != "Resource" or not _cpu_resource(metric):
        return None
    return _dict(metric["resource"].get("target")).get("averageUtilization")


# --- behavior as the internal Go type ---------------------------------------------------------


def behavior_to_internal_json(behavior: dict[str, Any]) -> dict[str, Any]:
    """spec.behavior as json.Marshal of the internal HorizontalPodAutoscalerBehavior writes it."""

    def rules(r: Any) -> dict[str, Any] | None:
        if not isinstance(r, dict):
            return None
        policies = r.get("policies")
        return {
            "StabilizationWindowSeconds": r.get("stabilizationWindowSeconds"),
            "SelectPolicy": r.get("selectPolicy"),
            "Policies": None
            if not isinstance(policies, list)
            else [
                {
                    "Type": _dict(p).get("type", ""),
                    "Value": _dict(p).get("value", 0),
                    "PeriodSeconds": _dict(p).get("periodSeconds", 0),
                }
                for p in policies
            ],
            "Tolerance": r.get("tolerance"),
        }

    return {"ScaleUp": rules(behavior.get("scaleUp")), "ScaleDown": rules(behavior.get("scaleDown"))}


def _get_ci(obj: dict[str, Any], name: str) -> Any:
    """A struct field as encoding/json finds it: the exact key, else one equal ignoring case."""
    if name in obj:
        return obj[name]
    lower = name.lower()
    for k, v in obj.items():
        if k.lower() == lower:
            return v
    return None


class _Malformed(Exception):
    pass


def _int_or_none(v: Any) -> Any:
    if v is not None and (isinstance(v, bool) or not isinstance(v, int)):
        raise _Malformed
    return v


def _str_or_none(v: Any) -> Any:
    if v is not None and not isinstance(v, str):
        raise _Malformed
    return v


def behavior_from_internal_json(value: Any) -> dict[str, Any] | None:
    """The v2 spec.behavior the annotation stands for; None when it does not decode or is empty."""
    if not isinstance(value, dict):
        return None

    def rules(r: Any) -> dict[str, Any] | None:
        if r is None:
            return None
        if not isinstance(r, dict):
            raise _Malformed
        out: dict[str, Any] = {}
        window = _int_or_none(_get_ci(r, "StabilizationWindowSeconds"))
        if window is not None:
            out["stabilizationWindowSeconds"] = window
        select = _str_or_none(_get_ci(r, "SelectPolicy"))
        if select is not None:
            out["selectPolicy"] = select
        policies = _get_ci(r, "Policies")
        if policies is not None:
            if not isinstance(policies, list):
                raise _Malformed
            items = []
            for p in policies:
                p = {} if p is None else p
                if not isinstance(p, dict):
                    raise _Malformed
                items.append(
                    {
                        "type": _str_or_none(_get_ci(p, "Type")) or "",
                        "value": _int_or_none(_get_ci(p, "Value")) or 0,
                        "periodSeconds": _int_or_none(_get_ci(p, "PeriodSeconds")) or 0,
                    }
                )
            if items:  # policies,omitempty
                out["policies"] = items
        tolerance = _get_ci(r, "Tolerance")
        if tolerance is not None:
            if isinstance(tolerance, bool) or not isinstance(tolerance, str | int | float):
                raise _Malformed
            out["tolerance"] = tolerance
        return out

    try:
        up, down = rules(_get_ci(value, "ScaleUp")), rules(_get_ci(value, "ScaleDown"))
    except _Malformed:
        return None
    if up is None and down is None:
        return None
    out: dict[str, Any] = {}
    if up is not None:
        out["scaleUp"] = up
    if down is not None:
        out["scaleDown"] = down
    return out


# --- the HorizontalPodAutoscaler ------------------------------------------------------------------


def hpa_v2_to_v1(obj: dict[str, Any]) -> dict[str, Any]:
    """Convert_autoscaling_HorizontalPodAutoscaler_To_v1_HorizontalPodAutoscaler (via the internal type)."""
    meta = _copy_meta(obj)
    _drop_round_trip_annotations(meta)
    spec_in, status_in = _dict(obj.get("spec")), _dict(obj.get("status"))
    metrics = spec_in.get("metrics") if isinstance(spec_in.get("metrics"), list) else []
    current = status_in.get("currentMetrics") if isinstance(status_in.get("currentMetrics"), list) else []
    conditions = status_in.get("conditions") if isinstance(status_in.get("conditions"), list) else []

    spec: dict[str, Any] = {"scaleTargetRef": m1.object_reference(spec_in.get("scaleTargetRef"))}
    if spec_in.get("minReplicas") is not None:
        spec["minReplicas"] = spec_in["minReplicas"]
    spec["maxReplicas"] = spec_in.get("maxReplicas", 0)
    for metric in metrics:  # the first Resource cpu metric; only a utilization target maps
        if isinstance(metric, dict) and metric.get("type") == "Resource" and _cpu_resource(metric):
            target = _cpu_utilization_target(metric)
            if target is not None:
                spec["targetCPUUtilizationPercentage"] = target
            break

    status: dict[str, Any] = {}
    for k in ("observedGeneration", "lastScaleTime"):
        if status_in.get(k) is not None:
            status[k] = status_in[k]
    status["currentReplicas"] = status_in.get("currentReplicas") or 0
    status["desiredReplicas"] = status_in.get("desiredReplicas") or 0
    for metric in current:  # the last Resource cpu metric with a utilization wins
        if isinstance(metric, dict) and metric.get("type") == "Resource" and _cpu_resource(metric):
            utilization = _dict(metric["resource"].get("current")).get("averageUtilization")
            if utilization is not None:
                status["currentCPUUtilizationPercentage"] = utilization

    added: dict[str, str] = {}
    others = [m1.metric_spec_to_v1(m) for m in metrics if _cpu_utilization_target(m) is None]
    if others:
        added[METRIC_SPECS_ANNOTATION] = go_json(others)
    if current:
        added[METRIC_STATUSES_ANNOTATION] = go_json([m1.metric_status_to_v1(m) for m in current])
    if conditions:
        added[CONDITIONS_ANNOTATION] = go_json([m1.condition(c, keep_null_time=True) for c in conditions])
    if isinstance(spec_in.get("behavior"), dict):
        added[BEHAVIOR_SPECS_ANNOTATION] = go_json(behavior_to_internal_json(spec_in["behavior"]))
    if added:
        ann = {**_dict(meta.get("annotations")), **added}
        meta["annotations"] = {k: ann[k] for k in sorted(ann)}  # Go writes a map sorted by key
    kind = obj.get("kind", "HorizontalPodAutoscaler")
    return {"apiVersion": "autoscaling/v1", "kind": kind, "metadata": meta, "spec": spec, "status": status}


def hpa_v1_to_v2(obj: dict[str, Any]) -> dict[str, Any]:
    """Convert_v1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler (via the internal type)."""
    meta = _copy_meta(obj)
    spec_in, status_in = _dict(obj.get("spec")), _dict(obj.get("status"))

    spec: dict[str, Any] = {"scaleTargetRef": m1.object_reference(spec_in.get("scaleTargetRef"))}
    if spec_in.get("minReplicas") is not None:
        spec["minReplicas"] = spec_in["minReplicas"]
    spec["maxReplicas"] = spec_in.get("maxReplicas", 0)
    metrics: list[Any] = []
    if spec_in.get("targetCPUUtilizationPercentage") is not None:
        metrics.append(_cpu_metric(spec_in["targetCPUUtilizationPercentage"]))
    ok, value = _annotation_json(meta, METRIC_SPECS_ANNOTATION)
    others = _list_of_objects(value) if ok else None
    if others is not None:  # the CPU metric of the spec goes after the annotation's
        metrics = [m1.metric_spec_from_v1(m) for m in others] + metrics
    ok, value = _annotation_json(meta, BEHAVIOR_SPECS_ANNOTATION)
    behavior = behavior_from_internal_json(value) if ok else None

    status: dict[str, Any] = {}
    for k in ("observedGeneration", "lastScaleTime"):
        if status_in.get(k) is not None:
            status[k] = status_in[k]
    if status_in.get("currentReplicas"):
        status["currentReplicas"] = status_in["currentReplicas"]
    status["desiredReplicas"] = status_in.get("desiredReplicas") or 0
    current: list[Any] | None = None
    if status_in.get("currentCPUUtilizationPercentage") is not None:
        utilization = status_in["currentCPUUtilizationPercentage"]
        current = [{"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": utilization}}}]
    ok, value = _annotation_json(meta, METRIC_STATUSES_ANNOTATION)
    statuses = _list_of_objects(value) if ok else None
    if statuses is not None:  # the annotation has more than the percentage: it wins
        current = [m1.metric_status_from_v1(m) for m in statuses]
    if not metrics:
        metrics = [_cpu_metric(DEFAULT_CPU_UTILIZATION)]
    spec["metrics"] = metrics
    if behavior is not None:
        spec["behavior"] = behavior
    status["currentMetrics"] = current or None  # no omitempty in v2: null when empty
    ok, value = _annotation_json(meta, CONDITIONS_ANNOTATION)
    conditions = _list_of_objects(value) if ok else None
    if conditions:
        status["conditions"] = [m1.condition(c, keep_null_time=False) for c in conditions]

    _drop_round_trip_annotations(meta)
    kind = obj.get("kind", "HorizontalPodAutoscaler")
    return {"apiVersion": "autoscaling/v2", "kind": kind, "metadata": meta, "spec": spec, "status": status}


def _cpu_metric(utilization: Any) -> dict[str, Any]:
    return {
        "type": "Resource",
        "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": utilization}},
    }


CONVERTERS: dict[tuple[tuple[str, str], str], Callable[[dict[str, Any]], dict[str, Any]]] = {
    (("v1", "HorizontalPodAutoscaler"), "v2"): hpa_v1_to_v2,
    (("v2", "HorizontalPodAutoscaler"), "v1"): hpa_v2_to_v1,
}

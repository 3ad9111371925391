"""The autoscaling/v1 metric types that exist only inside the round-trip annotations, and their
conversion to and from autoscaling/v2's (pkg/apis/autoscaling/v1/conversion.go, the per-source
Convert_* functions).

autoscaling/v1 has no metrics field: what v2 says beyond the CPU utilization target travels in
annotations as JSON of the v1 MetricSpec / MetricStatus / condition types (v2beta1's shape:
targetAverageValue, metricName...). Every builder below writes the keys in the order of the Go
struct's fields and leaves out what Go's omitempty leaves out, so the annotation text is the one
kube-apiserver writes; a non-pointer Quantity Go always writes, "0" when unset.
"""

from __future__ import annotations

from typing import Any

ZERO_QUANTITY = "0"


def _dict(v: Any) -> dict[str, Any]:
    return v if isinstance(v, dict) else {}


def _put(out: dict[str, Any], key: str, value: Any) -> None:
    """Set key unless value is what Go's omitempty drops (nil, "", empty collection)."""
    if value is None or value == "" or value == [] or value == {}:
        return
    out[key] = value


def label_selector(sel: Any) -> dict[str, Any] | None:
    """A metav1.LabelSelector in Go's field order (matchLabels sorted, as Go writes a map)."""
    if not isinstance(sel, dict):
        return None
    out: dict[str, Any] = {}
    labels = sel.get("matchLabels")
    if isinstance(labels, dict) and labels:
        out["matchLabels"] = {k: labels[k] for k in sorted(labels)}
    exprs = sel.get("matchExpressions")
    if isinstance(exprs, list) and exprs:
        items = []
        for e in exprs:
            e = _dict(e)
            item: dict[str, Any] = {"key": e.get("key", ""), "operator": e.get("operator", "")}
            _put(item, "values", e.get("values"))
            items.append(item)
        out["matchExpressions"] = items
    return out


def object_reference(ref: Any) -> dict[str, Any]:
    """CrossVersionObjectReference: kind and name always, apiVersion when set (same in v1 and v2)."""
    ref = _dict(ref)
    out: dict[str, Any] = {"kind": ref.get("kind", ""), "name": ref.get("name", "")}
    _put(out, "apiVersion", ref.get("apiVersion"))
    return out


def _identifier(name: Any, selector: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name if name is not None else ""}
    sel = label_selector(selector)
    if sel is not None:
        out["selector"] = sel
    return out


def _with_selector(out: dict[str, Any], key: str, selector: Any) -> None:
    sel = label_selector(selector)
    if sel is not None:
        out[key] = sel


def _target(kind: str, value: Any = None, average_value: Any = None, utilization: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": kind}
    for k, v in (("value", value), ("averageValue", average_value), ("averageUtilization", utilization)):
        if v is not None:
            out[k] = v
    return out


def _value_status(value: Any = None, average_value: Any = None, utilization: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in (("value", value), ("averageValue", average_value), ("averageUtilization", utilization)):
        if v is not None:
            out[k] = v
    return out


# --- MetricSpec -------------------------------------------------------------------------------


def metric_spec_to_v1(m: Any) -> dict[str, Any]:
    """Convert_autoscaling_MetricSpec_To_v1_MetricSpec: a v2 metric as the annotation holds it."""
    m = _dict(m)
    out: dict[str, Any] = {"type": m.get("type", "")}
    if isinstance(m.get("object"), dict):
        src = m["object"]
        target, metric = _dict(src.get("target")), _dict(src.get("metric"))
        o: dict[str, Any] = {
            "target": object_reference(src.get("describedObject")),
            "metricName": metric.get("name", ""),
            "targetValue": target.get("value") if target.get("value") is not None else ZERO_QUANTITY,
        }
        _with_selector(o, "selector", metric.get("selector"))
        _put(o, "averageValue", target.get("averageValue"))
        out["object"] = o
    if isinstance(m.get("pods"), dict):
        src = m["pods"]
        target, metric = _dict(src.get("target")), _dict(src.get("metric"))
        avg = target.get("averageValue")
        p: dict[str, Any] = {
            "metricName": metric.get("name", ""),
            "targetAverageValue": avg if avg is not None else ZERO_QUANTITY,
        }
        _with_selector(p, "selector", metric.get("selector"))
        out["pods"] = p
    for field in ("resource", "containerResource"):
        if isinstance(m.get(field), dict):
            src = m[field]
            target = _dict(src.get("target"))
            r: dict[str, Any] = {"name": src.get("name", "")}
            _put(r, "targetAverageUtilization", target.get("averageUtilization"))
            _put(r, "targetAverageValue", target.get("averageValue"))
            if field == "containerResource":
                r["container"] = src.get("container", "")
            out[field] = r
    if isinstance(m.get("external"), dict):
        src = m["external"]
        target, metric = _dict(src.get("target")), _dict(src.get("metric"))
        e: dict[str, Any] = {"metricName": metric.get("name", "")}
        _with_selector(e, "metricSelector", metric.get("selector"))
        _put(e, "targetValue", target.get("value"))
        _put(e, "targetAverageValue", target.get("averageValue"))
        out["external"] = e
    return out


def metric_spec_from_v1(m: Any) -> dict[str, Any]:
    """Convert_v1_MetricSpec_To_autoscaling_MetricSpec: an annotation metric back in v2's shape."""
    m = _dict(m)
    out: dict[str, Any] = {"type": m.get("type", "")}
    if isinstance(m.get("object"), dict):
        src = m["object"]
        avg = src.get("averageValue")
        value = src.get("targetValue") if src.get("targetValue") is not None else ZERO_QUANTITY
        out["object"] = {
            "describedObject": object_reference(src.get("target")),
            "target": _target("Value" if avg is None else "AverageValue", value, avg),
            "metric": _identifier(src.get("metricName"), src.get("selector")),
        }
    if isinstance(m.get("pods"), dict):
        src = m["pods"]
        avg = src.get("targetAverageValue") if src.get("targetAverageValue") is not None else ZERO_QUANTITY
        out["pods"] = {
            "metric": _identifier(src.get("metricName"), src.get("selector")),
            "target": _target("AverageValue", average_value=avg),
        }
    for field in ("resource", "containerResource"):
        if isinstance(m.get(field), dict):
            src = m[field]
            utilization = src.get("targetAverageUtilization")
            kind = "AverageValue" if utilization is None else "Utilization"
            r: dict[str, Any] = {
                "name": src.get("name", ""),
                "target": _target(kind, average_value=src.get("targetAverageValue"), utilization=utilization),
            }
            if field == "containerResource":
                r["container"] = src.get("container", "")
            out[field] = r
    if isinstance(m.get("external"), dict):
        src = m["external"]
        value = src.get("targetValue")
        out["external"] = {
            "metric": _identifier(src.get("metricName"), src.get("metricSelector")),
            "target": _target("AverageValue" if value is None else "Value", value, src.get("targetAverageValue")),
        }
    return out


# --- MetricStatus -----------------------------------------------------------------------------


def metric_status_to_v1(m: Any) -> dict[str, Any]:
    """Convert_autoscaling_MetricStatus_To_v1_MetricStatus."""
    m = _dict(m)
    out: dict[str, Any] = {"type": m.get("type", "")}
    if isinstance(m.get("object"), dict):
        src = m["object"]
        cur, metric = _dict(src.get("current")), _dict(src.get("metric"))
        o: dict[str, Any] = {
            "target": object_reference(src.get("describedObject")),
            "metricName": metric.get("name", ""),
            "currentValue": cur.get("value") if cur.get("value") is not None else ZERO_QUANTITY,
        }
        _with_selector(o, "selector", metric.get("selector"))
        _put(o, "averageValue", cur.get("averageValue"))
        out["object"] = o
    if isinstance(m.get("pods"), dict):
        src = m["pods"]
        cur, metric = _dict(src.get("current")), _dict(src.get("metric"))
        avg = cur.get("averageValue")
        p: dict[str, Any] = {
            "metricName": metric.get("name", ""),
            "currentAverageValue": avg if avg is not None else ZERO_QUANTITY,
        }
        _with_selector(p, "selector", metric.get("selector"))
        out["pods"] = p
    for field in ("resource", "containerResource"):
        if isinstance(m.get(field), dict):
            src = m[field]
            cur = _dict(src.get("current"))
            r: dict[str, Any] = {"name": src.get("name", "")}
            _put(r, "currentAverageUtilization", cur.get("averageUtilization"))
            avg = cur.get("averageValue")
            r["currentAverageValue"] = avg if avg is not None else ZERO_QUANTITY
            if field == "containerResource":
                r["container"] = src.get("container", "")
            out[field] = r
    if isinstance(m.get("external"), dict):
        src = m["external"]
        cur, metric = _dict(src.get("current")), _dict(src.get("metric"))
        e: dict[str, Any] = {"metricName": metric.get("name", "")}
        _with_selector(e, "metricSelector", metric.get("selector"))
        e["currentValue"] = cur.get("value") if cur.get("value") is not None else ZERO_QUANTITY
        _put(e, "currentAverageValue", cur.get("averageValue"))
        out["external"] = e
    return out


def metric_status_from_v1(m: Any) -> dict[str, Any]:
    """Convert_v1_MetricStatus_To_autoscaling_MetricStatus."""
    m = _dict(m)
    out: dict[str, Any] = {"type": m.get("type", "")}
    if isinstance(m.get("object"), dict):
        src = m["object"]
        value = src.get("currentValue") if src.get("currentValue") is not None else ZERO_QUANTITY
        out["object"] = {
            "metric": _identifier(src.get("metricName"), src.get("selector")),
            "current": _value_status(value, src.get("averageValue")),
            "describedObject": object_reference(src.get("target")),
        }
    if isinstance(m.get("pods"), dict):
        src = m["pods"]
        avg = src.get("currentAverageValue") if src.get("currentAverageValue") is not None else ZERO_QUANTITY
        out["pods"] = {
            "metric": _identifier(src.get("metricName"), src.get("selector")),
            "current": _value_status(average_value=avg),
        }
    for field in ("resource", "containerResource"):
        if isinstance(m.get(field), dict):
            src = m[field]
            avg = src.get("currentAverageValue") if src.get("currentAverageValue") is not None else ZERO_QUANTITY
            r: dict[str, Any] = {
                "name": src.get("name", ""),
                "current": _value_status(average_value=avg, utilization=src.get("currentAverageUtilization")),
            }
            if field == "containerResource":
                r["container"] = src.get("container", "")
            out[field] = r
    if isinstance(m.get("external"), dict):
        src = m["external"]
        value = src.get("currentValue") if src.get("currentValue") is not None else ZERO_QUANTITY
        out["external"] = {
            "metric": _identifier(src.get("metricName"), src.get("metricSelector")),
            "current": _value_status(value, src.get("currentAverageValue")),
        }
    return out


# --- conditions -------------------------------------------------------------------------------


def condition(c: Any, *, keep_null_time: bool) -> dict[str, Any]:
    """HorizontalPodAutoscalerCondition (same fields in v1 and v2). Go writes a zero
    lastTransitionTime as null; read back, a null time is no time."""
    c = _dict(c)
    out: dict[str, Any] = {"type": c.get("type", ""), "status": c.get("status", "")}
    ltt = c.get("lastTransitionTime")
    if ltt is not None or keep_null_time:
        out["lastTransitionTime"] = ltt
    _put(out, "reason", c.get("reason"))
    _put(out, "message", c.get("message"))
    return out

"""HorizontalPodAutoscaler validation (pkg/apis/autoscaling/validation) for autoscaling/v2 and v1.

kube validates the internal type, whose shape is v2's: a v1 object's targetCPUUtilizationPercentage
is checked as metrics[0].resource.target.averageUtilization, the path kube reports for it.
"""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.validation_util import field, gorepr
from kube_apiserver.apis.validation_util.names import is_dns1123_label, is_valid_path_segment_name
from kube_apiserver.runtime.errors import StatusCause
from kube_apiserver.runtime.quantity import QuantityError, parse_quantity

MAX_PERIOD_SECONDS = 1800
MAX_STABILIZATION_WINDOW_SECONDS = 3600
# HPAScaleToZero is alpha (off) in 1.33
MIN_REPLICAS_LOWER_BOUND = 1
METRIC_SOURCE_TYPES = ["ContainerResource", "External", "Object", "Pods", "Resource"]
SOURCE_FIELDS = {
    "Object": "object",
    "Pods": "pods",
    "Resource": "resource",
    "External": "external",
    "ContainerResource": "containerResource",
}
SELECT_POLICIES = ["Disabled", "Max", "Min"]
SCALING_POLICY_TYPES = ["Percent", "Pods"]
TARGET_TYPES = ("Utilization", "Value", "AverageValue")


def validate_hpa_v2(obj: dict[str, Any]) -> list[StatusCause]:
    return validate_hpa_spec(field.spec_of(obj), "spec")


def validate_hpa_v1(obj: dict[str, Any]) -> list[StatusCause]:
    return validate_hpa_spec(v1_spec_as_internal(field.spec_of(obj)), "spec")


def v1_spec_as_internal(spec: dict[str, Any]) -> dict[str, Any]:
    """The parts of autoscaling/v1's conversion to the internal spec that validation sees."""
    internal = {k: v for k, v in spec.items() if k != "targetCPUUtilizationPercentage"}
    target = spec.get("targetCPUUtilizationPercentage")
    if target is not None:
        internal["metrics"] = [
            {
                "type": "Resource",
                "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": target}},
            }
        ]
    return internal


def validate_hpa_spec(spec: dict[str, Any], path: str) -> list[StatusCause]:
    errs: list[StatusCause] = []
    min_replicas, max_replicas = spec.get("minReplicas"), spec.get("maxReplicas", 0)
    if field.is_int(min_replicas) and min_replicas < MIN_REPLICAS_LOWER_BOUND:
        errs.append(
            field.invalid(
                field.child(path, "minReplicas"),
                min_replicas,
                f"must be greater than or equal to {MIN_REPLICAS_LOWER_BOUND}",
            )
        )
    if field.is_int(max_replicas):
        if max_replicas < 1:
            errs.append(field.invalid(field.child(path, "maxReplicas"), max_replicas, "must be greater than 0"))
        if field.is_int(min_replicas) and max_replicas < min_replicas:
            errs.append(
                field.invalid(
                    field.child(path, "maxReplicas"), max_replicas, "must be greater than or equal to `minReplicas`"
                )
            )
    errs.extend(
        validate_cross_version_object_reference(
            field.as_dict(spec.get("scaleTargetRef")), field.child(path, "scaleTargetRef")
        )
    )
    errs.extend(_validate_metrics(field.as_list(spec.get("metrics")), field.child(path, "metrics"), min_replicas))
    behavior = spec.get("behavior")
    if behavior is not None:
        behavior = field.as_dict(behavior)
        for name in ("scaleUp", "scaleDown"):
            rules = behavior.get(name)
            if rules is not None:
                errs.extend(_validate_scaling_rules(field.as_dict(rules), field.child(path, "behavior", name)))
    return errs


def validate_cross_version_object_reference(ref: dict[str, Any], path: str) -> list[StatusCause]:
    errs = []
    for name in ("kind", "name"):
        value = field.as_str(ref.get(name))
        if not value:
            errs.append(field.required(field.child(path, name), ""))
        else:
            errs.extend(field.invalid(field.child(path, name), value, msg) for msg in is_valid_path_segment_name(value))
    return errs


def _validate_metrics(metrics: list[Any], path: str, min_replicas: Any) -> list[StatusCause]:
    errs = []
    kinds = set()
    for i, metric in enumerate(metrics):
        metric = field.as_dict(metric)
        errs.extend(_validate_metric_spec(metric, field.index(path, i)))
        if isinstance(metric.get("type"), str):
            kinds.add(metric["type"])
    if min_replicas == 0 and not kinds & {"Object", "External"}:
        errs.append(
            field.forbidden(
                path, "must specify at least one Object or External metric to support scaling to zero replicas"
            )
        )
    return errs


_SOURCE_VALIDATION_ORDER = ("object", "external", "pods", "resource", "containerResource")


def _validate_metric_spec(spec: dict[str, Any], path: str) -> list[StatusCause]:
    errs = []
    kind = spec.get("type", "")
    type_path = field.child(path, "type")
    if kind == "":
        errs.append(field.required(type_path, "must specify a metric source type"))
    if kind not in METRIC_SOURCE_TYPES:
        errs.append(field.not_supported(type_path, kind, METRIC_SOURCE_TYPES))
    present = [name for name in _SOURCE_VALIDATION_ORDER if spec.get(name) is not None]
    if present:
        # only the first source found is validated, as upstream
        first = present[0]
        errs.extend(_SOURCE_VALIDATORS[first](field.as_dict(spec[first]), field.child(path, first)))
    expected = SOURCE_FIELDS.get(kind) if isinstance(kind, str) else None
    if expected is None:
        errs.append(field.not_supported(type_path, kind, METRIC_SOURCE_TYPES))
    elif spec.get(expected) is None:
        errs.append(
            field.required(field.child(path, expected), "must populate information for the given metric source")
        )
    if len(present) != 1:
        for name in sorted(set(present) - {expected}):
            errs.append(field.forbidden(field.child(path, name), "must populate the given metric source only"))
    return errs


def _validate_metric_identifier(metric: Any, path: str) -> list[StatusCause]:
    name = field.as_str(field.as_dict(metric).get("name"))
    if not name:
        return [field.required(field.child(path, "name"), "must specify a metric name")]
    return [field.invalid(field.child(path, "name"), name, msg) for msg in is_valid_path_segment_name(name)]


def _quantity_sign(value: Any) -> int | None:
    try:
        amount, _ = parse_quantity(value)
    except (QuantityError, ValueError, TypeError):
        return None
    return (amount > 0) - (amount < 0)


def _validate_metric_target(target: dict[str, Any], path: str) -> list[StatusCause]:
    errs = []
    kind = target.get("type", "")
    if kind == "":
        errs.append(field.required(field.child(path, "type"), "must specify a metric target type"))
    if kind not in TARGET_TYPES:
        errs.append(
            field.invalid(field.child(path, "type"), kind, "must be either Utilization, Value, or AverageValue")
        )
    for name in ("value", "averageValue"):
        value = target.get(name)
        if value is not None and _quantity_sign(value) not in (1, None):
            errs.append(field.invalid(field.child(path, name), gorepr.quantity(value), "must be positive"))
    utilization = target.get("averageUtilization")
    if field.is_int(utilization) and utilization < 1:
        errs.append(field.invalid(field.child(path, "averageUtilization"), utilization, "must be greater than 0"))
    return errs


def _validate_object_source(src: dict[str, Any], path: str) -> list[StatusCause]:
    errs = validate_cross_version_object_reference(
        field.as_dict(src.get("describedObject")), field.child(path, "describedObject")
    )
    errs.extend(_validate_metric_identifier(src.get("metric"), field.child(path, "metric")))
    target = field.as_dict(src.get("target"))
    errs.extend(_validate_metric_target(target, field.child(path, "target")))
    if target.get("value") is None and target.get("averageValue") is None:
        errs.append(
            field.required(
                field.child(path, "target", "averageValue"), "must set either a target value or averageValue"
            )
        )
    return errs


def _validate_external_source(src: dict[str, Any], path: str) -> list[StatusCause]:
    errs = _validate_metric_identifier(src.get("metric"), field.child(path, "metric"))
    target = field.as_dict(src.get("target"))
    errs.extend(_validate_metric_target(target, field.child(path, "target")))
    value, average = target.get("value"), target.get("averageValue")
    if value is None and average is None:
        errs.append(
            field.required(
                field.child(path, "target", "averageValue"),
                "must set either a target value for metric or a per-pod target",
            )
        )
    if value is not None and average is not None:
        errs.append(
            field.forbidden(
                field.child(path, "target", "value"), "may not set both a target value for metric and a per-pod target"
            )
        )
    return errs


def _validate_pods_source(src: dict[str, Any], path: str) -> list[StatusCause]:
    errs = _validate_metric_identifier(src.get("metric"), field.child(path, "metric"))
    target = field.as_dict(src.get("target"))
    errs.extend(_validate_metric_target(target, field.child(path, "target")))
    if target.get("averageValue") is None:
        errs.append(
            field.required(field.child(path, "target", "averageValue"), "must specify a positive target averageValue")
        )
    return errs


def _validate_resource_target(src: dict[str, Any], path: str) -> list[StatusCause]:
    target = field.as_dict(src.get("target"))
    errs = _validate_metric_target(target, field.child(path, "target"))
    utilization, average = target.get("averageUtilization"), target.get("averageValue")
    if utilization is None and average is None:
        errs.append(
            field.required(
                field.child(path, "target", "averageUtilization"),
                "must set either a target raw value or a target utilization",
            )
        )
    if utilization is not None and average is not None:
        errs.append(
            field.forbidden(
                field.child(path, "target", "averageValue"),
                "may not set both a target raw value and a target utilization",
            )
        )
    return errs


def _validate_resource_source(src: dict[str, Any], path: str) -> list[StatusCause]:
    errs = []
    if not src.get("name"):
        errs.append(field.required(field.child(path, "name"), "must specify a resource name"))
    errs.extend(_validate_resource_target(src, path))
    return errs


def _validate_container_resource_source(src: dict[str, Any], path: str) -> list[StatusCause]:
    errs = []
    if not src.get("name"):
        errs.append(field.required(field.child(path, "name"), "must specify a resource name"))
    container = field.as_str(src.get("container"))
    if not container:
        errs.append(field.required(field.child(path, "container"), "must specify a container"))
    else:
        errs.extend(
            field.invalid(field.child(path, "container"), container, msg) for msg in is_dns1123_label(container)
        )
    errs.extend(_validate_resource_target(src, path))
    return errs


_SOURCE_VALIDATORS = {
    "object": _validate_object_source,
    "external": _validate_external_source,
    "pods": _validate_pods_source,
    "resource": _validate_resource_source,
    "containerResource": _validate_container_resource_source,
}


def _validate_scaling_rules(rules: dict[str, Any], path: str) -> list[StatusCause]:
    errs = []
    window = rules.get("stabilizationWindowSeconds")
    window_path = field.child(path, "stabilizationWindowSeconds")
    if field.is_int(window):
        if window < 0:
            errs.append(field.invalid(window_path, window, "must be greater than or equal to zero"))
        if window > MAX_STABILIZATION_WINDOW_SECONDS:
            errs.append(
                field.invalid(window_path, window, f"must be less than or equal to {MAX_STABILIZATION_WINDOW_SECONDS}")
            )
    select = rules.get("selectPolicy")
    if select is not None and select not in SELECT_POLICIES:
        errs.append(field.not_supported(field.child(path, "selectPolicy"), select, SELECT_POLICIES))
    policies = field.as_list(rules.get("policies"))
    policies_path = field.child(path, "policies")
    if not policies:
        errs.append(field.required(policies_path, "must specify at least one Policy"))
    for i, policy in enumerate(policies):
        errs.extend(_validate_scaling_policy(field.as_dict(policy), field.index(policies_path, i)))
    return errs


def _validate_scaling_policy(policy: dict[str, Any], path: str) -> list[StatusCause]:
    errs = []
    kind = policy.get("type", "")
    if kind not in SCALING_POLICY_TYPES:
        errs.append(field.not_supported(field.child(path, "type"), kind, SCALING_POLICY_TYPES))
    value = policy.get("value", 0)
    if field.is_int(value) and value <= 0:
        errs.append(field.invalid(field.child(path, "value"), value, "must be greater than zero"))
    period = policy.get("periodSeconds", 0)
    if field.is_int(period):
        if period <= 0:
            errs.append(field.invalid(field.child(path, "periodSeconds"), period, "must be greater than zero"))
        if period > MAX_PERIOD_SECONDS:
            errs.append(
                field.invalid(
                    field.child(path, "periodSeconds"), period, f"must be less than or equal to {MAX_PERIOD_SECONDS}"
                )
            )
    return errs


VALIDATORS = {
    ("v2", "HorizontalPodAutoscaler"): validate_hpa_v2,
    ("v1", "HorizontalPodAutoscaler"): validate_hpa_v1,
}

"""DaemonSet and ControllerRevision validation (ValidateDaemonSetSpec, ValidateControllerRevision)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.apps.validation.common import (
    SELECTOR_MISMATCH,
    validate_always_restart,
    validate_revision_history_limit,
    validate_selector_immutable,
)
from kube_apiserver.apis.core.validation.pods import validate_pod_template_spec
from kube_apiserver.apis.validation_util import field, gorepr
from kube_apiserver.apis.validation_util.intstr import (
    int_or_percent_value,
    is_not_more_than_100_percent,
    validate_positive_int_or_percent,
)
from kube_apiserver.apis.validation_util.selectors import is_empty_selector, label_selector_as_selector, string_labels
from kube_apiserver.runtime.errors import StatusCause
from kube_apiserver.runtime.validation.metav1 import validate_label_selector


def validate_daemon_set(obj: dict[str, Any]) -> list[StatusCause]:
    return validate_daemon_set_spec(field.spec_of(obj), "spec")


def validate_daemon_set_spec(spec: dict[str, Any], path: str) -> list[StatusCause]:
    selector_value = spec.get("selector")
    sel_path = field.child(path, "selector")
    template = field.as_dict(spec.get("template"))
    template_path = field.child(path, "template")
    errs: list[StatusCause] = []
    if selector_value is not None:
        errs.extend(validate_label_selector(selector_value, sel_path))
    # Unlike the other workloads, a nil selector is not reported as required: it matches nothing,
    # so the template labels are reported instead (the apps/v1 schema marks it required).
    selector = label_selector_as_selector(selector_value)
    labels = field.as_dict(template.get("metadata")).get("labels")
    if selector is not None and not selector.matches(string_labels(labels)):
        errs.append(
            field.invalid(
                field.child(template_path, "metadata", "labels"), gorepr.string_map(labels), SELECTOR_MISMATCH
            )
        )
    if selector_value is not None and is_empty_selector(selector_value):
        errs.append(
            field.invalid(sel_path, gorepr.label_selector(selector_value), "empty selector is invalid for daemonset")
        )
    errs.extend(validate_pod_template_spec(template, template_path))
    errs.extend(validate_always_restart(template, template_path, "DaemonSet"))
    errs.extend(field.validate_nonnegative_field(spec.get("minReadySeconds"), field.child(path, "minReadySeconds")))
    errs.extend(validate_daemon_set_update_strategy(spec.get("updateStrategy"), field.child(path, "updateStrategy")))
    errs.extend(validate_revision_history_limit(spec, path))
    return errs


def validate_daemon_set_update_strategy(value: Any, path: str) -> list[StatusCause]:
    strategy = field.as_dict(value)
    kind = strategy.get("type", "")
    rolling = strategy.get("rollingUpdate")
    if kind == "OnDelete":
        return []
    if kind == "RollingUpdate":
        if rolling is None:
            return [field.required(field.child(path, "rollingUpdate"), "")]
        return validate_rolling_update_daemon_set(field.as_dict(rolling), field.child(path, "rollingUpdate"))
    shown = gorepr.struct(
        "apps.DaemonSetUpdateStrategy",
        [("Type", field.as_str(kind)), ("RollingUpdate", gorepr.pointer("apps.RollingUpdateDaemonSet", rolling))],
    )
    return [field.not_supported(path, shown, ["RollingUpdate", "OnDelete"])]


def validate_rolling_update_daemon_set(rolling: dict[str, Any], path: str) -> list[StatusCause]:
    unavailable = rolling.get("maxUnavailable", 0)
    surge = rolling.get("maxSurge", 0)
    unavailable_path = field.child(path, "maxUnavailable")
    surge_path = field.child(path, "maxSurge")
    errs = validate_positive_int_or_percent(unavailable, unavailable_path)
    errs.extend(validate_positive_int_or_percent(surge, surge_path))
    errs.extend(is_not_more_than_100_percent(unavailable, unavailable_path))
    errs.extend(is_not_more_than_100_percent(surge, surge_path))
    has_unavailable = int_or_percent_value(unavailable) != 0
    has_surge = int_or_percent_value(surge) != 0
    if has_unavailable and has_surge:
        errs.append(
            field.invalid(surge_path, gorepr.int_or_string(surge), "may not be set when maxUnavailable is non-zero")
        )
    elif not has_unavailable and not has_surge:
        errs.append(field.required(unavailable_path, "cannot be 0 when maxSurge is 0"))
    return errs


def validate_controller_revision(obj: dict[str, Any]) -> list[StatusCause]:
    errs = []
    if obj.get("data") is None:
        errs.append(field.required("data", "data is mandatory"))
    errs.extend(field.validate_nonnegative_field(obj.get("revision"), "revision"))
    return errs


def validate_controller_revision_update(new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
    data = new.get("data")
    return field.validate_immutable_field(data, old.get("data"), "data", gorepr.approx("runtime.RawExtension", data))


VALIDATORS = {
    ("v1", "DaemonSet"): validate_daemon_set,
    ("v1", "ControllerRevision"): validate_controller_revision,
}
UPDATE_VALIDATORS = {
    ("v1", "DaemonSet"): validate_selector_immutable,
    ("v1", "ControllerRevision"): validate_controller_revision_update,
}

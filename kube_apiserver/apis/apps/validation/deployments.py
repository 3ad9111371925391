"""Deployment and ReplicaSet validation (ValidateDeploymentSpec, ValidateReplicaSetSpec)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.apps.validation.common import (
    selector_and_template,
    validate_pod_template_spec_for_replica_set,
    validate_revision_history_limit,
    validate_selector_immutable,
    validate_workload_selector,
)
from kube_apiserver.apis.validation_util import field, gorepr
from kube_apiserver.apis.validation_util.intstr import (
    int_or_percent_value,
    is_not_more_than_100_percent,
    validate_positive_int_or_percent,
)
from kube_apiserver.runtime.errors import StatusCause


def validate_deployment(obj: dict[str, Any]) -> list[StatusCause]:
    return validate_deployment_spec(field.spec_of(obj), "spec")


def validate_deployment_spec(spec: dict[str, Any], path: str) -> list[StatusCause]:
    errs = field.validate_nonnegative_field(spec.get("replicas"), field.child(path, "replicas"))
    errs.extend(validate_workload_selector(spec, "deployment", path))
    selector, sel_errs = selector_and_template(spec, path, "invalid label selector")
    errs.extend(sel_errs)
    if selector is not None:
        template = field.as_dict(spec.get("template"))
        errs.extend(validate_pod_template_spec_for_replica_set(template, selector, field.child(path, "template")))
    errs.extend(validate_deployment_strategy(spec.get("strategy"), field.child(path, "strategy")))
    min_ready = spec.get("minReadySeconds")
    errs.extend(field.validate_nonnegative_field(min_ready, field.child(path, "minReadySeconds")))
    errs.extend(validate_revision_history_limit(spec, path))
    deadline = spec.get("progressDeadlineSeconds")
    if field.is_int(deadline):
        deadline_path = field.child(path, "progressDeadlineSeconds")
        errs.extend(field.validate_nonnegative_field(deadline, deadline_path))
        if deadline <= (min_ready if field.is_int(min_ready) else 0):
            errs.append(field.invalid(deadline_path, deadline, "must be greater than minReadySeconds"))
    return errs


def _strategy_value(strategy: dict[str, Any]) -> gorepr.GoValue:
    return gorepr.struct(
        "apps.DeploymentStrategy",
        [
            ("Type", field.as_str(strategy.get("type"))),
            ("RollingUpdate", gorepr.pointer("apps.RollingUpdateDeployment", strategy.get("rollingUpdate"))),
        ],
    )


def validate_deployment_strategy(value: Any, path: str) -> list[StatusCause]:
    strategy = field.as_dict(value)
    kind = strategy.get("type", "")
    rolling = strategy.get("rollingUpdate")
    if kind == "Recreate":
        if rolling is not None:
            return [
                field.forbidden(
                    field.child(path, "rollingUpdate"), "may not be specified when strategy `type` is 'Recreate'"
                )
            ]
        return []
    if kind == "RollingUpdate":
        if rolling is None:
            return [field.required(field.child(path, "rollingUpdate"), "this should be defaulted and never be nil")]
        return validate_rolling_update_deployment(field.as_dict(rolling), field.child(path, "rollingUpdate"))
    return [field.not_supported(path, _strategy_value(strategy), ["Recreate", "RollingUpdate"])]


def validate_rolling_update_deployment(rolling: dict[str, Any], path: str) -> list[StatusCause]:
    # A missing value converts to the zero IntOrString (the int 0), as the internal type is not a pointer.
    unavailable = rolling.get("maxUnavailable", 0)
    surge = rolling.get("maxSurge", 0)
    unavailable_path = field.child(path, "maxUnavailable")
    errs = validate_positive_int_or_percent(unavailable, unavailable_path)
    errs.extend(validate_positive_int_or_percent(surge, field.child(path, "maxSurge")))
    if int_or_percent_value(unavailable) == 0 and int_or_percent_value(surge) == 0:
        errs.append(
            field.invalid(unavailable_path, gorepr.int_or_string(unavailable), "may not be 0 when `maxSurge` is 0")
        )
    errs.extend(is_not_more_than_100_percent(unavailable, unavailable_path))
    return errs


def validate_replica_set(obj: dict[str, Any]) -> list[StatusCause]:
    return validate_replica_set_spec(field.spec_of(obj), "spec")


def validate_replica_set_spec(spec: dict[str, Any], path: str) -> list[StatusCause]:
    errs = field.validate_nonnegative_field(spec.get("replicas"), field.child(path, "replicas"))
    errs.extend(field.validate_nonnegative_field(spec.get("minReadySeconds"), field.child(path, "minReadySeconds")))
    # upstream's ReplicaSet check reuses the deployment wording
    errs.extend(validate_workload_selector(spec, "deployment", path))
    selector, sel_errs = selector_and_template(spec, path, "invalid label selector")
    errs.extend(sel_errs)
    if selector is not None:
        template = field.as_dict(spec.get("template"))
        errs.extend(validate_pod_template_spec_for_replica_set(template, selector, field.child(path, "template")))
    return errs


VALIDATORS = {
    ("v1", "Deployment"): validate_deployment,
    ("v1", "ReplicaSet"): validate_replica_set,
}

UPDATE_VALIDATORS = {
    ("v1", "Deployment"): validate_selector_immutable,
    ("v1", "ReplicaSet"): validate_selector_immutable,
}

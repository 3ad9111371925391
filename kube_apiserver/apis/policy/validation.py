"""PodDisruptionBudget validation (pkg/apis/policy/validation: ValidatePodDisruptionBudgetSpec)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.validation_util import field, gorepr
from kube_apiserver.apis.validation_util.intstr import is_not_more_than_100_percent, validate_positive_int_or_percent
from kube_apiserver.runtime.errors import StatusCause
from kube_apiserver.runtime.validation.metav1 import validate_label_selector

UNHEALTHY_POD_EVICTION_POLICIES = ["AlwaysAllow", "IfHealthyBudget"]


def _spec_value(spec: dict[str, Any]) -> gorepr.GoValue:
    """%#v of the internal PodDisruptionBudgetSpec (its pointer fields print as addresses)."""
    return gorepr.struct(
        "policy.PodDisruptionBudgetSpec",
        [
            ("MinAvailable", gorepr.pointer("intstr.IntOrString", spec.get("minAvailable"))),
            ("Selector", gorepr.pointer("v1.LabelSelector", spec.get("selector"))),
            ("MaxUnavailable", gorepr.pointer("intstr.IntOrString", spec.get("maxUnavailable"))),
            (
                "UnhealthyPodEvictionPolicy",
                gorepr.pointer("policy.UnhealthyPodEvictionPolicyType", spec.get("unhealthyPodEvictionPolicy")),
            ),
        ],
    )


def validate_pod_disruption_budget(obj: dict[str, Any]) -> list[StatusCause]:
    return validate_pod_disruption_budget_spec(field.spec_of(obj), "spec")


def validate_pod_disruption_budget_spec(spec: dict[str, Any], path: str) -> list[StatusCause]:
    errs: list[StatusCause] = []
    min_available, max_unavailable = spec.get("minAvailable"), spec.get("maxUnavailable")
    if min_available is not None and max_unavailable is not None:
        errs.append(field.invalid(path, _spec_value(spec), "minAvailable and maxUnavailable cannot be both set"))
    for name, value in (("minAvailable", min_available), ("maxUnavailable", max_unavailable)):
        if value is not None:
            errs.extend(validate_positive_int_or_percent(value, field.child(path, name)))
            errs.extend(is_not_more_than_100_percent(value, field.child(path, name)))
    selector = spec.get("selector")
    if selector is not None:
        errs.extend(validate_label_selector(selector, field.child(path, "selector")))
    policy = spec.get("unhealthyPodEvictionPolicy")
    if policy is not None and policy not in UNHEALTHY_POD_EVICTION_POLICIES:
        errs.append(
            field.not_supported(
                field.child(path, "unhealthyPodEvictionPolicy"), policy, UNHEALTHY_POD_EVICTION_POLICIES
            )
        )
    return errs


VALIDATORS = {("v1", "PodDisruptionBudget"): validate_pod_disruption_budget}

"""Lease validation (pkg/apis/coordination/validation: ValidateLeaseSpec)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.validation_util import field
from kube_apiserver.runtime.errors import StatusCause


def validate_lease(obj: dict[str, Any]) -> list[StatusCause]:
    return validate_lease_spec(field.spec_of(obj), "spec")


def validate_lease_spec(spec: dict[str, Any], path: str) -> list[StatusCause]:
    errs = []
    duration = spec.get("leaseDurationSeconds")
    if field.is_int(duration) and duration <= 0:
        errs.append(field.invalid(field.child(path, "leaseDurationSeconds"), duration, "must be greater than 0"))
    transitions = spec.get("leaseTransitions")
    if field.is_int(transitions) and transitions < 0:
        errs.append(
            field.invalid(field.child(path, "leaseTransitions"), transitions, "must be greater than or equal to 0")
        )
    preferred, strategy = spec.get("preferredHolder"), spec.get("strategy")
    if preferred and not strategy:
        errs.append(
            field.forbidden(field.child(path, "preferredHolder"), "may only be specified if `strategy` is defined")
        )
    return errs


VALIDATORS = {("v1", "Lease"): validate_lease}

"""PriorityClass validation (pkg/apis/scheduling/validation: ValidatePriorityClass and its update)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.validation_util import field
from kube_apiserver.runtime.errors import StatusCause

SYSTEM_PRIORITY_CLASS_PREFIX = "system-"
HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
SYSTEM_CRITICAL_PRIORITY = 2 * HIGHEST_USER_DEFINABLE_PRIORITY
# name → (value, globalDefault) of the classes the apiserver creates itself
SYSTEM_PRIORITY_CLASSES = {
    "system-node-critical": (SYSTEM_CRITICAL_PRIORITY + 1000, False),
    "system-cluster-critical": (SYSTEM_CRITICAL_PRIORITY, False),
}
PREEMPTION_POLICIES = ["PreemptLowerPriority", "Never"]


def is_known_system_priority_class(name: str, value: Any, global_default: bool) -> str | None:
    """IsKnownSystemPriorityClass: None when it is one, else why not."""
    known = SYSTEM_PRIORITY_CLASSES.get(name)
    if known is None:
        return f"{name} is not a known system priority class"
    if value != known[0]:
        return f"value of {name} PriorityClass must be {known[0]}"
    if global_default != known[1]:
        return f"globalDefault of {name} PriorityClass must be {'true' if known[1] else 'false'}"
    return None


def validate_priority_class(obj: dict[str, Any]) -> list[StatusCause]:
    errs = []
    name = field.as_str(field.meta_of(obj).get("name"))
    value = obj.get("value", 0)
    if name.startswith(SYSTEM_PRIORITY_CLASS_PREFIX):
        err = is_known_system_priority_class(name, value, obj.get("globalDefault") is True)
        if err:
            errs.append(
                field.forbidden(
                    "metadata.name",
                    f"priority class names with '{SYSTEM_PRIORITY_CLASS_PREFIX}' prefix are reserved for system use only. "
                    f"error: {err}",
                )
            )
    elif field.is_int(value) and value > HIGHEST_USER_DEFINABLE_PRIORITY:
        errs.append(
            field.forbidden(
                "value", f"maximum allowed value of a user defined priority is {HIGHEST_USER_DEFINABLE_PRIORITY}"
            )
        )
    policy = obj.get("preemptionPolicy")
    if policy is not None:
        if policy == "":
            errs.append(field.required("preemptionPolicy", ""))
        elif policy not in PREEMPTION_POLICIES:
            errs.append(field.not_supported("preemptionPolicy", policy, PREEMPTION_POLICIES))
    return errs


def validate_priority_class_update(new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
    errs = []
    if new.get("value", 0) != old.get("value", 0):
        errs.append(field.forbidden("value", "may not be changed in an update."))
    errs.extend(
        field.validate_immutable_field(new.get("preemptionPolicy"), old.get("preemptionPolicy"), "preemptionPolicy")
    )
    return errs


VALIDATORS = {("v1", "PriorityClass"): validate_priority_class}
UPDATE_VALIDATORS = {("v1", "PriorityClass"): validate_priority_class_update}

"""A job's pod failure policy, success policy and pod replacement policy (validatePodFailurePolicy,
validateSuccessPolicy, validatePodReplacementPolicy)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.validation_util import field, gorepr
from kube_apiserver.apis.validation_util.names import validate_qualified_name
from kube_apiserver.runtime.errors import StatusCause

MAX_POD_FAILURE_POLICY_RULES = 20
MAX_ON_EXIT_CODES_VALUES = 255
MAX_ON_POD_CONDITIONS_PATTERNS = 20
MAX_SUCCEEDED_INDEXES_LENGTH = 64 * 1024
MAX_SUCCESS_POLICY_RULES = 20

ACTIONS = ["Count", "FailIndex", "FailJob", "Ignore"]
OPERATORS = ["In", "NotIn"]
CONDITION_STATUSES = ["False", "True", "Unknown"]
REPLACEMENT_POLICIES = ["Failed", "TerminatingOrFailed"]


def _valid_values(values: list[str]) -> str:
    """fmt's %q of a []string, as the Required details print it: ["a" "b"]."""
    return "valid values: [" + " ".join(f'"{v}"' for v in values) + "]"


def validate_pod_failure_policy(spec: dict[str, Any], path: str) -> list[StatusCause]:
    rules = field.as_list(field.as_dict(spec.get("podFailurePolicy")).get("rules"))
    rules_path = field.child(path, "rules")
    errs = []
    if len(rules) > MAX_POD_FAILURE_POLICY_RULES:
        errs.append(field.too_many(rules_path, len(rules), MAX_POD_FAILURE_POLICY_RULES))
    pod_spec = field.as_dict(field.as_dict(spec.get("template")).get("spec"))
    names = {
        field.as_str(field.as_dict(c).get("name"))
        for c in field.as_list(pod_spec.get("containers")) + field.as_list(pod_spec.get("initContainers"))
    }
    for i, rule in enumerate(rules):
        errs.extend(_validate_rule(spec, field.as_dict(rule), field.index(rules_path, i), names))
    return errs


def _validate_rule(spec: dict[str, Any], rule: dict[str, Any], path: str, names: set[str]) -> list[StatusCause]:
    errs = []
    action = rule.get("action", "")
    action_path = field.child(path, "action")
    if action == "":
        errs.append(field.required(action_path, _valid_values(ACTIONS)))
    elif action == "FailIndex":
        if spec.get("backoffLimitPerIndex") is None:
            errs.append(field.invalid(action_path, action, "requires the backoffLimitPerIndex to be set"))
    elif action not in ACTIONS:
        errs.append(field.not_supported(action_path, action, ACTIONS))
    exit_codes = rule.get("onExitCodes")
    conditions = field.as_list(rule.get("onPodConditions"))
    if exit_codes is not None:
        errs.extend(_validate_on_exit_codes(field.as_dict(exit_codes), field.child(path, "onExitCodes"), names))
    if conditions:
        errs.extend(_validate_on_pod_conditions(conditions, field.child(path, "onPodConditions")))
    if exit_codes is not None and conditions:
        errs.append(field.invalid_omit_value(path, "specifying both OnExitCodes and OnPodConditions is not supported"))
    if exit_codes is None and not conditions:
        errs.append(field.invalid_omit_value(path, "specifying one of OnExitCodes and OnPodConditions is required"))
    return errs


def _validate_on_pod_conditions(patterns: list[Any], path: str) -> list[StatusCause]:
    errs = []
    if len(patterns) > MAX_ON_POD_CONDITIONS_PATTERNS:
        errs.append(field.too_many(path, len(patterns), MAX_ON_POD_CONDITIONS_PATTERNS))
    for j, pattern in enumerate(patterns):
        pattern = field.as_dict(pattern)
        pattern_path = field.index(path, j)
        errs.extend(validate_qualified_name(field.as_str(pattern.get("type")), field.child(pattern_path, "type")))
        status = pattern.get("status", "")
        status_path = field.child(pattern_path, "status")
        if status == "":
            errs.append(field.required(status_path, _valid_values(CONDITION_STATUSES)))
        elif status not in CONDITION_STATUSES:
            errs.append(field.not_supported(status_path, status, CONDITION_STATUSES))
    return errs


def _validate_on_exit_codes(req: dict[str, Any], path: str, names: set[str]) -> list[StatusCause]:
    errs = []
    operator = req.get("operator", "")
    operator_path = field.child(path, "operator")
    if operator == "":
        errs.append(field.required(operator_path, _valid_values(OPERATORS)))
    elif operator not in OPERATORS:
        errs.append(field.not_supported(operator_path, operator, OPERATORS))
    container = req.get("containerName")
    if container is not None and (not isinstance(container, str) or container not in names):
        errs.append(
            field.invalid(
                field.child(path, "containerName"),
                container,
                "must be one of the container or initContainer names in the pod template",
            )
        )
    values_raw = req.get("values")
    values = [v for v in field.as_list(values_raw) if field.is_int(v)]
    values_path = field.child(path, "values")
    if not values:
        errs.append(field.invalid(values_path, gorepr.int_slice(values_raw), "at least one value is required"))
    elif len(values) > MAX_ON_EXIT_CODES_VALUES:
        errs.append(field.too_many(values_path, len(values), MAX_ON_EXIT_CODES_VALUES))
    seen: set[int] = set()
    ordered = True
    for j, value in enumerate(values):
        value_path = field.index(values_path, j)
        if operator == "In" and value == 0:
            errs.append(field.invalid(value_path, value, "must not be 0 for the In operator"))
        if value in seen:
            errs.append(field.duplicate(value_path, value))
        seen.add(value)
        if j > 0 and values[j - 1] > value:
            ordered = False
    if not ordered:
        errs.append(field.invalid(values_path, gorepr.int_slice(values_raw), "must be ordered"))
    return errs


def validate_pod_replacement_policy(spec: dict[str, Any], path: str) -> list[StatusCause]:
    policy = spec.get("podReplacementPolicy")
    if policy is None:
        return []
    if spec.get("podFailurePolicy") is not None:
        if policy != "Failed":
            return [field.not_supported(path, policy, ["Failed"])]
        return []
    if policy not in REPLACEMENT_POLICIES:
        return [field.not_supported(path, policy, REPLACEMENT_POLICIES)]
    return []


def validate_success_policy(spec: dict[str, Any], path: str) -> list[StatusCause]:
    rules = field.as_list(field.as_dict(spec.get("successPolicy")).get("rules"))
    rules_path = field.child(path, "rules")
    errs = []
    if not rules:
        errs.append(
            field.required(rules_path, "at least one rules must be specified when the successPolicy is specified")
        )
    if len(rules) > MAX_SUCCESS_POLICY_RULES:
        errs.append(field.too_many(rules_path, len(rules), MAX_SUCCESS_POLICY_RULES))
    completions = spec.get("completions")
    completions = completions if field.is_int(completions) else 0
    for i, rule in enumerate(rules):
        errs.extend(_validate_success_rule(field.as_dict(rule), field.index(rules_path, i), completions))
    return errs


def _validate_success_rule(rule: dict[str, Any], path: str, completions: int) -> list[StatusCause]:
    count, indexes = rule.get("succeededCount"), rule.get("succeededIndexes")
    errs = []
    if count is None and indexes is None:
        errs.append(field.required(path, "at least one of succeededCount or succeededIndexes must be specified"))
    total = 0
    if isinstance(indexes, str):
        indexes_path = field.child(path, "succeededIndexes")
        if len(indexes.encode()) > MAX_SUCCEEDED_INDEXES_LENGTH:
            errs.append(field.too_long(indexes_path, indexes, MAX_SUCCEEDED_INDEXES_LENGTH))
        try:
            total = validate_indexes_format(indexes, completions)
        except ValueError as e:
            errs.append(field.invalid(indexes_path, indexes, f"error parsing succeededIndexes: {e}"))
    if field.is_int(count):
        count_path = field.child(path, "succeededCount")
        errs.extend(field.validate_nonnegative_field(count, count_path))
        if count > completions:
            errs.append(
                field.invalid(
                    count_path,
                    count,
                    f"must be less than or equal to {completions} (the number of specified completions)",
                )
            )
        if indexes is not None and count > total:
            errs.append(
                field.invalid(
                    count_path,
                    count,
                    f"must be less than or equal to {total} (the number of indexes in the specified succeededIndexes field)",
                )
            )
    return errs


def validate_indexes_format(indexes: str, completions: int) -> int:
    """validateIndexesFormat: "1,3-5" style intervals, increasing and below completions; the count."""
    if not indexes:
        return 0
    last: int | None = None
    total = 0
    for interval in indexes.split(","):
        x, y = _parse_index_interval(interval, completions)
        if last is not None and last >= x:
            raise ValueError(f"non-increasing order, previous: {last}, current: {x}")
        total += y - x + 1
        last = y
    return total


def _atoi(text: str) -> int:
    from kube_apiserver.apis.batch.validation.cron import CronError, go_atoi

    try:
        return go_atoi(text)
    except CronError:
        raise ValueError(f'cannot convert string to integer for index: "{text}"') from None


def _parse_index_interval(interval: str, completions: int) -> tuple[int, int]:
    limits = interval.split("-")
    if len(limits) > 2:
        raise ValueError(
            f'the fragment "{interval}" violates the requirement that an index interval can have at most two parts '
            "separated by '-'"
        )
    x = _atoi(limits[0])
    if x >= completions:
        raise ValueError(f'too large index: "{limits[0]}"')
    if len(limits) == 1:
        return x, x
    y = _atoi(limits[1])
    if y >= completions:
        raise ValueError(f'too large index: "{limits[1]}"')
    if x >= y:
        raise ValueError(f"non-increasing order, previous: {x}, current: {y}")
    return x, y

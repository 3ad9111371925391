"""Resource names and quantities (pkg/apis/core/validation: ValidateResourceRequirements,
ValidateResourceQuantityValue, validateResourceName; pkg/apis/core/helper's resource predicates),
and the kinds built on them: LimitRange and ResourceQuota."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from kube_apiserver.apis.core.validation.common import as_dict, as_list, as_str, go_typed_slice
from kube_apiserver.runtime.errors import (
    GoRepr,
    StatusCause,
    field_duplicate,
    field_forbidden,
    field_invalid,
    field_not_found,
    field_required,
)
from kube_apiserver.runtime.labels import go_quote
from kube_apiserver.runtime.quantity import QuantityError, canonical_quantity, parse_quantity
from kube_apiserver.runtime.validation.names import is_qualified_name
from kube_apiserver.runtime.validation.objectmeta import FIELD_IMMUTABLE_ERROR_MSG, IS_NEGATIVE_ERROR_MSG

IS_NOT_INTEGER_ERROR_MSG = "must be an integer"
IS_NOT_POSITIVE_ERROR_MSG = "must be greater than zero"
IS_INVALID_QUOTA_RESOURCE = "must be a standard resource for quota"

_INTEGER_RESOURCES = frozenset(
    {
        "pods",
        "resourcequotas",
        "services",
        "replicationcontrollers",
        "secrets",
        "configmaps",
        "persistentvolumeclaims",
        "services.nodeports",
        "services.loadbalancers",
    }
)
_STANDARD_CONTAINER_RESOURCES = frozenset({"cpu", "memory", "ephemeral-storage"})
_STANDARD_QUOTA_RESOURCES = frozenset(
    {
        "cpu",
        "memory",
        "ephemeral-storage",
        "requests.cpu",
        "requests.memory",
        "requests.storage",
        "requests.ephemeral-storage",
        "limits.cpu",
        "limits.memory",
        "limits.ephemeral-storage",
    }
    | _INTEGER_RESOURCES
)
_STANDARD_RESOURCES = _STANDARD_QUOTA_RESOURCES | {"storage"}
_STANDARD_LIMIT_RANGE_TYPES = frozenset({"Pod", "Container", "PersistentVolumeClaim"})


# --- helper predicates --------------------------------------------------------------------------------------------


def is_hugepage_resource_name(name: str) -> bool:
    return name.startswith("hugepages-")


def is_quota_hugepage_resource_name(name: str) -> bool:
    return name.startswith("hugepages-") or name.startswith("requests.hugepages-")


def is_native_resource(name: str) -> bool:
    return "/" not in name or "kubernetes.io/" in name


def is_extended_resource_name(name: str) -> bool:
    if is_native_resource(name) or name.startswith("requests."):
        return False
    return not is_qualified_name("requests." + name)


def is_integer_resource_name(name: str) -> bool:
    return name in _INTEGER_RESOURCES or is_extended_resource_name(name)


def is_overcommit_allowed(name: str) -> bool:
    return is_native_resource(name) and not is_hugepage_resource_name(name)


def is_standard_quota_resource_name(name: str) -> bool:
    return name in _STANDARD_QUOTA_RESOURCES or is_quota_hugepage_resource_name(name)


# --- quantities ---------------------------------------------------------------------------------------------------


def parse(value: Any) -> Fraction | None:
    """The exact value of a quantity, or None when it is not one (the decoder reports those)."""
    try:
        return parse_quantity(value)[0]
    except (QuantityError, TypeError, ValueError):
        return None


def canonical(value: Any) -> str:
    """Quantity.String()."""
    try:
        return canonical_quantity(value)
    except (QuantityError, TypeError, ValueError):
        return str(value)


def validate_nonnegative_quantity(value: Any, path: str) -> list[StatusCause]:
    parsed = parse(value)
    if parsed is not None and parsed < 0:
        return [field_invalid(path, canonical(value), IS_NEGATIVE_ERROR_MSG)]
    return []


def validate_positive_quantity_value(value: Any, path: str) -> list[StatusCause]:
    parsed = parse(value)
    if parsed is not None and parsed <= 0:
        return [field_invalid(path, canonical(value), IS_NOT_POSITIVE_ERROR_MSG)]
    return []


def validate_resource_quantity_value(resource: str, value: Any, path: str) -> list[StatusCause]:
    parsed = parse(value)
    if parsed is None:
        return []
    causes: list[StatusCause] = []
    if parsed.numerator < 0:  # a Fraction's sign is its numerator's
        causes.append(field_invalid(path, canonical(value), IS_NEGATIVE_ERROR_MSG))
    if parsed.denominator != 1 and is_integer_resource_name(resource):
        # A Quantity prints through its String() method, unquoted.
        causes.append(field_invalid(path, GoRepr(canonical(value)), IS_NOT_INTEGER_ERROR_MSG))
    return causes


def validate_basic_resource(value: Any, path: str) -> list[StatusCause]:
    parsed = parse(value)
    if parsed is not None and parsed < 0:
        return [field_invalid(path, int(parsed), "must be a valid resource quantity")]
    return []


# --- resource names -----------------------------------------------------------------------------------------------


def validate_resource_name(name: str, path: str) -> list[StatusCause]:
    causes = [field_invalid(path, name, msg) for msg in is_qualified_name(name)]
    if causes:
        return causes
    if "/" not in name and not (name in _STANDARD_RESOURCES or is_quota_hugepage_resource_name(name)):
        return [field_invalid(path, name, "must be a standard resource type or fully qualified")]
    return []


def validate_container_resource_name(name: str, path: str) -> list[StatusCause]:
    if name in _STANDARD_CONTAINER_RESOURCES:
        return []  # cpu, memory, ephemeral-storage: qualified names and standard ones
    causes = validate_resource_name(name, path)
    if "/" not in name:
        if not (name in _STANDARD_CONTAINER_RESOURCES or is_hugepage_resource_name(name)):
            return causes + [field_invalid(path, name, "must be a standard resource for containers")]
    elif not is_native_resource(name) and not is_extended_resource_name(name):
        return causes + [field_invalid(path, name, "doesn't follow extended resource name standard")]
    return causes


def validate_resource_quota_resource_name(name: str, path: str) -> list[StatusCause]:
    causes = validate_resource_name(name, path)
    if "/" not in name and not is_standard_quota_resource_name(name):
        return causes + [field_invalid(path, name, IS_INVALID_QUOTA_RESOURCE)]
    return causes


# --- ResourceRequirements -----------------------------------------------------------------------------------------


def _hugepage_size(name: str) -> Fraction | None:
    return parse(name[len("hugepages-") :]) if is_hugepage_resource_name(name) else None


# (limits items, requests items) of string names and quantities found valid: most pods repeat a few
# resource lists, and without claims their validity depends on nothing else. Bounded, so that odd
# input cannot grow it without end.
_VALID_LISTS: set[tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]] = set()
_VALID_LISTS_MAX = 4096


def _all_str(items: tuple[tuple[Any, Any], ...]) -> bool:
    return all(type(k) is str and type(v) is str for k, v in items)


def validate_resource_requirements(requirements: Any, path: str, pod_claim_names: set[str]) -> list[StatusCause]:
    """requests ≤ limits per resource (equal for resources that cannot be overcommitted), valid
    names and quantities, hugepages only with cpu or memory, claims naming the pod's resourceClaims."""
    if not isinstance(requirements, dict):
        return []
    limits = requirements.get("limits")
    if not isinstance(limits, dict):
        limits = {}
    requests = requirements.get("requests")
    if not isinstance(requests, dict):
        requests = {}
    claims = requirements.get("claims")
    if isinstance(claims, list) and claims:
        return _validate_resource_requirements(requirements, limits, requests, path, pod_claim_names)
    key = (tuple(limits.items()), tuple(requests.items()))
    try:
        if key in _VALID_LISTS:
            return []
    except TypeError:  # an unhashable value: never cached
        return _validate_resource_requirements(requirements, limits, requests, path, pod_claim_names)
    causes = _validate_resource_requirements(requirements, limits, requests, path, pod_claim_names)
    if not causes and len(_VALID_LISTS) < _VALID_LISTS_MAX and _all_str(key[0]) and _all_str(key[1]):
        _VALID_LISTS.add(key)
    return causes


def _validate_resource_requirements(
    requirements: dict[str, Any],
    limits: dict[str, Any],
    requests: dict[str, Any],
    path: str,
    pod_claim_names: set[str],
) -> list[StatusCause]:
    causes: list[StatusCause] = []
    lim_path, req_path = f"{path}.limits", f"{path}.requests"
    lim_cpu_mem = req_cpu_mem = lim_huge = req_huge = False
    for name, quantity in limits.items():
        key_path = f"{lim_path}[{name}]"
        causes += validate_container_resource_name(name, key_path)
        causes += validate_resource_quantity_value(name, quantity, key_path)
        if is_hugepage_resource_name(name):
            lim_huge = True
            causes += _hugepage_value(name, quantity, key_path)
        lim_cpu_mem = lim_cpu_mem or name in ("cpu", "memory")
    for name, quantity in requests.items():
        key_path = f"{req_path}[{name}]"
        causes += validate_container_resource_name(name, key_path)
        causes += validate_resource_quantity_value(name, quantity, key_path)
        if name in limits:
            req_value, lim_value = parse(quantity), parse(limits[name])
            if req_value is not None and lim_value is not None:
                if req_value != lim_value and not is_overcommit_allowed(name):
                    detail = f"must be equal to {name} limit of {canonical(limits[name])}"
                    causes.append(field_invalid(req_path, canonical(quantity), detail))
                elif req_value > lim_value:
                    detail = f"must be less than or equal to {name} limit of {canonical(limits[name])}"
                    causes.append(field_invalid(req_path, canonical(quantity), detail))
        elif not is_overcommit_allowed(name):
            causes.append(field_required(lim_path, "Limit must be set for non overcommitable resources"))
        if is_hugepage_resource_name(name):
            req_huge = True
            causes += _hugepage_value(name, quantity, key_path)
        req_cpu_mem = req_cpu_mem or name in ("cpu", "memory")
    if not lim_cpu_mem and not req_cpu_mem and (lim_huge or req_huge):
        causes.append(field_forbidden(path, "HugePages require cpu or memory"))
    claims = requirements.get("claims")
    if isinstance(claims, list):
        causes += _validate_resource_claim_names(claims, f"{path}.claims", pod_claim_names)
    return causes


def _hugepage_value(name: str, quantity: Any, path: str) -> list[StatusCause]:
    size, value = _hugepage_size(name), parse(quantity)
    if size and value is not None and (value / size).denominator != 1:
        shown = canonical(quantity)
        return [field_invalid(path, shown, f"{shown} is not positive integer multiple of {name}")]
    return []


def _validate_resource_claim_names(claims: list[Any], path: str, pod_claim_names: set[str]) -> list[StatusCause]:
    causes: list[StatusCause] = []
    seen: set[str] = set()
    for i, claim in enumerate(claims):
        name = claim.get("name", "") if isinstance(claim, dict) else ""
        if not name:
            causes.append(field_required(f"{path}[{i}]"))
            continue
        if name in seen:
            causes.append(field_duplicate(f"{path}[{i}]", name))
        seen.add(name)
        if name not in pod_claim_names:
            detail = "must be one of the names in pod.spec.resourceClaims"
            detail += ": " + ", ".join(sorted(pod_claim_names)) if pod_claim_names else " which is empty"
            causes.append(field_not_found(f"{path}[{i}]", name, detail))
    return causes


# --- LimitRange ---------------------------------------------------------------------------------------------------


def _validate_limit_range_type_name(value: str, path: str) -> list[StatusCause]:
    causes = [field_invalid(path, value, msg) for msg in is_qualified_name(value)]
    if not causes and "/" not in value and value not in _STANDARD_LIMIT_RANGE_TYPES:
        causes.append(field_invalid(path, value, "must be a standard limit type or fully qualified"))
    return causes


def _validate_limit_range_resource_name(limit_type: str, name: str, path: str) -> list[StatusCause]:
    if limit_type in ("Pod", "Container"):
        return validate_container_resource_name(name, path)
    return validate_resource_name(name, path)


def validate_limit_range(obj: dict[str, Any]) -> list[StatusCause]:
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    limits = spec.get("limits") if isinstance(spec.get("limits"), list) else []
    causes: list[StatusCause] = []
    seen_types: set[str] = set()
    for i, limit in enumerate(limits):
        if not isinstance(limit, dict):
            continue
        path = f"spec.limits[{i}]"
        limit_type = limit.get("type", "")
        causes += _validate_limit_range_type_name(limit_type, f"{path}.type")
        if limit_type in seen_types:
            causes.append(field_duplicate(f"{path}.type", limit_type))
        seen_types.add(limit_type)
        tables: dict[str, dict[str, Any]] = {}
        sections = ["max", "min"] + ([] if limit_type == "Pod" else ["default", "defaultRequest"])
        for section in sections:
            table = limit.get(section) if isinstance(limit.get(section), dict) else {}
            tables[section] = table
            for name in table:
                causes += _validate_limit_range_resource_name(limit_type, name, f"{path}.{section}[{name}]")
        if limit_type == "Pod":
            for section in ("default", "defaultRequest"):
                if limit.get(section):
                    causes.append(field_forbidden(f"{path}.{section}", "may not be specified when `type` is 'Pod'"))
        if limit_type == "PersistentVolumeClaim" and "storage" not in tables["min"] and "storage" not in tables["max"]:
            detail = "either minimum or maximum storage value is required, but neither was provided"
            causes.append(field_required(f"{path}.limits", detail))
        ratios = limit.get("maxLimitRequestRatio") if isinstance(limit.get("maxLimitRequestRatio"), dict) else {}
        for name in ratios:
            causes += _validate_limit_range_resource_name(limit_type, name, f"{path}.maxLimitRequestRatio[{name}]")
        causes += _limit_range_bounds(path, tables, ratios)
    return causes


def _limit_range_bounds(path: str, tables: dict[str, dict[str, Any]], ratios: dict[str, Any]) -> list[StatusCause]:
    causes: list[StatusCause] = []
    for k in dict.fromkeys([k for t in tables.values() for k in t] + list(ratios)):
        causes += _limit_range_key_bounds(path, k, {sec: tables.get(sec, {}).get(k) for sec in _SECTIONS}, ratios)
    return causes


_SECTIONS = ("min", "max", "default", "defaultRequest")


def _limit_range_key_bounds(path: str, k: str, q: dict[str, Any], ratios: dict[str, Any]) -> list[StatusCause]:
    """The order checks of one resource across min, max, default and defaultRequest."""
    v = {sec: parse(x) if x is not None else None for sec, x in q.items()}
    s = {sec: canonical(x) for sec, x in q.items() if x is not None}
    causes: list[StatusCause] = []

    def bad(section: str, shown_section: str, detail: str) -> StatusCause:
        return field_invalid(f"{path}.{section}[{k}]", GoRepr(s[shown_section]), detail)

    lo, hi, default, dr = v["min"], v["max"], v["default"], v["defaultRequest"]
    if lo is not None and hi is not None and lo > hi:
        causes.append(bad("min", "min", f"min value {s['min']} is greater than max value {s['max']}"))
    if dr is not None and lo is not None and lo > dr:
        detail = f"min value {s['min']} is greater than default request value {s['defaultRequest']}"
        causes.append(bad("defaultRequest", "defaultRequest", detail))
    if dr is not None and hi is not None and dr > hi:
        detail = f"default request value {s['defaultRequest']} is greater than max value {s['max']}"
        causes.append(bad("defaultRequest", "defaultRequest", detail))
    if dr is not None and default is not None and dr > default:
        detail = f"default request value {s['defaultRequest']} is greater than default limit value {s['default']}"
        causes.append(bad("defaultRequest", "defaultRequest", detail))
    if default is not None and lo is not None and lo > default:
        causes.append(bad("default", "min", f"min value {s['min']} is greater than default value {s['default']}"))
    if default is not None and hi is not None and default > hi:
        causes.append(bad("default", "max", f"default value {s['default']} is greater than max value {s['max']}"))
    ratio = parse(ratios.get(k)) if k in ratios else None
    if ratio is not None and ratio < 1:
        shown = canonical(ratios[k])
        causes.append(
            field_invalid(f"{path}.maxLimitRequestRatio[{k}]", GoRepr(shown), f"ratio {shown} is less than 1")
        )
    if not is_overcommit_allowed(k) and default is not None and dr is not None and default != dr:
        detail = f"default value {s['default']} must equal to defaultRequest value {s['defaultRequest']} in {k}"
        causes.append(bad("defaultRequest", "defaultRequest", detail))
    return causes


# --- ResourceQuota ------------------------------------------------------------------------------------------------

_QUOTA_SCOPES = (
    "Terminating",
    "NotTerminating",
    "BestEffort",
    "NotBestEffort",
    "PriorityClass",
    "CrossNamespacePodAffinity",
    "VolumeAttributesClass",
)


def _validate_quota_table(table: Any, path: str) -> list[StatusCause]:
    causes: list[StatusCause] = []
    if isinstance(table, dict):
        for name, value in table.items():
            causes += validate_resource_quota_resource_name(name, f"{path}[{name}]")
            causes += validate_resource_quantity_value(name, value, f"{path}[{name}]")
    return causes


# helper.IsResourceQuotaScopeValidForResource: what each scope can limit (other scopes limit anything)
_POD_QUOTA_RESOURCES = frozenset(
    {"pods", "cpu", "memory", "limits.cpu", "limits.memory", "requests.cpu", "requests.memory"}
)
_SCOPE_RESOURCES = {
    "Terminating": _POD_QUOTA_RESOURCES,
    "NotTerminating": _POD_QUOTA_RESOURCES,
    "NotBestEffort": _POD_QUOTA_RESOURCES,
    "PriorityClass": _POD_QUOTA_RESOURCES,
    "CrossNamespacePodAffinity": _POD_QUOTA_RESOURCES,
    "BestEffort": frozenset({"pods"}),
    "VolumeAttributesClass": frozenset({"persistentvolumeclaims", "requests.storage"}),
}
# The scopes a scope selector may only test for existence.
_EXISTS_ONLY_SCOPES = ("BestEffort", "NotBestEffort", "Terminating", "NotTerminating", "CrossNamespacePodAffinity")
_EXISTS_ONLY_DETAIL = (
    "must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, "
    "ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity"
)


def _scope_misapplied(scope: Any, hard: Any) -> int:
    """How many of the hard limits the scope cannot apply to (one error each, as upstream reports)."""
    allowed = _SCOPE_RESOURCES.get(scope) if isinstance(scope, str) else None
    if allowed is None or not isinstance(hard, dict):
        return 0
    return sum(1 for k in hard if is_standard_quota_resource_name(k) and k not in allowed)


def _conflicting(scopes: set[Any]) -> bool:
    return {"BestEffort", "NotBestEffort"} <= scopes or {"Terminating", "NotTerminating"} <= scopes


def _scope_selector_repr(selector: dict[str, Any]) -> GoRepr:
    """%#v of a core.ScopeSelector."""
    items = []
    for req in as_list(selector.get("matchExpressions")):
        req = as_dict(req)
        values = req.get("values")
        shown_values = (
            "[]string{" + ", ".join(go_quote(as_str(v)) for v in values) + "}"
            if isinstance(values, list) and values
            else "[]string{}"
            if isinstance(values, list)
            else "[]string(nil)"
        )
        items.append(
            f"core.ScopedResourceSelectorRequirement{{ScopeName:{go_quote(as_str(req.get('scopeName')))}, "
            f"Operator:{go_quote(as_str(req.get('operator')))}, Values:{shown_values}}}"
        )
    body = (
        "[]core.ScopedResourceSelectorRequirement{" + ", ".join(items) + "}"
        if items
        else ("[]core.ScopedResourceSelectorRequirement(nil)")
    )
    return GoRepr(f"core.ScopeSelector{{MatchExpressions:{body}}}")


def _validate_scope_selector(spec: dict[str, Any], path: str) -> list[StatusCause]:
    """validateScopedResourceSelectorRequirement."""
    selector = as_dict(spec.get("scopeSelector"))
    hard, scopes = spec.get("hard"), spec.get("scopes") if isinstance(spec.get("scopes"), list) else []
    path = f"{path}.matchExpressions"
    causes: list[StatusCause] = []
    seen: set[Any] = set()
    for req in map(as_dict, as_list(selector.get("matchExpressions"))):
        scope, operator, values = req.get("scopeName"), req.get("operator"), req.get("values")
        if scope not in _QUOTA_SCOPES:
            causes.append(field_invalid(f"{path}.scopeName", as_str(scope), "unsupported scope"))
        for _ in range(_scope_misapplied(scope, hard)):
            causes.append(field_invalid(path, _scope_selector_repr(selector), "unsupported scope applied to resource"))
        if scope in _EXISTS_ONLY_SCOPES and operator != "Exists":
            causes.append(field_invalid(f"{path}.operator", as_str(operator), _EXISTS_ONLY_DETAIL))
        if operator in ("In", "NotIn"):
            if not values:
                detail = "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"
                causes.append(field_required(f"{path}.values", detail))
        elif operator in ("Exists", "DoesNotExist"):
            if values:
                detail = "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"
                causes.append(field_invalid(f"{path}.values", go_typed_slice("string", as_list(values)), detail))
        else:
            causes.append(field_invalid(f"{path}.operator", as_str(operator), "not a valid selector operator"))
        seen.add(scope if isinstance(scope, str) else None)
    if _conflicting(seen):
        # (upstream shows the spec's scopes here, not the selector)
        causes.append(field_invalid(path, go_typed_slice("core.ResourceQuotaScope", scopes), "conflicting scopes"))
    return causes


def validate_resource_quota_spec(spec: Any, path: str) -> list[StatusCause]:
    """ValidateResourceQuotaSpec: the hard limits, the scopes (known, applicable to every limit, not
    conflicting) and the scope selector."""
    if not isinstance(spec, dict):
        return []
    causes = _validate_quota_table(spec.get("hard"), f"{path}.hard")
    scopes = spec.get("scopes") if isinstance(spec.get("scopes"), list) else []
    shown = go_typed_slice("core.ResourceQuotaScope", scopes)
    for scope in scopes:
        if scope not in _QUOTA_SCOPES:
            causes.append(field_invalid(f"{path}.scopes", shown, "unsupported scope"))
        for _ in range(_scope_misapplied(scope, spec.get("hard"))):
            causes.append(field_invalid(f"{path}.scopes", shown, "unsupported scope applied to resource"))
    if _conflicting({s for s in scopes if isinstance(s, str)}):
        causes.append(field_invalid(f"{path}.scopes", shown, "conflicting scopes"))
    if spec.get("scopeSelector") is not None:
        causes += _validate_scope_selector(spec, f"{path}.scopeSelector")
    return causes


def validate_resource_quota(obj: dict[str, Any]) -> list[StatusCause]:
    causes = validate_resource_quota_spec(obj.get("spec"), "spec")
    status = obj.get("status") if isinstance(obj.get("status"), dict) else {}
    causes += _validate_quota_table(status.get("hard"), "status.hard")
    causes += _validate_quota_table(status.get("used"), "status.used")
    return causes


def validate_resource_quota_update(new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
    new_scopes = (new.get("spec") or {}).get("scopes") or []
    old_scopes = (old.get("spec") or {}).get("scopes") or []
    if set(new_scopes) != set(old_scopes):
        shown = go_typed_slice("core.ResourceQuotaScope", new_scopes)
        return [field_invalid("spec.scopes", shown, FIELD_IMMUTABLE_ERROR_MSG)]
    return []


VALIDATORS = {("v1", "LimitRange"): validate_limit_range, ("v1", "ResourceQuota"): validate_resource_quota}
UPDATE_VALIDATORS = {("v1", "ResourceQuota"): validate_resource_quota_update}

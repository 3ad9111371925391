"""Scheduling constraints (pkg/apis/core/validation: node selectors and affinity, pod (anti-)affinity,
tolerations, taints, topology spread constraints)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.core.validation.common import as_dict, as_list, as_str, is_int
from kube_apiserver.runtime.errors import (
    GoRepr,
    StatusCause,
    field_duplicate,
    field_forbidden,
    field_invalid,
    field_not_supported,
    field_required,
)
from kube_apiserver.runtime.labels import go_quote
from kube_apiserver.runtime.validation.metav1 import validate_label_name, validate_label_selector
from kube_apiserver.runtime.validation.names import (
    is_qualified_name,
    is_valid_label_value,
    name_is_dns_label,
    name_is_dns_subdomain,
)

TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"]


def validate_node_selector_requirement(req: dict[str, Any], path: str) -> list[StatusCause]:
    causes: list[StatusCause] = []
    op, values = req.get("operator"), as_list(req.get("values"))
    if op in ("In", "NotIn"):
        if not values:
            causes.append(field_required(f"{path}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
    elif op in ("Exists", "DoesNotExist"):
        if values:
            detail = "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
            causes.append(field_forbidden(f"{path}.values", detail))
    elif op in ("Gt", "Lt"):
        if len(values) != 1:
            detail = "must be specified single value when `operator` is 'Lt' or 'Gt'"
            causes.append(field_required(f"{path}.values", detail))
    else:
        causes.append(field_invalid(f"{path}.operator", op, "not a valid selector operator"))
    return causes + validate_label_name(req.get("key", ""), f"{path}.key")


def validate_node_field_selector_requirement(req: dict[str, Any], path: str) -> list[StatusCause]:
    causes: list[StatusCause] = []
    op, values = req.get("operator"), as_list(req.get("values"))
    if op in ("In", "NotIn"):
        if len(values) != 1:
            detail = "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"
            causes.append(field_required(f"{path}.values", detail))
    else:
        causes.append(field_invalid(f"{path}.operator", op, "not a valid selector operator"))
    if req.get("key") != "metadata.name":
        causes.append(field_invalid(f"{path}.key", req.get("key", ""), "not a valid field selector key"))
    else:
        for i, value in enumerate(values):
            if isinstance(value, str):
                causes += [field_invalid(f"{path}.values[{i}]", value, m) for m in name_is_dns_subdomain(value)]
    return causes


def validate_node_selector_term(term: dict[str, Any], path: str) -> list[StatusCause]:
    causes: list[StatusCause] = []
    for j, req in enumerate(as_list(term.get("matchExpressions"))):
        causes += validate_node_selector_requirement(as_dict(req), f"{path}.matchExpressions[{j}]")
    for j, req in enumerate(as_list(term.get("matchFields"))):
        causes += validate_node_field_selector_requirement(as_dict(req), f"{path}.matchFields[{j}]")
    return causes


def validate_node_selector(selector: dict[str, Any], path: str) -> list[StatusCause]:
    terms = as_list(selector.get("nodeSelectorTerms"))
    if not terms:
        return [field_required(f"{path}.nodeSelectorTerms", "must have at least one node selector term")]
    causes: list[StatusCause] = []
    for i, term in enumerate(terms):
        causes += validate_node_selector_term(as_dict(term), f"{path}.nodeSelectorTerms[{i}]")
    return causes


def _weight(weight: Any, path: str) -> list[StatusCause]:
    if is_int(weight) and not 0 < weight <= 100:
        return [field_invalid(path, weight, "must be in the range 1-100")]
    return []


def _validate_label_keys(keys: list[Any], selector: Any, path: str) -> list[StatusCause]:
    if not keys:
        return []
    if selector is None:
        return [field_forbidden(path, "must not be specified when labelSelector is not set")]
    causes: list[StatusCause] = []
    for i, key in enumerate(keys):
        causes += validate_label_name(key, f"{path}[{i}]")
    return causes


def validate_pod_affinity_term(term: dict[str, Any], path: str) -> list[StatusCause]:
    causes = validate_label_selector(term.get("labelSelector"), f"{path}.labelSelector")
    causes += validate_label_selector(term.get("namespaceSelector"), f"{path}.namespaceSelector")
    for name in as_list(term.get("namespaces")):
        if isinstance(name, str):
            causes += [field_invalid(f"{path}.namespace", name, m) for m in name_is_dns_label(name)]
    match_keys, mismatch_keys = as_list(term.get("matchLabelKeys")), as_list(term.get("mismatchLabelKeys"))
    causes += _validate_label_keys(match_keys, term.get("labelSelector"), f"{path}.matchLabelKeys")
    causes += _validate_label_keys(mismatch_keys, term.get("labelSelector"), f"{path}.mismatchLabelKeys")
    for i, key in enumerate(match_keys):
        if key in mismatch_keys:
            detail = "exists in both matchLabelKeys and mismatchLabelKeys"
            causes.append(field_invalid(f"{path}.matchLabelKeys[{i}]", key, detail))
    topology_key = as_str(term.get("topologyKey"))
    if not topology_key:
        causes.append(field_required(f"{path}.topologyKey", "can not be empty"))
    return causes + validate_label_name(topology_key, f"{path}.topologyKey")


def _pod_affinity(affinity: dict[str, Any], path: str) -> list[StatusCause]:
    causes: list[StatusCause] = []
    required = "requiredDuringSchedulingIgnoredDuringExecution"
    for i, term in enumerate(as_list(affinity.get(required))):
        causes += validate_pod_affinity_term(as_dict(term), f"{path}.{required}[{i}]")
    preferred = "preferredDuringSchedulingIgnoredDuringExecution"
    for i, weighted in enumerate(as_list(affinity.get(preferred))):
        weighted = as_dict(weighted)
        causes += _weight(weighted.get("weight"), f"{path}.{preferred}[{i}].weight")
        causes += validate_pod_affinity_term(
            as_dict(weighted.get("podAffinityTerm")), f"{path}.{preferred}[{i}].podAffinityTerm"
        )
    return causes


def validate_affinity(affinity: Any, path: str) -> list[StatusCause]:
    affinity = as_dict(affinity)
    causes: list[StatusCause] = []
    node = affinity.get("nodeAffinity")
    if isinstance(node, dict):
        required = node.get("requiredDuringSchedulingIgnoredDuringExecution")
        if isinstance(required, dict):
            causes += validate_node_selector(
                required, f"{path}.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
            )
        preferred = "preferredDuringSchedulingIgnoredDuringExecution"
        for i, term in enumerate(as_list(node.get(preferred))):
            term = as_dict(term)
            term_path = f"{path}.nodeAffinity.{preferred}[{i}]"
            causes += _weight(term.get("weight"), f"{term_path}.weight")
            causes += validate_node_selector_term(as_dict(term.get("preference")), f"{term_path}.preference")
    for key in ("podAffinity", "podAntiAffinity"):
        if isinstance(affinity.get(key), dict):
            causes += _pod_affinity(affinity[key], f"{path}.{key}")
    return causes


def _go_toleration(t: dict[str, Any]) -> GoRepr:
    seconds = t.get("tolerationSeconds")
    shown = "(*int64)(nil)" if seconds is None else f"&{seconds}"
    return GoRepr(
        f"core.Toleration{{Key:{go_quote(as_str(t.get('key')))}, Operator:{go_quote(as_str(t.get('operator')))}, "
        f"Value:{go_quote(as_str(t.get('value')))}, Effect:{go_quote(as_str(t.get('effect')))}, TolerationSeconds:{shown}}}"
    )


def validate_tolerations(tolerations: Any, path: str) -> list[StatusCause]:
    causes: list[StatusCause] = []
    for i, t in enumerate(as_list(tolerations)):
        if not isinstance(t, dict):
            t = {}
        # (as_str and validate_label_name spelled out, the item's path spelled only for an error)
        key, op, value, effect = t.get("key"), t.get("operator"), t.get("value"), t.get("effect")
        if not isinstance(key, str):
            key = ""
        if not isinstance(op, str):
            op = ""
        if not isinstance(value, str):
            value = ""
        if not isinstance(effect, str):
            effect = ""
        if key:
            msgs = is_qualified_name(key)
            if msgs:
                causes += [field_invalid(f"{path}[{i}].key", key, m) for m in msgs]
        if not key and op != "Exists":
            detail = 'operator must be Exists when `key` is empty, which means "match all values and all keys"'
            causes.append(field_invalid(f"{path}[{i}].operator", op, detail))
        if t.get("tolerationSeconds") is not None and effect != "NoExecute":
            causes.append(
                field_invalid(
                    f"{path}[{i}].effect", effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"
                )
            )
        if op == "Equal" or op == "":
            errs = is_valid_label_value(value)
            if errs:
                causes.append(field_invalid(f"{path}[{i}].operator", value, ";".join(errs)))
        elif op == "Exists":
            if value:
                causes.append(
                    field_invalid(
                        f"{path}[{i}].operator", _go_toleration(t), "value must be empty when `operator` is 'Exists'"
                    )
                )
        else:
            causes.append(field_not_supported(f"{path}[{i}].operator", op, ["Equal", "Exists"]))
        if effect and effect not in TAINT_EFFECTS:
            causes.append(field_not_supported(f"{path}[{i}].effect", effect, TAINT_EFFECTS))
    return causes


def validate_node_taints(taints: Any, path: str) -> list[StatusCause]:
    causes: list[StatusCause] = []
    seen: set[tuple[str, str]] = set()
    for i, taint in enumerate(as_list(taints)):
        taint = as_dict(taint)
        idx = f"{path}[{i}]"
        key, value, effect = (as_str(taint.get(k)) for k in ("key", "value", "effect"))
        causes += validate_label_name(key, f"{idx}.key")
        errs = is_valid_label_value(value)
        if errs:
            causes.append(field_invalid(f"{idx}.value", value, ";".join(errs)))
        if not effect:
            causes.append(field_required(f"{idx}.effect"))
        elif effect not in TAINT_EFFECTS:
            causes.append(field_not_supported(f"{idx}.effect", effect, TAINT_EFFECTS))
        if (key, effect) in seen:
            shown = GoRepr(
                f"core.Taint{{Key:{go_quote(key)}, Value:{go_quote(value)}, Effect:{go_quote(effect)}, TimeAdded:<nil>}}"
            )
            dup = field_duplicate(idx, shown)
            dup.message += ": taints must be unique by key and effect pair"
            causes.append(dup)
            continue
        seen.add((key, effect))
    return causes


def validate_topology_spread_constraints(constraints: Any, path: str) -> list[StatusCause]:
    causes: list[StatusCause] = []
    items = [as_dict(c) for c in as_list(constraints)]
    for i, c in enumerate(items):
        sub = f"{path}[{i}]"
        skew = c.get("maxSkew")
        if is_int(skew) and skew <= 0:
            causes.append(field_invalid(f"{sub}.maxSkew", skew, "must be greater than zero"))
        if not c.get("topologyKey"):
            causes.append(field_required(f"{sub}.topologyKey", "can not be empty"))
        action = c.get("whenUnsatisfiable", "")
        if action not in ("DoNotSchedule", "ScheduleAnyway"):
            causes.append(field_not_supported(f"{sub}.whenUnsatisfiable", action, ["DoNotSchedule", "ScheduleAnyway"]))
        for other in items[i + 1 :]:
            if other.get("topologyKey") == c.get("topologyKey") and other.get("whenUnsatisfiable") == action:
                shown = f"{{{as_str(c.get('topologyKey'))}, {action}}}"
                causes.append(field_duplicate(f"{sub}.{{topologyKey, whenUnsatisfiable}}", shown))
                break
        domains = c.get("minDomains")
        if is_int(domains):
            if domains <= 0:
                causes.append(field_invalid(f"{sub}.minDomains", domains, "must be greater than zero"))
            if action != "DoNotSchedule":
                detail = f"can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {action}"
                causes.append(field_invalid(f"{sub}.minDomains", domains, detail))
        for key in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
            policy = c.get(key)
            if policy is not None and policy not in ("Honor", "Ignore"):
                causes.append(field_not_supported(f"{sub}.{key}", policy, ["Honor", "Ignore"]))
        causes += _match_label_keys_in_topology_spread(
            as_list(c.get("matchLabelKeys")), c.get("labelSelector"), f"{sub}.matchLabelKeys"
        )
        causes += validate_label_selector(c.get("labelSelector"), f"{sub}.labelSelector")
    return causes


def _match_label_keys_in_topology_spread(keys: list[Any], selector: Any, path: str) -> list[StatusCause]:
    if not keys:
        return []
    causes: list[StatusCause] = []
    selector_keys: set[str] = set()
    if isinstance(selector, dict):
        selector_keys |= set(as_dict(selector.get("matchLabels")))
        selector_keys |= {as_dict(e).get("key") for e in as_list(selector.get("matchExpressions"))}
    else:
        causes.append(field_forbidden(path, "must not be specified when labelSelector is not set"))
    for i, key in enumerate(keys):
        causes += validate_label_name(key, f"{path}[{i}]")
        if key in selector_keys:
            causes.append(field_invalid(f"{path}[{i}]", key, "exists in both matchLabelKeys and labelSelector"))
    return causes

"""RBAC validation (pkg/apis/rbac/validation): policy rules of Roles and ClusterRoles, the roleRef
and subjects of bindings, and the roleRef that may not change."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.validation_util import field, gorepr
from kube_apiserver.apis.validation_util.names import is_dns1123_subdomain, is_valid_path_segment_name
from kube_apiserver.apis.validation_util.selectors import label_selector_as_selector
from kube_apiserver.runtime.errors import StatusCause
from kube_apiserver.runtime.validation.metav1 import validate_label_selector

GROUP_NAME = "rbac.authorization.k8s.io"
SUBJECT_KINDS = ["ServiceAccount", "User", "Group"]


def validate_policy_rule(rule: dict[str, Any], namespaced: bool, path: str) -> list[StatusCause]:
    errs = []
    if not field.as_list(rule.get("verbs")):
        errs.append(field.required(field.child(path, "verbs"), "verbs must contain at least one value"))
    urls = rule.get("nonResourceURLs")
    if field.as_list(urls):
        urls_path = field.child(path, "nonResourceURLs")
        shown = gorepr.string_slice(urls)
        if namespaced:
            errs.append(field.invalid(urls_path, shown, "namespaced rules cannot apply to non-resource URLs"))
        if any(field.as_list(rule.get(name)) for name in ("apiGroups", "resources", "resourceNames")):
            errs.append(
                field.invalid(urls_path, shown, "rules cannot apply to both regular resources and non-resource URLs")
            )
        return errs
    if not field.as_list(rule.get("apiGroups")):
        errs.append(field.required(field.child(path, "apiGroups"), "resource rules must supply at least one api group"))
    if not field.as_list(rule.get("resources")):
        errs.append(field.required(field.child(path, "resources"), "resource rules must supply at least one resource"))
    return errs


def _validate_rules(obj: dict[str, Any], namespaced: bool) -> list[StatusCause]:
    errs = []
    for i, rule in enumerate(field.as_list(obj.get("rules"))):
        errs.extend(validate_policy_rule(field.as_dict(rule), namespaced, field.index("rules", i)))
    return errs


def validate_role(obj: dict[str, Any]) -> list[StatusCause]:
    return _validate_rules(obj, True)


def validate_cluster_role(obj: dict[str, Any]) -> list[StatusCause]:
    errs = _validate_rules(obj, False)
    aggregation = obj.get("aggregationRule")
    if aggregation is not None:
        selectors = field.as_list(field.as_dict(aggregation).get("clusterRoleSelectors"))
        selectors_path = "aggregationRule.clusterRoleSelectors"
        if not selectors:
            errs.append(
                field.required(
                    selectors_path, "at least one clusterRoleSelector required if aggregationRule is non-nil"
                )
            )
        for i, selector in enumerate(selectors):
            selector_path = field.index(selectors_path, i)
            errs.extend(validate_label_selector(selector, selector_path))
            if label_selector_as_selector(selector) is None:
                errs.append(field.invalid(selector_path, gorepr.label_selector(selector), "invalid label selector."))
    return errs


def _validate_role_ref(ref: dict[str, Any], kinds: list[str]) -> list[StatusCause]:
    errs = []
    group = ref.get("apiGroup", "")
    if group != GROUP_NAME:
        errs.append(field.not_supported("roleRef.apiGroup", group, [GROUP_NAME]))
    kind = ref.get("kind", "")
    if kind not in kinds:
        errs.append(field.not_supported("roleRef.kind", kind, kinds))
    name = field.as_str(ref.get("name"))
    if not name:
        errs.append(field.required("roleRef.name", ""))
    else:
        errs.extend(field.invalid("roleRef.name", name, msg) for msg in is_valid_path_segment_name(name))
    return errs


def validate_subject(subject: dict[str, Any], namespaced: bool, path: str) -> list[StatusCause]:
    errs = []
    name = field.as_str(subject.get("name"))
    if not name:
        errs.append(field.required(field.child(path, "name"), ""))
    kind = subject.get("kind", "")
    group = subject.get("apiGroup", "")
    if kind == "ServiceAccount":
        if name:
            errs.extend(field.invalid(field.child(path, "name"), name, msg) for msg in is_dns1123_subdomain(name))
        if group:
            errs.append(field.not_supported(field.child(path, "apiGroup"), group, [""]))
        if not namespaced and not subject.get("namespace"):
            errs.append(field.required(field.child(path, "namespace"), ""))
    elif kind in ("User", "Group"):
        if group != GROUP_NAME:
            errs.append(field.not_supported(field.child(path, "apiGroup"), group, [GROUP_NAME]))
    else:
        errs.append(field.not_supported(field.child(path, "kind"), kind, SUBJECT_KINDS))
    return errs


def _validate_binding(obj: dict[str, Any], namespaced: bool) -> list[StatusCause]:
    kinds = ["Role", "ClusterRole"] if namespaced else ["ClusterRole"]
    errs = _validate_role_ref(field.as_dict(obj.get("roleRef")), kinds)
    for i, subject in enumerate(field.as_list(obj.get("subjects"))):
        errs.extend(validate_subject(field.as_dict(subject), namespaced, field.index("subjects", i)))
    return errs


def validate_role_binding(obj: dict[str, Any]) -> list[StatusCause]:
    return _validate_binding(obj, True)


def validate_cluster_role_binding(obj: dict[str, Any]) -> list[StatusCause]:
    return _validate_binding(obj, False)


def _role_ref_value(ref: dict[str, Any]) -> gorepr.GoValue:
    return gorepr.struct(
        "rbac.RoleRef",
        [
            ("APIGroup", field.as_str(ref.get("apiGroup"))),
            ("Kind", field.as_str(ref.get("kind"))),
            ("Name", field.as_str(ref.get("name"))),
        ],
    )


def validate_binding_update(new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
    """A binding's roleRef is fixed: to point it elsewhere, delete and recreate the binding."""
    ref, old_ref = field.as_dict(new.get("roleRef")), field.as_dict(old.get("roleRef"))
    keys = ("apiGroup", "kind", "name")
    if any(ref.get(k, "") != old_ref.get(k, "") for k in keys):
        return [field.invalid("roleRef", _role_ref_value(ref), "cannot change roleRef")]
    return []


VALIDATORS = {
    ("v1", "Role"): validate_role,
    ("v1", "ClusterRole"): validate_cluster_role,
    ("v1", "RoleBinding"): validate_role_binding,
    ("v1", "ClusterRoleBinding"): validate_cluster_role_binding,
}
UPDATE_VALIDATORS = {
    ("v1", "RoleBinding"): validate_binding_update,
    ("v1", "ClusterRoleBinding"): validate_binding_update,
}

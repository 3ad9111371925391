"""rbac.authorization.k8s.io/v1 defaults (pkg/apis/rbac/v1/defaults.go): the API group of role
references and subjects."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.core.defaults.fields import child, default_zero, items

GROUP_NAME = "rbac.authorization.k8s.io"


def set_defaults_subject(subject: dict[str, Any]) -> None:
    if subject.get("apiGroup"):
        return
    kind = subject.get("kind")
    if kind in ("User", "Group"):
        subject["apiGroup"] = GROUP_NAME
    elif kind == "ServiceAccount":
        # the core group: "", which kube does not write (omitempty)
        subject.pop("apiGroup", None)


def set_object_defaults_binding(obj: dict[str, Any]) -> None:
    role_ref = child(obj, "roleRef", create=True)
    if role_ref is not None:
        default_zero(role_ref, "apiGroup", GROUP_NAME)
    for subject in items(obj, "subjects"):
        set_defaults_subject(subject)


def set_object_defaults_role(obj: dict[str, Any]) -> None:
    """Not a default: Go writes a Role's rules (a slice without omitempty) as null when there are none."""
    obj.setdefault("rules", None)


DEFAULTERS = {
    ("v1", "Role"): set_object_defaults_role,
    ("v1", "ClusterRole"): set_object_defaults_role,
    ("v1", "RoleBinding"): set_object_defaults_binding,
    ("v1", "ClusterRoleBinding"): set_object_defaults_binding,
}

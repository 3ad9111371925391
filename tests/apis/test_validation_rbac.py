"""rbac.authorization.k8s.io/v1 validation: kube-apiserver 1.33's messages and field paths."""

from __future__ import annotations

from validation_groups_helpers import errors, with_changes

from kube_apiserver.apis.rbac.validation import (
    validate_binding_update,
    validate_cluster_role,
    validate_cluster_role_binding,
    validate_role,
    validate_role_binding,
)

GROUP = "rbac.authorization.k8s.io"


def test_roles() -> None:
    role = {"rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]}
    assert validate_role(role) == []
    bad = {
        "rules": [{"apiGroups": [], "resources": [], "verbs": []}, {"nonResourceURLs": ["/healthz"], "verbs": ["get"]}]
    }
    assert errors(validate_role(bad)) == [
        "rules[0].verbs: Required value: verbs must contain at least one value",
        "rules[0].apiGroups: Required value: resource rules must supply at least one api group",
        "rules[0].resources: Required value: resource rules must supply at least one resource",
        'rules[1].nonResourceURLs: Invalid value: []string{"/healthz"}: namespaced rules cannot apply to non-resource URLs',
    ]
    mixed = {"rules": [{"nonResourceURLs": ["/metrics"], "resources": ["pods"], "verbs": ["get"]}]}
    assert errors(validate_cluster_role(mixed)) == [
        'rules[0].nonResourceURLs: Invalid value: []string{"/metrics"}: rules cannot apply to both regular resources and '
        "non-resource URLs"
    ]
    assert validate_cluster_role({"rules": [{"nonResourceURLs": ["/metrics"], "verbs": ["get"]}]}) == []
    assert errors(validate_cluster_role({"aggregationRule": {"clusterRoleSelectors": []}})) == [
        "aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if "
        "aggregationRule is non-nil"
    ]


def binding(kind: str = "Role", name: str = "reader", **changes: object) -> dict[str, object]:
    obj = {
        "apiVersion": f"{GROUP}/v1",
        "kind": "RoleBinding",
        "metadata": {"name": "b", "namespace": "default"},
        "roleRef": {"apiGroup": GROUP, "kind": kind, "name": name},
        "subjects": [
            {"kind": "ServiceAccount", "name": "default", "namespace": "default"},
            {"kind": "User", "apiGroup": GROUP, "name": "jane"},
        ],
    }
    return with_changes(obj, **changes)


def test_role_binding() -> None:
    assert validate_role_binding(binding()) == []
    bad = binding(kind="Secret", name="", roleRef__apiGroup="")
    bad["subjects"] = [
        {"kind": "Robot", "name": ""},
        {"kind": "User", "name": "x"},
        {"kind": "ServiceAccount", "name": "a", "apiGroup": "v1"},
    ]
    assert errors(validate_role_binding(bad)) == [
        f'roleRef.apiGroup: Unsupported value: "": supported values: "{GROUP}"',
        'roleRef.kind: Unsupported value: "Secret": supported values: "Role", "ClusterRole"',
        "roleRef.name: Required value",
        "subjects[0].name: Required value",
        'subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"',
        f'subjects[1].apiGroup: Unsupported value: "": supported values: "{GROUP}"',
        'subjects[2].apiGroup: Unsupported value: "v1": supported values: ""',
    ]


def test_cluster_role_binding() -> None:
    crb = binding(kind="Role")
    assert errors(validate_cluster_role_binding(crb)) == [
        'roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"'
    ]
    crb = binding(kind="ClusterRole", subjects=[{"kind": "ServiceAccount", "name": "default"}])
    assert errors(validate_cluster_role_binding(crb)) == ["subjects[0].namespace: Required value"]


def test_role_ref_cannot_change() -> None:
    old = binding()
    assert errors(validate_binding_update(binding(kind="ClusterRole", name="view"), old)) == [
        f'roleRef: Invalid value: rbac.RoleRef{{APIGroup:"{GROUP}", Kind:"ClusterRole", Name:"view"}}: cannot change roleRef'
    ]
    assert validate_binding_update(binding(subjects=[]), old) == []

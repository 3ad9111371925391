"""RBAC rule matching, the indexed authorizer, aggregation, reconciliation and escalation messages."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import pytest

from kube_apiserver.authentication.user import UserInfo
from kube_apiserver.authorization.authorizer import ALLOW, NO_OPINION, Attributes, PrivilegedGroups, Union
from kube_apiserver.authorization.rbac import bootstrap_policy as policy
from kube_apiserver.authorization.rbac.authorizer import RuleResolver
from kube_apiserver.authorization.rbac.escalation import confirm_no_escalation
from kube_apiserver.authorization.rbac.reconcile import ClusterRoleAggregator, reconcile_binding, reconcile_role
from kube_apiserver.authorization.rbac.rules import covers, normalize_rule, rule_allows

G = "rbac.authorization.k8s.io"


@dataclass
class _Item:
    obj: dict[str, Any]


@dataclass
class _Cacher:
    objects: dict[str, _Item] = field(default_factory=dict)
    history: list[Any] = field(default_factory=list)


@dataclass
class _Ev:
    revision: int


class _Store:
    def __init__(self) -> None:
        self.storage = _Cacher()
        self.rev = 0

    def put(self, obj: dict[str, Any]) -> None:
        meta = obj["metadata"]
        self.storage.objects[f"{meta.get('namespace', '')}/{meta['name']}"] = _Item(obj)
        self.rev += 1
        self.storage.history.append(_Ev(self.rev))


def _stores() -> dict[tuple[str, str, str], _Store]:
    return {(G, "v1", r): _Store() for r in ("roles", "clusterroles", "rolebindings", "clusterrolebindings")}


def _put(stores: dict, resource: str, obj: dict[str, Any]) -> None:
    stores[(G, "v1", resource)].put(obj)


def _user(name: str, *groups: str) -> UserInfo:
    return UserInfo(name, "", (*groups, "system:authenticated"))


def _res(
    user: UserInfo, verb: str, resource: str, ns: str = "", group: str = "", name: str = "", sub: str = ""
) -> Attributes:
    return Attributes(user, verb, True, namespace=ns, api_group=group, resource=resource, subresource=sub, name=name)


def _cr(name: str, rules: list[dict[str, Any]], labels: dict[str, str] | None = None) -> dict[str, Any]:
    return {"kind": "ClusterRole", "metadata": {"name": name, "labels": labels or {}}, "rules": rules}


def _rule(verbs: list[str], groups: list[str], resources: list[str], names: list[str] | None = None) -> dict[str, Any]:
    return policy.r(verbs, groups, resources, names)


def test_rule_matching_wildcards_subresources_names_and_urls() -> None:
    bob = _user("bob")
    rule = normalize_rule(_rule(["get"], [""], ["pods/log"], ["web"]))
    assert rule_allows(_res(bob, "get", "pods", name="web", sub="log"), rule)
    assert not rule_allows(_res(bob, "get", "pods", name="web"), rule)
    assert not rule_allows(_res(bob, "get", "pods", name="db", sub="log"), rule)
    star_status = normalize_rule(_rule(["*"], ["*"], ["*/status"]))
    assert rule_allows(_res(bob, "update", "deployments", group="apps", sub="status"), star_status)
    assert not rule_allows(_res(bob, "update", "deployments", group="apps"), star_status)
    urls = normalize_rule(policy.url(["get"], ["/healthz", "/apis/*"]))
    assert rule_allows(Attributes(bob, "get", False, path="/apis/apps/v1"), urls)
    assert rule_allows(Attributes(bob, "get", False, path="/healthz"), urls)
    assert not rule_allows(Attributes(bob, "get", False, path="/healthz/etcd"), urls)
    assert not rule_allows(Attributes(bob, "post", False, path="/healthz"), urls)


def test_authorizer_bindings_subjects_and_reasons() -> None:
    stores = _stores()
    _put(stores, "clusterroles", _cr("reader", [_rule(["get", "list"], [""], ["pods"])]))
    _put(
        stores,
        "roles",
        {"metadata": {"name": "cm", "namespace": "team"}, "rules": [_rule(["*"], [""], ["configmaps"])]},
    )
    _put(
        stores,
        "rolebindings",
        {
            "metadata": {"name": "rb", "namespace": "team"},
            "roleRef": {"apiGroup": G, "kind": "Role", "name": "cm"},
            "subjects": [{"kind": "Group", "name": "dev"}, {"kind": "ServiceAccount", "name": "robot"}],
        },
    )
    _put(
        stores,
        "clusterrolebindings",
        {
            "metadata": {"name": "crb"},
            "roleRef": {"kind": "ClusterRole", "name": "reader"},
            "subjects": [{"kind": "User", "name": "bob"}],
        },
    )
    rbac = RuleResolver(stores)
    bob, dev = _user("bob"), _user("carol", "dev")
    assert rbac.authorize(_res(bob, "list", "pods", ns="x")) == (
        ALLOW,
        'RBAC: allowed by ClusterRoleBinding "crb" of ClusterRole "reader" to User "bob"',
    )
    assert rbac.authorize(_res(bob, "delete", "pods", ns="x")) == (NO_OPINION, "")
    assert rbac.authorize(_res(dev, "delete", "configmaps", ns="team")) == (
        ALLOW,
        'RBAC: allowed by RoleBinding "rb/team" of Role "cm" to Group "dev"',
    )
    assert rbac.authorize(_res(dev, "delete", "configmaps", ns="other"))[0] == NO_OPINION
    robot = _user("system:serviceaccount:team:robot")
    assert rbac.authorize(_res(robot, "get", "configmaps", ns="team")) == (
        ALLOW,
        'RBAC: allowed by RoleBinding "rb/team" of Role "cm" to ServiceAccount "robot/team"',
    )
    # a dangling binding shows in the denial reason, with the listers' singular resource name
    _put(
        stores,
        "clusterrolebindings",
        {
            "metadata": {"name": "dangling"},
            "roleRef": {"kind": "ClusterRole", "name": "ghost"},
            "subjects": [{"kind": "User", "name": "bob"}],
        },
    )
    assert rbac.authorize(_res(bob, "list", "nodes")) == (
        NO_OPINION,
        'RBAC: clusterrole.rbac.authorization.k8s.io "ghost" not found',
    )
    # system:masters passes the union whatever the bindings
    chain = Union([PrivilegedGroups(), rbac])
    assert chain.authorize(_res(UserInfo("admin", "", ("system:masters",)), "delete", "nodes"))[0] == ALLOW
    assert chain.authorize(_res(bob, "delete", "nodes"))[0] == NO_OPINION


def test_decision_with_1000_bindings_is_fast() -> None:
    stores = _stores()
    _put(stores, "clusterroles", _cr("reader", [_rule(["get"], [""], ["pods"])]))
    for i in range(1000):
        _put(
            stores,
            "rolebindings" if i % 2 else "clusterrolebindings",
            {
                "metadata": {"name": f"b{i}", "namespace": f"ns{i % 10}"} if i % 2 else {"name": f"b{i}"},
                "roleRef": {"kind": "ClusterRole", "name": "reader"},
                "subjects": [{"kind": "User", "name": f"user{i}"}, {"kind": "Group", "name": f"g{i}"}],
            },
        )
    rbac = RuleResolver(stores)
    attrs = _res(_user("user999", "g1", "g2"), "get", "pods", ns="ns9")
    assert rbac.authorize(attrs)[0] == ALLOW
    denied = _res(_user("nobody", "g1"), "delete", "pods", ns="ns9")
    n = 20000
    t0 = time.perf_counter()
    for _ in range(n):
        rbac.authorize(attrs)
        rbac.authorize(denied)
    per_decision = (time.perf_counter() - t0) / (2 * n)
    assert per_decision < 20e-6, per_decision


def test_escalation_message_lists_missing_rules_compacted() -> None:
    stores = _stores()
    _put(stores, "clusterroles", _cr("reader", [_rule(["get"], [""], ["pods"])]))
    _put(
        stores,
        "clusterrolebindings",
        {
            "metadata": {"name": "crb"},
            "roleRef": {"kind": "ClusterRole", "name": "reader"},
            "subjects": [{"kind": "User", "name": "bob"}],
        },
    )
    rbac = RuleResolver(stores)
    bob = _user("bob", "dev")
    assert confirm_no_escalation(rbac, bob, "", [_rule(["get"], [""], ["pods"])]) == ""
    msg = confirm_no_escalation(
        rbac, bob, "", [_rule(["get", "list"], ["", "apps"], ["pods"]), policy.url(["get"], ["/metrics"])]
    )
    assert msg == (
        'user "bob" (groups=["dev" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n'
        '{APIGroups:[""], Resources:["pods"], Verbs:["list"]}\n'
        '{APIGroups:["apps"], Resources:["pods"], Verbs:["get" "list"]}\n'
        '{NonResourceURLs:["/metrics"], Verbs:["get"]}'
    )


def test_covers_resource_names_and_subresource_wildcards() -> None:
    owner = [
        normalize_rule(_rule(["get"], [""], ["*/status"])),
        normalize_rule(_rule(["get"], [""], ["secrets"], ["a"])),
    ]
    assert covers(owner, [normalize_rule(_rule(["get"], [""], ["pods/status"]))])[0]
    assert covers(owner, [normalize_rule(_rule(["get"], [""], ["secrets"], ["a"]))])[0]
    assert not covers(owner, [normalize_rule(_rule(["get"], [""], ["secrets"]))])[0]
    assert covers(
        [normalize_rule(policy.url(["get"], ["/apis/*"]))], [normalize_rule(policy.url(["get"], ["/apis/apps"]))]
    )[0]


def test_aggregation_unions_matching_roles_by_name() -> None:
    a = _cr("a-extra", [_rule(["get"], ["x"], ["things"])], {policy.AGG_VIEW: "true"})
    b = _cr(
        "b-extra", [_rule(["get"], ["x"], ["things"]), _rule(["list"], ["x"], ["things"])], {policy.AGG_VIEW: "true"}
    )
    view = next(r for r in policy.cluster_roles() if r["metadata"]["name"] == "view")
    rules = ClusterRoleAggregator.aggregated_rules(view, [b, view, a, _cr("other", [_rule(["*"], ["*"], ["*"])])])
    assert rules == [_rule(["get"], ["x"], ["things"]), _rule(["list"], ["x"], ["things"])]
    assert ClusterRoleAggregator.aggregated_rules(a, [a, b]) is None


def test_reconcile_adds_missing_and_keeps_user_additions() -> None:
    expected = next(r for r in policy.cluster_roles() if r["metadata"]["name"] == "system:basic-user")
    current = {
        "metadata": {"name": "system:basic-user", "labels": {"mine": "yes"}},
        "rules": [_rule(["get"], ["example.com"], ["widgets"])],
    }
    assert reconcile_role(current, expected)
    assert current["metadata"]["labels"] == {"mine": "yes", "kubernetes.io/bootstrapping": "rbac-defaults"}
    assert current["rules"][0] == _rule(["get"], ["example.com"], ["widgets"])
    assert {
        "verbs": ["create"],
        "apiGroups": ["authentication.k8s.io"],
        "resources": ["selfsubjectreviews"],
    } in current["rules"]
    assert not reconcile_role(current, expected)  # idempotent
    crb = next(b for b in policy.cluster_role_bindings() if b["metadata"]["name"] == "system:public-info-viewer")
    cur = {
        "metadata": {"name": crb["metadata"]["name"]},
        "roleRef": crb["roleRef"],
        "subjects": [{"kind": "User", "name": "me"}],
    }
    assert reconcile_binding(cur, crb)
    assert [s["name"] for s in cur["subjects"]] == ["me", "system:authenticated", "system:unauthenticated"]


@pytest.mark.parametrize(
    "name",
    [
        "cluster-admin",
        "admin",
        "edit",
        "view",
        "system:discovery",
        "system:basic-user",
        "system:public-info-viewer",
        "system:monitoring",
        "system:node",
    ],
)
def test_bootstrap_policy_has_role(name: str) -> None:
    assert name in {r["metadata"]["name"] for r in policy.cluster_roles()}

"""The authorizer union and the --authorization-* flags: kube's union semantics, flag validation messages, ABAC
policy files, the webhook authorizer's cache and failures, and the RBAC index following its caches."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import pytest

from kube_apiserver.authentication.kubeconfig_client import WebhookError
from kube_apiserver.authentication.user import UserInfo
from kube_apiserver.authorization import abac
from kube_apiserver.authorization.authorizer import (
    ALLOW,
    DENY,
    NO_OPINION,
    AlwaysAllow,
    AlwaysDeny,
    Attributes,
    PrivilegedGroups,
    Union,
)
from kube_apiserver.authorization.rbac.authorizer import RuleResolver
from kube_apiserver.authorization.webhook import WebhookAuthorizer, sar_spec
from kube_apiserver.cmd.options_authorization import AuthorizationOptions

BOB = UserInfo("bob", "uid-1", ("dev", "system:authenticated"), {"scopes": ("a",)})
ANON = UserInfo("system:anonymous", "", ("system:unauthenticated",))


def res(user: UserInfo, verb: str, resource: str, ns: str = "", group: str = "", name: str = "") -> Attributes:
    return Attributes(user, verb, True, namespace=ns, api_group=group, api_version="v1", resource=resource, name=name)


def path(user: UserInfo, p: str, verb: str = "get") -> Attributes:
    return Attributes(user, verb, False, path=p)


class _Fixed:
    def __init__(self, decision: str, reason: str) -> None:
        self.result = (decision, reason)

    def authorize(self, attrs: Attributes) -> tuple[str, str]:
        return self.result


def test_union_first_allow_or_deny_wins_and_reasons_are_joined_by_lines() -> None:
    u = Union([_Fixed(NO_OPINION, "first"), _Fixed(NO_OPINION, ""), _Fixed(DENY, "stop"), _Fixed(ALLOW, "late")])
    assert u.authorize(res(BOB, "get", "pods")) == (DENY, "stop")
    u = Union([_Fixed(NO_OPINION, "first"), _Fixed(NO_OPINION, "second")])
    assert u.authorize(res(BOB, "get", "pods")) == (NO_OPINION, "first\nsecond")
    assert u.synchronous
    assert asyncio.run(u.authorize_async(res(BOB, "get", "pods"))) == (NO_OPINION, "first\nsecond", "")


def test_always_allow_allows_everyone_and_always_deny_gives_its_reason() -> None:
    assert AlwaysAllow().authorize(res(ANON, "delete", "nodes")) == (ALLOW, "")
    u = Union([PrivilegedGroups(), AlwaysDeny()])
    assert u.authorize(res(BOB, "get", "pods")) == (NO_OPINION, "Everything is forbidden.")
    assert u.authorize(res(UserInfo("admin", "", ("system:masters",)), "get", "pods")) == (ALLOW, "")


def opts(modes: list[str], policy: str = "", webhook: str = "", version: str = "v1beta1") -> AuthorizationOptions:
    return AuthorizationOptions(modes, policy, webhook, version, 300.0, 30.0)


@pytest.mark.parametrize(
    ("modes", "policy", "webhook", "want"),
    [
        (["RBAC", "Bogus"], "", "", ['authorization-mode "Bogus" is not a valid mode']),
        (["ABAC"], "", "", ["authorization-mode ABAC's authorization policy file not passed"]),
        (["Webhook"], "", "", ["authorization-mode Webhook's authorization config file not passed"]),
        (["RBAC"], "p.jsonl", "", ["cannot specify --authorization-policy-file without mode ABAC"]),
        (["RBAC"], "", "w.yaml", ["cannot specify --authorization-webhook-config-file without mode Webhook"]),
        (
            ["RBAC", "Node", "RBAC"],
            "",
            "",
            ['authorization-mode ["RBAC" "Node" "RBAC"] has mode specified more than once'],
        ),
        ([], "", "", ["at least one authorization-mode must be passed"]),
        (
            ["ABAC", "ABAC"],
            "",
            "",
            [
                "[authorization-mode ABAC's authorization policy file not passed, "
                "authorization-mode ABAC's authorization policy file not passed, "
                'authorization-mode ["ABAC" "ABAC"] has mode specified more than once]'
            ],
        ),
        (["Webhook", "RBAC", "Node", "ABAC", "AlwaysDeny", "AlwaysAllow"], "p", "w", []),
    ],
)
def test_flag_validation_messages(modes: list[str], policy: str, webhook: str, want: list[str]) -> None:
    assert opts(modes, policy, webhook).validate() == want


def test_always_allow_turns_anonymous_auth_off() -> None:
    @dataclass
    class Authn:
        anonymous_auth: bool = True

    a = Authn()
    opts(["RBAC"]).apply_to_authentication(a)
    assert a.anonymous_auth
    opts(["RBAC", "AlwaysAllow"]).apply_to_authentication(a)
    assert not a.anonymous_auth


# --- ABAC ---


def test_abac_file_versions_comments_and_matching(tmp_path) -> None:
    f = tmp_path / "policy.jsonl"
    f.write_text(
        "# comment\n\n"
        '{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "alice", "namespace": "*", "resource": "*", "apiGroup": "*"}}\n'
        '{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "bob", "namespace": "team", "resource": "pods", "readonly": true}}\n'
        '{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"group": "system:authenticated", "readonly": true, "nonResourcePath": "/apis/*"}}\n'
        '{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "*", "nonResourcePath": "/version"}}\n'
        '{"user": "legacy"}\n'
        '{"user": "legacy-ro", "readonly": true, "resource": "configmaps"}\n'
    )
    a = abac.ABACAuthorizer.from_file(str(f))
    alice = UserInfo("alice", "", ("system:authenticated",))
    legacy = UserInfo("legacy", "", ("system:authenticated",))
    legacy_ro = UserInfo("legacy-ro", "", ("system:authenticated",))
    no = (NO_OPINION, "No policy matched.")
    assert a.authorize(res(alice, "delete", "deployments", "x", "apps")) == (ALLOW, "")
    assert a.authorize(path(alice, "/healthz")) == no  # a resource policy never matches a path
    assert a.authorize(res(BOB, "list", "pods", "team")) == (ALLOW, "")
    assert a.authorize(res(BOB, "create", "pods", "team")) == no  # readonly
    assert a.authorize(res(BOB, "get", "pods", "other")) == no
    assert a.authorize(res(BOB, "get", "deployments", "team", "apps")) == no  # apiGroup "" only
    assert a.authorize(path(BOB, "/apis/apps/v1")) == (ALLOW, "")
    assert a.authorize(path(BOB, "/apis/apps/v1", "post")) == no
    assert a.authorize(path(BOB, "/version")) == (ALLOW, "")  # "*" user: every authenticated user
    assert a.authorize(path(ANON, "/version")) == no
    # legacy: blank namespace and resource match everything, paths included, every group
    assert a.authorize(res(legacy, "delete", "widgets", "ns", "example.com")) == (ALLOW, "")
    assert a.authorize(path(legacy, "/metrics", "get")) == (ALLOW, "")
    assert a.authorize(res(legacy_ro, "get", "configmaps", "any")) == (ALLOW, "")
    assert a.authorize(res(legacy_ro, "update", "configmaps", "any")) == no
    assert a.authorize(path(legacy_ro, "/metrics")) == no


def test_abac_load_errors_name_file_and_line(tmp_path) -> None:
    f = tmp_path / "bad.jsonl"
    f.write_text(
        '{"user": "a"}\n{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": 5}}\n'
    )
    with pytest.raises(abac.PolicyLoadError) as e:
        abac.load_policy_file(str(f))
    assert str(e.value).startswith(f"error reading policy file {f}, line 2: ")
    assert "json: cannot unmarshal number into Go struct field Policy.spec.user of type string" in str(e.value)
    f.write_text("not json\n")
    with pytest.raises(abac.PolicyLoadError, match=r", line 1: not json: "):
        abac.load_policy_file(str(f))
    with pytest.raises(abac.PolicyLoadError, match="no such file or directory"):
        abac.load_policy_file(str(tmp_path / "missing"))


# --- webhook ---


class _FakeClient:
    def __init__(self, answers: list[Any]) -> None:
        self.answers = answers
        self.sent: list[dict[str, Any]] = []

    async def post(self, obj: dict[str, Any]) -> dict[str, Any]:
        self.sent.append(obj)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


def test_webhook_review_body_versions_and_decisions() -> None:
    spec = sar_spec(res(BOB, "get", "pods", "team", name="web"), "v1")
    assert spec == {
        "resourceAttributes": {"namespace": "team", "verb": "get", "version": "v1", "resource": "pods", "name": "web"},
        "user": "bob",
        "groups": ["dev", "system:authenticated"],
        "extra": {"scopes": ["a"]},
        "uid": "uid-1",
    }
    assert "group" in sar_spec(res(BOB, "get", "pods"), "v1beta1")
    client = _FakeClient(
        [
            {"status": {"allowed": True, "reason": "ok"}},
            {"status": {"allowed": False, "denied": True, "reason": "nope"}},
            {"status": {"allowed": False, "reason": "dunno"}},
        ]
    )
    w = WebhookAuthorizer(client, "v1", 300, 30)  # type: ignore[arg-type]
    assert asyncio.run(w.authorize_async(res(BOB, "get", "pods", "a"))) == (ALLOW, "ok", "")
    assert client.sent[0]["apiVersion"] == "authorization.k8s.io/v1"
    assert client.sent[0]["kind"] == "SubjectAccessReview"
    assert asyncio.run(w.authorize_async(res(BOB, "delete", "pods", "a"))) == (DENY, "nope", "")
    assert asyncio.run(w.authorize_async(res(BOB, "list", "pods", "a"))) == (NO_OPINION, "dunno", "")
    # cached: no further calls, and the synchronous path reads the cache
    assert asyncio.run(w.authorize_async(res(BOB, "get", "pods", "a"))) == (ALLOW, "ok", "")
    assert w.authorize(res(BOB, "delete", "pods", "a")) == (DENY, "nope")
    assert w.authorize(res(BOB, "watch", "pods", "a")) == (NO_OPINION, "")
    assert len(client.sent) == 3


def test_webhook_failure_is_no_opinion_with_the_error_and_a_500_in_the_union() -> None:
    err = 'Post "https://127.0.0.1:1/": connect: connection refused'
    w = WebhookAuthorizer(_FakeClient([WebhookError(err, -1), WebhookError(err, -1)]), "v1beta1")  # type: ignore[arg-type]
    assert asyncio.run(w.authorize_async(res(BOB, "get", "pods"))) == (NO_OPINION, "", err)
    u = Union([PrivilegedGroups(), w, AlwaysDeny()])
    assert not u.synchronous
    assert asyncio.run(u.authorize_async(res(BOB, "get", "pods"))) == (NO_OPINION, "Everything is forbidden.", err)
    # failures are not cached
    ok = WebhookAuthorizer(_FakeClient([WebhookError(err, -1), {"status": {"allowed": True}}]))  # type: ignore[arg-type]
    assert asyncio.run(ok.authorize_async(res(BOB, "get", "pods")))[0] == NO_OPINION
    assert asyncio.run(ok.authorize_async(res(BOB, "get", "pods")))[0] == ALLOW


# --- RBAC index follows its caches ---


@dataclass
class _Stored:
    obj: dict[str, Any]


@dataclass
class _Ev:
    type: str
    key: str
    object: _Stored
    prev: Any
    revision: int


class _Cache:
    def __init__(self) -> None:
        self.objects: dict[str, _Stored] = {}
        self.watchers: set[Any] = set()

    def put(self, obj: dict[str, Any]) -> None:
        key = f"{obj['metadata'].get('namespace', '')}/{obj['metadata']['name']}"
        self.objects[key] = _Stored(obj)
        for w in tuple(self.watchers):
            w.offer(_Ev("ADDED", key, self.objects[key], None, 1))

    def delete(self, obj: dict[str, Any]) -> None:
        key = f"{obj['metadata'].get('namespace', '')}/{obj['metadata']['name']}"
        gone = self.objects.pop(key)
        for w in tuple(self.watchers):
            w.offer(_Ev("DELETED", key, gone, gone, 2))


class _Store:
    def __init__(self) -> None:
        self.storage = _Cache()


def test_rbac_index_is_rebuilt_on_cache_events_only() -> None:
    g = "rbac.authorization.k8s.io"
    stores = {(g, "v1", r): _Store() for r in ("roles", "clusterroles", "rolebindings", "clusterrolebindings")}
    stores[(g, "v1", "clusterroles")].storage.put(
        {"metadata": {"name": "reader"}, "rules": [{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}]}
    )
    rbac = RuleResolver(stores)
    rbac.start_informers()
    attrs = res(BOB, "get", "pods", "team")
    assert rbac.authorize(attrs) == (NO_OPINION, "")
    binding = {
        "metadata": {"name": "bob-reads", "namespace": "team"},
        "roleRef": {"kind": "ClusterRole", "name": "reader"},
        "subjects": [{"kind": "User", "name": "bob"}],
    }
    stores[(g, "v1", "rolebindings")].storage.put(binding)
    assert rbac.authorize(attrs) == (
        ALLOW,
        'RBAC: allowed by RoleBinding "bob-reads/team" of ClusterRole "reader" to User "bob"',
    )
    # without an event the index stays as it is (a change that bypassed the cache is not seen)
    stores[(g, "v1", "rolebindings")].storage.objects.clear()
    assert rbac.authorize(attrs)[0] == ALLOW
    stores[(g, "v1", "rolebindings")].storage.objects["team/bob-reads"] = _Stored(binding)
    stores[(g, "v1", "rolebindings")].storage.delete(binding)
    assert rbac.authorize(attrs) == (NO_OPINION, "")
    # the binding's role going away is reported as kube's lister error
    stores[(g, "v1", "rolebindings")].storage.put({**binding, "roleRef": {"kind": "ClusterRole", "name": "ghost"}})
    assert rbac.authorize(attrs) == (NO_OPINION, 'RBAC: clusterrole.rbac.authorization.k8s.io "ghost" not found')

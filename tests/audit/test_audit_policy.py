"""The audit policy: loading and validation messages as kube's reader/validation give them, and rule matching
as policy/checker.go does it (first matching rule wins)."""

from __future__ import annotations

import pytest

from kube_apiserver.audit.policy import (
    PolicyError,
    PolicyRuleEvaluator,
    load_policy_from_bytes,
    load_policy_from_file,
)
from kube_apiserver.authentication.user import UserInfo
from kube_apiserver.authorization.authorizer import Attributes

ALICE = UserInfo("alice", groups=("dev", "system:authenticated"))
BOB = UserInfo("bob", groups=("system:authenticated",))

POLICY = b"""
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: None
  users: ["system:kube-proxy"]
- level: None
  nonResourceURLs: ["/healthz*", "/version"]
- level: RequestResponse
  userGroups: ["dev"]
  resources:
  - group: ""
    resources: ["pods/log", "*/status"]
- level: Request
  verbs: ["create", "update"]
  resources:
  - group: apps
    resources: ["deployments"]
    resourceNames: ["web"]
- level: Metadata
  namespaces: [""]
  omitStages: ["ResponseComplete"]
  omitManagedFields: true
- level: Request
  resources:
  - group: ""
    resources: ["configmaps/*"]
- level: Metadata
"""


def res(
    user: UserInfo, verb: str, resource: str, namespace: str = "ns", group: str = "", sub: str = "", name: str = ""
):
    return Attributes(user, verb, True, "/x", namespace, group, "v1", resource, sub, name)


def nonres(user: UserInfo | None, path: str, verb: str = "get"):
    return Attributes(user, verb, False, path)


@pytest.fixture(scope="module")
def evaluator() -> PolicyRuleEvaluator:
    return PolicyRuleEvaluator(load_policy_from_bytes(POLICY))


def test_first_matching_rule_wins(evaluator):
    ev = evaluator.evaluate_policy_rule
    assert ev(res(UserInfo("system:kube-proxy"), "get", "pods")).level == "None"
    assert ev(nonres(ALICE, "/healthz/ready")).level == "None"
    assert ev(nonres(ALICE, "/version")).level == "None"
    assert ev(nonres(ALICE, "/versions")).level == "Metadata"  # no trailing *: exact match only
    assert ev(res(ALICE, "get", "pods", sub="log")).level == "RequestResponse"
    assert ev(res(ALICE, "update", "pods", sub="status")).level == "RequestResponse"
    assert ev(res(ALICE, "update", "services", sub="status")).level == "RequestResponse"  # */status
    assert ev(res(ALICE, "get", "pods")).level == "Metadata"  # pods itself is not pods/log
    assert ev(res(BOB, "get", "pods", sub="log")).level == "Metadata"  # not in group dev
    assert ev(res(BOB, "create", "deployments", group="apps", name="web")).level == "Request"
    assert ev(res(BOB, "create", "deployments", group="apps", name="api")).level == "Metadata"
    assert ev(res(BOB, "delete", "deployments", group="apps", name="web")).level == "Metadata"
    assert ev(res(BOB, "get", "configmaps", sub="status")).level == "Request"  # configmaps/*
    # as in kube's checker, "configmaps/*" also matches configmaps without a subresource
    assert ev(res(BOB, "get", "configmaps")).level == "Request"
    assert ev(res(BOB, "get", "secrets")).level == "Metadata"


def test_cluster_scope_and_stages(evaluator):
    cfg = evaluator.evaluate_policy_rule(res(BOB, "list", "nodes", namespace=""))
    assert cfg.level == "Metadata"
    assert cfg.omit_stages == {"RequestReceived", "ResponseComplete"}  # union with the policy's
    assert cfg.omit_managed_fields is True
    cfg = evaluator.evaluate_policy_rule(res(BOB, "list", "pods"))
    assert cfg.omit_stages == {"RequestReceived"}
    assert cfg.omit_managed_fields is False
    # a non-resource request never matches a rule with namespaces or resources
    assert evaluator.evaluate_policy_rule(nonres(BOB, "/apis")).level == "Metadata"


def test_no_user_matches_only_rules_without_users():
    p = PolicyRuleEvaluator(
        load_policy_from_bytes(
            b"apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n"
            b"- level: Request\n  userGroups: [system:unauthenticated]\n"
            b"- level: RequestResponse\n  verbs: [get]\n"
        )
    )
    assert p.evaluate_policy_rule(nonres(None, "/api")).level == "RequestResponse"
    assert p.evaluate_policy_rule(nonres(None, "/api", verb="post")).level == "None"  # the default level


@pytest.mark.parametrize(
    "doc, message",
    [
        (
            "rules:\n- level: Foo\n- {}\n",
            '[rules[0].level: Unsupported value: "Foo": supported values: "None", "Metadata", "Request", '
            '"RequestResponse", rules[1].level: Required value]',
        ),
        (
            "rules:\n- level: None\n  nonResourceURLs: [healthz, /a*b]\n",
            "[rules[0].nonResourceURLs[0]: Invalid value: \"healthz\": non-resource URL rules must begin with a '/' "
            "character, rules[0].nonResourceURLs[1]: Invalid value: \"/a*b\": non-resource URL wildcards '*' must "
            "be the final character of the rule]",
        ),
        (
            "rules:\n- level: None\n  nonResourceURLs: [/a]\n  namespaces: [x]\n",
            'rules[0].nonResourceURLs: Invalid value: []string{"/a"}: rules cannot apply to both regular resources and '
            "non-resource URLs",
        ),
        (
            "rules:\n- level: None\n  resources: [{resourceNames: [a]}]\n",
            'rules[0].resources.resourceNames: Invalid value: []string{"a"}: using resourceNames requires at least one resource',
        ),
        (
            "omitStages: [Done]\nrules:\n- level: None\n",
            'omitStages[0]: Invalid value: "Done": allowed stages are RequestReceived,ResponseStarted,'
            "ResponseComplete,Panic",
        ),
        ("rules: []\n", "loaded illegal policy with 0 rules"),
        (
            "rules:\n- level: [None]\n",
            "failed decoding: json: cannot unmarshal array into Go struct field Policy.rules.level of type v1.Level",
        ),
    ],
)
def test_invalid_policies(doc, message):
    with pytest.raises(PolicyError) as e:
        load_policy_from_bytes(b"apiVersion: audit.k8s.io/v1\nkind: Policy\n" + doc.encode())
    assert str(e.value) == message


def test_only_v1_is_known():
    with pytest.raises(PolicyError) as e:
        load_policy_from_bytes(b"apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules:\n- level: None\n")
    assert str(e.value).startswith(
        'failed decoding: no kind "Policy" is registered for version "audit.k8s.io/v1beta1" in scheme'
    )


def test_unknown_fields_only_warn(caplog):
    policy = load_policy_from_bytes(b"apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  usrs: [a]\n")
    assert policy.rules[0].users == ()
    assert 'unknown field "rules[0].usrs"' in caplog.text


def test_file_errors(tmp_path):
    missing = tmp_path / "nope.yaml"
    with pytest.raises(PolicyError) as e:
        load_policy_from_file(str(missing))
    assert str(e.value) == f'failed to read file path "{missing}": open {missing}: no such file or directory'
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n")
    with pytest.raises(PolicyError) as e:
        load_policy_from_file(str(bad))
    assert str(e.value) == f"loaded illegal policy with 0 rules: from file {bad}"

"""Classification of requests by the FlowSchemas (rule.go) and by the bootstrap configuration of kube 1.33."""

from __future__ import annotations

import pytest

from kube_apiserver.apis.flowcontrol import bootstrap
from kube_apiserver.authentication.user import UserInfo
from kube_apiserver.endpoints.request_info import RequestInfo
from kube_apiserver.server.flowcontrol.controller import ConfigController
from kube_apiserver.server.flowcontrol.rules import compile_flow_schema, compute_flow_distinguisher, hash_flow_id
from kube_apiserver.server.flowcontrol.shufflesharding import Dealer, DealerError

ADMIN = UserInfo("admin", groups=("system:masters", "system:authenticated"))
ANONYMOUS = UserInfo("system:anonymous", groups=("system:unauthenticated",))
ALICE = UserInfo("alice", groups=("devs", "system:authenticated"))
NODE = UserInfo("system:node:n1", groups=("system:nodes", "system:authenticated"))
KCM = UserInfo("system:kube-controller-manager", groups=("system:authenticated",))
SCHEDULER = UserInfo("system:kube-scheduler", groups=("system:authenticated",))


def sa(namespace: str, name: str) -> UserInfo:
    return UserInfo(
        f"system:serviceaccount:{namespace}:{name}",
        groups=("system:serviceaccounts", f"system:serviceaccounts:{namespace}", "system:authenticated"),
    )


def res(verb: str, resource: str, namespace: str = "", group: str = "", subresource: str = "", name: str = ""):
    return RequestInfo(
        is_resource_request=True,
        verb=verb,
        api_group=group,
        api_version="v1",
        namespace=namespace,
        resource=resource,
        subresource=subresource,
        name=name,
    )


def nonres(verb: str, path: str) -> RequestInfo:
    return RequestInfo(is_resource_request=False, verb=verb, path=path)


@pytest.fixture(scope="module")
def controller() -> ConfigController:
    c = ConfigController(600, now_rfc3339=lambda: "2024-01-01T00:00:00Z")
    pls = bootstrap.mandatory_priority_levels() + bootstrap.suggested_priority_levels()
    fss = bootstrap.mandatory_flow_schemas() + bootstrap.suggested_flow_schemas()
    for i, obj in enumerate(pls + fss):
        obj["metadata"]["uid"] = f"uid-{i}"
    c.digest(pls, fss)
    return c


@pytest.mark.parametrize(
    ("user", "info", "flow_schema", "priority_level"),
    [
        (ADMIN, res("list", "pods", "default"), "exempt", "exempt"),
        (ADMIN, nonres("get", "/metrics"), "exempt", "exempt"),
        (ANONYMOUS, nonres("get", "/healthz"), "probes", "exempt"),
        (ALICE, nonres("get", "/readyz"), "probes", "exempt"),
        # "/livez" covers what lies below it too
        (ALICE, nonres("get", "/livez/ping"), "probes", "exempt"),
        (ALICE, nonres("post", "/healthz"), "global-default", "global-default"),
        (ANONYMOUS, nonres("get", "/version"), "global-default", "global-default"),
        (ALICE, res("get", "configmaps", "default", name="x"), "global-default", "global-default"),
        (NODE, res("patch", "nodes", subresource="status", name="n1"), "system-node-high", "node-high"),
        (
            NODE,
            res("update", "leases", "kube-node-lease", "coordination.k8s.io", name="n1"),
            "system-node-high",
            "node-high",
        ),
        (NODE, res("list", "pods"), "system-nodes", "system"),
        # system-node-high's nodes rule is for the core group only
        (NODE, res("get", "nodes", group="metrics.k8s.io", name="n1"), "system-nodes", "system"),
        (
            KCM,
            res("update", "leases", "kube-system", "coordination.k8s.io", name="kcm"),
            "system-leader-election",
            "leader-election",
        ),
        (KCM, res("get", "endpoints", "default", name="kubernetes"), "endpoint-controller", "workload-high"),
        (KCM, res("list", "configmaps", "default"), "kube-controller-manager", "workload-high"),
        (SCHEDULER, res("create", "bindings", "default"), "kube-scheduler", "workload-high"),
        (
            sa("kube-system", "endpoint-controller"),
            res("update", "endpoints", "x"),
            "endpoint-controller",
            "workload-high",
        ),
        (
            sa("kube-system", "foo"),
            res("get", "configmaps", "x", name="lock"),
            "workload-leader-election",
            "leader-election",
        ),
        # a lease in kube-system: system-leader-election comes first
        (
            sa("kube-system", "foo"),
            res("get", "leases", "kube-system", "coordination.k8s.io"),
            "system-leader-election",
            "leader-election",
        ),
        (sa("kube-system", "foo"), res("list", "pods"), "kube-system-service-accounts", "workload-high"),
        # the "kube-system" namespace prefix must end at the colon
        (sa("kube-system-x", "foo"), res("list", "pods"), "service-accounts", "workload-low"),
        (sa("default", "foo"), res("list", "pods", "default"), "service-accounts", "workload-low"),
    ],
)
def test_bootstrap_classification(controller, user, info, flow_schema, priority_level):
    fs, pl = controller.match(user, info)
    assert (fs.name, pl.name) == (flow_schema, priority_level)
    assert pl.uid.startswith("uid-") and fs.uid.startswith("uid-")


def _fs(name: str, precedence: int, rules: list[dict], pl: str = "global-default", method: str = "") -> dict:
    spec: dict = {"priorityLevelConfiguration": {"name": pl}, "matchingPrecedence": precedence, "rules": rules}
    if method:
        spec["distinguisherMethod"] = {"type": method}
    return {
        "apiVersion": "flowcontrol.apiserver.k8s.io/v1",
        "kind": "FlowSchema",
        "metadata": {"name": name},
        "spec": spec,
    }


def _user_rule(name: str, resource_rules: list[dict] | None = None, non_resource: list[dict] | None = None) -> dict:
    rule: dict = {"subjects": [{"kind": "User", "user": {"name": name}}]}
    if resource_rules is not None:
        rule["resourceRules"] = resource_rules
    if non_resource is not None:
        rule["nonResourceRules"] = non_resource
    return rule


def test_resource_rules():
    fs = compile_flow_schema(
        _fs(
            "r",
            1,
            [
                _user_rule(
                    "alice",
                    [
                        {
                            "verbs": ["get", "list"],
                            "apiGroups": ["apps"],
                            "resources": ["deployments/scale"],
                            "namespaces": ["a", "b"],
                        },
                        {
                            "verbs": ["*"],
                            "apiGroups": [""],
                            "resources": ["nodes"],
                            "clusterScope": True,
                            "namespaces": [],
                        },
                    ],
                )
            ],
        )
    )
    assert fs.matches(ALICE, res("get", "deployments", "a", "apps", "scale"))
    assert not fs.matches(ALICE, res("get", "deployments", "a", "apps"))  # the subresource is part of the name
    assert not fs.matches(ALICE, res("get", "deployments", "c", "apps", "scale"))
    assert not fs.matches(ALICE, res("update", "deployments", "a", "apps", "scale"))
    assert not fs.matches(ALICE, res("get", "deployments", "a", "", "scale"))
    # a namespaced rule never matches a cluster-scoped request, whatever its namespaces
    assert not fs.matches(ALICE, res("get", "deployments", "", "apps", "scale"))
    assert fs.matches(ALICE, res("delete", "nodes", name="n"))
    assert not fs.matches(ALICE, res("delete", "nodes", "ns", name="n"))  # clusterScope alone: no namespaces
    assert not fs.matches(ALICE, nonres("get", "/api"))  # no non-resource rules
    assert not fs.matches(UserInfo("bob"), res("delete", "nodes", name="n"))


def test_non_resource_rules():
    fs = compile_flow_schema(
        _fs(
            "n", 1, [_user_rule("alice", non_resource=[{"verbs": ["get"], "nonResourceURLs": ["/apis/*", "/version"]}])]
        )
    )
    assert fs.matches(ALICE, nonres("get", "/apis/apps"))
    assert fs.matches(ALICE, nonres("get", "/version"))
    assert fs.matches(ALICE, nonres("get", "/version/x"))
    assert not fs.matches(ALICE, nonres("get", "/versionx"))
    assert not fs.matches(ALICE, nonres("get", "/apisx"))
    assert not fs.matches(ALICE, nonres("post", "/version"))
    assert not fs.matches(ALICE, res("get", "pods", "default"))


def test_subjects():
    def matches(subject: dict, user: UserInfo) -> bool:
        rule = {"subjects": [subject], "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}]}
        return compile_flow_schema(_fs("s", 1, [rule])).matches(user, nonres("get", "/"))

    assert matches({"kind": "Group", "group": {"name": "devs"}}, ALICE)
    assert matches({"kind": "Group", "group": {"name": "*"}}, ANONYMOUS)
    assert not matches({"kind": "Group", "group": {"name": "devs"}}, ANONYMOUS)
    assert matches({"kind": "User", "user": {"name": "*"}}, ALICE)
    assert matches({"kind": "ServiceAccount", "serviceAccount": {"name": "foo", "namespace": "ns"}}, sa("ns", "foo"))
    assert not matches(
        {"kind": "ServiceAccount", "serviceAccount": {"name": "foo", "namespace": "ns"}}, sa("ns", "bar")
    )
    assert matches({"kind": "ServiceAccount", "serviceAccount": {"name": "*", "namespace": "ns"}}, sa("ns", "bar"))
    assert not matches({"kind": "ServiceAccount", "serviceAccount": {"name": "*", "namespace": "ns"}}, sa("ns2", "bar"))
    # malformed subjects match nobody instead of failing
    assert not matches({"kind": "User"}, ALICE)
    assert not matches({"kind": "Robot", "user": {"name": "alice"}}, ALICE)
    assert not matches("nonsense", ALICE)  # type: ignore[arg-type]


def test_precedence_then_name():
    c = ConfigController(600)
    everything = [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"], "namespaces": ["*"], "clusterScope": True}]
    fss = [
        _fs("b-late", 500, [_user_rule("alice", everything)]),
        _fs("a-early", 500, [_user_rule("alice", everything)]),
        _fs("first", 400, [_user_rule("bob", everything)]),
    ]
    c.digest(bootstrap.mandatory_priority_levels() + bootstrap.suggested_priority_levels(), fss)
    assert c.match(ALICE, res("get", "pods", "x"))[0].name == "a-early"
    assert [f.name for f in c.flow_schemas] == ["exempt", "first", "a-early", "b-late", "catch-all"]
    # missing mandatory schemas are supplied: exempt first, catch-all last
    assert c.match(UserInfo("carol", groups=("system:authenticated",)), res("get", "pods", "x"))[0].name == "catch-all"


def test_flow_distinguisher_and_hash():
    info = res("get", "pods", "ns1")
    assert compute_flow_distinguisher(ALICE, info, "ByUser") == "alice"
    assert compute_flow_distinguisher(ALICE, info, "ByNamespace") == "ns1"
    assert compute_flow_distinguisher(ALICE, info, "") == ""
    # sha256("global-default\x00alice"), first 8 bytes little-endian, as upstream's hashFlowID
    assert hash_flow_id("global-default", "alice") == 0xF4DE3BD42CCDF6B7
    assert hash_flow_id("fs", "alice") != hash_flow_id("fsa", "lice")
    assert 0 <= hash_flow_id("fs", "x") < 2**64


def test_dealer():
    assert Dealer(4, 4).deal(0) == [0, 1, 2, 3]
    # the digits of the hash in radices 4, 3, 2, 1 pick among the cards left
    assert Dealer(4, 4).deal(1 + 2 * 4 + 1 * 12) == [1, 3, 2, 0]
    for h in (0, 1, 12345, 2**60 - 1, 987654321987):
        hand = Dealer(128, 6).deal(h)
        assert len(set(hand)) == 6 and all(0 <= c < 128 for c in hand)
        assert sorted(Dealer(7, 7).deal(h)) == list(range(7))
    for args, message in [
        ((0, 1), "deckSize 0 or handSize 1 is not positive"),
        ((4, 5), "handSize 5 is greater than deckSize 4"),
        ((1 << 27, 1), "deckSize 134217728 is impractically large"),
        ((1024, 7), "required entropy bits of deckSize 1024 and handSize 7 is greater than 60"),
    ]:
        with pytest.raises(DealerError) as e:
            Dealer(*args)
        assert str(e.value) == message

"""The API Priority and Fairness configuration kube-apiserver 1.33 starts with
(k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap/default.go).

Mandatory objects keep the flow-control system itself working (every request has somewhere to go;
system:masters is never limited): the server puts their spec back whatever an operator changed.
Suggested objects are the initial configuration an operator may edit or delete: their spec is put back
only while the apf.kubernetes.io/autoupdate-spec annotation says "true".

Every function returns fresh v1 dicts (callers may change them). The objects are already in their
defaulted form, so defaulting changes nothing in them, as upstream checks in its unit tests.
"""

from __future__ import annotations

from typing import Any

GROUP = "flowcontrol.apiserver.k8s.io"
API_VERSION = f"{GROUP}/v1"
AUTO_UPDATE_ANNOTATION = "apf.kubernetes.io/autoupdate-spec"

# Well-known names (k8s.io/api/flowcontrol/v1 constants)
PRIORITY_LEVEL_EXEMPT = "exempt"
PRIORITY_LEVEL_CATCH_ALL = "catch-all"
FLOW_SCHEMA_EXEMPT = "exempt"
FLOW_SCHEMA_CATCH_ALL = "catch-all"
VERB_ALL = "*"
API_GROUP_ALL = "*"
RESOURCE_ALL = "*"
NON_RESOURCE_ALL = "*"
NAME_ALL = "*"
NAMESPACE_EVERY = "*"

# Well-known users and groups (k8s.io/apiserver/pkg/authentication/user, serviceaccount)
_SYSTEM_MASTERS = "system:masters"
_ALL_AUTHENTICATED = "system:authenticated"
_ALL_UNAUTHENTICATED = "system:unauthenticated"
_NODES = "system:nodes"
_KUBE_CONTROLLER_MANAGER = "system:kube-controller-manager"
_KUBE_SCHEDULER = "system:kube-scheduler"
_ALL_SERVICE_ACCOUNTS = "system:serviceaccounts"


def _meta(name: str) -> dict[str, Any]:
    return {"name": name, "annotations": {AUTO_UPDATE_ANNOTATION: "true"}}


def _priority_level(name: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": API_VERSION, "kind": "PriorityLevelConfiguration", "metadata": _meta(name), "spec": spec}


def _limited(shares: int, lendable: int, queues: int = 0, hand_size: int = 0, queue_length: int = 0) -> dict[str, Any]:
    """A Limited spec; without queues the level rejects what exceeds its concurrency."""
    if queues:
        response: dict[str, Any] = {
            "type": "Queue",
            "queuing": {"queues": queues, "handSize": hand_size, "queueLengthLimit": queue_length},
        }
    else:
        response = {"type": "Reject"}
    return {
        "type": "Limited",
        "limited": {"nominalConcurrencyShares": shares, "limitResponse": response, "lendablePercent": lendable},
    }


def _flow_schema(name: str, pl_name: str, precedence: int, method: str, *rules: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = {"priorityLevelConfiguration": {"name": pl_name}, "matchingPrecedence": precedence}
    if method:
        spec["distinguisherMethod"] = {"type": method}
    spec["rules"] = list(rules)
    return {"apiVersion": API_VERSION, "kind": "FlowSchema", "metadata": _meta(name), "spec": spec}


def _groups(*names: str) -> list[dict[str, Any]]:
    return [{"kind": "Group", "group": {"name": n}} for n in names]


def _users(*names: str) -> list[dict[str, Any]]:
    return [{"kind": "User", "user": {"name": n}} for n in names]


def _kube_system_service_accounts(*names: str) -> list[dict[str, Any]]:
    return [{"kind": "ServiceAccount", "serviceAccount": {"name": n, "namespace": "kube-system"}} for n in names]


def _resource_rule(
    verbs: list[str], groups: list[str], resources: list[str], namespaces: list[str], cluster_scope: bool
) -> dict[str, Any]:
    rule: dict[str, Any] = {"verbs": verbs, "apiGroups": groups, "resources": resources}
    if cluster_scope:  # omitempty
        rule["clusterScope"] = True
    rule["namespaces"] = namespaces
    return rule


def _non_resource_rule(verbs: list[str], urls: list[str]) -> dict[str, Any]:
    return {"verbs": verbs, "nonResourceURLs": urls}


def _rules(subjects: list[dict[str, Any]], resource: list[dict[str, Any]], non_resource: list[dict[str, Any]]) -> dict:
    out: dict[str, Any] = {"subjects": subjects}
    if resource:
        out["resourceRules"] = resource
    if non_resource:
        out["nonResourceRules"] = non_resource
    return out


def _everything(subjects: list[dict[str, Any]]) -> dict[str, Any]:
    """Every verb on every resource and non-resource URL, for the given subjects."""
    return _rules(
        subjects,
        [_resource_rule([VERB_ALL], [API_GROUP_ALL], [RESOURCE_ALL], [NAMESPACE_EVERY], True)],
        [_non_resource_rule([VERB_ALL], [NON_RESOURCE_ALL])],
    )


# --- mandatory ---


def mandatory_priority_level_exempt() -> dict[str, Any]:
    return _priority_level(
        PRIORITY_LEVEL_EXEMPT, {"type": "Exempt", "exempt": {"nominalConcurrencyShares": 0, "lendablePercent": 0}}
    )


def mandatory_priority_level_catch_all() -> dict[str, Any]:
    return _priority_level(PRIORITY_LEVEL_CATCH_ALL, _limited(5, 0))


def mandatory_flow_schema_exempt() -> dict[str, Any]:
    return _flow_schema(FLOW_SCHEMA_EXEMPT, PRIORITY_LEVEL_EXEMPT, 1, "", _everything(_groups(_SYSTEM_MASTERS)))


def mandatory_flow_schema_catch_all() -> dict[str, Any]:
    return _flow_schema(
        FLOW_SCHEMA_CATCH_ALL,
        PRIORITY_LEVEL_CATCH_ALL,
        10000,
        "ByUser",
        _everything(_groups(_ALL_UNAUTHENTICATED, _ALL_AUTHENTICATED)),
    )


def mandatory_priority_levels() -> list[dict[str, Any]]:
    return [mandatory_priority_level_catch_all(), mandatory_priority_level_exempt()]


def mandatory_flow_schemas() -> list[dict[str, Any]]:
    return [mandatory_flow_schema_exempt(), mandatory_flow_schema_catch_all()]


# --- suggested ---


def suggested_priority_levels() -> list[dict[str, Any]]:
    return [
        # kubelets and kube-proxy: the cluster's self-maintenance
        _priority_level("system", _limited(30, 33, 64, 6, 50)),
        # node health reporting, kept apart from "system" so nodes can report while pods start
        _priority_level("node-high", _limited(40, 25, 64, 6, 50)),
        _priority_level("leader-election", _limited(10, 0, 16, 4, 50)),
        _priority_level("workload-high", _limited(40, 50, 128, 6, 50)),
        _priority_level("workload-low", _limited(100, 90, 128, 6, 50)),
        # what the other suggested schemas leave
        _priority_level("global-default", _limited(20, 50, 128, 6, 50)),
    ]


def suggested_flow_schemas() -> list[dict[str, Any]]:
    leases = _resource_rule(["get", "create", "update"], ["coordination.k8s.io"], ["leases"], [NAMESPACE_EVERY], False)
    return [
        _flow_schema("system-nodes", "system", 500, "ByUser", _everything(_groups(_NODES))),
        _flow_schema(
            "system-node-high",
            "node-high",
            400,
            "ByUser",
            _rules(
                _groups(_NODES),
                [
                    _resource_rule([VERB_ALL], [""], ["nodes", "nodes/status"], [NAMESPACE_EVERY], True),
                    _resource_rule([VERB_ALL], ["coordination.k8s.io"], ["leases"], [NAMESPACE_EVERY], False),
                ],
                [],
            ),
        ),
        _flow_schema(
            "probes",
            "exempt",
            2,
            "",
            _rules(
                _groups(_ALL_UNAUTHENTICATED, _ALL_AUTHENTICATED),
                [],
                [_non_resource_rule(["get"], ["/healthz", "/readyz", "/livez"])],
            ),
        ),
        _flow_schema(
            "system-leader-election",
            "leader-election",
            100,
            "ByUser",
            _rules(
                _users(_KUBE_CONTROLLER_MANAGER, _KUBE_SCHEDULER) + _kube_system_service_accounts(NAME_ALL),
                [leases],
                [],
            ),
        ),
        _flow_schema(
            "workload-leader-election",
            "leader-election",
            200,
            "ByUser",
            _rules(
                _kube_system_service_accounts(NAME_ALL),
                [
                    _resource_rule(
                        ["get", "create", "update"], [""], ["endpoints", "configmaps"], [NAMESPACE_EVERY], False
                    ),
                    _resource_rule(
                        ["get", "create", "update"], ["coordination.k8s.io"], ["leases"], [NAMESPACE_EVERY], False
                    ),
                ],
                [],
            ),
        ),
        # endpoint updates of kube-controller-manager must not fall into workload-leader-election
        _flow_schema(
            "endpoint-controller",
            "workload-high",
            150,
            "ByUser",
            _rules(
                _users(_KUBE_CONTROLLER_MANAGER)
                + _kube_system_service_accounts("endpoint-controller", "endpointslicemirroring-controller"),
                [_resource_rule(["get", "create", "update"], [""], ["endpoints"], [NAMESPACE_EVERY], False)],
                [],
            ),
        ),
        _flow_schema(
            "kube-controller-manager",
            "workload-high",
            800,
            "ByNamespace",
            _everything(_users(_KUBE_CONTROLLER_MANAGER)),
        ),
        _flow_schema("kube-scheduler", "workload-high", 800, "ByNamespace", _everything(_users(_KUBE_SCHEDULER))),
        _flow_schema(
            "kube-system-service-accounts",
            "workload-high",
            900,
            "ByNamespace",
            _everything(_kube_system_service_accounts(NAME_ALL)),
        ),
        _flow_schema("service-accounts", "workload-low", 9000, "ByUser", _everything(_groups(_ALL_SERVICE_ACCOUNTS))),
        _flow_schema(
            "global-default",
            "global-default",
            9900,
            "ByUser",
            _everything(_groups(_ALL_UNAUTHENTICATED, _ALL_AUTHENTICATED)),
        ),
    ]

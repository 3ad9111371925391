"""API Priority and Fairness end to end: the bootstrap configuration, the X-Kubernetes-PF-* headers, a tiny
priority level that queues and rejects (429 with Retry-After) while the exempt admin is never throttled,
watches that hold no seat, configuration changes through the API, reconciliation of the bootstrap objects,
and the max-in-flight fallback.

Saturation is deterministic: a request whose body is still coming holds its seat (the handler waits for
the body after the filter admitted it), and the test waits for the queue state it needs before it goes on.
"""

from __future__ import annotations

import json
import select
import socket
import ssl
import subprocess
import sys
import threading
import time

import pytest
import requests
from conftest import _session, _start, free_port
from e2e_helpers import parse_table, wait_until

FLOW_SCHEMAS_1_33 = [
    "catch-all",
    "endpoint-controller",
    "exempt",
    "global-default",
    "kube-controller-manager",
    "kube-scheduler",
    "kube-system-service-accounts",
    "probes",
    "service-accounts",
    "system-leader-election",
    "system-node-high",
    "system-nodes",
    "workload-leader-election",
]
PRIORITY_LEVELS_1_33 = [
    "catch-all",
    "exempt",
    "global-default",
    "leader-election",
    "node-high",
    "system",
    "workload-high",
    "workload-low",
]
FC = "/apis/flowcontrol.apiserver.k8s.io/v1"
TOKENS = {"alice": "alice-token", "carol": "carol-token"}
TOO_MANY = "Too many requests, please try again later.\n"

TINY = {
    "apiVersion": "flowcontrol.apiserver.k8s.io/v1",
    "kind": "PriorityLevelConfiguration",
    "metadata": {"name": "tiny"},
    "spec": {
        "type": "Limited",
        "limited": {
            "nominalConcurrencyShares": 1,
            "lendablePercent": 0,
            "borrowingLimitPercent": 0,
            "limitResponse": {"type": "Queue", "queuing": {"queues": 1, "handSize": 1, "queueLengthLimit": 1}},
        },
    },
}


def alice_schema(pl: str = "tiny") -> dict:
    return {
        "apiVersion": "flowcontrol.apiserver.k8s.io/v1",
        "kind": "FlowSchema",
        "metadata": {"name": "alice"},
        "spec": {
            "priorityLevelConfiguration": {"name": pl},
            "matchingPrecedence": 500,
            "distinguisherMethod": {"type": "ByUser"},
            "rules": [
                {
                    "subjects": [{"kind": "User", "user": {"name": "alice"}}],
                    "resourceRules": [
                        {
                            "verbs": ["*"],
                            "apiGroups": ["*"],
                            "resources": ["*"],
                            "namespaces": ["*"],
                            "clusterScope": True,
                        }
                    ],
                    "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}],
                }
            ],
        },
    }


def _write_tokens(d) -> str:
    path = d / "tokens.csv"
    path.write_text("".join(f"{token},{user},uid-{user},devs\n" for user, token in TOKENS.items()))
    return str(path)


def _grant_cluster_admin(srv, *users: str) -> None:
    binding = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {"name": "apf-e2e-users"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": u} for u in users],
    }
    r = srv.request("POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", json=binding)
    assert r.status_code == 201, r.text


@pytest.fixture(scope="module")
def apf(tmp_path_factory):
    """A server of 20 seats (10 + 10), so a level of one share gets exactly one: ceil(20 * 1 / 246)."""
    d = tmp_path_factory.mktemp("apf")
    srv = _start(
        d / "data",
        (
            "--token-auth-file",
            _write_tokens(d),
            "--max-requests-inflight=10",
            "--max-mutating-requests-inflight=10",
        ),
    )
    try:
        _grant_cluster_admin(srv, "alice", "carol")
        yield srv
    finally:
        try:
            srv.stop()
        finally:
            srv.cleanup()


def as_user(srv, user: str, method: str, path: str, **kw) -> requests.Response:
    kw.setdefault("timeout", 30)
    headers = {"Authorization": f"Bearer {TOKENS[user]}", **kw.pop("headers", {})}
    with _session() as s:
        return s.request(method, srv.url + path, verify=str(srv.ca_file), headers=headers, **kw)


def uid_of(srv, resource: str, name: str) -> str:
    r = srv.request("GET", f"{FC}/{resource}/{name}")
    assert r.status_code == 200, r.text
    return r.json()["metadata"]["uid"]


def dump_levels(srv) -> dict[str, list[str]]:
    r = srv.request("GET", "/debug/api_priority_and_fairness/dump_priority_levels")
    assert r.status_code == 200, r.text
    rows = [[cell.strip() for cell in line.split(",")] for line in r.text.splitlines()]
    assert rows[0] == [
        "PriorityLevelName",
        "ActiveQueues",
        "IsIdle",
        "IsQuiescing",
        "WaitingRequests",
        "ExecutingRequests",
    ]
    return {row[0]: row[1:] for row in rows[1:]}


class SlowRequest:
    """A POST whose body is not all sent: once admitted it holds its seat until finish()."""

    def __init__(self, srv, user: str) -> None:
        ctx = ssl.create_default_context(cafile=str(srv.ca_file))
        self.sock = ctx.wrap_socket(
            socket.create_connection(("127.0.0.1", srv.port), timeout=30), server_hostname="127.0.0.1"
        )
        self.body = json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "slow"}}).encode()
        head = (
            "POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: Bearer {TOKENS[user]}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(self.body)}\r\nConnection: close\r\n\r\n"
        )
        self.sock.sendall(head.encode() + self.body[:1])

    def answered(self) -> bool:
        """Whether the server already answered (refused) it."""
        return bool(select.select([self.sock], [], [], 0)[0])

    def finish(self) -> int:
        self.sock.sendall(self.body[1:])
        data = b""
        while b"\r\n" not in data:
            chunk = self.sock.recv(4096)
            if not chunk:
                break
            data += chunk
        self.sock.close()
        return int(data.split(b" ", 2)[1])


def in_thread(fn):
    out: dict = {}

    def run() -> None:
        started = time.monotonic()
        out["response"] = fn()
        out["elapsed"] = time.monotonic() - started

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t, out


# --- the bootstrap configuration (shared server) ---


def test_bootstrap_objects_as_kube_1_33(server):
    out = server.kubectl("get", "flowschemas", "-o", "jsonpath={.items[*].metadata.name}").stdout.split()
    assert sorted(out) == FLOW_SCHEMAS_1_33
    out = server.kubectl("get", "prioritylevelconfigurations", "-o", "jsonpath={.items[*].metadata.name}").stdout
    assert sorted(out.split()) == PRIORITY_LEVELS_1_33

    # every schema's level exists: Dangling False, written by the config consumer
    def statuses():
        items = server.request("GET", f"{FC}/flowschemas").json()["items"]
        return {i["metadata"]["name"]: (i.get("status") or {}).get("conditions") for i in items}

    conds = wait_until(lambda: (s := statuses()) and all(s.values()) and s, message="Dangling conditions")
    table = parse_table(server.kubectl("get", "flowschemas").stdout)
    # listed in the order they are matched in (printFlowSchemaList): by precedence, then name
    assert [r["NAME"] for r in table][:3] == ["exempt", "probes", "system-leader-election"]
    assert [r["NAME"] for r in table][-1] == "catch-all"
    order = [(int(r["MATCHINGPRECEDENCE"]), r["NAME"]) for r in table]
    assert order == sorted(order)
    rows = {r["NAME"]: r for r in table}
    assert rows["global-default"] == {
        "NAME": "global-default",
        "PRIORITYLEVEL": "global-default",
        "MATCHINGPRECEDENCE": "9900",
        "DISTINGUISHERMETHOD": "ByUser",
        "AGE": rows["global-default"]["AGE"],
        "MISSINGPL": "False",
    }
    rows = {r["NAME"]: r for r in parse_table(server.kubectl("get", "prioritylevelconfigurations").stdout)}
    assert [rows["workload-high"][c] for c in ("TYPE", "NOMINALCONCURRENCYSHARES", "QUEUES", "HANDSIZE")] == [
        "Limited",
        "40",
        "128",
        "6",
    ]
    assert rows["exempt"]["TYPE"] == "Exempt" and rows["catch-all"]["QUEUES"] == "<none>"

    probes = conds["probes"][0]
    assert {k: probes[k] for k in ("type", "status", "reason", "message")} == {
        "type": "Dangling",
        "status": "False",
        "reason": "Found",
        "message": 'This FlowSchema references the PriorityLevelConfiguration object named "exempt" and it exists',
    }
    pl = server.request("GET", f"{FC}/prioritylevelconfigurations/workload-low").json()
    assert pl["metadata"]["annotations"] == {"apf.kubernetes.io/autoupdate-spec": "true"}
    assert pl["spec"] == {
        "type": "Limited",
        "limited": {
            "nominalConcurrencyShares": 100,
            "limitResponse": {"type": "Queue", "queuing": {"queues": 128, "handSize": 6, "queueLengthLimit": 50}},
            "lendablePercent": 90,
        },
    }


def test_response_headers_name_schema_and_level_by_uid(server):
    exempt = (uid_of(server, "flowschemas", "exempt"), uid_of(server, "prioritylevelconfigurations", "exempt"))
    r = server.request("GET", "/api/v1/namespaces")
    assert r.status_code == 200
    assert (r.headers["X-Kubernetes-PF-FlowSchema-UID"], r.headers["X-Kubernetes-PF-PriorityLevel-UID"]) == exempt
    r = server.anonymous("GET", "/healthz")
    assert r.headers["X-Kubernetes-PF-FlowSchema-UID"] == uid_of(server, "flowschemas", "probes")
    assert r.headers["X-Kubernetes-PF-PriorityLevel-UID"] == exempt[1]
    r = server.anonymous("GET", "/version")
    assert r.headers["X-Kubernetes-PF-FlowSchema-UID"] == uid_of(server, "flowschemas", "global-default")
    assert r.headers["X-Kubernetes-PF-PriorityLevel-UID"] == uid_of(
        server, "prioritylevelconfigurations", "global-default"
    )
    # even a request authorization refuses was classified
    r = server.anonymous("GET", "/api/v1/namespaces")
    assert r.status_code == 403 and "X-Kubernetes-PF-FlowSchema-UID" in r.headers


# --- saturation (own server) ---


@pytest.fixture(scope="module")
def tiny(apf):
    """A level of one seat and one queue of one, and alice's schema pointing at it."""
    r = apf.request("POST", f"{FC}/prioritylevelconfigurations", json=TINY)
    assert r.status_code == 201, r.text
    r = apf.request("POST", f"{FC}/flowschemas", json=alice_schema())
    assert r.status_code == 201, r.text
    fs_uid, pl_uid = r.json()["metadata"]["uid"], uid_of(apf, "prioritylevelconfigurations", "tiny")
    wait_until(
        lambda: as_user(apf, "alice", "GET", "/version").headers.get("X-Kubernetes-PF-FlowSchema-UID") == fs_uid,
        message="alice's FlowSchema in use",
    )
    return fs_uid, pl_uid


def test_tiny_level_queues_then_rejects_with_retry_after(apf, tiny):
    fs_uid, pl_uid = tiny
    metrics = apf.request("GET", "/metrics").text
    assert 'apiserver_flowcontrol_nominal_limit_seats{priority_level="tiny"} 1.0' in metrics
    assert 'apiserver_flowcontrol_current_limit_seats{priority_level="tiny"} 1.0' in metrics

    slow = SlowRequest(apf, "alice")
    wait_until(lambda: dump_levels(apf)["tiny"] == ["0", "false", "false", "0", "1"], message="seat taken")
    # the next request queues (its wait limit: a quarter of its 2 s deadline)
    waiter, waited = in_thread(lambda: as_user(apf, "alice", "GET", "/api/v1/namespaces/default/configmaps?timeout=2s"))
    wait_until(lambda: dump_levels(apf)["tiny"] == ["1", "false", "false", "1", "1"], message="one request queued")
    # the queue is full: rejected at once
    r = as_user(apf, "alice", "GET", "/api/v1/namespaces/default/configmaps")
    assert r.status_code == 429
    assert r.text == TOO_MANY
    assert r.headers["Retry-After"] == "1"
    assert r.headers["Content-Type"] == "text/plain; charset=utf-8"
    assert (r.headers["X-Kubernetes-PF-FlowSchema-UID"], r.headers["X-Kubernetes-PF-PriorityLevel-UID"]) == tiny
    # the queued one gives up after 0.5 s
    waiter.join(10)
    assert waited["response"].status_code == 429 and waited["response"].text == TOO_MANY
    assert waited["response"].headers["Retry-After"] == "1"
    assert waited["elapsed"] >= 0.45
    # both are counted in apiserver_request_total, as RecordDroppedRequest counts a dropped request
    dropped = (
        'apiserver_request_total{code="429",component="apiserver",dry_run="",group="",resource="configmaps",'
        'scope="namespace",subresource="",verb="LIST",version="v1"} 2.0'
    )
    assert dropped in apf.request("GET", "/metrics").text
    # the exempt admin and other users are not held up meanwhile
    assert apf.request("GET", "/api/v1/namespaces/default/configmaps").status_code == 200
    assert as_user(apf, "carol", "GET", "/api/v1/namespaces/default/configmaps").status_code == 200
    # a patient request waits for the seat and gets it
    patient, result = in_thread(lambda: as_user(apf, "alice", "GET", "/api/v1/namespaces/default/configmaps"))
    wait_until(lambda: dump_levels(apf)["tiny"][3] == "1", message="patient request queued")
    assert slow.finish() == 201
    patient.join(10)
    assert result["response"].status_code == 200
    assert result["response"].headers["X-Kubernetes-PF-PriorityLevel-UID"] == pl_uid
    metrics = apf.request("GET", "/metrics").text
    for line in (
        'apiserver_flowcontrol_rejected_requests_total{flow_schema="alice",priority_level="tiny",reason="queue-full"} 1.0',
        'apiserver_flowcontrol_rejected_requests_total{flow_schema="alice",priority_level="tiny",reason="time-out"} 1.0',
        'apiserver_flowcontrol_current_inqueue_requests{flow_schema="alice",priority_level="tiny"} 0.0',
        'apiserver_flowcontrol_current_executing_requests{flow_schema="alice",priority_level="tiny"} 0.0',
        'apiserver_flowcontrol_request_wait_duration_seconds_count{execute="true",flow_schema="alice",priority_level="tiny"} 1.0',
        'apiserver_flowcontrol_request_wait_duration_seconds_count{execute="false",flow_schema="alice",priority_level="tiny"} 1.0',
    ):
        assert line in metrics, line
    assert 'apiserver_flowcontrol_dispatched_requests_total{flow_schema="exempt",priority_level="exempt"}' in metrics


def test_watch_holds_a_seat_only_while_it_starts(apf, tiny):
    with _session() as s:
        watch = s.get(
            apf.url + "/api/v1/namespaces/default/configmaps?watch=true",
            headers={"Authorization": "Bearer alice-token"},
            verify=str(apf.ca_file),
            stream=True,
            timeout=30,
        )
        try:
            assert watch.status_code == 200
            assert watch.headers["X-Kubernetes-PF-FlowSchema-UID"] == tiny[0]
            # the level's only seat is free again while the watch streams
            r = as_user(apf, "alice", "GET", "/api/v1/namespaces/default/configmaps?timeout=2s")
            assert r.status_code == 200
            assert dump_levels(apf)["tiny"] == ["0", "true", "false", "0", "0"]
        finally:
            watch.close()


def test_configuration_changes_take_effect_at_once(apf, tiny):
    global_default = uid_of(apf, "prioritylevelconfigurations", "global-default")
    patch = {"spec": {"priorityLevelConfiguration": {"name": "global-default"}}}
    r = apf.request(
        "PATCH",
        f"{FC}/flowschemas/alice",
        data=json.dumps(patch),
        headers={"Content-Type": "application/merge-patch+json"},
    )
    assert r.status_code == 200, r.text
    wait_until(
        lambda: as_user(apf, "alice", "GET", "/version").headers["X-Kubernetes-PF-PriorityLevel-UID"] == global_default,
        message="alice on global-default",
    )
    # a schema whose level is gone: Dangling, and not used
    r = apf.request(
        "PATCH",
        f"{FC}/flowschemas/alice",
        data=json.dumps({"spec": {"priorityLevelConfiguration": {"name": "nowhere"}}}),
        headers={"Content-Type": "application/merge-patch+json"},
    )
    assert r.status_code == 200, r.text

    def dangling():
        conds = (apf.request("GET", f"{FC}/flowschemas/alice").json().get("status") or {}).get("conditions") or []
        return next((c for c in conds if c["type"] == "Dangling" and c["status"] == "True"), None)

    cond = wait_until(dangling, message="Dangling=True")
    assert cond["reason"] == "NotFound"
    assert cond["message"] == (
        'This FlowSchema references the PriorityLevelConfiguration object named "nowhere" but there is no such object'
    )
    assert as_user(apf, "alice", "GET", "/version").headers["X-Kubernetes-PF-FlowSchema-UID"] == uid_of(
        apf, "flowschemas", "global-default"
    )
    # back to tiny for whatever runs after
    r = apf.request(
        "PATCH",
        f"{FC}/flowschemas/alice",
        data=json.dumps({"spec": {"priorityLevelConfiguration": {"name": "tiny"}}}),
        headers={"Content-Type": "application/merge-patch+json"},
    )
    assert r.status_code == 200, r.text
    wait_until(
        lambda: as_user(apf, "alice", "GET", "/version").headers["X-Kubernetes-PF-PriorityLevel-UID"] == tiny[1],
        message="alice back on tiny",
    )


def test_debug_dumps(apf):
    levels = dump_levels(apf)
    assert set(PRIORITY_LEVELS_1_33) <= set(levels)
    queues = apf.request("GET", "/debug/api_priority_and_fairness/dump_queues").text.splitlines()
    assert queues[0].split(",")[0] == "PriorityLevelName"
    assert sum(1 for line in queues if line.startswith("global-default,")) == 128
    assert apf.anonymous("GET", "/debug/api_priority_and_fairness/dump_queues").status_code == 403


# --- reconciliation of the bootstrap objects, and the fallback (servers of their own) ---


def test_bootstrap_objects_reconciled_on_start(server_factory):
    srv = server_factory()
    merge = {"Content-Type": "application/merge-patch+json"}
    # a mandatory object: its spec cannot be changed (validation), its annotation is set back
    r = srv.request(
        "PATCH",
        f"{FC}/prioritylevelconfigurations/catch-all",
        data=json.dumps({"spec": {"limited": {"nominalConcurrencyShares": 50}}}),
        headers=merge,
    )
    assert r.status_code == 422, r.text
    r = srv.request(
        "PATCH",
        f"{FC}/prioritylevelconfigurations/catch-all",
        data=json.dumps({"metadata": {"annotations": {"apf.kubernetes.io/autoupdate-spec": "false"}}}),
        headers=merge,
    )
    assert r.status_code == 200, r.text
    # suggested objects: one the operator keeps (autoupdate off), one left to the server, one deleted
    r = srv.request(
        "PATCH",
        f"{FC}/flowschemas/global-default",
        data=json.dumps(
            {
                "metadata": {"annotations": {"apf.kubernetes.io/autoupdate-spec": "false"}},
                "spec": {"matchingPrecedence": 9800},
            }
        ),
        headers=merge,
    )
    assert r.status_code == 200, r.text
    r = srv.request(
        "PATCH",
        f"{FC}/flowschemas/service-accounts",
        data=json.dumps({"spec": {"matchingPrecedence": 8000}}),
        headers=merge,
    )
    assert r.status_code == 200, r.text
    assert srv.request("DELETE", f"{FC}/prioritylevelconfigurations/workload-low").status_code == 200
    srv.restart()
    catch_all = srv.request("GET", f"{FC}/prioritylevelconfigurations/catch-all").json()
    assert catch_all["spec"]["limited"]["nominalConcurrencyShares"] == 5
    assert catch_all["metadata"]["annotations"]["apf.kubernetes.io/autoupdate-spec"] == "true"
    kept = srv.request("GET", f"{FC}/flowschemas/global-default").json()
    assert kept["spec"]["matchingPrecedence"] == 9800
    # autoupdate on: the server's spec comes back
    sa = srv.request("GET", f"{FC}/flowschemas/service-accounts").json()
    assert sa["spec"]["matchingPrecedence"] == 9000
    recreated = srv.request("GET", f"{FC}/prioritylevelconfigurations/workload-low")
    assert recreated.status_code == 200
    managers = [(m["manager"], m["operation"]) for m in recreated.json()["metadata"]["managedFields"]]
    assert ("api-priority-and-fairness-config-producer-v1", "Update") in managers


def test_disabled_falls_back_to_max_in_flight(server_factory, tmp_path):
    srv = server_factory(
        "--enable-priority-and-fairness=false",
        "--max-mutating-requests-inflight=1",
        "--token-auth-file",
        _write_tokens(tmp_path),
    )
    _grant_cluster_admin(srv, "alice")
    ready = srv.request("GET", "/readyz?verbose").text
    assert "poststarthook/priority-and-fairness-filter" not in ready
    assert "[+]poststarthook/priority-and-fairness-config-producer ok" in ready  # the objects are still served
    r = srv.request("GET", "/api/v1/namespaces")
    assert r.status_code == 200 and "X-Kubernetes-PF-FlowSchema-UID" not in r.headers
    # the one mutating slot is taken by a slow request; reads have their own limit. A probe that comes
    # in before the slow request is admitted may take the slot and get the slow one refused: start over.
    deadline = time.monotonic() + 20
    slow = SlowRequest(srv, "alice")
    while True:
        r = as_user(srv, "alice", "POST", "/api/v1/namespaces/default/configmaps", json={"metadata": {"name": "x"}})
        if r.status_code == 429:
            break
        assert time.monotonic() < deadline, "no mutating request was rejected"
        if slow.answered():
            slow = SlowRequest(srv, "alice")
    try:
        assert r.headers["Retry-After"] == "1"
        assert "X-Kubernetes-PF-FlowSchema-UID" not in r.headers
        assert (
            'apiserver_request_total{code="429",component="apiserver",dry_run="",group="",resource="configmaps",'
            'scope="resource",subresource="",verb="POST",version="v1"}'
        ) in srv.request("GET", "/metrics").text
        assert as_user(srv, "alice", "GET", "/api/v1/namespaces/default/configmaps").status_code == 200
        # a system:masters user (the admin certificate) is served past the limit, as upstream does
        r = srv.request("POST", "/api/v1/namespaces/default/configmaps", json={"metadata": {"name": "by-admin"}})
        assert r.status_code == 201, r.text
    finally:
        assert slow.finish() == 201


def test_seats_must_add_up_to_something_positive(tmp_path):
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "kube_apiserver",
            "--data-dir",
            str(tmp_path / "data"),
            "--secure-port",
            str(free_port()),
            "--bind-address",
            "127.0.0.1",
            "--max-requests-inflight=0",
            "--max-mutating-requests-inflight=0",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert res.returncode == 1
    assert res.stderr.strip().endswith(
        "Error: invalid configuration: MaxRequestsInFlight=0 and MaxMutatingRequestsInFlight=0; "
        "they must add up to something positive"
    )

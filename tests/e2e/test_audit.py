"""Auditing end to end: a policy file picks the level per user/resource/URL, events go to a JSON log file and
to a loopback HTTPS webhook, and each event is checked field by field as kube-apiserver writes it. Requests
carry their own Audit-ID header, which the server uses as the event's auditID, so each test finds its events."""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
import time
import uuid

import pytest
from audit_sink import AuditSink
from conftest import _start, free_port
from e2e_helpers import wait_until

NS = "audited"
STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z")
ADMIN = {"username": "kubernetes-admin", "groups": ["system:masters", "system:authenticated"]}
BOB = {"username": "bob", "uid": "uid-bob", "groups": ["dev", "system:authenticated"]}
UA = "audit-e2e/1.0"
ALLOWED = {"authorization.k8s.io/decision": "allow", "authorization.k8s.io/reason": ""}

POLICY = """
apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  users: ["quiet"]
- level: None
  nonResourceURLs: ["/readyz*", "/livez*", "/healthz*"]
- level: RequestResponse
  resources: [{group: "", resources: ["configmaps"]}]
  omitManagedFields: true
- level: Request
  resources: [{group: "", resources: ["secrets"]}]
- level: Metadata
  resources: [{group: "", resources: ["services"]}]
  omitStages: ["RequestReceived"]
- level: Metadata
"""


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    d = tmp_path_factory.mktemp("audit")
    (d / "policy.yaml").write_text(POLICY)
    (d / "tokens.csv").write_text('bob-token,bob,uid-bob,"dev"\nquiet-token,quiet,uid-quiet\n')
    sink = AuditSink(d).start()
    log = d / "audit.log"
    srv = _start(
        d / "data",
        (
            "--audit-policy-file",
            str(d / "policy.yaml"),
            "--audit-log-path",
            str(log),
            "--audit-webhook-config-file",
            str(sink.kubeconfig()),
            "--audit-webhook-batch-max-wait",
            "200ms",
            "--token-auth-file",
            str(d / "tokens.csv"),
        ),
    )
    srv.create_namespace(NS)
    try:
        yield srv, log, sink
    finally:
        try:
            srv.stop()
        finally:
            srv.cleanup()
            sink.stop()


def read_log(path) -> list[dict]:
    try:
        text = path.read_text()
    except FileNotFoundError:
        return []
    # the last line may be half written while we read
    return [json.loads(line) for line in text.splitlines() if line.endswith("}")]


def events(log, audit_id: str, count: int) -> list[dict]:
    """The events of one request, once `count` of them are in the log (then a moment more, to catch extras)."""
    wait_until(lambda: len([e for e in read_log(log) if e["auditID"] == audit_id]) >= count, message=audit_id)
    time.sleep(0.1)
    return [e for e in read_log(log) if e["auditID"] == audit_id]


def call(srv, method: str, path: str, token: str | None = None, **kw):
    """A request with a fresh Audit-ID: (response, audit id)."""
    aid = str(uuid.uuid4())
    headers = {"Audit-ID": aid, "User-Agent": UA, **kw.pop("headers", {})}
    if token is None:
        resp = srv.request(method, path, headers=headers, **kw)
    else:
        resp = srv.anonymous(method, path, headers={**headers, "Authorization": f"Bearer {token}"}, **kw)
    assert resp.headers["Audit-Id"] == aid
    return resp, aid


def test_metadata_level_event_fields(audited):
    srv, log, _ = audited
    resp, aid = call(srv, "GET", f"/api/v1/namespaces/{NS}/pods?limit=5")
    assert resp.status_code == 200
    received, complete = events(log, aid, 2)
    assert list(received) == [
        "kind",
        "apiVersion",
        "level",
        "auditID",
        "stage",
        "requestURI",
        "verb",
        "user",
        "sourceIPs",
        "userAgent",
        "objectRef",
        "requestReceivedTimestamp",
        "stageTimestamp",
    ]
    assert received == {
        "kind": "Event",
        "apiVersion": "audit.k8s.io/v1",
        "level": "Metadata",
        "auditID": aid,
        "stage": "RequestReceived",
        "requestURI": f"/api/v1/namespaces/{NS}/pods?limit=5",
        "verb": "list",
        "user": ADMIN,
        "sourceIPs": ["127.0.0.1"],
        "userAgent": UA,
        "objectRef": {"resource": "pods", "namespace": NS, "apiVersion": "v1"},
        "requestReceivedTimestamp": received["requestReceivedTimestamp"],
        "stageTimestamp": received["requestReceivedTimestamp"],
    }
    assert STAMP.fullmatch(received["requestReceivedTimestamp"])
    assert complete["stage"] == "ResponseComplete"
    assert complete["responseStatus"] == {"metadata": {}, "code": 200}
    assert complete["annotations"] == ALLOWED
    assert "requestObject" not in complete and "responseObject" not in complete
    assert complete["requestReceivedTimestamp"] == received["requestReceivedTimestamp"]
    assert STAMP.fullmatch(complete["stageTimestamp"]) and complete["stageTimestamp"] >= received["stageTimestamp"]
    assert list(complete)[-4:] == ["responseStatus", "requestReceivedTimestamp", "stageTimestamp", "annotations"]


def test_request_level_records_the_request_object(audited):
    srv, log, _ = audited
    body = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s1"}, "stringData": {"k": "v"}}
    resp, aid = call(srv, "POST", f"/api/v1/namespaces/{NS}/secrets", json=body)
    assert resp.status_code == 201, resp.text
    received, complete = events(log, aid, 2)
    assert received["level"] == "Request" and "requestObject" not in received
    # the create names its object only in the body: the objectRef takes the name from it
    assert received["objectRef"] == {"resource": "secrets", "namespace": NS, "apiVersion": "v1"}
    assert complete["objectRef"] == {"resource": "secrets", "namespace": NS, "name": "s1", "apiVersion": "v1"}
    assert complete["requestObject"] == body
    assert "responseObject" not in complete
    assert complete["responseStatus"] == {"metadata": {}, "code": 201}
    assert complete["verb"] == "create"


def test_request_response_level_records_both_objects(audited):
    srv, log, _ = audited
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c1"}, "data": {"a": "b"}}
    resp, aid = call(srv, "POST", f"/api/v1/namespaces/{NS}/configmaps", json=body)
    assert resp.status_code == 201, resp.text
    _, complete = events(log, aid, 2)
    assert complete["level"] == "RequestResponse"
    assert complete["requestObject"] == body
    created = resp.json()
    assert "managedFields" in created["metadata"]
    # omitManagedFields: the response object as sent, without its managed fields
    del created["metadata"]["managedFields"]
    assert complete["responseObject"] == created
    assert list(complete).index("requestObject") + 1 == list(complete).index("responseObject")

    # an error is a Status: it becomes the responseStatus (and the response object)
    resp, aid = call(srv, "GET", f"/api/v1/namespaces/{NS}/configmaps/nope")
    assert resp.status_code == 404
    _, complete = events(log, aid, 2)
    status = {k: v for k, v in resp.json().items() if k not in ("kind", "apiVersion")}
    assert (
        complete["responseStatus"]
        == status
        == {
            "metadata": {},
            "status": "Failure",
            "message": 'configmaps "nope" not found',
            "reason": "NotFound",
            "details": {"name": "nope", "kind": "configmaps"},
            "code": 404,
        }
    )
    assert complete["responseObject"] == resp.json()


def test_omit_stages_and_none_level(audited):
    srv, log, _ = audited
    resp, aid = call(srv, "GET", f"/api/v1/namespaces/{NS}/services")
    assert resp.status_code == 200
    (only,) = events(log, aid, 1)
    assert only["stage"] == "ResponseComplete"  # the rule omits RequestReceived
    resp, quiet = call(srv, "GET", f"/api/v1/namespaces/{NS}/configmaps", token="quiet-token")
    assert resp.status_code == 403  # quiet has no role: still not audited, level None
    resp, ready = call(srv, "GET", "/readyz")
    assert resp.status_code == 200
    resp, aid = call(srv, "GET", "/version")  # a non-resource request at the catch-all level
    _, complete = events(log, aid, 2)
    assert complete["verb"] == "get" and "objectRef" not in complete
    ids = {e["auditID"] for e in read_log(log)}
    assert quiet not in ids and ready not in ids


def test_watch_is_response_started_then_complete(audited):
    srv, log, _ = audited
    resp, aid = call(srv, "GET", f"/api/v1/namespaces/{NS}/pods?watch=true&timeoutSeconds=1")
    assert resp.status_code == 200
    received, started, complete = events(log, aid, 3)
    assert [received["stage"], started["stage"], complete["stage"]] == [
        "RequestReceived",
        "ResponseStarted",
        "ResponseComplete",
    ]
    assert started["verb"] == "watch"
    assert started["responseStatus"] == complete["responseStatus"] == {"metadata": {}, "code": 200}
    assert started["annotations"] == ALLOWED
    # the watch lasted its timeoutSeconds between the two
    assert complete["stageTimestamp"] > started["stageTimestamp"] >= received["stageTimestamp"]


def test_forbidden_by_rbac(audited):
    srv, log, _ = audited
    resp, aid = call(srv, "GET", f"/api/v1/namespaces/{NS}/pods", token="bob-token")
    assert resp.status_code == 403
    received, complete = events(log, aid, 2)
    assert received["user"] == complete["user"] == BOB
    assert complete["responseStatus"] == {
        "metadata": {},
        "status": "Failure",
        "message": f'pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "{NS}"',
        "reason": "Forbidden",
        "details": {"kind": "pods"},
        "code": 403,
    }
    assert complete["annotations"] == {"authorization.k8s.io/decision": "forbid", "authorization.k8s.io/reason": ""}


def test_impersonation_is_recorded(audited):
    srv, log, _ = audited
    headers = {"Impersonate-User": "bob", "Impersonate-Group": "dev"}
    resp, aid = call(srv, "GET", f"/api/v1/namespaces/{NS}/pods", headers=headers)
    assert resp.status_code == 403  # bob may not list pods
    received, complete = events(log, aid, 2)
    # the policy matched the authenticated user; the impersonated one is known after the impersonation filter
    assert received["user"] == complete["user"] == ADMIN
    assert "impersonatedUser" not in received
    assert complete["impersonatedUser"] == {"username": "bob", "groups": ["dev", "system:authenticated"]}
    assert list(complete).index("impersonatedUser") == list(complete).index("user") + 1
    assert 'User "bob" cannot list resource "pods"' in complete["responseStatus"]["message"]


def test_failed_authentication(audited):
    srv, log, _ = audited
    resp, aid = call(srv, "GET", f"/api/v1/namespaces/{NS}/pods", token="wrong-token")
    assert resp.status_code == 401
    (only,) = events(log, aid, 1)
    assert only["stage"] == "ResponseStarted"
    assert only["user"] == {}
    assert only["responseStatus"] == {
        "metadata": {},
        "status": "Failure",
        "message": "Unauthorized",
        "reason": "Unauthorized",
        "code": 401,
    }
    assert "annotations" not in only


def test_webhook_receives_event_lists(audited):
    srv, log, sink = audited
    resp, aid = call(srv, "GET", f"/api/v1/namespaces/{NS}/configmaps")
    assert resp.status_code == 200
    wait_until(lambda: len([e for e in sink.events() if e["auditID"] == aid]) == 2, message="webhook events")
    by_webhook = [e for e in sink.events() if e["auditID"] == aid]
    in_log = [{k: v for k, v in e.items() if k not in ("kind", "apiVersion")} for e in events(log, aid, 2)]
    assert by_webhook == in_log  # the same events; items of an EventList carry no kind/apiVersion
    with sink.lock:
        first = sink.received[0]
    assert first["path"] == "/audit/events"
    assert first["headers"]["Content-Type"] == "application/json"
    assert first["client"] == "kube-apiserver-audit"  # the kubeconfig's client certificate
    assert first["body"]["kind"] == "EventList" and first["body"]["apiVersion"] == "audit.k8s.io/v1"


POLICY_RR = "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: RequestResponse\n"


def test_log_rotation_by_size(server_factory, tmp_path):
    (tmp_path / "policy.yaml").write_text(POLICY_RR)
    log = tmp_path / "logs" / "audit.log"
    srv = server_factory(
        "--audit-policy-file",
        str(tmp_path / "policy.yaml"),
        "--audit-log-path",
        str(log),
        "--audit-log-maxsize",
        "1",
        "--audit-log-maxbackup",
        "1",
        "--audit-log-compress",
    )
    ids = []
    for i in range(6):
        body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"big{i}"}, "data": {"x": "y" * 200_000}}
        resp, aid = call(srv, "POST", "/api/v1/namespaces/default/configmaps", json=body)
        assert resp.status_code == 201
        ids.append(aid)
    # each create logs ~400 kB (request and response objects): the 1 MiB file was rotated, backups compressed,
    # and only one backup is kept
    backups = wait_until(
        lambda: (
            (b := sorted(p for p in os.listdir(log.parent) if p != "audit.log"))
            and len(b) == 1
            and b[0].endswith(".log.gz")
            and b
        ),
        message="one compressed backup",
    )
    assert re.fullmatch(r"audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log\.gz", backups[0])
    assert log.stat().st_size <= 1024 * 1024
    assert oct(log.stat().st_mode & 0o777) == "0o600"
    old = gzip.decompress((log.parent / backups[0]).read_bytes()).decode()
    current = wait_until(lambda: [e for e in read_log(log) if e["auditID"] == ids[-1]] and read_log(log))
    lines = [json.loads(line) for line in old.splitlines()] + current
    assert all(e["kind"] == "Event" for e in lines)
    complete = [e["auditID"] for e in lines if e["stage"] == "ResponseComplete" and e["verb"] == "create"]
    assert complete[-1] == ids[-1] and set(complete) <= set(ids)


def test_legacy_format_in_batch_mode(server_factory, tmp_path):
    (tmp_path / "policy.yaml").write_text(POLICY_RR)
    log = tmp_path / "audit.log"
    srv = server_factory(
        "--audit-policy-file",
        str(tmp_path / "policy.yaml"),
        "--audit-log-path",
        str(log),
        "--audit-log-format",
        "legacy",
        "--audit-log-mode",
        "batch",
    )
    resp, aid = call(srv, "GET", "/api/v1/namespaces/default/configmaps")
    assert resp.status_code == 200
    lines = wait_until(
        lambda: len(ls := [line for line in log.read_text().splitlines() if aid in line]) == 2 and ls,
        message="legacy lines",
    )
    ts = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)"
    assert re.fullmatch(
        ts + f' AUDIT: id="{aid}" stage="RequestReceived" ip="127.0.0.1" method="list" user="kubernetes-admin" '
        r'groups="\\"system:masters\\",\\"system:authenticated\\"" as="<self>" asgroups="<lookup>" '
        f'user-agent="{UA}" namespace="default" uri="/api/v1/namespaces/default/configmaps" response="<deferred>"',
        lines[0],
    ), lines[0]
    assert 'stage="ResponseComplete"' in lines[1] and lines[1].endswith('response="200"')


def _run(tmp_path, *args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "kube_apiserver", "--data-dir", str(tmp_path / "data"), "--secure-port"]
    cmd += [str(free_port()), "--bind-address", "127.0.0.1", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60)


def test_bad_policy_file_stops_the_server(tmp_path):
    bad = tmp_path / "policy.yaml"
    bad.write_text("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- users: [a]\n")
    res = _run(tmp_path, "--audit-policy-file", str(bad), "--audit-log-path", "-")
    assert res.returncode == 1
    assert res.stderr.strip().splitlines()[-1] == (
        f"Error: loading audit policy file: rules[0].level: Required value: from file {bad}"
    )

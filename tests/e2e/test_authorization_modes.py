"""Authorization modes end to end: a server with --authorization-mode=Node,Webhook,ABAC,RBAC (a loopback HTTPS
SubjectAccessReview server, an ABAC policy file, static tokens), kubectl auth can-i matrices, kube's messages
with the union's reasons one per line, a webhook failure as 500; AlwaysAllow (anonymous requests refused); flag
validation; the node authorizer with a kubelet certificate signed by the data dir's CA; impersonation."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
import requests
from authz_helpers import CertReadyServer, SARServer, as_token, node_client_cert, token_request
from conftest import free_port

TOKENS = {name: f"{name}-token-0123456789" for name in ("alice", "bob", "carol", "eve", "teapot")}
ABAC_POLICY = (
    "# alice reads the abac namespace\n"
    '{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "alice", "namespace": "abac", "resource": "*", "apiGroup": "*", "readonly": true}}\n'
    '{"user": "legacy", "readonly": true}\n'
)


def decide(spec: dict) -> dict | int:
    user = spec.get("user")
    ra = spec.get("resourceAttributes") or {}
    if user == "bob" and ra.get("resource") == "pods" and ra.get("verb") in ("get", "list"):
        return {"allowed": True, "reason": "bob may read pods"}
    if user == "eve" and ra.get("resource") == "pods":
        return {"allowed": False, "denied": True, "reason": "eve is banned"}
    if user == "teapot":
        return 418
    if user == "alice":
        return {"allowed": False, "reason": "webhook has no opinion"}
    return {"allowed": False}


@pytest.fixture(scope="module")
def sar(tmp_path_factory):
    server = SARServer(tmp_path_factory.mktemp("sar"), decide)
    yield server
    server.close()


@pytest.fixture(scope="module")
def multi(tmp_path_factory, sar):
    d = tmp_path_factory.mktemp("multi")
    tokens = d / "tokens.csv"
    tokens.write_text("".join(f"{t},{n},uid-{n}\n" for n, t in TOKENS.items()))
    policy = d / "policy.jsonl"
    policy.write_text(ABAC_POLICY)
    srv = CertReadyServer(
        d / "data",
        (
            "--token-auth-file",
            str(tokens),
            "--authorization-mode",
            "Node,Webhook,ABAC,RBAC",
            "--authorization-policy-file",
            str(policy),
            "--authorization-webhook-config-file",
            str(sar.kubeconfig(d / "webhook.kubeconfig")),
        ),
    )
    srv.start()
    srv.kubectl("create", "namespace", "abac")
    srv.kubectl("create", "namespace", "team")
    yield srv
    srv.stop()
    srv.cleanup()


def can_i(srv, user: str, *args: str) -> str:
    res = as_token(srv, TOKENS[user], "auth", "can-i", *args)
    return res.stdout.strip() or res.stderr.strip()


def test_can_i_matrix_across_webhook_abac_and_rbac(multi, sar) -> None:
    matrix = [
        ("alice", ("get", "pods", "-n", "abac"), "yes"),
        ("alice", ("list", "deployments.apps", "-n", "abac"), "yes"),
        ("alice", ("create", "pods", "-n", "abac"), "no"),
        ("alice", ("get", "pods", "-n", "team"), "no"),
        ("bob", ("list", "pods", "-n", "team"), "yes"),
        ("bob", ("delete", "pods", "-n", "team"), "no"),
        ("eve", ("get", "pods", "-n", "team"), "no"),
        ("carol", ("get", "pods", "-n", "team"), "no"),
    ]
    for user, args, want in matrix:
        out = can_i(multi, user, *args)
        assert out.split()[:1] == [want], (user, args, out)
    # the webhook got v1beta1 reviews (the default version), groups under "group"
    review = next(r for r in sar.reviews if (r["spec"].get("user") == "bob"))
    assert review["apiVersion"] == "authorization.k8s.io/v1beta1"
    assert review["kind"] == "SubjectAccessReview"
    assert review["spec"]["group"] == ["system:authenticated"]
    assert review["spec"]["uid"] == "uid-bob"


def test_messages_join_the_reasons_of_every_authorizer(multi) -> None:
    res = as_token(multi, TOKENS["alice"], "create", "configmap", "c", "-n", "abac")
    assert res.returncode == 1
    assert res.stderr.strip() == (
        'error: failed to create configmap: configmaps is forbidden: User "alice" cannot create resource "configmaps" '
        'in API group "" in the namespace "abac": webhook has no opinion\nNo policy matched.'
    )
    assert as_token(multi, TOKENS["alice"], "get", "configmaps", "-n", "abac").returncode == 0
    # bob reads pods thanks to the webhook; the allow reason is not shown, a denial gets ABAC's reason
    assert as_token(multi, TOKENS["bob"], "get", "pods", "-n", "team").returncode == 0
    res = as_token(multi, TOKENS["bob"], "get", "services", "-n", "team")
    assert res.stderr.strip() == (
        'Error from server (Forbidden): services is forbidden: User "bob" cannot list resource "services" in API '
        'group "" in the namespace "team": No policy matched.'
    )


def test_webhook_deny_wins_over_a_later_rbac_grant_and_caches(multi, sar) -> None:
    multi.kubectl("create", "clusterrolebinding", "eve-admin", "--clusterrole=cluster-admin", "--user=eve")
    res = as_token(multi, TOKENS["eve"], "get", "pods", "-n", "team")
    assert res.stderr.strip() == (
        'Error from server (Forbidden): pods is forbidden: User "eve" cannot list resource "pods" in API group "" '
        'in the namespace "team": eve is banned'
    )
    assert can_i(multi, "eve", "list", "pods", "-n", "team") == "no - eve is banned"
    # the same question again is answered from the webhook cache
    before = len(sar.reviews)
    as_token(multi, TOKENS["eve"], "get", "pods", "-n", "team")
    assert len(sar.reviews) == before


def test_webhook_failure_is_a_500_unless_someone_allows(multi) -> None:
    r = token_request(multi, TOKENS["teapot"], "GET", "/api/v1/namespaces/team/pods")
    assert r.status_code == 500
    assert r.headers["content-type"] == "text/plain; charset=utf-8"
    assert r.text.startswith('Internal Server Error: "/api/v1/namespaces/team/pods": an error on the server (')
    # RBAC after the failed webhook still allows
    multi.kubectl("create", "rolebinding", "teapot-view", "--clusterrole=view", "--user=teapot", "-n", "team")
    r = token_request(multi, TOKENS["teapot"], "GET", "/api/v1/namespaces/team/pods")
    assert r.status_code == 200, r.text


def test_new_rbac_binding_is_honored_at_once(multi) -> None:
    assert can_i(multi, "carol", "create", "configmaps", "-n", "team") == "no - No policy matched."
    multi.kubectl("create", "rolebinding", "carol-edit", "--clusterrole=edit", "--user=carol", "-n", "team")
    assert can_i(multi, "carol", "create", "configmaps", "-n", "team") == "yes"
    multi.kubectl("delete", "rolebinding", "carol-edit", "-n", "team")
    assert can_i(multi, "carol", "create", "configmaps", "-n", "team") == "no - No policy matched."


def test_impersonation_checks_and_messages(multi) -> None:
    res = as_token(multi, TOKENS["carol"], "get", "pods", "-n", "team", "--as", "dave")
    assert res.stderr.strip() == (
        'Error from server (Forbidden): users "dave" is forbidden: User "carol" cannot impersonate resource "users" '
        'in API group "" at the cluster scope: No policy matched.'
    )
    res = as_token(multi, TOKENS["carol"], "get", "pods", "--as", "system:serviceaccount:team:robot")
    assert res.stderr.strip() == (
        'Error from server (Forbidden): serviceaccounts "robot" is forbidden: User "carol" cannot impersonate '
        'resource "serviceaccounts" in API group "" in the namespace "team": No policy matched.'
    )
    multi.kubectl(
        "create", "clusterrole", "impersonate-dave", "--verb=impersonate", "--resource=users", "--resource-name=dave"
    )
    multi.kubectl("create", "clusterrolebinding", "carol-as-dave", "--clusterrole=impersonate-dave", "--user=carol")
    res = as_token(multi, TOKENS["carol"], "get", "pods", "-n", "team", "--as", "dave")
    assert res.stderr.strip() == (
        'Error from server (Forbidden): pods is forbidden: User "dave" cannot list resource "pods" in API group "" '
        'in the namespace "team": No policy matched.'
    )
    res = as_token(multi, TOKENS["carol"], "get", "pods", "--as", "dave", "--as-group", "admins")
    assert res.stderr.strip() == (
        'Error from server (Forbidden): groups "admins" is forbidden: User "carol" cannot impersonate resource '
        '"groups" in API group "" at the cluster scope: No policy matched.'
    )
    res = as_token(multi, TOKENS["carol"], "get", "pods", "--as", "dave", "--as-uid", "42")
    assert res.stderr.strip() == (
        'Error from server (Forbidden): uids.authentication.k8s.io "42" is forbidden: User "carol" cannot '
        'impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope: No policy matched.'
    )
    r = token_request(
        multi,
        TOKENS["carol"],
        "GET",
        "/api/v1/namespaces/team/pods",
        headers={"Impersonate-User": "dave", "Impersonate-Extra-Scopes": "view"},
    )
    assert r.status_code == 403
    assert r.json()["message"] == (
        'userextras.authentication.k8s.io "view" is forbidden: User "carol" cannot impersonate resource '
        '"userextras/scopes" in API group "authentication.k8s.io" at the cluster scope: No policy matched.'
    )
    assert r.json()["details"] == {"name": "view", "group": "authentication.k8s.io", "kind": "userextras"}
    # upstream: a plain-text 500 (InternalError); here the client's error, a 400 Status with the same text
    r = token_request(multi, TOKENS["carol"], "GET", "/api/v1/pods", headers={"Impersonate-Group": "admins"})
    assert r.status_code == 400
    assert r.json()["reason"] == "BadRequest"
    assert r.json()["message"] == "requested [{Group  admins    }] without impersonating a user"


def test_impersonated_identity_with_kubectl_as(server) -> None:
    import json

    out = server.kubectl("auth", "whoami", "--as", "bob", "--as-group", "dev", "--as-uid", "u-1", "-o", "json").stdout
    assert json.loads(out)["status"]["userInfo"] == {
        "username": "bob",
        "uid": "u-1",
        "groups": ["dev", "system:authenticated"],
    }
    out = server.kubectl("auth", "whoami", "--as", "system:serviceaccount:team:robot", "-o", "json").stdout
    assert json.loads(out)["status"]["userInfo"] == {
        "username": "system:serviceaccount:team:robot",
        "groups": ["system:serviceaccounts", "system:serviceaccounts:team", "system:authenticated"],
    }
    r = server.request("GET", "/api/v1/namespaces/default/pods", headers={"Impersonate-User": "system:anonymous"})
    assert r.status_code == 403
    assert r.json()["message"] == (
        'pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" in the namespace '
        '"default"'
    )
    body = {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}
    r = server.request(
        "POST",
        "/apis/authentication.k8s.io/v1/selfsubjectreviews",
        json=body,
        headers={"Impersonate-User": "carol", "Impersonate-Extra-Scopes": "view"},
    )
    assert r.status_code == 201, r.text
    assert r.json()["status"]["userInfo"] == {
        "username": "carol",
        "groups": ["system:authenticated"],
        "extra": {"scopes": ["view"]},
    }
    assert server.kubectl("auth", "can-i", "list", "pods", "--as", "nobody", check=False).stdout.strip() == "no"


def test_always_allow_refuses_anonymous_requests(tmp_path) -> None:
    tokens = tmp_path / "tokens.csv"
    tokens.write_text("anyone-token-0123456789,anyone,uid-1\n")
    srv = CertReadyServer(tmp_path / "data", ("--authorization-mode", "AlwaysAllow", "--token-auth-file", str(tokens)))
    srv.start()
    try:
        with requests.Session() as s:
            s.trust_env = False
            r = s.get(srv.url + "/api/v1/namespaces", verify=str(srv.ca_file), timeout=10)
        assert r.status_code == 401
        assert as_token(srv, "anyone-token-0123456789", "create", "namespace", "free").returncode == 0
        assert "AnonymousAuth is not allowed with the AlwaysAllow authorizer" in srv.log_path.read_text()
    finally:
        srv.stop()
        srv.cleanup()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--authorization-mode", "RBAC,Bogus"), 'Error: authorization-mode "Bogus" is not a valid mode'),
        (("--authorization-mode", "ABAC"), "Error: authorization-mode ABAC's authorization policy file not passed"),
        (
            ("--authorization-mode", "RBAC,RBAC"),
            'Error: authorization-mode ["RBAC" "RBAC"] has mode specified more than once',
        ),
        (
            ("--authorization-mode", "RBAC", "--authorization-webhook-config-file", "w.yaml"),
            "Error: cannot specify --authorization-webhook-config-file without mode Webhook",
        ),
    ],
)
def test_flag_validation(tmp_path, args, message) -> None:
    res = subprocess.run(
        [sys.executable, "-m", "kube_apiserver", "--data-dir", str(tmp_path), *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert res.returncode == 2
    assert res.stderr.strip().splitlines()[-1] == message


def test_bad_policy_file_stops_the_server(tmp_path) -> None:
    policy = tmp_path / "policy.jsonl"
    policy.write_text('{"user": "a"}\nnot json\n')
    res = subprocess.run(
        [sys.executable, "-m", "kube_apiserver", "--data-dir", str(tmp_path / "d"), "--secure-port", str(free_port())]
        + ["--authorization-mode", "ABAC", "--authorization-policy-file", str(policy)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert res.returncode == 1
    assert f"Error: error reading policy file {policy}, line 2: not json: " in res.stderr


def _wait(fn, timeout: float = 5.0):
    deadline = time.monotonic() + timeout
    while True:
        value = fn()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.05)


def test_node_reads_only_what_its_pods_need(server, ns, tmp_path) -> None:
    crt, key = node_client_cert(server, tmp_path, "n1")
    node = requests.Session()
    node.trust_env = False
    node.verify, node.cert = str(server.ca_file), (str(crt), str(key))
    for kind, name in (("secret", "s1"), ("secret", "s2"), ("configmap", "c1")):
        server.kubectl(
            "create", kind, *(("generic",) if kind == "secret" else ()), name, "--from-literal=a=b", "-n", ns
        )
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web", "namespace": ns},
        "spec": {
            "nodeName": "n1",
            "containers": [
                {"name": "c", "image": "nginx", "envFrom": [{"configMapRef": {"name": "c1"}}]},
            ],
            "volumes": [{"name": "s", "secret": {"secretName": "s1"}}],
        },
    }
    assert server.request("POST", f"/api/v1/namespaces/{ns}/pods", json=pod).status_code == 201

    def get(path: str) -> requests.Response:
        return node.get(server.url + path, timeout=10)

    assert _wait(lambda: get(f"/api/v1/namespaces/{ns}/secrets/s1").status_code == 200)
    assert get(f"/api/v1/namespaces/{ns}/configmaps/c1").status_code == 200
    r = get(f"/api/v1/namespaces/{ns}/secrets/s2")
    assert r.status_code == 403
    assert r.json()["message"] == (
        f'secrets "s2" is forbidden: User "system:node:n1" cannot get resource "secrets" in API group "" in the '
        f"namespace \"{ns}\": no relationship found between node 'n1' and this object"
    )
    assert get(f"/api/v1/namespaces/{ns}/pods/web").status_code == 200
    assert get("/api/v1/pods?fieldSelector=spec.nodeName%3Dn1").status_code == 200
    r = get("/api/v1/pods")
    assert r.json()["message"] == (
        'pods is forbidden: User "system:node:n1" cannot list resource "pods" in API group "" at the cluster scope: '
        "can only list/watch pods with spec.nodeName field selector"
    )
    r = get("/api/v1/nodes/n2")
    assert r.json()["message"] == (
        'nodes "n2" is forbidden: User "system:node:n1" cannot get resource "nodes" in API group "" at the cluster '
        "scope: node 'n1' cannot read 'n2', only its own Node object"
    )
    # the node's status of its pod, and the graph following deletion
    assert get(f"/api/v1/namespaces/{ns}/pods/web/status").status_code == 403  # get of status: not subdivided
    server.request("DELETE", f"/api/v1/namespaces/{ns}/pods/web?gracePeriodSeconds=0")
    assert _wait(lambda: get(f"/api/v1/namespaces/{ns}/secrets/s1").status_code == 403)

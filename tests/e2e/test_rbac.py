"""RBAC end to end: a second identity (a static token) is denied with kube's 403, allowed after a
RoleBinding, checked with kubectl auth can-i (and --list), refused when escalating; the bootstrap roles."""

from __future__ import annotations

import subprocess

import pytest
from conftest import kubectl_binary

TOKEN = "bob-token-0123456789"


@pytest.fixture
def rbac_server(server_factory, tmp_path):
    tokens = tmp_path / "tokens.csv"
    tokens.write_text(f'{TOKEN},bob,uid-bob,"dev,qa"\n')
    return server_factory("--token-auth-file", str(tokens), "--authorization-mode", "Node,RBAC")


def bob(srv, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    cmd = [kubectl_binary(), "--server", srv.url, "--certificate-authority", str(srv.ca_file), "--token", TOKEN, *args]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    if check and res.returncode != 0:
        raise AssertionError(f"{args} exited {res.returncode}: {res.stderr}")
    return res


def test_bootstrap_roles_present(rbac_server):
    out = rbac_server.kubectl("get", "clusterrole", "cluster-admin", "admin", "edit", "view", "-o", "name").stdout
    assert out.split() == [
        f"clusterrole.rbac.authorization.k8s.io/{n}" for n in ("cluster-admin", "admin", "edit", "view")
    ]
    crb = rbac_server.request("GET", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/cluster-admin").json()
    assert crb["subjects"] == [{"kind": "Group", "apiGroup": "rbac.authorization.k8s.io", "name": "system:masters"}]
    assert crb["metadata"]["annotations"] == {"rbac.authorization.kubernetes.io/autoupdate": "true"}
    # view is aggregated from system:aggregate-to-view, edit includes view's rules, admin edit's
    roles = {
        n: rbac_server.request("GET", f"/apis/rbac.authorization.k8s.io/v1/clusterroles/{n}").json()
        for n in ("view", "edit", "admin")
    }
    assert {"apiGroups": [""], "resources": ["namespaces"], "verbs": ["get", "list", "watch"]} in roles["view"]["rules"]
    assert all(rule in roles["edit"]["rules"] for rule in roles["view"]["rules"])
    assert all(rule in roles["admin"]["rules"] for rule in roles["edit"]["rules"])


def test_denied_then_allowed_after_rolebinding(rbac_server):
    srv = rbac_server
    srv.kubectl("create", "namespace", "team")
    res = bob(srv, "get", "pods", "-n", "team", check=False)
    assert res.returncode == 1
    assert res.stderr.strip() == (
        'Error from server (Forbidden): pods is forbidden: User "bob" cannot list resource "pods" '
        'in API group "" in the namespace "team"'
    )
    res = bob(srv, "get", "deployment", "web", "-n", "team", check=False)
    assert res.stderr.strip() == (
        'Error from server (Forbidden): deployments.apps "web" is forbidden: User "bob" cannot get resource '
        '"deployments" in API group "apps" in the namespace "team"'
    )
    res = bob(srv, "get", "nodes", check=False)
    assert res.stderr.strip() == (
        'Error from server (Forbidden): nodes is forbidden: User "bob" cannot list resource "nodes" '
        'in API group "" at the cluster scope'
    )
    res = bob(srv, "get", "--raw", "/metrics", check=False)
    assert 'forbidden: User "bob" cannot get path "/metrics"' in res.stderr

    srv.kubectl("create", "rolebinding", "bob-edit", "--clusterrole=edit", "--user=bob", "-n", "team")
    bob(srv, "create", "configmap", "c1", "--from-literal=a=b", "-n", "team")
    assert bob(srv, "get", "configmap", "c1", "-n", "team", "-o", "name").stdout.strip() == "configmap/c1"
    assert bob(srv, "get", "pods", "-n", "default", check=False).returncode == 1
    # a binding to a group of the user works as well
    srv.kubectl("create", "clusterrolebinding", "dev-view-nodes", "--clusterrole=system:node-proxier", "--group=dev")
    assert bob(srv, "get", "nodes", "-o", "name").returncode == 0


def test_can_i_matrix_and_list(rbac_server):
    srv = rbac_server
    srv.kubectl("create", "namespace", "team")
    srv.kubectl("create", "rolebinding", "bob-view", "--clusterrole=view", "--user=bob", "-n", "team")
    srv.kubectl("create", "role", "one-secret", "--verb=get", "--resource=secrets", "--resource-name=s1", "-n", "team")
    srv.kubectl("create", "rolebinding", "bob-one-secret", "--role=one-secret", "--user=bob", "-n", "team")
    matrix = {
        ("list", "pods", "team"): "yes",
        ("get", "pods/log", "team"): "yes",
        ("delete", "pods", "team"): "no",
        ("list", "pods", "default"): "no",
        ("get", "secrets/s1", "team"): "yes",
        ("get", "secrets/s2", "team"): "no",
        ("list", "deployments.apps", "team"): "yes",
        ("create", "deployments.apps", "team"): "no",
    }
    for (verb, what, ns), want in matrix.items():
        res = bob(srv, "auth", "can-i", verb, what, "-n", ns, check=False)
        assert res.stdout.strip() == want, (verb, what, ns, res.stdout, res.stderr)
    assert bob(srv, "auth", "can-i", "get", "/healthz").stdout.strip() == "yes"
    assert bob(srv, "auth", "can-i", "get", "/metrics", check=False).stdout.strip() == "no"
    # the admin asks about bob with a SubjectAccessReview
    sar = {
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SubjectAccessReview",
        "spec": {"user": "bob", "resourceAttributes": {"verb": "list", "resource": "pods", "namespace": "team"}},
    }
    r = srv.request("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", json=sar)
    assert r.status_code == 201, r.text
    assert r.json()["status"] == {
        "allowed": True,
        "reason": 'RBAC: allowed by RoleBinding "bob-view/team" of ClusterRole "view" to User "bob"',
    }
    lsar = {**sar, "kind": "LocalSubjectAccessReview"}
    lsar["spec"] = {**sar["spec"], "resourceAttributes": {**sar["spec"]["resourceAttributes"], "namespace": "default"}}
    r = srv.request("POST", "/apis/authorization.k8s.io/v1/namespaces/team/localsubjectaccessreviews", json=lsar)
    assert (r.status_code, r.json()["message"]) == (
        422,
        'LocalSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: '
        'Invalid value: "default": must match metadata.namespace',
    )
    # the reviews' metadata must be empty, and their attributes one kind or the other, in kube's words
    named = {**sar, "metadata": {"name": "x"}}
    r = srv.request("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", json=named)
    assert r.status_code == 422 and r.json()["details"]["causes"][0]["field"] == "metadata", r.text
    assert r.json()["details"]["causes"][0]["message"].endswith(": must be empty")
    both = {**sar, "spec": {**sar["spec"], "nonResourceAttributes": {"verb": "get", "path": "/api"}}}
    r = srv.request("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", json=both)
    assert r.json()["details"]["causes"][0]["message"] == (
        'Invalid value: authorization.NonResourceAttributes{Path:"/api", Verb:"get"}: cannot be specified in '
        "combination with resourceAttributes"
    )
    r = srv.request("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", json={**sar, "spec": {"user": "bob"}})
    assert r.json()["details"]["causes"][0]["message"] == (
        'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified'
    )
    # a rules review needs a namespace, and is answered without the request's spec
    rules_path = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews"
    ssrr = {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectRulesReview", "spec": {}}
    r = srv.request("POST", rules_path, json=ssrr)
    assert (r.status_code, r.json()["message"]) == (400, "no namespace on request")
    r = srv.request("POST", rules_path, json={**ssrr, "spec": {"namespace": "team"}})
    assert r.status_code == 201 and r.json()["spec"] == {} and r.json()["status"]["incomplete"] is False
    listing = bob(srv, "auth", "can-i", "--list", "-n", "team").stdout.splitlines()
    assert listing[0].split() == ["Resources", "Non-Resource", "URLs", "Resource", "Names", "Verbs"]
    rows = {line.split()[0]: line.split()[1:] for line in listing[1:]}
    assert rows["secrets"] == ["[]", "[s1]", "[get]"]
    assert rows["pods/log"] == ["[]", "[]", "[get", "list", "watch]"]
    assert rows["selfsubjectaccessreviews.authorization.k8s.io"] == ["[]", "[]", "[create]"]


def test_escalation_refused_and_allowed_with_escalate_or_bind(rbac_server):
    srv = rbac_server
    srv.kubectl("create", "namespace", "team")
    srv.kubectl("create", "rolebinding", "bob-admin", "--clusterrole=admin", "--user=bob", "-n", "team")
    bob(srv, "create", "role", "reader", "--verb=get", "--resource=secrets", "-n", "team")
    res = bob(srv, "create", "role", "nodes", "--verb=get,list", "--resource=nodes", "-n", "team", check=False)
    assert res.returncode == 1
    assert res.stderr.strip() == (
        'Error from server (Forbidden): roles.rbac.authorization.k8s.io "nodes" is forbidden: user "bob" '
        '(groups=["dev" "qa" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n'
        '{APIGroups:[""], Resources:["nodes"], Verbs:["get" "list"]}'
    )
    # the rules that could not be resolved are named, as a []error holding RulesFor's aggregate
    srv.kubectl("create", "rolebinding", "bob-missing", "--role=missing", "--user=bob", "-n", "team")
    res = bob(srv, "create", "role", "nodes", "--verb=get,list", "--resource=nodes", "-n", "team", check=False)
    assert res.stderr.strip().endswith('; resolution errors: [role.rbac.authorization.k8s.io "missing" not found]'), (
        res.stderr
    )
    srv.kubectl("delete", "rolebinding", "bob-missing", "-n", "team")
    res = bob(
        srv, "create", "rolebinding", "me-admin", "--clusterrole=cluster-admin", "--user=bob", "-n", "team", check=False
    )
    assert 'rolebindings.rbac.authorization.k8s.io "me-admin" is forbidden: user "bob"' in res.stderr
    assert "is attempting to grant RBAC permissions not currently held" in res.stderr
    res = bob(srv, "create", "rolebinding", "ghost", "--clusterrole=ghost", "--user=bob", "-n", "team", check=False)
    assert (
        'rolebindings.rbac.authorization.k8s.io "ghost" is forbidden: '
        'clusterroles.rbac.authorization.k8s.io "ghost" not found' in res.stderr
    )
    # binding a role one holds is fine; bind and escalate verbs lift the check
    bob(srv, "create", "rolebinding", "alice-view", "--clusterrole=view", "--user=alice", "-n", "team")
    srv.kubectl(
        "create", "clusterrole", "binder", "--verb=bind", "--resource=clusterroles", "--resource-name=cluster-admin"
    )
    srv.kubectl("create", "rolebinding", "bob-binder", "--clusterrole=binder", "--user=bob", "-n", "team")
    bob(srv, "create", "rolebinding", "carol-admin", "--clusterrole=cluster-admin", "--user=carol", "-n", "team")
    srv.kubectl("create", "clusterrole", "escalator", "--verb=escalate", "--resource=roles")
    srv.kubectl("create", "rolebinding", "bob-escalator", "--clusterrole=escalator", "--user=bob", "-n", "team")
    bob(srv, "create", "role", "nodes", "--verb=get,list", "--resource=nodes", "-n", "team")
    # the admin (system:masters) is never checked
    srv.kubectl("create", "clusterrole", "anything", "--verb=*", "--resource=*.*")


def test_as_impersonation(rbac_server):
    srv = rbac_server
    srv.kubectl("create", "namespace", "team")
    srv.kubectl("create", "rolebinding", "bob-view", "--clusterrole=view", "--user=bob", "-n", "team")
    assert srv.kubectl("auth", "can-i", "list", "pods", "-n", "team", "--as", "bob").stdout.strip() == "yes"
    res = srv.kubectl("get", "pods", "-n", "default", "--as", "bob", check=False)
    assert 'User "bob" cannot list resource "pods" in API group "" in the namespace "default"' in res.stderr

"""The APIServices of the groups the server serves itself, as `kubectl get apiservices` shows them on a cluster:
one per built-in group version (labelled automanaged=onstart, kube's priorities, Local and Available), one per
served version of a CRD group (automanaged=true, kept in line and removed with the CRD), and readyz waiting for
them (autoregister-completion)."""

from __future__ import annotations

import time
import uuid

import yaml
from e2e_helpers import parse_table, wait_until

from kube_apiserver.apis import GROUP_PRIORITY

PATH = "/apis/apiregistration.k8s.io/v1/apiservices"
AUTOMANAGED = "kube-aggregator.kubernetes.io/automanaged"
LOCAL = {"type": "Available", "status": "True", "reason": "Local", "message": "Local APIServices are always available"}


def _get(server, name: str) -> dict | None:
    r = server.request("GET", f"{PATH}/{name}")
    if r.status_code == 404:
        return None
    assert r.status_code == 200, r.text
    return r.json()


def _available(obj: dict) -> dict:
    (cond,) = [c for c in obj.get("status", {}).get("conditions", []) if c["type"] == "Available"]
    assert cond.pop("lastTransitionTime")
    return cond


def test_builtin_group_versions_are_listed_local_and_available(server):
    rows = {row["NAME"]: row for row in parse_table(server.kubectl("get", "apiservices").stdout)}
    expected = {f"{version}.{group}" for group, version in GROUP_PRIORITY}
    assert expected <= set(rows), sorted(expected - set(rows))
    assert "v1.apiregistration.k8s.io" not in rows  # the aggregator's own group has none, as upstream
    for name in expected:
        assert rows[name]["SERVICE"] == "Local" and rows[name]["AVAILABLE"] == "True", rows[name]

    core = _get(server, "v1.")
    assert core["metadata"]["labels"] == {AUTOMANAGED: "onstart"}
    assert core["spec"] == {"groupPriorityMinimum": 18000, "version": "v1", "versionPriority": 1}
    apps = _get(server, "v1.apps")
    assert apps["spec"] == {"group": "apps", "groupPriorityMinimum": 17800, "version": "v1", "versionPriority": 15}
    assert _available(apps) == LOCAL
    managers = {(m["manager"], m.get("subresource", "")) for m in apps["metadata"]["managedFields"]}
    assert managers == {("kube-apiserver", ""), ("kube-apiserver", "status")}


def test_readyz_lists_the_autoregistration(server):
    lines = server.kubectl("get", "--raw", "/readyz?verbose").stdout.splitlines()
    assert "[+]poststarthook/kube-apiserver-autoregistration ok" in lines
    assert "[+]poststarthook/apiservice-status-local-available-controller ok" in lines
    assert "[+]autoregister-completion ok" in lines
    assert server.kubectl("get", "--raw", "/readyz/autoregister-completion").stdout == "ok"
    assert lines[-2:] == ["[+]shutdown ok", "readyz check passed"]


def _crd(group: str, served_beta: bool) -> dict:
    schema = {"openAPIV3Schema": {"type": "object"}}
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"gizmos.{group}"},
        "spec": {
            "group": group,
            "scope": "Namespaced",
            "names": {"plural": "gizmos", "singular": "gizmo", "kind": "Gizmo"},
            "versions": [
                {"name": "v1", "served": True, "storage": True, "schema": schema},
                {"name": "v1beta1", "served": served_beta, "storage": False, "schema": schema},
            ],
        },
    }


def test_crd_group_versions_follow_the_crd(server):
    group = f"e2e-{uuid.uuid4().hex[:8]}.example.com"
    crd_path = f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.{group}"
    server.kubectl("apply", "-f", "-", input=yaml.safe_dump(_crd(group, served_beta=False)))
    try:
        v1 = wait_until(lambda: _get(server, f"v1.{group}"), message="the CRD's APIService")
        assert v1["metadata"]["labels"] == {AUTOMANAGED: "true"}
        assert v1["spec"] == {"group": group, "groupPriorityMinimum": 1000, "version": "v1", "versionPriority": 100}
        wait_until(lambda: _get(server, f"v1.{group}").get("status"), message="its status")
        assert _available(_get(server, f"v1.{group}")) == LOCAL
        assert _get(server, f"v1beta1.{group}") is None  # not served: no APIService

        # serving another version adds its APIService
        server.kubectl("apply", "-f", "-", input=yaml.safe_dump(_crd(group, served_beta=True)))
        wait_until(lambda: _get(server, f"v1beta1.{group}"), message="the newly served version")

        # a change to a continuously managed APIService is put back
        r = server.request(
            "PATCH",
            f"{PATH}/v1.{group}",
            data='{"spec":{"versionPriority":5}}',
            headers={"Content-Type": "application/merge-patch+json"},
        )
        assert r.status_code == 200, r.text
        wait_until(lambda: _get(server, f"v1.{group}")["spec"]["versionPriority"] == 100, message="the spec put back")
    finally:
        server.request("DELETE", crd_path)
    # the CRD gone, so are its APIServices
    wait_until(
        lambda: _get(server, f"v1.{group}") is None and _get(server, f"v1beta1.{group}") is None,
        message="the APIServices removed with the CRD",
    )


def test_a_users_api_service_is_left_alone(server):
    group = f"e2e-{uuid.uuid4().hex[:8]}.example.com"
    remote = {
        "apiVersion": "apiregistration.k8s.io/v1",
        "kind": "APIService",
        "metadata": {"name": f"v1.{group}"},
        "spec": {
            "group": group,
            "version": "v1",
            "groupPriorityMinimum": 100,
            "versionPriority": 10,
            "service": {"namespace": "kube-system", "name": "extension"},
        },
    }
    r = server.request("POST", PATH, json=remote)
    assert r.status_code == 201, r.text
    try:
        time.sleep(0.3)
        obj = _get(server, f"v1.{group}")
        assert "labels" not in obj["metadata"] and obj["spec"]["service"]["port"] == 443
        assert obj.get("status", {}) == {}  # a remote one: its availability needs the proxy
    finally:
        server.request("DELETE", f"{PATH}/v1.{group}")


def test_onstart_api_services_are_made_once_per_start(own_server):
    before = _get(own_server, "v1.batch")
    assert before is not None
    assert own_server.request("DELETE", f"{PATH}/v1.batch").status_code == 200
    time.sleep(0.3)
    assert _get(own_server, "v1.batch") is None  # synced on start only: not made again while running
    apps = _get(own_server, "v1.apps")

    own_server.restart()
    again = wait_until(lambda: _get(own_server, "v1.batch"), message="v1.batch made again at the next start")
    assert again["metadata"]["uid"] != before["metadata"]["uid"]
    assert _available(again) == LOCAL
    # nothing to correct in the others: no write at a restart
    assert _get(own_server, "v1.apps")["metadata"]["resourceVersion"] == apps["metadata"]["resourceVersion"]

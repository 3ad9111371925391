"""Garbage collection as a cluster does it (kube-controller-manager's collector, here in-process): dependents
go with their owners, and a delete's cascade (kubectl --cascade, propagationPolicy, orphanDependents) is
carried by the orphan and foregroundDeletion finalizers, driven with kubectl and the Python client."""

from __future__ import annotations

import json
import uuid

from e2e_helpers import apply_crd, free_form_crd, wait_until

HOLD = "example.com/hold"


def _get(server, ns: str, kind: str, name: str) -> dict | None:
    r = server.kubectl("-n", ns, "get", kind, name, "-o", "json", check=False)
    return json.loads(r.stdout) if r.returncode == 0 else None


def _owner(obj: dict, block: bool = False) -> dict:
    ref = {
        "apiVersion": obj["apiVersion"],
        "kind": obj["kind"],
        "name": obj["metadata"]["name"],
        "uid": obj["metadata"]["uid"],
    }
    if block:
        ref["blockOwnerDeletion"] = True
    return ref


def _configmap(server, ns: str, name: str, owners: list[dict], finalizers: list[str] | None = None) -> dict:
    meta: dict = {"name": name, "ownerReferences": owners}
    if finalizers:
        meta["finalizers"] = finalizers
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta}
    r = server.kubectl("-n", ns, "create", "-f", "-", "-o", "json", input=json.dumps(cm))
    return json.loads(r.stdout)


def _deployment(server, ns: str, name: str) -> dict:
    server.kubectl("-n", ns, "create", "deployment", name, "--image=nginx")
    obj = _get(server, ns, "deployment", name)
    assert obj is not None
    return obj


def _gone(server, ns: str, kind: str, name: str) -> None:
    wait_until(lambda: _get(server, ns, kind, name) is None, message=f"{kind}/{name} to be collected")


def test_dependents_go_with_their_owner(server, ns):
    web = _deployment(server, ns, "web")
    other = _deployment(server, ns, "other")
    _configmap(server, ns, "only-web", [_owner(web, block=True)])
    _configmap(server, ns, "web-and-other", [_owner(web), _owner(other)])
    server.kubectl("-n", ns, "delete", "deployment", "web")
    _gone(server, ns, "configmap", "only-web")
    # an owner is left: the dependent stays and only loses the reference to the one that went
    wait_until(
        lambda: (
            (_get(server, ns, "configmap", "web-and-other") or {})["metadata"].get("ownerReferences") == [_owner(other)]
        ),
        message="the dangling reference to be dropped",
    )
    # chains: the owner's dependents' dependents go too
    top = _deployment(server, ns, "top")
    middle = _configmap(server, ns, "middle", [_owner(top)])
    _configmap(server, ns, "bottom", [_owner(middle)])
    server.kubectl("-n", ns, "delete", "deployment", "top")
    _gone(server, ns, "configmap", "middle")
    _gone(server, ns, "configmap", "bottom")


def test_an_absent_or_replaced_owner_means_garbage(server, ns):
    ghost = {"apiVersion": "v1", "kind": "ConfigMap", "name": "ghost", "uid": str(uuid.uuid4())}
    _configmap(server, ns, "haunted", [ghost])
    _gone(server, ns, "configmap", "haunted")
    # the owner's name now belongs to another object (another uid): the reference is to one that is gone
    old = _deployment(server, ns, "reborn")
    server.kubectl("-n", ns, "delete", "deployment", "reborn")
    _deployment(server, ns, "reborn")
    _configmap(server, ns, "of-the-old-one", [_owner(old)])
    _gone(server, ns, "configmap", "of-the-old-one")
    assert _get(server, ns, "deployment", "reborn") is not None
    # an owner of a kind nobody serves keeps its dependent (it cannot be looked up)
    unknown = {"apiVersion": "nowhere.example.com/v1", "kind": "Thing", "name": "t", "uid": str(uuid.uuid4())}
    _configmap(server, ns, "of-an-unknown-kind", [unknown])
    old_cm = _configmap(server, ns, "marker", [ghost])
    _gone(server, ns, "configmap", old_cm["metadata"]["name"])
    assert _get(server, ns, "configmap", "of-an-unknown-kind") is not None


def test_foreground_deletion_waits_for_blocking_dependents(server, ns):
    web = _deployment(server, ns, "web")
    _configmap(server, ns, "blocker", [_owner(web, block=True)], finalizers=[HOLD])
    _configmap(server, ns, "bystander", [_owner(web)])
    server.kubectl("-n", ns, "delete", "deployment", "web", "--cascade=foreground", "--wait=false")
    # the dependents are deleted; the one that blocks its owner is held by its own finalizer
    _gone(server, ns, "configmap", "bystander")
    wait_until(lambda: (_get(server, ns, "configmap", "blocker") or {})["metadata"].get("deletionTimestamp"))
    owner = _get(server, ns, "deployment", "web")
    assert owner is not None
    assert owner["metadata"]["deletionTimestamp"]
    assert owner["metadata"]["finalizers"] == ["foregroundDeletion"]
    # once it is gone, so is the owner
    server.kubectl("-n", ns, "patch", "configmap", "blocker", "--type=merge", "-p", '{"metadata":{"finalizers":null}}')
    _gone(server, ns, "configmap", "blocker")
    _gone(server, ns, "deployment", "web")
    # with nothing to wait for, the owner goes at once (kubectl waits for it)
    _deployment(server, ns, "lonely")
    server.kubectl("-n", ns, "delete", "deployment", "lonely", "--cascade=foreground", "--timeout=10s")
    assert _get(server, ns, "deployment", "lonely") is None


def test_orphaning_keeps_the_dependents(server, ns):
    web = _deployment(server, ns, "web")
    other = _deployment(server, ns, "other")
    _configmap(server, ns, "kept", [_owner(web, block=True)])
    _configmap(server, ns, "shared", [_owner(web), _owner(other)])
    server.kubectl("-n", ns, "delete", "deployment", "web", "--cascade=orphan")
    _gone(server, ns, "deployment", "web")
    kept = _get(server, ns, "configmap", "kept")
    assert kept is not None and "ownerReferences" not in kept["metadata"]
    assert _get(server, ns, "configmap", "shared")["metadata"]["ownerReferences"] == [_owner(other)]


def test_jobs_orphan_their_pods_by_default(server, ns, api_client):
    from kubernetes import client

    server.kubectl("-n", ns, "create", "job", "j", "--image=busybox")
    job = _get(server, ns, "job", "j")
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "j-pod", "ownerReferences": [{**_owner(job, block=True), "controller": True}]},
        "spec": {"containers": [{"name": "c", "image": "busybox"}]},
    }
    server.kubectl("-n", ns, "create", "-f", "-", input=json.dumps(pod))
    # no propagation policy: batch/v1 Jobs orphan (the answer is the job, held by the orphan finalizer)
    answer = client.BatchV1Api(api_client).delete_namespaced_job("j", ns)
    meta = answer["metadata"] if isinstance(answer, dict) else answer.metadata.to_dict()
    assert meta["finalizers"] == ["orphan"]
    assert meta.get("deletionTimestamp") or meta.get("deletion_timestamp")
    _gone(server, ns, "job", "j")
    left = _get(server, ns, "pod", "j-pod")
    assert left is not None and "ownerReferences" not in left["metadata"]
    # kubectl deletes in the background: the pods go too
    server.kubectl("-n", ns, "create", "job", "k", "--image=busybox")
    pod["metadata"] = {"name": "k-pod", "ownerReferences": [_owner(_get(server, ns, "job", "k"))]}
    server.kubectl("-n", ns, "create", "-f", "-", input=json.dumps(pod))
    server.kubectl("-n", ns, "delete", "job", "k")
    _gone(server, ns, "pod", "k-pod")


def test_delete_options_and_their_answers(server, ns):
    base = f"/api/v1/namespaces/{ns}/configmaps"
    # orphanDependents=false on a delete left pending: 202 Accepted, kube's answer for compatibility
    _configmap(server, ns, "held", [], finalizers=[HOLD])
    r = server.request("DELETE", f"{base}/held?orphanDependents=false")
    assert r.status_code == 202, r.text
    assert r.json()["metadata"]["finalizers"] == [HOLD]
    # orphanDependents=true leaves the orphan finalizer, as propagationPolicy=Orphan does
    _configmap(server, ns, "old-style", [], finalizers=[HOLD])
    r = server.request("DELETE", f"{base}/old-style", json={"orphanDependents": True})
    assert r.status_code == 200, r.text
    assert r.json()["metadata"]["finalizers"] == [HOLD, "orphan"]
    # a later delete changes its mind: the finalizers follow the latest policy
    r = server.request("DELETE", f"{base}/old-style?propagationPolicy=Foreground")
    assert r.json()["metadata"]["finalizers"] == [HOLD, "foregroundDeletion"]
    # the query's orphanDependents as kube converts a *bool: only "0" or "false" is false, anything else true
    r = server.request("DELETE", f"{base}/old-style?orphanDependents=maybe")
    assert r.status_code == 200 and r.json()["metadata"]["finalizers"] == [HOLD, "orphan"], r.text
    r = server.request("DELETE", f"{base}/old-style?orphanDependents=FALSE")
    assert r.status_code == 202 and r.json()["metadata"]["finalizers"] == [HOLD], r.text
    # in a body it must be a bool; and with a body the query is not read
    r = server.request("DELETE", f"{base}/old-style", json={"orphanDependents": "yes"})
    assert r.status_code == 400, r.text
    r = server.request("DELETE", f"{base}/old-style?propagationPolicy=Orphan", json={"kind": "DeleteOptions"})
    assert r.status_code == 200 and r.json()["metadata"]["finalizers"] == [HOLD], r.text
    # dry run: the answer shows the finalizer, nothing is stored
    _configmap(server, ns, "dry", [])
    r = server.request("DELETE", f"{base}/dry?propagationPolicy=Foreground&dryRun=All")
    assert r.status_code == 200 and r.json()["metadata"]["finalizers"] == ["foregroundDeletion"]
    assert "finalizers" not in _get(server, ns, "configmap", "dry")["metadata"]
    # events take no part in garbage collection: no finalizer, gone at once
    event = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": "e"},
        "involvedObject": {"kind": "ConfigMap", "name": "dry", "namespace": ns},
        "reason": "Test",
        "message": "m",
    }
    assert server.request("POST", f"/api/v1/namespaces/{ns}/events", json=event).status_code == 201
    r = server.request("DELETE", f"/api/v1/namespaces/{ns}/events/e?propagationPolicy=Foreground")
    assert r.status_code == 200 and r.json()["status"] == "Success", r.text
    for name in ("held", "old-style"):
        patch = '{"metadata":{"finalizers":null}}'
        server.kubectl("-n", ns, "patch", "configmap", name, "--type=merge", "-p", patch)


def test_custom_resources_own_and_are_owned(server, ns, tmp_path):
    group = f"gc{uuid.uuid4().hex[:6]}.example.com"
    crd = free_form_crd(group, "widgets", "Widget")
    apply_crd(server, crd)
    try:
        base = f"/apis/{group}/v1/namespaces/{ns}/widgets"
        widget = {"apiVersion": f"{group}/v1", "kind": "Widget", "metadata": {"name": "w"}}
        r = server.request("POST", base, json=widget)
        assert r.status_code == 201, r.text
        _configmap(server, ns, "widget-config", [_owner(r.json())])
        # a custom resource owned by a built-in object
        holder = _configmap(server, ns, "holder", [])
        owned = {**widget, "metadata": {"name": "owned", "ownerReferences": [_owner(holder)]}}
        assert server.request("POST", base, json=owned).status_code == 201
        assert server.request("DELETE", f"{base}/w").status_code == 200
        _gone(server, ns, "configmap", "widget-config")
        server.kubectl("-n", ns, "delete", "configmap", "holder")
        wait_until(lambda: server.request("GET", f"{base}/owned").status_code == 404, message="owned widget")
    finally:
        server.kubectl("delete", "crd", f"widgets.{group}", "--wait=false")


def test_garbage_collector_off(server_factory):
    srv = server_factory("--enable-garbage-collector=false")
    srv.kubectl("create", "deployment", "web", "--image=nginx")
    web = json.loads(srv.kubectl("get", "deployment", "web", "-o", "json").stdout)
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "dep", "ownerReferences": [_owner(web)]}}
    srv.kubectl("create", "-f", "-", input=json.dumps(cm))
    # no finalizer for a collector that is not there: a foreground delete removes the object at once
    srv.kubectl("delete", "deployment", "web", "--cascade=foreground", "--timeout=10s")
    assert srv.kubectl("get", "deployment", "web", check=False).returncode != 0
    assert srv.kubectl("get", "configmap", "dep", check=False).returncode == 0


def test_an_owner_waiting_in_the_foreground_goes_once_nothing_blocks_it(server, ns):
    """addUnblockedOwnersToDeleteQueue: a blocking dependent that drops its reference, or stops blocking,
    lets its owner go; the owner's finalizers are taken off, not left as an empty list."""
    for owner_name, change in (("ua", "drop"), ("ub", "unblock")):
        owner = _deployment(server, ns, owner_name)
        dep = f"{owner_name}-dep"
        _configmap(server, ns, dep, [_owner(owner, block=True)], finalizers=[HOLD])
        server.kubectl("-n", ns, "delete", "deployment", owner_name, "--cascade=foreground", "--wait=false")
        wait_until(lambda dep=dep: (_get(server, ns, "configmap", dep) or {})["metadata"].get("deletionTimestamp"))
        refs = [] if change == "drop" else [_owner(owner)]
        patch = json.dumps({"metadata": {"ownerReferences": refs or None}})
        server.kubectl("-n", ns, "patch", "configmap", dep, "--type=merge", "-p", patch)
        _gone(server, ns, "deployment", owner_name)
        server.kubectl("-n", ns, "patch", "configmap", dep, "--type=merge", "-p", '{"metadata":{"finalizers":null}}')
    # a pod in its grace period keeps its other metadata; the collector's finalizer goes without a trace
    web = _deployment(server, ns, "graceful")
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "runs", "ownerReferences": [_owner(web)]},
        "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "nginx"}]},
    }
    server.kubectl("-n", ns, "create", "-f", "-", input=json.dumps(pod))
    server.kubectl("-n", ns, "delete", "pod", "runs", "--cascade=foreground", "--wait=false")
    wait_until(lambda: "finalizers" not in (_get(server, ns, "pod", "runs") or {"metadata": {}})["metadata"])
    # a second delete that does not shorten the grace period changes nothing, finalizers included
    r = server.request("DELETE", f"/api/v1/namespaces/{ns}/pods/runs", json={"propagationPolicy": "Orphan"})
    assert r.status_code == 200 and "finalizers" not in r.json()["metadata"], r.text
    server.request("DELETE", f"/api/v1/namespaces/{ns}/pods/runs", json={"gracePeriodSeconds": 0})


def test_a_reference_to_a_version_not_served_keeps_its_dependent(server, ns):
    """As upstream's REST mapping of the reference fails for it: the dependent is not collected."""
    gone = {"apiVersion": "apps/v1beta1", "kind": "Deployment", "name": "old", "uid": str(uuid.uuid4())}
    _configmap(server, ns, "of-a-beta", [gone])
    ghost = {"apiVersion": "v1", "kind": "ConfigMap", "name": "ghost", "uid": str(uuid.uuid4())}
    _configmap(server, ns, "marker", [ghost])
    _gone(server, ns, "configmap", "marker")  # the collector has been through both
    assert _get(server, ns, "configmap", "of-a-beta") is not None


def test_a_namespace_deleted_with_orphan_dependents_false_waits_in_the_foreground(server):
    name = f"gc-ns-{uuid.uuid4().hex[:6]}"
    server.kubectl("create", "namespace", name)
    r = server.request("DELETE", f"/api/v1/namespaces/{name}", json={"orphanDependents": False})
    assert r.status_code == 202, r.text
    assert r.json()["metadata"]["finalizers"] == ["foregroundDeletion"]

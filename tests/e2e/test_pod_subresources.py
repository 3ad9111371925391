"""The pods subresources a cluster without nodes can still serve, the way kube-apiserver 1.33 serves them:
binding, eviction (with PodDisruptionBudgets kept up to date by the in-process disruption controller),
ephemeralcontainers, and the kubelet-backed ones (log, exec, attach, portforward, proxy) up to the point
where the kubelet would have to answer."""

from __future__ import annotations

import http.server
import json
import socket
import threading

import pytest
from e2e_helpers import wait_until
from kubernetes import client
from kubernetes.client.rest import ApiException

MERGE = {"Content-Type": "application/merge-patch+json"}


def pod_manifest(name: str, labels: dict | None = None, containers: tuple[str, ...] = ("c",), **meta) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": labels or {}, **meta},
        "spec": {"containers": [{"name": c, "image": "nginx:1.27"} for c in containers]},
    }


def create_pod(server, ns: str, name: str, **kw) -> dict:
    r = server.request("POST", f"/api/v1/namespaces/{ns}/pods", json=pod_manifest(name, **kw))
    assert r.status_code == 201, r.text
    return r.json()


def bind(server, ns: str, name: str, node: str = "node-1") -> None:
    body = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": name}, "target": {"kind": "Node", "name": node}}
    r = server.request("POST", f"/api/v1/namespaces/{ns}/pods/{name}/binding", json=body)
    assert r.status_code == 201, r.text


def make_running(server, ns: str, name: str, ready: bool = True, pod_ip: str | None = None) -> None:
    """What a kubelet would report: phase Running and the Ready condition."""
    status: dict = {"phase": "Running", "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}
    if pod_ip:
        status.update(podIP=pod_ip, podIPs=[{"ip": pod_ip}])
    r = server.request("PATCH", f"/api/v1/namespaces/{ns}/pods/{name}/status", json={"status": status}, headers=MERGE)
    assert r.status_code == 200, r.text


def running_pods(server, ns: str, names: list[str], labels: dict) -> None:
    for name in names:
        create_pod(server, ns, name, labels=labels)
        bind(server, ns, name)
        make_running(server, ns, name)


def create_pdb(server, ns: str, name: str, spec: dict) -> dict:
    body = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": name}, "spec": spec}
    r = server.request("POST", f"/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def pdb_status(server, ns: str, name: str) -> dict:
    r = server.request("GET", f"/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets/{name}")
    assert r.status_code == 200, r.text
    return r.json()


def settled_pdb(server, ns: str, name: str, **expect) -> dict:
    """The budget once the disruption controller has caught up with its spec and the given values."""

    def check():
        pdb = pdb_status(server, ns, name)
        status = pdb.get("status") or {}
        if status.get("observedGeneration") != pdb["metadata"]["generation"]:
            return None
        return pdb if all(status.get(k) == v for k, v in expect.items()) else None

    return wait_until(check, message=f"PodDisruptionBudget {name} status {expect}")


def evict(server, ns: str, name: str, delete_options: dict | None = None, query: str = ""):
    body = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": name, "namespace": ns}}
    if delete_options is not None:
        body["deleteOptions"] = delete_options
    return server.request("POST", f"/api/v1/namespaces/{ns}/pods/{name}/eviction{query}", json=body)


def get_pod(server, ns: str, name: str):
    return server.request("GET", f"/api/v1/namespaces/{ns}/pods/{name}")


def status_body(r, code: int) -> dict:
    assert r.status_code == code, r.text
    body = r.json()
    assert body["kind"] == "Status" and body["code"] == code, body
    return body


SUCCESS_201 = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}


# --- pods/binding ---


class TestBinding:
    def test_binding_sets_node_and_condition_then_conflicts(self, server, ns):
        create_pod(server, ns, "p1")
        body = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "p1", "annotations": {"a": "b"}}}
        body["target"] = {"kind": "Node", "name": "node-1"}
        r = server.request("POST", f"/api/v1/namespaces/{ns}/pods/p1/binding", json=body)
        assert r.status_code == 201 and r.json() == SUCCESS_201
        pod = get_pod(server, ns, "p1").json()
        assert pod["spec"]["nodeName"] == "node-1"
        assert pod["metadata"]["annotations"] == {"a": "b"}
        [cond] = pod["status"]["conditions"]
        assert cond["type"] == "PodScheduled" and cond["status"] == "True"
        assert cond["lastProbeTime"] is None and cond["lastTransitionTime"]

        body["target"]["name"] = "node-2"
        r = server.request("POST", f"/api/v1/namespaces/{ns}/pods/p1/binding", json=body)
        body = status_body(r, 409)
        assert body["reason"] == "Conflict"
        assert (
            body["message"]
            == 'Operation cannot be fulfilled on pods/binding "p1": pod p1 is already assigned to node "node-1"'
        )
        assert body["details"] == {"name": "p1", "kind": "pods/binding"}
        assert get_pod(server, ns, "p1").json()["spec"]["nodeName"] == "node-1"

    def test_binding_errors(self, server, ns):
        create_pod(server, ns, "p1")
        ok = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "p1"}, "target": {"name": "n"}}
        r = server.request(
            "POST", f"/api/v1/namespaces/{ns}/pods/missing/binding", json={**ok, "metadata": {"name": "missing"}}
        )
        assert status_body(r, 404)["message"] == 'pods "missing" not found'
        r = server.request(
            "POST", f"/api/v1/namespaces/{ns}/pods/p1/binding", json={**ok, "metadata": {"name": "other"}}
        )
        body = status_body(r, 400)
        assert body["reason"] == "BadRequest" and body["message"] == "name in URL does not match name in Binding object"
        # ValidatePodBinding's errors: upstream answers 500 (not a Status error there); here the 422 of bad input.
        bad = {**ok, "target": {"kind": "Pod"}}
        body = status_body(server.request("POST", f"/api/v1/namespaces/{ns}/pods/p1/binding", json=bad), 422)
        assert body["reason"] == "Invalid"
        assert body["message"] == (
            'Binding "p1" is invalid: [target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>", '
            "target.name: Required value]"
        )
        assert [c["field"] for c in body["details"]["causes"]] == ["target.kind", "target.name"]
        assert "nodeName" not in get_pod(server, ns, "p1").json()["spec"]

    def test_dry_run_binding_writes_nothing(self, server, ns):
        create_pod(server, ns, "p1")
        body = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "p1"}, "target": {"name": "n"}}
        r = server.request("POST", f"/api/v1/namespaces/{ns}/pods/p1/binding?dryRun=All", json=body)
        assert r.status_code == 201, r.text
        assert "nodeName" not in get_pod(server, ns, "p1").json()["spec"]

    def test_legacy_bindings_resource_and_python_client(self, server, ns, core_v1):
        create_pod(server, ns, "p1")
        create_pod(server, ns, "p2")
        body = client.V1Binding(metadata=client.V1ObjectMeta(name="p1"), target=client.V1ObjectReference(name="n1"))
        # The response is a Status, which the generated client cannot read as a V1Binding: take it raw.
        resp = core_v1.create_namespaced_binding(ns, body, _preload_content=False)
        assert resp.status == 201 and json.loads(resp.data) == SUCCESS_201
        body = client.V1Binding(metadata=client.V1ObjectMeta(name="p2"), target=client.V1ObjectReference(name="n2"))
        resp = core_v1.create_namespaced_pod_binding("p2", ns, body, _preload_content=False)
        assert resp.status == 201
        assert core_v1.read_namespaced_pod("p1", ns).spec.node_name == "n1"
        assert core_v1.read_namespaced_pod("p2", ns).spec.node_name == "n2"
        with pytest.raises(ApiException) as e:
            core_v1.create_namespaced_binding(ns, body, _preload_content=False)
        assert e.value.status == 409
        # kubectl reads the field selector spec.nodeName
        out = server.kubectl("-n", ns, "get", "pods", "--field-selector=spec.nodeName=n1", "-o", "name").stdout
        assert out.split() == ["pod/p1"]


# --- pods/eviction ---


class TestEviction:
    def test_pending_pod_is_deleted_without_budget_check(self, server, ns, core_v1):
        create_pod(server, ns, "p1", labels={"app": "x"})
        create_pdb(server, ns, "pdb", {"minAvailable": 5, "selector": {"matchLabels": {"app": "x"}}})
        body = client.V1Eviction(metadata=client.V1ObjectMeta(name="p1", namespace=ns))
        core_v1.create_namespaced_pod_eviction("p1", ns, body)
        assert get_pod(server, ns, "p1").status_code == 404
        with pytest.raises(ApiException) as e:
            core_v1.create_namespaced_pod_eviction("p1", ns, body)
        assert e.value.status == 404

    def test_running_pod_without_budget_is_deleted_gracefully(self, server, ns):
        running_pods(server, ns, ["p1"], {"app": "x"})
        r = evict(server, ns, "p1")
        assert r.status_code == 201 and r.json() == SUCCESS_201
        pod = get_pod(server, ns, "p1").json()
        # Scheduled and running: a graceful deletion, marked as the eviction's doing.
        assert pod["metadata"]["deletionGracePeriodSeconds"] == 30
        target = [c for c in pod["status"]["conditions"] if c["type"] == "DisruptionTarget"]
        assert target and target[0]["reason"] == "EvictionByEvictionAPI"
        assert target[0]["message"] == "Eviction API: evicting"

    def test_budget_blocks_then_allows(self, server, ns):
        running_pods(server, ns, ["w0", "w1", "w2"], {"app": "web"})
        create_pdb(server, ns, "web", {"minAvailable": 3, "selector": {"matchLabels": {"app": "web"}}})
        pdb = settled_pdb(server, ns, "web", currentHealthy=3, desiredHealthy=3, expectedPods=3, disruptionsAllowed=0)
        [cond] = pdb["status"]["conditions"]
        assert (cond["type"], cond["status"], cond["reason"], cond["message"]) == (
            "DisruptionAllowed",
            "False",
            "InsufficientPods",
            "",
        )

        r = evict(server, ns, "w0", {"gracePeriodSeconds": 0})
        body = status_body(r, 429)
        assert body["reason"] == "TooManyRequests"
        assert body["message"] == "Cannot evict pod as it would violate the pod's disruption budget."
        assert body["details"] == {
            "causes": [
                {
                    "reason": "DisruptionBudget",
                    "message": "The disruption budget web needs 3 healthy pods and has 3 currently",
                }
            ]
        }
        assert "retry-after" not in r.headers
        assert get_pod(server, ns, "w0").status_code == 200

        r = server.request(
            "PATCH",
            f"/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets/web",
            json={"spec": {"minAvailable": 2}},
            headers=MERGE,
        )
        assert r.status_code == 200, r.text
        pdb = settled_pdb(server, ns, "web", desiredHealthy=2, disruptionsAllowed=1)
        assert pdb["status"]["conditions"][0]["reason"] == "SufficientPods"

        # dry run: nothing taken from the budget, nothing deleted
        r = evict(server, ns, "w0", {"gracePeriodSeconds": 0}, query="?dryRun=All")
        assert r.status_code == 201, r.text
        assert get_pod(server, ns, "w0").status_code == 200
        assert pdb_status(server, ns, "web")["status"]["disruptionsAllowed"] == 1

        # dry-run in the query and in the body must agree (propagateDryRun); a null entry is Go's ""
        r = evict(server, ns, "w0", {"dryRun": [None]}, query="?dryRun=All")
        assert r.status_code == 500
        assert r.json()["message"] == "Non-matching dry-run options in request and content: [All] and []"

        r = evict(server, ns, "w0", {"gracePeriodSeconds": 0})
        assert r.status_code == 201 and r.json() == SUCCESS_201, r.text
        assert get_pod(server, ns, "w0").status_code == 404
        settled_pdb(server, ns, "web", currentHealthy=2, expectedPods=2, disruptionsAllowed=0)
        body = status_body(evict(server, ns, "w1", {"gracePeriodSeconds": 0}), 429)
        assert body["details"]["causes"][0]["message"] == (
            "The disruption budget web needs 2 healthy pods and has 2 currently"
        )

    def test_eviction_is_recorded_in_the_budget(self, server, ns):
        running_pods(server, ns, ["w0", "w1"], {"app": "web"})
        create_pdb(server, ns, "web", {"maxUnavailable": 1, "selector": {"matchLabels": {"app": "web"}}})
        # maxUnavailable counts the pods' controllers: these pods have none, so nothing is expected.
        settled_pdb(server, ns, "web", expectedPods=0, desiredHealthy=0, currentHealthy=2, disruptionsAllowed=0)
        server.request(
            "PATCH",
            f"/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets/web",
            json={"spec": {"maxUnavailable": None, "minAvailable": 1}},
            headers=MERGE,
        )
        settled_pdb(server, ns, "web", expectedPods=2, desiredHealthy=1, disruptionsAllowed=1)
        assert evict(server, ns, "w0").status_code == 201
        # graceful: the pod stays, terminating, and no longer counts as healthy
        pod = get_pod(server, ns, "w0").json()
        assert pod["metadata"]["deletionTimestamp"]
        pdb = settled_pdb(server, ns, "web", currentHealthy=1, disruptionsAllowed=0)
        assert "disruptedPods" not in pdb["status"]  # the controller saw the pod terminating

    def test_more_than_one_budget(self, server, ns):
        running_pods(server, ns, ["p1"], {"app": "x", "tier": "a"})
        create_pdb(server, ns, "one", {"minAvailable": 0, "selector": {"matchLabels": {"app": "x"}}})
        create_pdb(server, ns, "two", {"minAvailable": 0, "selector": {"matchLabels": {"tier": "a"}}})
        settled_pdb(server, ns, "one", disruptionsAllowed=1)
        settled_pdb(server, ns, "two", disruptionsAllowed=1)
        r = evict(server, ns, "p1")
        assert r.status_code == 500
        assert r.json() == {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
            "code": 500,
        }

    def test_unready_pod_is_evicted_when_the_budget_is_met(self, server, ns):
        running_pods(server, ns, ["r1", "r2"], {"app": "x"})
        create_pod(server, ns, "sick", labels={"app": "x"})
        bind(server, ns, "sick")
        make_running(server, ns, "sick", ready=False)
        create_pdb(server, ns, "pdb", {"minAvailable": 2, "selector": {"matchLabels": {"app": "x"}}})
        settled_pdb(server, ns, "pdb", currentHealthy=2, desiredHealthy=2, expectedPods=3, disruptionsAllowed=0)
        assert evict(server, ns, "sick", {"gracePeriodSeconds": 0}).status_code == 201
        assert get_pod(server, ns, "sick").status_code == 404
        assert status_body(evict(server, ns, "r1"), 429)["reason"] == "TooManyRequests"

    def test_eviction_request_errors(self, server, ns):
        create_pod(server, ns, "p1")
        body = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "other"}}
        r = server.request("POST", f"/api/v1/namespaces/{ns}/pods/p1/eviction", json=body)
        assert status_body(r, 400)["message"] == "name in URL does not match name in Eviction object"
        r = evict(server, ns, "p1", {"propagationPolicy": "Sideways"})
        body = status_body(r, 422)
        assert body["message"] == (
            'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": '
            'supported values: "Foreground", "Background", "Orphan", "nil"'
        )
        # policy/v1beta1 Evictions are still accepted
        body = {"apiVersion": "policy/v1beta1", "kind": "Eviction", "metadata": {"name": "p1"}}
        r = server.request("POST", f"/api/v1/namespaces/{ns}/pods/p1/eviction", json=body)
        assert r.status_code == 201, r.text
        assert get_pod(server, ns, "p1").status_code == 404

    def test_kubectl_drain(self, server, ns):
        node = f"drain-{ns}"[:63]
        r = server.request(
            "POST", "/api/v1/nodes", json={"apiVersion": "v1", "kind": "Node", "metadata": {"name": node}}
        )
        assert r.status_code == 201, r.text
        for name in ("d1", "d2"):
            create_pod(server, ns, name, labels={"app": "d"})
            bind(server, ns, name, node)
            make_running(server, ns, name)
        create_pdb(server, ns, "pdb", {"minAvailable": 1, "selector": {"matchLabels": {"app": "d"}}})
        settled_pdb(server, ns, "pdb", currentHealthy=2, disruptionsAllowed=1)
        res = server.kubectl("drain", node, "--force", "--grace-period=0", "--timeout=3s", check=False)
        assert res.returncode == 1
        assert "Cannot evict pod as it would violate the pod's disruption budget." in res.stderr, res.stderr
        assert "evicted" in res.stdout, res.stdout
        remaining = server.kubectl("-n", ns, "get", "pods", "-o", "name").stdout.split()
        assert len(remaining) == 1
        assert server.request("GET", f"/api/v1/nodes/{node}").json()["spec"]["unschedulable"] is True
        server.request("DELETE", f"/api/v1/nodes/{node}")


class TestDisruptionController:
    def test_percentages_use_the_controllers_scale(self, server, ns):
        rs = {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {"name": "rs"},
            "spec": {
                "replicas": 5,
                "selector": {"matchLabels": {"app": "rs"}},
                "template": {"metadata": {"labels": {"app": "rs"}}, "spec": pod_manifest("x")["spec"]},
            },
        }
        r = server.request("POST", f"/apis/apps/v1/namespaces/{ns}/replicasets", json=rs)
        assert r.status_code == 201, r.text
        owner = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": r.json()["metadata"]["uid"]}
        for i in range(3):
            name = f"rs-{i}"
            create_pod(server, ns, name, labels={"app": "rs"}, ownerReferences=[{**owner, "controller": True}])
            bind(server, ns, name)
            make_running(server, ns, name)
        create_pdb(server, ns, "min", {"minAvailable": "30%", "selector": {"matchLabels": {"app": "rs"}}})
        create_pdb(server, ns, "max", {"maxUnavailable": "50%", "selector": {"matchLabels": {"app": "rs"}}})
        # 30% of 5 rounds up to 2; 5 - ceil(2.5) = 2
        settled_pdb(server, ns, "min", expectedPods=5, desiredHealthy=2, currentHealthy=3, disruptionsAllowed=1)
        settled_pdb(server, ns, "max", expectedPods=5, desiredHealthy=2, currentHealthy=3, disruptionsAllowed=1)
        # scaling the controller moves the budget
        r = server.request(
            "PATCH", f"/apis/apps/v1/namespaces/{ns}/replicasets/rs", json={"spec": {"replicas": 10}}, headers=MERGE
        )
        assert r.status_code == 200, r.text
        settled_pdb(server, ns, "min", expectedPods=10, desiredHealthy=3, disruptionsAllowed=0)
        # a pod turning unready is seen too
        server.request("DELETE", f"/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets/max")
        make_running(server, ns, "rs-0", ready=False)
        settled_pdb(server, ns, "min", currentHealthy=2, disruptionsAllowed=0)

    def test_controller_without_scale_fails_safe(self, server, ns):
        job = {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {"name": "job"},
            "spec": {
                "template": {
                    "metadata": {"labels": {"app": "job"}},
                    "spec": {**pod_manifest("x")["spec"], "restartPolicy": "Never"},
                }
            },
        }
        r = server.request("POST", f"/apis/batch/v1/namespaces/{ns}/jobs", json=job)
        assert r.status_code == 201, r.text
        owner = {"apiVersion": "batch/v1", "kind": "Job", "name": "job", "uid": r.json()["metadata"]["uid"]}
        create_pod(server, ns, "j1", labels={"app": "job"}, ownerReferences=[{**owner, "controller": True}])
        create_pdb(server, ns, "pdb", {"maxUnavailable": 1, "selector": {"matchLabels": {"app": "job"}}})

        def failed():
            status = pdb_status(server, ns, "pdb").get("status") or {}
            conds = [c for c in status.get("conditions") or [] if c.get("reason") == "SyncFailed"]
            return conds[0] if conds else None

        cond = wait_until(failed, message="SyncFailed condition")
        assert cond["status"] == "False" and cond["type"] == "DisruptionAllowed"
        assert cond["message"] == "jobs.batch does not implement the scale subresource"
        assert pdb_status(server, ns, "pdb")["status"]["disruptionsAllowed"] == 0


# --- pods/ephemeralcontainers ---


class TestEphemeralContainers:
    def test_kubectl_debug_adds_an_ephemeral_container(self, server, ns):
        create_pod(server, ns, "p1")
        server.kubectl("-n", ns, "debug", "p1", "--image=busybox:1.36", "-c", "dbg", "--profile=general")
        pod = get_pod(server, ns, "p1").json()
        [dbg] = pod["spec"]["ephemeralContainers"]
        assert dbg["name"] == "dbg" and dbg["image"] == "busybox:1.36"
        r = server.request("GET", f"/api/v1/namespaces/{ns}/pods/p1/ephemeralcontainers")
        assert r.status_code == 200 and r.json()["kind"] == "Pod"
        assert r.json()["spec"]["ephemeralContainers"][0]["name"] == "dbg"

    def test_only_additions_of_ephemeral_containers(self, server, ns, core_v1):
        create_pod(server, ns, "p1", labels={"keep": "me"})
        patched = core_v1.patch_namespaced_pod_ephemeralcontainers(
            "p1", ns, {"spec": {"ephemeralContainers": [{"name": "e1", "image": "busybox"}]}}
        )
        assert [c.name for c in patched.spec.ephemeral_containers] == ["e1"]
        pod = server.request("GET", f"/api/v1/namespaces/{ns}/pods/p1/ephemeralcontainers").json()

        # Anything else in the body is ignored: labels, containers, status.
        changed = json.loads(json.dumps(pod))
        changed["metadata"]["labels"] = {"other": "x"}
        changed["spec"]["containers"][0]["image"] = "other:1"
        changed["spec"]["ephemeralContainers"].append({"name": "e2", "image": "busybox"})
        r = server.request("PUT", f"/api/v1/namespaces/{ns}/pods/p1/ephemeralcontainers", json=changed)
        assert r.status_code == 200, r.text
        got = r.json()
        assert got["metadata"]["labels"] == {"keep": "me"}
        assert got["spec"]["containers"][0]["image"] == "nginx:1.27"
        assert [c["name"] for c in got["spec"]["ephemeralContainers"]] == ["e1", "e2"]

        removed = json.loads(json.dumps(got))
        removed["spec"]["ephemeralContainers"] = removed["spec"]["ephemeralContainers"][1:]
        body = status_body(
            server.request("PUT", f"/api/v1/namespaces/{ns}/pods/p1/ephemeralcontainers", json=removed), 422
        )
        assert body["message"] == (
            'Pod "p1" is invalid: spec.ephemeralContainers: Forbidden: existing ephemeral containers "e1" may not be removed\n'
        )
        altered = json.loads(json.dumps(got))
        altered["spec"]["ephemeralContainers"][0]["image"] = "alpine"
        body = status_body(
            server.request("PUT", f"/api/v1/namespaces/{ns}/pods/p1/ephemeralcontainers", json=altered), 422
        )
        assert body["message"].startswith(
            'Pod "p1" is invalid: spec.ephemeralContainers: Forbidden: existing ephemeral containers "e1" may not be changed\n'
        )
        assert body["details"]["causes"][0]["field"] == "spec.ephemeralContainers"

    def test_static_pods_have_none(self, server, ns):
        mirror = pod_manifest("mirror", annotations={"kubernetes.io/config.mirror": "x"})
        mirror["spec"]["nodeName"] = "node-1"  # a mirror pod is its node's
        assert server.request("POST", f"/api/v1/namespaces/{ns}/pods", json=mirror).status_code == 201
        r = server.request(
            "PATCH",
            f"/api/v1/namespaces/{ns}/pods/mirror/ephemeralcontainers",
            json={"spec": {"ephemeralContainers": [{"name": "e1", "image": "busybox"}]}},
            headers={"Content-Type": "application/strategic-merge-patch+json"},
        )
        body = status_body(r, 422)
        assert (
            body["message"] == 'Pod "mirror" is invalid: []: Forbidden: static pods do not support ephemeral containers'
        )

    def test_missing_pod(self, server, ns):
        r = server.request("GET", f"/api/v1/namespaces/{ns}/pods/nope/ephemeralcontainers")
        assert status_body(r, 404)["message"] == 'pods "nope" not found'


class TestResize:
    """pods/resize (in-place vertical scaling, beta and on in 1.33): only cpu and memory requests and limits
    change through it, the QoS class stays, nothing is removed; the main resource still refuses them."""

    def _pod(self, server, ns, name="rz", node="", **meta):
        pod = pod_manifest(name, **meta)
        if node:
            pod["spec"]["nodeName"] = node
        pod["spec"]["containers"][0]["resources"] = {
            "requests": {"cpu": "100m", "memory": "64Mi"},
            "limits": {"cpu": "200m", "memory": "128Mi"},
        }
        r = server.request("POST", f"/api/v1/namespaces/{ns}/pods", json=pod)
        assert r.status_code == 201, r.text
        return r.json()

    def test_kubectl_resizes_cpu_and_memory(self, server, ns):
        self._pod(server, ns)
        patch = {"spec": {"containers": [{"name": "c", "image": "other:1", "resources": {"limits": {"cpu": "300m"}}}]}}
        server.kubectl("-n", ns, "patch", "pod", "rz", "--subresource=resize", "-p", json.dumps(patch))
        pod = get_pod(server, ns, "rz").json()
        container = pod["spec"]["containers"][0]
        assert container["resources"] == {
            "limits": {"cpu": "300m", "memory": "128Mi"},
            "requests": {"cpu": "100m", "memory": "64Mi"},
        }
        assert container["image"] == "nginx:1.27"  # anything but resources is dropped from the request
        assert pod["metadata"]["generation"] == 2
        assert [m["subresource"] for m in pod["metadata"]["managedFields"] if "subresource" in m] == ["resize"]
        r = server.request("GET", f"/api/v1/namespaces/{ns}/pods/rz/resize")
        assert r.status_code == 200 and r.json()["kind"] == "Pod"
        # the main resource still refuses a change of resources
        more = {"spec": {"containers": [{"name": "c", "resources": {"limits": {"cpu": "400m"}}}]}}
        res = server.kubectl("-n", ns, "patch", "pod", "rz", "-p", json.dumps(more), check=False)
        assert res.returncode != 0 and "pod updates may not change fields other than" in res.stderr

    @pytest.mark.parametrize(
        ("patch", "message"),
        [
            (
                {"requests": {"cpu": "200m", "memory": "128Mi"}},
                'spec: Invalid value: "Burstable": Pod QOS Class may not change as a result of resizing',
            ),
            (
                {"requests": {"cpu": "250m"}},
                'spec.containers[0].resources.requests: Invalid value: "250m": must be less than or equal to cpu '
                "limit of 200m",
            ),
            ({"requests": {"ephemeral-storage": "1Gi"}}, "spec: Forbidden: only cpu and memory resources are mutable"),
            (
                {"limits": {"memory": None}},
                "spec.containers[0].resources.limits[memory]: Forbidden: resource limits cannot be removed",
            ),
        ],
    )
    def test_refused_resizes(self, server, ns, patch, message):
        self._pod(server, ns)
        r = server.request(
            "PATCH",
            f"/api/v1/namespaces/{ns}/pods/rz/resize",
            json={"spec": {"containers": [{"name": "c", "resources": patch}]}},
            headers={"Content-Type": "application/strategic-merge-patch+json"},
        )
        body = status_body(r, 422)
        assert body["message"] == f'Pod "rz" is invalid: {message}', body

    def test_static_pods_cannot_be_resized(self, server, ns):
        self._pod(server, ns, "mirror", node="node-1", annotations={"kubernetes.io/config.mirror": "x"})
        r = server.request(
            "PATCH",
            f"/api/v1/namespaces/{ns}/pods/mirror/resize",
            json={"spec": {"containers": [{"name": "c", "resources": {"limits": {"cpu": "300m"}}}]}},
            headers={"Content-Type": "application/strategic-merge-patch+json"},
        )
        assert status_body(r, 422)["message"] == 'Pod "mirror" is invalid: []: Forbidden: static pods cannot be resized'


# --- log, exec, attach, portforward ---


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def create_node(server, name: str, addresses: list[dict], kubelet_port: int | None = None) -> None:
    r = server.request("POST", "/api/v1/nodes", json={"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}})
    assert r.status_code == 201, r.text
    status: dict = {"addresses": addresses}
    if kubelet_port:
        status["daemonEndpoints"] = {"kubeletEndpoint": {"Port": kubelet_port}}
    r = server.request("PATCH", f"/api/v1/nodes/{name}/status", json={"status": status}, headers=MERGE)
    assert r.status_code == 200, r.text


UPGRADE = {"Connection": "Upgrade", "Upgrade": "SPDY/3.1"}


class TestStreaming:
    def test_container_name_checks(self, server, ns, core_v1):
        create_pod(server, ns, "multi", containers=("a", "b"))
        for sub in ("log", "exec?command=ls", "attach?stdout=1"):
            method = "GET" if sub == "log" else "POST"
            r = server.request(method, f"/api/v1/namespaces/{ns}/pods/multi/{sub}")
            assert (
                status_body(r, 400)["message"]
                == "a container name must be specified for pod multi, choose one of: [a b]"
            )
        r = server.request("GET", f"/api/v1/namespaces/{ns}/pods/multi/log?container=c")
        assert status_body(r, 400)["message"] == "container c is not valid for pod multi"
        r = server.request("POST", f"/api/v1/namespaces/{ns}/pods/multi/exec?container=a&command=ls")
        assert status_body(r, 400)["message"] == "pod multi does not have a host assigned"
        # 204 No Content for a pod without a node: the generated client has nothing to decode.
        assert core_v1.read_namespaced_pod_log("multi", ns, container="b") is None
        r = server.request("GET", f"/api/v1/namespaces/{ns}/pods/missing/log")
        assert status_body(r, 404)["message"] == 'pods "missing" not found'
        r = server.request("POST", f"/api/v1/namespaces/{ns}/pods/missing/exec?command=ls")
        assert status_body(r, 404)["message"] == 'pods "missing" not found'

    def test_log_options_are_validated(self, server, ns):
        create_pod(server, ns, "p1")
        r = server.request("GET", f"/api/v1/namespaces/{ns}/pods/p1/log?tailLines=-1&sinceSeconds=0")
        body = status_body(r, 422)
        assert body["message"] == (
            'PodLogOptions "p1" is invalid: [tailLines: Invalid value: -1: must be greater than or equal to 0, '
            "sinceSeconds: Invalid value: 0: must be greater than 0]"
        )
        r = server.request("GET", f"/api/v1/namespaces/{ns}/pods/p1/log?tailLines=abc")
        assert status_body(r, 400)["message"] == 'strconv.ParseInt: parsing "abc": invalid syntax'

    def test_scheduled_pod_without_reachable_kubelet(self, server, ns):
        node = f"kubelet-{ns}"[:63]
        create_pod(server, ns, "p1")
        bind(server, ns, "p1", node)
        # the node object does not exist
        for method, sub in (("GET", "log"), ("POST", "exec?command=ls"), ("GET", "portforward?ports=80")):
            r = server.request(method, f"/api/v1/namespaces/{ns}/pods/p1/{sub}", headers=UPGRADE)
            assert status_body(r, 404)["message"] == f'nodes "{node}" not found'
        # a node that reports no address
        create_node(server, node, [])
        r = server.request("GET", f"/api/v1/namespaces/{ns}/pods/p1/log")
        body = status_body(r, 500)
        assert body["message"] == "no preferred addresses found; known addresses: []" and "reason" not in body
        server.request("DELETE", f"/api/v1/nodes/{node}")
        # a node whose kubelet port is closed
        port = closed_port()
        create_node(server, node, [{"type": "InternalIP", "address": "127.0.0.1"}], port)
        try:
            r = server.request("POST", f"/api/v1/namespaces/{ns}/pods/p1/exec?command=ls")
            assert status_body(r, 400)["message"] == "Upgrade request required"
            r = server.request("POST", f"/api/v1/namespaces/{ns}/pods/p1/exec?command=ls", headers=UPGRADE)
            body = status_body(r, 500)
            assert body["message"] == f"error dialing backend: dial tcp 127.0.0.1:{port}: connect: connection refused"
            r = server.request("GET", f"/api/v1/namespaces/{ns}/pods/p1/log?tailLines=5&timestamps=true")
            body = status_body(r, 500)
            assert body["message"] == (
                f'Get "https://127.0.0.1:{port}/containerLogs/{ns}/p1/c?tailLines=5&timestamps=true": '
                f"dial tcp 127.0.0.1:{port}: connect: connection refused"
            )
            res = server.kubectl("-n", ns, "logs", "p1", check=False, timeout=30)
            assert res.returncode == 1
            assert f"dial tcp 127.0.0.1:{port}: connect: connection refused" in res.stderr, res.stderr
            res = server.kubectl("-n", ns, "exec", "p1", "--", "ls", check=False, timeout=30)
            assert res.returncode == 1
            assert "error dialing backend" in res.stderr, res.stderr
        finally:
            server.request("DELETE", f"/api/v1/nodes/{node}")


# --- proxy ---


def outward_ip() -> str | None:
    """An address of this machine that Go calls global unicast (not loopback), or None."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("10.255.255.255", 1))
            ip = s.getsockname()[0]
        except OSError:
            return None
    return None if ip.startswith("127.") else ip


class _Echo(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - the http.server protocol
        body = json.dumps({"path": self.path, "auth": self.headers.get("Authorization")}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("X-Backend", "echo")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class TestProxy:
    def test_pod_without_ip(self, server, ns):
        create_pod(server, ns, "p1")
        r = server.request("GET", f"/api/v1/namespaces/{ns}/pods/p1/proxy/")
        assert status_body(r, 400)["message"] == "address not allowed"
        r = server.request("GET", f"/api/v1/namespaces/{ns}/pods/a:b:c:d/proxy/")
        assert status_body(r, 400)["message"] == 'invalid pod request "a:b:c:d"'
        r = server.request("GET", f"/api/v1/namespaces/{ns}/pods/missing/proxy/")
        assert status_body(r, 404)["message"] == 'pods "missing" not found'

    def test_services_without_endpoints(self, server, ns):
        svc = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {"ports": [{"port": 80}]}}
        assert server.request("POST", f"/api/v1/namespaces/{ns}/services", json=svc).status_code == 201
        r = server.request("GET", f"/api/v1/namespaces/{ns}/services/s:81/proxy/")
        assert status_body(r, 503)["message"] == 'no service port 81 found for service "s"'
        eps = {"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "s"}}
        server.request("POST", f"/api/v1/namespaces/{ns}/endpoints", json=eps)
        r = server.request("GET", f"/api/v1/namespaces/{ns}/services/s/proxy/")
        assert status_body(r, 503)["message"] == 'no endpoints available for service "s"'

    def test_pod_and_service_proxy_forward(self, server, ns):
        ip = outward_ip()
        if ip is None:
            pytest.skip("no non-loopback address to reach a test backend")
        backend = http.server.ThreadingHTTPServer(("0.0.0.0", 0), _Echo)
        port = backend.server_address[1]
        threading.Thread(target=backend.serve_forever, daemon=True).start()
        try:
            create_pod(server, ns, "web")
            make_running(server, ns, "web", pod_ip=ip)
            r = server.request("GET", f"/api/v1/namespaces/{ns}/pods/web:{port}/proxy/some/path?x=1")
            assert r.status_code == 200, r.text
            assert r.headers["X-Backend"] == "echo"
            assert r.json() == {"path": "/some/path?x=1", "auth": None}

            svc = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}}
            svc["spec"] = {"ports": [{"name": "http", "port": 80}]}
            assert server.request("POST", f"/api/v1/namespaces/{ns}/services", json=svc).status_code == 201
            eps = {
                "apiVersion": "v1",
                "kind": "Endpoints",
                "metadata": {"name": "s"},
                "subsets": [
                    {
                        "addresses": [{"ip": ip, "targetRef": {"kind": "Pod", "name": "web", "namespace": ns}}],
                        "ports": [{"name": "http", "port": port}],
                    }
                ],
            }
            assert server.request("POST", f"/api/v1/namespaces/{ns}/endpoints", json=eps).status_code == 201
            r = server.request("GET", f"/api/v1/namespaces/{ns}/services/s:http/proxy/")
            assert r.status_code == 200 and r.json()["path"] == "/", r.text
            r = server.request("GET", f"/api/v1/namespaces/{ns}/services/s:80/proxy/x")
            assert r.status_code == 200 and r.json()["path"] == "/x", r.text
        finally:
            backend.shutdown()
            backend.server_close()
        # the backend is gone: kube's 503 from the proxy transport
        r = server.request("GET", f"/api/v1/namespaces/{ns}/pods/web:{port}/proxy/")
        assert status_body(r, 503)["message"] == (
            f"error trying to reach service: dial tcp {ip}:{port}: connect: connection refused"
        )


# --- namespaces/finalize ---


def test_namespace_finalize_takes_all_but_the_status(server):
    name = f"fin-{threading.get_ident() % 100000}"
    r = server.request(
        "POST", "/api/v1/namespaces", json={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
    )
    assert r.status_code == 201, r.text
    try:
        ns = r.json()
        ns["spec"]["finalizers"] = ["kubernetes", "example.com/wait"]
        ns["metadata"]["labels"]["team"] = "a"
        ns["status"] = {"phase": "Terminating"}
        r = server.request("PUT", f"/api/v1/namespaces/{name}/finalize", json=ns)
        assert r.status_code == 200, r.text
        got = r.json()
        assert got["spec"]["finalizers"] == ["kubernetes", "example.com/wait"]
        assert got["metadata"]["labels"] == {"kubernetes.io/metadata.name": name, "team": "a"}
        assert got["status"] == {"phase": "Active"}
        r = server.request(
            "PUT", "/api/v1/namespaces/no-such-ns/finalize", json={**ns, "metadata": {"name": "no-such-ns"}}
        )
        assert status_body(r, 404)["message"] == 'namespaces "no-such-ns" not found'
    finally:
        got = server.request("GET", f"/api/v1/namespaces/{name}").json()
        got["spec"]["finalizers"] = ["kubernetes"]
        server.request("PUT", f"/api/v1/namespaces/{name}/finalize", json=got)
        server.request("DELETE", f"/api/v1/namespaces/{name}")

"""Storage object in use protection, as a cluster has it: StorageObjectInUseProtection admission puts the
kubernetes.io/pvc-protection and kubernetes.io/pv-protection finalizers on new claims and volumes, and
kube-controller-manager's pvc-protection and pv-protection controllers (here in-process) take them off once a
claim is used by no scheduled pod, a volume no longer Bound. Driven with kubectl and the Python client."""

from __future__ import annotations

import json
import time
import uuid

import pytest
from e2e_helpers import parse_table, wait_until

PVC_FINALIZER = "kubernetes.io/pvc-protection"
PV_FINALIZER = "kubernetes.io/pv-protection"
MERGE = {"Content-Type": "application/merge-patch+json"}


def claim(name: str, **meta) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, **meta},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
    }


def volume(name: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": name},
        "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/tmp/x"}},
    }


def pod(name: str, claim_name: str, node: str | None = "node-1") -> dict:
    spec: dict = {
        "containers": [{"name": "c", "image": "busybox", "volumeMounts": [{"name": "data", "mountPath": "/data"}]}],
        "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": claim_name}}],
    }
    if node:
        spec["nodeName"] = node  # scheduled: only then does the pod hold its claim
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


def create(server, obj: dict, ns: str | None = None) -> dict:
    args = ("-n", ns) if ns else ()
    return json.loads(server.kubectl(*args, "create", "-o", "json", "-f", "-", input=json.dumps(obj)).stdout)


def get(server, kind: str, name: str, ns: str | None = None) -> dict | None:
    args = ("-n", ns) if ns else ()
    res = server.kubectl(*args, "get", kind, name, "-o", "json", "--ignore-not-found")
    return json.loads(res.stdout) if res.stdout.strip() else None


def set_phase(server, kind: str, name: str, phase: str, ns: str | None = None) -> None:
    args = ("-n", ns) if ns else ()
    patch = json.dumps({"status": {"phase": phase}})
    server.kubectl(*args, "patch", kind, name, "--subresource=status", "--type=merge", "-p", patch)


def assert_held(server, kind: str, name: str, finalizer: str, ns: str | None = None, seconds: float = 1.0) -> None:
    """The object stays Terminating with finalizer for a while (the controller had time to act)."""
    deadline = time.monotonic() + seconds
    while True:
        obj = get(server, kind, name, ns)
        assert obj is not None, f"{kind} {name} went while in use"
        assert obj["metadata"].get("deletionTimestamp") and finalizer in obj["metadata"]["finalizers"]
        if time.monotonic() > deadline:
            return
        time.sleep(0.2)


def wait_gone(server, kind: str, name: str, ns: str | None = None) -> None:
    wait_until(lambda: get(server, kind, name, ns) is None, timeout=10, message=f"{kind} {name} to go")


def test_new_claims_and_volumes_get_the_finalizers(server, ns):
    assert create(server, claim("plain"), ns)["metadata"]["finalizers"] == [PVC_FINALIZER]
    # the client's own finalizers come first; one that is there already is not added twice
    own = create(server, claim("own", finalizers=["example.com/keep"]), ns)
    assert own["metadata"]["finalizers"] == ["example.com/keep", PVC_FINALIZER]
    twice = create(server, claim("twice", finalizers=[PVC_FINALIZER]), ns)
    assert twice["metadata"]["finalizers"] == [PVC_FINALIZER]
    # a dry run is admitted as the create would be
    res = server.kubectl(
        "-n", ns, "create", "--dry-run=server", "-o", "json", "-f", "-", input=json.dumps(claim("dry"))
    )
    assert json.loads(res.stdout)["metadata"]["finalizers"] == [PVC_FINALIZER]
    assert get(server, "pvc", "dry", ns) is None
    name = f"pv-{uuid.uuid4().hex[:8]}"
    try:
        assert create(server, volume(name))["metadata"]["finalizers"] == [PV_FINALIZER]
    finally:
        server.kubectl("delete", "pv", name, "--ignore-not-found")
    # admission acts on create only: an update that takes the finalizer off keeps it off, until the controller,
    # as kube-controller-manager's, puts it back on a claim that is not being deleted
    patch = json.dumps([{"op": "remove", "path": "/metadata/finalizers"}])
    res = server.kubectl("-n", ns, "patch", "pvc", "plain", "--type=json", "-p", patch, "-o", "json")
    assert "finalizers" not in json.loads(res.stdout)["metadata"]
    wait_until(
        lambda: (get(server, "pvc", "plain", ns) or {}).get("metadata", {}).get("finalizers") == [PVC_FINALIZER],
        message="the controller to put the finalizer back",
    )
    server.kubectl("-n", ns, "delete", "pvc", "own", "--wait=false")
    server.kubectl("-n", ns, "patch", "pvc", "own", "--type=merge", "-p", '{"metadata":{"finalizers":null}}')


def test_deleting_an_unused_claim_completes(server, ns):
    create(server, claim("unused"), ns)
    server.kubectl("-n", ns, "delete", "pvc", "unused", timeout=20)  # kubectl waits for it to go
    assert get(server, "pvc", "unused", ns) is None
    # the delete itself answers with the claim Terminating (200, not 202 or the last state)
    create(server, claim("raw"), ns)
    r = server.request("DELETE", f"/api/v1/namespaces/{ns}/persistentvolumeclaims/raw")
    assert r.status_code == 200, r.text
    meta = r.json()["metadata"]
    assert meta["deletionTimestamp"] and meta["finalizers"] == [PVC_FINALIZER]
    wait_gone(server, "pvc", "raw", ns)
    # a pod that is not scheduled, or that names another claim, does not hold it
    create(server, claim("pending-user"), ns)
    create(server, pod("unscheduled", "pending-user", node=None), ns)
    create(server, pod("elsewhere", "other-claim"), ns)
    server.kubectl("-n", ns, "delete", "pvc", "pending-user", timeout=20)
    assert get(server, "pvc", "pending-user", ns) is None


def test_claim_of_a_running_pod_waits_for_the_pod(server, ns, api_client):
    from kubernetes import client

    core = client.CoreV1Api(api_client)
    create(server, claim("data"), ns)
    create(server, pod("user", "data"), ns)
    set_phase(server, "pod", "user", "Running", ns)
    server.kubectl("-n", ns, "delete", "pvc", "data", "--wait=false")
    assert_held(server, "pvc", "data", PVC_FINALIZER, ns)
    rows = parse_table(server.kubectl("-n", ns, "get", "pvc", "data").stdout)
    assert rows[0]["STATUS"] == "Terminating"
    # a graceful delete leaves the pod there until its kubelet is done: it still holds the claim
    core.delete_namespaced_pod("user", ns)
    assert core.read_namespaced_pod("user", ns).metadata.deletion_timestamp is not None
    assert_held(server, "pvc", "data", PVC_FINALIZER, ns)
    # once the pod is gone the claim goes
    core.delete_namespaced_pod("user", ns, grace_period_seconds=0)
    wait_gone(server, "pvc", "data", ns)


def test_finished_pod_holds_its_claim_until_deleted(server, ns):
    """As upstream's podUsesPVC: the phase of a scheduled pod does not matter for a persistentVolumeClaim
    volume (kubernetes/kubernetes#120756), only its removal."""
    create(server, claim("results"), ns)
    create(server, pod("job", "results"), ns)
    set_phase(server, "pod", "job", "Succeeded", ns)
    server.kubectl("-n", ns, "delete", "pvc", "results", "--wait=false")
    assert_held(server, "pvc", "results", PVC_FINALIZER, ns)
    server.kubectl("-n", ns, "delete", "pod", "job")  # finished: it goes at once
    wait_gone(server, "pvc", "results", ns)


def test_generic_ephemeral_claim_is_held_by_its_pod(server, ns, api_client):
    from kubernetes import client

    core = client.CoreV1Api(api_client)
    template = {"spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}
    owner = pod("eph", "unused")
    owner["spec"]["volumes"] = [{"name": "scratch", "ephemeral": {"volumeClaimTemplate": template}}]
    owner["spec"]["containers"][0]["volumeMounts"] = [{"name": "scratch", "mountPath": "/scratch"}]
    made = create(server, owner, ns)
    ref = {"apiVersion": "v1", "kind": "Pod", "name": "eph", "uid": made["metadata"]["uid"], "controller": True}
    create(server, claim("eph-scratch", ownerReferences=[ref]), ns)
    # a claim of the name another pod's ephemeral volume would get, but not controlled by that pod, is not held
    stray = pod("eph2", "unused")
    stray["spec"]["volumes"] = owner["spec"]["volumes"]
    stray["spec"]["containers"][0]["volumeMounts"] = owner["spec"]["containers"][0]["volumeMounts"]
    create(server, stray, ns)
    create(server, claim("eph2-scratch"), ns)
    server.kubectl("-n", ns, "delete", "pvc", "eph2-scratch", timeout=20)
    server.kubectl("-n", ns, "delete", "pvc", "eph-scratch", "--wait=false")
    assert_held(server, "pvc", "eph-scratch", PVC_FINALIZER, ns)
    core.delete_namespaced_pod("eph", ns, grace_period_seconds=0)
    wait_gone(server, "pvc", "eph-scratch", ns)


def test_bound_volume_waits_until_released(server):
    name = f"pv-{uuid.uuid4().hex[:8]}"
    create(server, volume(name))
    try:
        set_phase(server, "pv", name, "Bound")
        r = server.request("DELETE", f"/api/v1/persistentvolumes/{name}")
        assert r.status_code == 200 and r.json()["metadata"]["deletionTimestamp"], r.text
        assert_held(server, "pv", name, PV_FINALIZER)
        # the status change is seen: no longer bound, the volume goes
        set_phase(server, "pv", name, "Released")
        wait_gone(server, "pv", name)
    finally:
        server.request(
            "PATCH", f"/api/v1/persistentvolumes/{name}", json={"metadata": {"finalizers": None}}, headers=MERGE
        )
    # one never bound goes as soon as it is deleted
    other = f"pv-{uuid.uuid4().hex[:8]}"
    create(server, volume(other))
    server.kubectl("delete", "pv", other, timeout=20)
    assert get(server, "pv", other) is None


def test_namespace_with_claims_in_use_is_deleted(server):
    name = f"pvc-ns-{uuid.uuid4().hex[:6]}"
    server.kubectl("create", "namespace", name)
    create(server, claim("data"), name)
    create(server, pod("user", "data"), name)
    set_phase(server, "pod", "user", "Running", name)
    server.kubectl("delete", "namespace", name, timeout=40)  # waits until the namespace is gone
    assert not server.kubectl("get", "namespace", name, "--ignore-not-found").stdout.strip()


@pytest.fixture
def unprotected(server_factory):
    return server_factory("--disable-admission-plugins=StorageObjectInUseProtection")


def test_disabled_plugin_adds_no_finalizer(unprotected):
    made = create(unprotected, claim("c"), "default")
    assert "finalizers" not in made["metadata"]
    assert "finalizers" not in create(unprotected, volume("v"))["metadata"]
    # kube-controller-manager's controllers still protect what admission let through (upstream's
    # NeedToAddFinalizer, for claims and volumes made before the plugin was on)
    for kind, name, ns, finalizer in (("pvc", "c", "default", PVC_FINALIZER), ("pv", "v", None, PV_FINALIZER)):
        wait_until(
            lambda kind=kind, name=name, ns=ns: (
                (get(unprotected, kind, name, ns) or {}).get("metadata", {}).get("finalizers")
            ),
            message=f"the {kind} controller to add its finalizer",
        )
        assert get(unprotected, kind, name, ns)["metadata"]["finalizers"] == [finalizer]
    unprotected.kubectl("delete", "pvc", "c", "-n", "default", timeout=20)
    unprotected.kubectl("delete", "pv", "v", timeout=20)

"""Namespace deletion as kube-controller-manager's namespace controller does it: a grace period (5 s) during
which the namespace is Terminating and its content still there, then the content removed, with the deleter's
five status conditions on every pass, and the namespace gone once nothing is left. Also the system
PriorityClasses the apiserver makes at start."""

from __future__ import annotations

import json
import time

import yaml
from e2e_helpers import apply_crd, free_form_crd


def _wait_gone(server, path: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while server.request("GET", path).status_code != 404:
        assert time.monotonic() < deadline, f"{path} still there"
        time.sleep(0.1)


def test_kubectl_delete_f_of_a_namespace_and_its_objects_deletes_each(server):
    """kubectl deletes a manifest's objects in order: the namespace first, then what is in it. Those must
    still be there to delete (upstream's grace period), so every line says deleted and kubectl exits 0."""
    manifest = yaml.safe_dump_all(
        [
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "nsdel-app"}},
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg", "namespace": "nsdel-app"}},
            {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": "nsdel-app"}},
        ]
    )
    server.kubectl("apply", "-f", "-", input=manifest)
    res = server.kubectl("delete", "-f", "-", "--timeout=60s", input=manifest, timeout=90, check=False)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split("\n")[:3] == [
        'namespace "nsdel-app" deleted',
        'configmap "cfg" deleted',
        'secret "s" deleted',
    ]
    res = server.kubectl("get", "ns", "nsdel-app", check=False)  # kubectl waited for all of them
    assert res.stderr.strip() == 'Error from server (NotFound): namespaces "nsdel-app" not found'


def test_terminating_namespace_keeps_content_for_the_grace_period_and_refuses_new_content(server):
    server.create_namespace("nsdel-grace")
    server.kubectl("-n", "nsdel-grace", "create", "configmap", "old", "--from-literal=a=b")
    started = time.monotonic()
    server.kubectl("delete", "ns", "nsdel-grace", "--wait=false")
    terminating = json.loads(server.kubectl("get", "ns", "nsdel-grace", "-o", "json").stdout)
    assert terminating["status"] == {"phase": "Terminating"}
    # namespace REST.Delete sets the deletionTimestamp alone, no deletionGracePeriodSeconds
    assert terminating["metadata"]["deletionTimestamp"]
    assert "deletionGracePeriodSeconds" not in terminating["metadata"]
    # Deleting it again while it is being emptied is a conflict, in namespace REST.Delete's words.
    res = server.kubectl("delete", "ns", "nsdel-grace", "--wait=false", check=False)
    assert res.stderr.strip() == (
        'Error from server (Conflict): Operation cannot be fulfilled on namespaces "nsdel-grace": '
        "The system is ensuring all content is removed from this namespace.  "
        "Upon completion, this namespace will automatically be purged by the system."
    )
    assert server.request("GET", "/api/v1/namespaces/nsdel-grace/configmaps/old").status_code == 200
    # New content is refused, naming the object (admission runs on the decoded body, as upstream's).
    res = server.kubectl("-n", "nsdel-grace", "create", "configmap", "new", check=False)
    assert res.returncode == 1
    assert res.stderr.strip() == (
        'error: failed to create configmap: configmaps "new" is forbidden: '
        "unable to create new content in namespace nsdel-grace because it is being terminated"
    )
    _wait_gone(server, "/api/v1/namespaces/nsdel-grace")
    assert time.monotonic() - started >= 4.5  # the 5 s grace period


def test_content_held_by_a_finalizer_shows_in_the_namespace_conditions(server):
    server.create_namespace("nsdel-held")
    server.kubectl("-n", "nsdel-held", "create", "configmap", "held")
    server.kubectl(
        "-n", "nsdel-held", "patch", "configmap", "held", "-p", '{"metadata":{"finalizers":["example.com/hold"]}}'
    )
    server.kubectl("delete", "ns", "nsdel-held", "--wait=false")
    deadline = time.monotonic() + 30
    while True:
        status = json.loads(server.kubectl("get", "ns", "nsdel-held", "-o", "json").stdout)["status"]
        if status.get("conditions"):
            break
        assert time.monotonic() < deadline, status
        time.sleep(0.2)
    conditions = {c["type"]: (c["status"], c["reason"], c["message"]) for c in status["conditions"]}
    assert list(conditions) == [
        "NamespaceDeletionDiscoveryFailure",
        "NamespaceDeletionGroupVersionParsingFailure",
        "NamespaceDeletionContentFailure",
        "NamespaceContentRemaining",
        "NamespaceFinalizersRemaining",
    ]
    assert conditions["NamespaceDeletionDiscoveryFailure"] == (
        "False",
        "ResourcesDiscovered",
        "All resources successfully discovered",
    )
    assert conditions["NamespaceDeletionContentFailure"] == (
        "False",
        "ContentDeleted",
        "All content successfully deleted, may be waiting on finalization",
    )
    assert conditions["NamespaceContentRemaining"] == (
        "True",
        "SomeResourcesRemain",
        "Some resources are remaining: configmaps. has 1 resource instances",
    )
    assert conditions["NamespaceFinalizersRemaining"] == (
        "True",
        "SomeFinalizerRemain",
        "Some finalizers are remaining: example.com/hold in 1 resource instances",
    )
    assert status["phase"] == "Terminating"
    held = json.loads(server.kubectl("-n", "nsdel-held", "get", "configmap", "held", "-o", "json").stdout)
    assert held["metadata"]["deletionTimestamp"]
    # The finalizer goes: the configmap, then the namespace, go.
    server.kubectl(
        "-n",
        "nsdel-held",
        "patch",
        "configmap",
        "held",
        "--type=json",
        "-p",
        '[{"op":"remove","path":"/metadata/finalizers"}]',
    )
    _wait_gone(server, "/api/v1/namespaces/nsdel-held")


def test_system_priority_classes_exist(server):
    out = server.kubectl("get", "priorityclasses", "-o", "json").stdout
    classes = {i["metadata"]["name"]: i for i in json.loads(out)["items"]}
    node, cluster = classes["system-node-critical"], classes["system-cluster-critical"]
    assert (node["value"], cluster["value"]) == (2000001000, 2000000000)
    assert node["description"] == "Used for system critical pods that must not be moved from their current node."
    assert cluster["description"] == (
        "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary."
    )
    assert node["preemptionPolicy"] == cluster["preemptionPolicy"] == "PreemptLowerPriority"
    assert "globalDefault" not in node
    verbose = server.kubectl("get", "--raw", "/readyz?verbose").stdout
    assert "[+]poststarthook/scheduling/bootstrap-system-priority-classes ok" in verbose


def test_every_create_path_is_admitted_by_namespace_lifecycle(server):
    """A server-side apply and a PUT that would create are creates too: in a namespace that does not exist
    they get the NotFound a POST gets, and nothing is stored."""
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "nsdel-none"}}
    res = server.kubectl("apply", "--server-side", "-f", "-", input=json.dumps(cm), check=False)
    assert res.returncode == 1
    assert res.stderr.strip() == 'Error from server (NotFound): namespaces "nsdel-none" not found'
    svc = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "s", "namespace": "nsdel-none"},
        "spec": {"ports": [{"port": 80}]},
    }
    r = server.request("PUT", "/api/v1/namespaces/nsdel-none/services/s", json=svc)  # services create on PUT
    assert r.status_code == 404 and r.json()["message"] == 'namespaces "nsdel-none" not found'
    assert server.request("GET", "/api/v1/namespaces/nsdel-none/configmaps/x").status_code == 404
    assert server.request("GET", "/api/v1/namespaces/nsdel-none/services/s").status_code == 404
    # ... and in a terminating one, the Forbidden a POST gets.
    server.create_namespace("nsdel-apply")
    server.kubectl("-n", "nsdel-apply", "create", "configmap", "keep")
    server.kubectl("delete", "ns", "nsdel-apply", "--wait=false")
    cm["metadata"]["namespace"] = "nsdel-apply"
    res = server.kubectl("apply", "--server-side", "-f", "-", input=json.dumps(cm), check=False)
    assert res.returncode == 1
    assert res.stderr.strip() == (
        'Error from server (Forbidden): configmaps "x" is forbidden: '
        "unable to create new content in namespace nsdel-apply because it is being terminated"
    )


def test_custom_resources_are_admitted_after_their_crd_changes(server):
    """A CRD's edit replaces its stores: the new ones are admitted as well (a POST and an apply alike)."""
    crd = free_form_crd("nsdel.example.com", "gadgets", "Gadget")
    apply_crd(server, crd)
    crd["spec"]["versions"][0]["additionalPrinterColumns"] = [
        {"name": "Size", "type": "string", "jsonPath": ".spec.size"}
    ]
    server.kubectl("apply", "-f", "-", input=json.dumps(crd))
    gadget = {
        "apiVersion": "nsdel.example.com/v1",
        "kind": "Gadget",
        "metadata": {"name": "g", "namespace": "nsdel-gone"},
    }
    for args in (("create",), ("apply", "--server-side")):
        res = server.kubectl(*args, "-f", "-", input=json.dumps(gadget), check=False)
        assert res.returncode == 1
        assert 'namespaces "nsdel-gone" not found' in res.stderr, res.stderr
    server.kubectl("delete", "crd", "gadgets.nsdel.example.com", "--wait=false")


def test_namespace_status_phase_follows_the_deletion_timestamp(server):
    """ValidateNamespaceStatusUpdate: through /status the phase may only be Active without a
    deletionTimestamp and Terminating with one."""
    server.create_namespace("nsdel-phase")
    path = "/api/v1/namespaces/nsdel-phase/status"
    ns = server.request("GET", path).json()
    r = server.request("PUT", path, json={**ns, "status": {"phase": "Terminating"}})
    assert (r.status_code, r.json()["message"]) == (
        422,
        'Namespace "nsdel-phase" is invalid: status.Phase: Invalid value: "Terminating": '
        "may only be 'Active' if `deletionTimestamp` is empty",
    )
    assert r.json()["details"]["causes"] == [
        {
            "reason": "FieldValueInvalid",
            "message": "Invalid value: \"Terminating\": may only be 'Active' if `deletionTimestamp` is empty",
            "field": "status.Phase",
        }
    ]
    server.kubectl("delete", "ns", "nsdel-phase", "--wait=false")
    ns = server.request("GET", path).json()
    r = server.request("PUT", path, json={**ns, "status": {"phase": "Active"}})
    assert (r.status_code, r.json()["message"]) == (
        422,
        'Namespace "nsdel-phase" is invalid: status.Phase: Invalid value: "Active": '
        "may only be 'Terminating' if `deletionTimestamp` is not empty",
    )
    _wait_gone(server, "/api/v1/namespaces/nsdel-phase")

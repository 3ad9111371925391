"""Options of the verbs as kube-apiserver checks them (ValidateDeleteOptions, ValidateDryRun), the legacy
watch of one object by its path, and what a delete held by finalizers does to metadata.generation."""

from __future__ import annotations

import json
import time

import pytest
from e2e_helpers import ROOT_CA_CONFIG_MAP, wait_for_root_ca


def _invalid(r, kind: str) -> tuple[str, list[dict]]:
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["reason"] == "Invalid" and body["details"] == {
        "group": "meta.k8s.io",
        "kind": kind,
        "causes": body["details"]["causes"],
    }
    return body["message"], body["details"]["causes"]


def test_delete_options_are_validated(server, ns):
    server.kubectl("-n", ns, "create", "configmap", "c")
    path = f"/api/v1/namespaces/{ns}/configmaps/c"
    message, causes = _invalid(server.request("DELETE", path + "?propagationPolicy=Sideways"), "DeleteOptions")
    assert message == (
        'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": '
        'supported values: "Foreground", "Background", "Orphan", "nil"'
    )
    assert causes == [
        {
            "reason": "FieldValueNotSupported",
            "message": 'Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"',
            "field": "propagationPolicy",
        }
    ]
    body = {"kind": "DeleteOptions", "apiVersion": "v1", "orphanDependents": True, "propagationPolicy": "Background"}
    message, _ = _invalid(server.request("DELETE", path, json=body), "DeleteOptions")
    assert message == (
        'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Background": '
        "orphanDependents and deletionPropagation cannot be both set"
    )
    message, _ = _invalid(server.request("DELETE", path + "?dryRun=Bogus"), "DeleteOptions")
    assert message == (
        'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Bogus"}: supported values: "All"'
    )
    # a body is decoded as DeleteOptions: another kind, or a kind that is not a string, is refused
    r = server.request("DELETE", path, json={"kind": "ConfigMap", "apiVersion": "v1"})
    assert (r.status_code, r.json()["message"]) == (400, 'no kind "ConfigMap" is registered for version "v1"')
    r = server.request("DELETE", path, json={"kind": True})
    assert (r.status_code, r.json()["message"]) == (
        400,
        "couldn't get version/kind; json parse error: json: cannot unmarshal bool into Go struct field .kind of type "
        "string",
    )
    assert server.request("GET", path).status_code == 200  # none of them deleted it


@pytest.mark.parametrize(
    ("method", "kind", "suffix"),
    [("POST", "CreateOptions", ""), ("PUT", "UpdateOptions", "/d"), ("PATCH", "PatchOptions", "/d")],
)
def test_dry_run_values_other_than_all_are_invalid(server, ns, method, kind, suffix):
    server.kubectl("-n", ns, "create", "configmap", "d")
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "d"}}
    headers = {"Content-Type": "application/merge-patch+json"} if method == "PATCH" else {}
    r = server.request(
        method, f"/api/v1/namespaces/{ns}/configmaps{suffix}?dryRun=All&dryRun=Nope", json=obj, headers=headers
    )
    message, _ = _invalid(r, kind)
    assert message == (
        f'{kind}.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{{"All", "Nope"}}: '
        'supported values: "All"'
    )


def test_legacy_watch_path_of_one_object_sees_only_that_object(server, ns):
    for name in ("w0", "w1", "w2"):
        server.kubectl("-n", ns, "create", "configmap", name)
    out = server.kubectl("get", "--raw", f"/api/v1/watch/namespaces/{ns}/configmaps/w1?timeoutSeconds=1").stdout
    events = [json.loads(line) for line in out.splitlines() if line]
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [("ADDED", "w1")]
    r = server.request("GET", f"/api/v1/watch/namespaces/{ns}/configmaps/w1?fieldSelector=metadata.name%3Dw0")
    assert r.status_code == 400
    assert r.json()["message"] == "fieldSelector metadata.name doesn't match requested name"


def test_delete_held_by_a_finalizer_moves_generation(server, ns):
    """markAsDeleting: setting deletionTimestamp bumps a generation that is set, so controllers that filter on
    generation changes see the deletion (and remove their finalizer)."""
    dep = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "held", "finalizers": ["example.com/cleanup"]},
        "spec": {
            "selector": {"matchLabels": {"app": "held"}},
            "template": {
                "metadata": {"labels": {"app": "held"}},
                "spec": {"containers": [{"name": "c", "image": "x"}]},
            },
        },
    }
    server.kubectl("-n", ns, "create", "-f", "-", input=json.dumps(dep))
    path = f"/apis/apps/v1/namespaces/{ns}/deployments/held"
    assert server.request("GET", path).json()["metadata"]["generation"] == 1
    r = server.request("DELETE", path)
    assert r.status_code == 200 and r.json()["metadata"]["generation"] == 2
    r = server.request("DELETE", path)  # already terminating: no further bump
    assert r.status_code == 200 and r.json()["metadata"]["generation"] == 2
    server.request(
        "PATCH", path, data='{"metadata":{"finalizers":null}}', headers={"Content-Type": "application/merge-patch+json"}
    )
    assert server.request("GET", path).status_code == 404


def test_leases_are_created_by_put_and_updated_only_with_a_resource_version(server, ns):
    """Lease's strategy: AllowCreateOnUpdate true, AllowUnconditionalUpdate false (leader election relies on
    the latter: a blind write cannot take a lease over)."""
    lease = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "leader"}, "spec": {}}
    path = f"/apis/coordination.k8s.io/v1/namespaces/{ns}/leases/leader"
    r = server.request("PUT", path, json=lease)
    assert r.status_code == 201, r.text
    lease["spec"] = {"holderIdentity": "me"}
    r = server.request("PUT", path, json=lease)
    assert r.status_code == 422
    body = r.json()
    assert body["message"] == (
        'leases.coordination.k8s.io "leader" is invalid: '
        "metadata.resourceVersion: Invalid value: 0x0: must be specified for an update"
    )
    assert body["details"] == {
        "name": "leader",
        "group": "coordination.k8s.io",
        "kind": "leases",
        "causes": [
            {
                "reason": "FieldValueInvalid",
                "message": "Invalid value: 0x0: must be specified for an update",
                "field": "metadata.resourceVersion",
            }
        ],
    }
    lease["metadata"]["resourceVersion"] = server.request("GET", path).json()["metadata"]["resourceVersion"]
    assert server.request("PUT", path, json=lease).status_code == 200


def test_roles_are_created_by_put_and_configmaps_are_not(server, ns):
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "r"}, "rules": []}
    r = server.request("PUT", f"/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles/r", json=role)
    assert r.status_code == 201, r.text
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "nope"}}
    r = server.request("PUT", f"/api/v1/namespaces/{ns}/configmaps/nope", json=cm)
    assert r.status_code == 404 and r.json()["message"] == 'configmaps "nope" not found'


def test_deletecollection_with_a_limit_deletes_one_page(server, ns):
    for i in range(8):
        server.kubectl("-n", ns, "create", "configmap", f"page-{i}")
        server.kubectl("-n", ns, "label", "configmap", f"page-{i}", "batch=x")
    path = f"/api/v1/namespaces/{ns}/configmaps?labelSelector=batch%3Dx"
    r = server.request("DELETE", path + "&limit=3")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["kind"] == "ConfigMapList"
    assert [i["metadata"]["name"] for i in body["items"]] == ["page-0", "page-1", "page-2"]
    assert body["metadata"]["resourceVersion"] and body["metadata"]["continue"]
    assert "remainingItemCount" not in body["metadata"]  # not counted under a selector, as upstream
    left = server.request("GET", path).json()["items"]
    assert [i["metadata"]["name"] for i in left] == [f"page-{i}" for i in range(3, 8)]
    r = server.request("DELETE", path)  # no limit: all the rest, answered as one list
    assert r.status_code == 200
    assert [i["metadata"]["name"] for i in r.json()["items"]] == [f"page-{i}" for i in range(3, 8)]
    assert "continue" not in r.json()["metadata"]
    assert server.request("GET", path).json()["items"] == []


def test_an_expired_continue_token_is_answered_with_an_inconsistent_one(server_factory):
    srv = server_factory("--etcd-compaction-interval=1s")
    srv.create_namespace("expired-continue")
    base = "/api/v1/namespaces/expired-continue/configmaps"
    for i in range(5):
        body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"c{i}"}}
        assert srv.request("POST", base, json=body).status_code == 201
    first = srv.request("GET", base + "?limit=2").json()
    token = first["metadata"]["continue"]
    deadline = time.monotonic() + 30
    while True:  # writes move the revision on; compaction drops the page's snapshot
        body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"generateName": "later-"}}
        srv.request("POST", base, json=body)
        r = srv.request("GET", f"{base}?limit=2&continue={token}")
        if r.status_code == 410:
            break
        assert r.status_code == 200 and time.monotonic() < deadline, r.text[:300]
        time.sleep(0.5)
    status = r.json()
    assert status["reason"] == "Expired" and status["message"].startswith(
        "The provided continue parameter is too old to display a consistent list result."
    )
    fresh = status["metadata"]["continue"]
    assert fresh and fresh != token
    r = srv.request("GET", f"{base}?limit=2&continue={fresh}")  # goes on after c1, at the latest revision
    assert r.status_code == 200, r.text
    assert [i["metadata"]["name"] for i in r.json()["items"]] == ["c2", "c3"]


@pytest.mark.parametrize(
    ("query", "message"),
    [
        (
            "sendInitialEvents=false",
            'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list',
        ),
        (
            "resourceVersionMatch=Newest",
            'ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: resourceVersionMatch is '
            'forbidden unless resourceVersion is provided, resourceVersionMatch: Unsupported value: "Newest": '
            'supported values: "Exact", "NotOlderThan", ""]',
        ),
        (
            "watch=true&resourceVersionMatch=NotOlderThan",
            'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is '
            "forbidden for watch unless sendInitialEvents is provided",
        ),
        (
            "watch=true&resourceVersionMatch=Exact&sendInitialEvents=true&allowWatchBookmarks=true",
            'ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: sendInitialEvents requires '
            'setting resourceVersionMatch to NotOlderThan, resourceVersionMatch: Unsupported value: "Exact": '
            'supported values: "NotOlderThan"]',
        ),
    ],
)
def test_list_and_watch_options_are_validated_together(server, ns, query, message):
    """ValidateListOptions / validateWatchOptions: every violation in one 422 on ListOptions."""
    r = server.request("GET", f"/api/v1/namespaces/{ns}/configmaps?{query}")
    got, _ = _invalid(r, "ListOptions")
    assert got == message


def test_resource_version_with_a_continue_token_is_a_bad_request(server, ns):
    for i in range(3):
        server.kubectl("-n", ns, "create", "configmap", f"rv-{i}")
    token = server.request("GET", f"/api/v1/namespaces/{ns}/configmaps?limit=1").json()["metadata"]["continue"]
    r = server.request("GET", f"/api/v1/namespaces/{ns}/configmaps?limit=1&continue={token}&resourceVersion=5")
    assert r.status_code == 400
    assert r.json()["message"] == "specifying resource version is not allowed when using continue"


def test_pages_read_from_storage_count_what_is_left(server, ns):
    """remainingItemCount on every page with nothing filtered out: a page from the cache, a continue page
    read at the first page's (older) revision, and an Exact list at a past resourceVersion."""
    path = f"/api/v1/namespaces/{ns}/configmaps"
    # The namespace's kube-root-ca.crt is one of the items (first by name), counted like the others: a selector
    # that left it out would leave out remainingItemCount too.
    wait_for_root_ca(server, ns)
    for i in range(5):
        server.kubectl("-n", ns, "create", "configmap", f"left-{i}")
    listed = [ROOT_CA_CONFIG_MAP] + [f"left-{i}" for i in range(5)]
    first = server.request("GET", path + "?limit=2").json()
    assert [i["metadata"]["name"] for i in first["items"]] == listed[:2]
    first = first["metadata"]
    assert first["remainingItemCount"] == len(listed) - 2 == 4
    server.kubectl("-n", ns, "create", "configmap", "left-9")  # the next page is read from storage
    page = server.request("GET", path + f"?limit=2&continue={first['continue']}").json()
    assert [i["metadata"]["name"] for i in page["items"]] == listed[2:4] == ["left-1", "left-2"]
    assert page["metadata"]["remainingItemCount"] == len(listed) - 4 == 2
    exact = server.request(
        "GET", path + f"?limit=1&resourceVersion={first['resourceVersion']}&resourceVersionMatch=Exact"
    )
    assert exact.json()["metadata"]["remainingItemCount"] == len(listed) - 1 == 5


def test_deletion_fields_cannot_be_set_or_changed_by_an_update(server, ns):
    """BeforeUpdate keeps the stored timestamps and grace period; a client's own deletionTimestamp or
    deletionGracePeriodSeconds (on a live object, or another grace period) is refused as immutable, and
    leaving them out of an update keeps them."""
    server.kubectl("-n", ns, "create", "configmap", "dfields")

    def patch(meta: dict):
        return server.kubectl(
            "-n", ns, "patch", "cm", "dfields", "--type=merge", "-p", json.dumps({"metadata": meta}), check=False
        )

    res = patch({"deletionGracePeriodSeconds": 5})
    assert res.stderr.strip() == (
        'The ConfigMap "dfields" is invalid: metadata.deletionGracePeriodSeconds: Invalid value: 5: field is immutable'
    )
    res = patch({"deletionTimestamp": "2026-01-01T00:00:00Z"})
    assert res.stderr.strip() == (
        'The ConfigMap "dfields" is invalid: metadata.deletionTimestamp: '
        "Invalid value: 2026-01-01 00:00:00 +0000 UTC: field is immutable"
    )
    assert (
        patch({"creationTimestamp": "2020-01-01T00:00:00Z"}).stdout.strip() == "configmap/dfields patched (no change)"
    )
    patch({"finalizers": ["example.com/hold"]})
    server.kubectl("-n", ns, "delete", "cm", "dfields", "--wait=false")
    assert "field is immutable" in patch({"deletionGracePeriodSeconds": 5}).stderr
    obj = json.loads(server.kubectl("-n", ns, "get", "cm", "dfields", "-o", "json").stdout)
    del obj["metadata"]["deletionGracePeriodSeconds"]
    obj["data"] = {"kept": "yes"}
    server.kubectl("-n", ns, "replace", "-f", "-", input=json.dumps(obj))
    after = json.loads(server.kubectl("-n", ns, "get", "cm", "dfields", "-o", "json").stdout)["metadata"]
    assert after["deletionGracePeriodSeconds"] == 0 and after["deletionTimestamp"]
    patch({"finalizers": None})


def test_status_writes_carry_metadata_as_each_kind_allows(server, ns):
    """A write through /status changes the status and, for most kinds, the labels, annotations and finalizers
    sent with it (their status strategies reset only the spec); a Deployment's keeps its labels, a pod's its
    owner references."""
    merge = {"Content-Type": "application/merge-patch+json"}

    def create(path: str, body: dict) -> None:
        r = server.request("POST", path, json=body)
        assert r.status_code == 201, r.text

    def status_patch(path: str, body: dict) -> dict:
        r = server.request("PATCH", path + "/status", json=body, headers=merge)
        assert r.status_code == 200, r.text
        return r.json()["metadata"]

    apps = f"/apis/apps/v1/namespaces/{ns}"
    template = {"metadata": {"labels": {"app": "s"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
    spec = {"selector": {"matchLabels": {"app": "s"}}, "template": template}
    create(f"{apps}/statefulsets", {"metadata": {"name": "s"}, "spec": spec})
    create(f"{apps}/deployments", {"metadata": {"name": "d"}, "spec": spec})
    meta_change = {"labels": {"via": "status"}, "annotations": {"note": "status"}}
    meta = status_patch(f"{apps}/statefulsets/s", {"metadata": meta_change, "status": {"replicas": 0}})
    assert meta["labels"] == {"via": "status"} and meta["annotations"] == {"note": "status"}
    meta = status_patch(f"{apps}/deployments/d", {"metadata": meta_change, "status": {"replicas": 0}})
    assert "labels" not in meta and meta["annotations"] == {"note": "status"}

    owner = {"apiVersion": "v1", "kind": "ConfigMap", "name": "o", "uid": "00000000-0000-0000-0000-000000000001"}
    pod = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
    create(f"/api/v1/namespaces/{ns}/pods", pod)
    meta = status_patch(
        f"/api/v1/namespaces/{ns}/pods/p", {"metadata": {"labels": {"x": "y"}, "ownerReferences": [owner]}}
    )
    assert meta["labels"] == {"x": "y"} and "ownerReferences" not in meta

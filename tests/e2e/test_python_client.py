"""The official Python client (kubernetes==37.0.2) against the server: CRUD, selectors, pagination, watch and
its 410 recovery, optimistic concurrency, preconditions, dry-run, the status subresource, generation, finalizers."""

from __future__ import annotations

import json
import threading
import time

import pytest
from e2e_helpers import ROOT_CA_CONFIG_MAP, is_root_ca, wait_for_root_ca, wait_until, without_root_ca
from kubernetes import client, watch
from kubernetes.client.rest import ApiException


def cm(name: str, data: dict | None = None, labels: dict | None = None, **meta) -> client.V1ConfigMap:
    return client.V1ConfigMap(metadata=client.V1ObjectMeta(name=name, labels=labels, **meta), data=data)


def deployment(name: str, image: str = "nginx:1.27", replicas: int = 1) -> client.V1Deployment:
    return client.V1Deployment(
        metadata=client.V1ObjectMeta(name=name),
        spec=client.V1DeploymentSpec(
            replicas=replicas,
            selector=client.V1LabelSelector(match_labels={"app": name}),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels={"app": name}),
                spec=client.V1PodSpec(containers=[client.V1Container(name="main", image=image)]),
            ),
        ),
    )


def names(items) -> list[str]:
    # less the kube-root-ca.crt ConfigMap the root CA publisher puts into every namespace
    return sorted(i.metadata.name for i in without_root_ca(items))


def test_configmap_crud(core_v1, ns):
    created = core_v1.create_namespaced_config_map(ns, cm("crud", {"a": "1"}, {"app": "x"}))
    assert created.metadata.uid and created.metadata.resource_version
    assert created.metadata.creation_timestamp is not None
    assert created.metadata.namespace == ns

    got = core_v1.read_namespaced_config_map("crud", ns)
    assert got.data == {"a": "1"} and got.metadata.uid == created.metadata.uid

    got.data["b"] = "2"
    replaced = core_v1.replace_namespaced_config_map("crud", ns, got)
    assert replaced.data == {"a": "1", "b": "2"}
    assert int(replaced.metadata.resource_version) > int(created.metadata.resource_version)

    patched = core_v1.patch_namespaced_config_map("crud", ns, {"data": {"c": "3"}, "metadata": {"labels": {"p": "q"}}})
    assert patched.data == {"a": "1", "b": "2", "c": "3"}
    assert patched.metadata.labels == {"app": "x", "p": "q"}

    lst = core_v1.list_namespaced_config_map(ns)
    assert lst.kind == "ConfigMapList" and lst.api_version == "v1"
    assert "crud" in names(lst.items)
    assert int(lst.metadata.resource_version) >= int(patched.metadata.resource_version)

    # v37 of the client returns the raw body of a delete: a Status once the object is gone.
    status = core_v1.delete_namespaced_config_map("crud", ns)
    assert status["kind"] == "Status" and status["status"] == "Success"
    assert status["details"] == {"name": "crud", "kind": "configmaps", "uid": created.metadata.uid}
    with pytest.raises(ApiException) as exc:
        core_v1.read_namespaced_config_map("crud", ns)
    assert exc.value.status == 404


def test_generate_name(core_v1, ns):
    a = core_v1.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(generate_name="gen-")))
    b = core_v1.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(generate_name="gen-")))
    assert a.metadata.name.startswith("gen-") and b.metadata.name.startswith("gen-")
    assert a.metadata.name != b.metadata.name and len(a.metadata.name) == len("gen-") + 5


def test_label_selectors(core_v1, ns):
    for name, labels in [
        ("a", {"env": "prod", "tier": "web"}),
        ("b", {"env": "dev", "tier": "web"}),
        ("c", {"env": "test"}),
        ("d", None),
    ]:
        core_v1.create_namespaced_config_map(ns, cm(name, labels=labels))

    def sel(selector):
        return names(core_v1.list_namespaced_config_map(ns, label_selector=selector).items)

    assert sel("env=prod") == ["a"]
    assert sel("env==prod") == ["a"]
    assert sel("env!=prod") == ["b", "c", "d"]
    assert sel("env in (prod,dev)") == ["a", "b"]
    assert sel("env notin (prod,dev)") == ["c", "d"]
    assert sel("tier") == ["a", "b"]
    assert sel("!tier") == ["c", "d"]
    assert sel("tier=web,env!=dev") == ["a"]
    assert sel("env in (prod),tier") == ["a"]
    with pytest.raises(ApiException) as exc:
        sel("env in prod")
    assert exc.value.status == 400


def test_field_selectors(core_v1, ns):
    for name in ("f1", "f2", "f3"):
        core_v1.create_namespaced_config_map(ns, cm(name))
    assert names(core_v1.list_namespaced_config_map(ns, field_selector="metadata.name=f2").items) == ["f2"]
    assert names(core_v1.list_namespaced_config_map(ns, field_selector="metadata.name!=f2").items) == ["f1", "f3"]
    assert names(core_v1.list_namespaced_config_map(ns, field_selector=f"metadata.namespace={ns}").items) == [
        "f1",
        "f2",
        "f3",
    ]
    everywhere = core_v1.list_config_map_for_all_namespaces(field_selector=f"metadata.namespace={ns},metadata.name=f3")
    assert names(everywhere.items) == ["f3"]
    with pytest.raises(ApiException) as exc:
        core_v1.list_namespaced_config_map(ns, field_selector="data.x=1")
    assert exc.value.status == 400
    assert json.loads(exc.value.body)["reason"] == "BadRequest"


def test_field_selectors_read_unset_fields_as_go_zero_values(core_v1, ns):
    """A field the object leaves out is selected by its Go zero value, as kube formats the typed struct:
    spec.hostNetwork=false, spec.unschedulable=false, status.successful=0."""
    core_v1.create_namespaced_pod(ns, _pod("plain"))
    core_v1.create_namespaced_pod(
        ns,
        client.V1Pod(
            metadata=client.V1ObjectMeta(name="hostnet"),
            spec=client.V1PodSpec(host_network=True, containers=[client.V1Container(name="c", image="busybox")]),
        ),
    )
    assert names(core_v1.list_namespaced_pod(ns, field_selector="spec.hostNetwork=false").items) == ["plain"]
    assert names(core_v1.list_namespaced_pod(ns, field_selector="spec.hostNetwork=true").items) == ["hostnet"]
    # status.podIPs is a label the v1 conversion accepts and the pod's selectable fields never set: always ""
    assert names(core_v1.list_namespaced_pod(ns, field_selector="status.podIPs=").items) == ["hostnet", "plain"]
    assert names(core_v1.list_namespaced_pod(ns, field_selector="status.podIPs=10.0.0.1").items) == []
    node = client.V1Node(metadata=client.V1ObjectMeta(name=f"{ns}-node"))
    core_v1.create_node(node)
    try:
        listed = core_v1.list_node(field_selector="spec.unschedulable=false").items
        assert f"{ns}-node" in names(listed)
    finally:
        core_v1.delete_node(f"{ns}-node")


def test_unknown_field_selector_message(core_v1, ns):
    with pytest.raises(ApiException) as exc:
        core_v1.list_namespaced_config_map(ns, field_selector="data.x=1")
    assert (
        json.loads(exc.value.body)["message"]
        == '"data.x" is not a known field selector: only "metadata.name", "metadata.namespace"'
    )


def test_pagination_is_consistent(server, core_v1, ns):
    # The namespace's kube-root-ca.crt is one of the items (first by name): the pages count it. A label selector
    # would leave it out, but then the server cannot tell remainingItemCount.
    wait_for_root_ca(server, ns)
    for i in range(10):
        core_v1.create_namespaced_config_map(ns, cm(f"page-{i:02d}"))
    listed = [ROOT_CA_CONFIG_MAP] + [f"page-{i:02d}" for i in range(10)]

    def in_order(items) -> list[str]:
        return [i.metadata.name for i in items]

    first = core_v1.list_namespaced_config_map(ns, limit=4)
    assert in_order(first.items) == listed[:4]
    assert first.metadata._continue
    assert first.metadata.remaining_item_count == 7
    snapshot_rv = first.metadata.resource_version

    # Changes between pages are not seen by the continuing list: it reads the snapshot of the first page.
    core_v1.create_namespaced_config_map(ns, cm("page-05a"))
    core_v1.delete_namespaced_config_map("page-07", ns)

    second = core_v1.list_namespaced_config_map(ns, limit=4, _continue=first.metadata._continue)
    assert in_order(second.items) == listed[4:8]  # page-03 to page-06, without page-05a
    assert second.metadata.resource_version == snapshot_rv
    assert second.metadata.remaining_item_count == 3
    third = core_v1.list_namespaced_config_map(ns, limit=4, _continue=second.metadata._continue)
    assert in_order(third.items) == listed[8:] == ["page-07", "page-08", "page-09"]  # page-07 still
    assert not third.metadata._continue
    assert third.metadata.remaining_item_count is None

    now = names(core_v1.list_namespaced_config_map(ns).items)
    assert "page-05a" in now and "page-07" not in now

    # A page at a resourceVersion, with no resourceVersionMatch, is the list at exactly that version (the legacy
    # semantics of limit), not at a newer one as the whole list at that resourceVersion would be.
    at = core_v1.list_namespaced_config_map(ns, limit=100, resource_version=snapshot_rv)
    assert at.metadata.resource_version == snapshot_rv
    assert "page-07" in names(at.items) and "page-05a" not in names(at.items)
    whole = core_v1.list_namespaced_config_map(ns, resource_version=snapshot_rv)  # NotOlderThan
    assert "page-05a" in names(whole.items) and "page-07" not in names(whole.items)


def test_pagination_bad_continue_token(core_v1, ns):
    with pytest.raises(ApiException) as exc:
        core_v1.list_namespaced_config_map(ns, limit=1, _continue="not-a-token")
    assert exc.value.status == 400


def _collect(stream, events: list, stop_when) -> None:
    for ev in stream:
        if is_root_ca(ev["raw_object"]):  # made by its publisher when the namespace was, maybe after the start
            continue
        events.append((ev["type"], ev["raw_object"]))
        if stop_when(events):
            return


def test_watch_added_modified_deleted(core_v1, ns):
    rv = core_v1.list_namespaced_config_map(ns).metadata.resource_version
    w = watch.Watch()
    events: list = []
    stream = w.stream(core_v1.list_namespaced_config_map, ns, resource_version=rv, timeout_seconds=30)
    t = threading.Thread(target=_collect, args=(stream, events, lambda e: e[-1][0] == "DELETED"), daemon=True)
    t.start()
    core_v1.create_namespaced_config_map(ns, cm("w", {"a": "1"}))
    core_v1.patch_namespaced_config_map("w", ns, {"data": {"a": "2"}})
    core_v1.delete_namespaced_config_map("w", ns)
    t.join(20)
    w.stop()
    assert [e[0] for e in events] == ["ADDED", "MODIFIED", "DELETED"], events
    assert [e[1]["data"]["a"] for e in events] == ["1", "2", "2"]
    rvs = [int(e[1]["metadata"]["resourceVersion"]) for e in events]
    assert rvs == sorted(rvs) and len(set(rvs)) == 3 and rvs[0] > int(rv)
    assert all(e[1]["kind"] == "ConfigMap" and e[1]["apiVersion"] == "v1" for e in events)


def test_watch_resume_from_resource_version(core_v1, ns):
    start = core_v1.create_namespaced_config_map(ns, cm("r0")).metadata.resource_version
    core_v1.create_namespaced_config_map(ns, cm("r1"))
    core_v1.create_namespaced_config_map(ns, cm("r2"))
    core_v1.delete_namespaced_config_map("r0", ns)
    events: list = []
    w = watch.Watch()
    _collect(
        w.stream(core_v1.list_namespaced_config_map, ns, resource_version=start, timeout_seconds=10),
        events,
        lambda e: len(e) == 3,
    )
    w.stop()
    # Everything after `start`, nothing at or before it.
    assert [(e[0], e[1]["metadata"]["name"]) for e in events] == [("ADDED", "r1"), ("ADDED", "r2"), ("DELETED", "r0")]


def test_watch_bookmark_before_timeout(core_v1, ns):
    # A watch that allows bookmarks is told the current resourceVersion 2 s before its timeoutSeconds ends
    # (cacheWatcher.nextBookmarkTime), so a reflector resumes from there instead of from its last event.
    rv = core_v1.create_namespaced_config_map(ns, cm("b0")).metadata.resource_version
    core_v1.create_namespaced_config_map("default", cm(f"elsewhere-{ns}"))  # moves the revision on
    w = watch.Watch()
    t0 = time.monotonic()
    events = [
        (ev["type"], ev["raw_object"], time.monotonic() - t0)
        for ev in w.stream(
            core_v1.list_namespaced_config_map,
            ns,
            resource_version=rv,
            timeout_seconds=4,
            allow_watch_bookmarks=True,
            _request_timeout=15,
        )
        if not is_root_ca(ev["raw_object"])  # made by its publisher when the namespace was, maybe after b0
    ]
    ended = time.monotonic() - t0
    core_v1.delete_namespaced_config_map(f"elsewhere-{ns}", "default")
    assert [e[0] for e in events] == ["BOOKMARK"], events
    obj, at = events[0][1], events[0][2]
    assert obj["kind"] == "ConfigMap" and obj["apiVersion"] == "v1", obj
    assert int(obj["metadata"]["resourceVersion"]) > int(rv)
    assert 1.5 <= at <= 3.5 and 3.5 <= ended <= 8, (at, ended)


def test_watch_with_label_selector(core_v1, ns):
    rv = core_v1.list_namespaced_config_map(ns).metadata.resource_version
    core_v1.create_namespaced_config_map(ns, cm("plain"))
    core_v1.create_namespaced_config_map(ns, cm("sel", labels={"pick": "me"}))
    # An object that stops matching is DELETED for this watcher.
    core_v1.patch_namespaced_config_map("sel", ns, {"metadata": {"labels": {"pick": "no"}}})
    events: list = []
    w = watch.Watch()
    _collect(
        w.stream(
            core_v1.list_namespaced_config_map, ns, resource_version=rv, label_selector="pick=me", timeout_seconds=10
        ),
        events,
        lambda e: len(e) == 2,
    )
    w.stop()
    assert [(e[0], e[1]["metadata"]["name"]) for e in events] == [("ADDED", "sel"), ("DELETED", "sel")]


def test_watch_expired_resource_version_then_relist(server_factory):
    srv = server_factory("--default-watch-cache-size=5")
    api = srv.api_client()
    try:
        v1 = client.CoreV1Api(api)
        srv.create_namespace("expiry")
        old_rv = v1.list_namespaced_config_map("expiry").metadata.resource_version
        for i in range(12):
            v1.create_namespaced_config_map("expiry", cm(f"x{i}"))
        with pytest.raises(ApiException) as exc:
            for _ in watch.Watch().stream(
                v1.list_namespaced_config_map, "expiry", resource_version=old_rv, timeout_seconds=5
            ):
                pass
        assert exc.value.status == 410
        assert (
            "Expired" in str(exc.value.reason)
            or "too old resource version" in str(exc.value.reason)
            or "Gone" in str(exc.value.reason)
        )

        # Recover the way an informer does: relist, then watch from the list's resourceVersion.
        lst = v1.list_namespaced_config_map("expiry")
        assert len(without_root_ca(lst.items)) == 12
        events: list = []
        w = watch.Watch()
        stream = w.stream(
            v1.list_namespaced_config_map, "expiry", resource_version=lst.metadata.resource_version, timeout_seconds=20
        )
        t = threading.Thread(target=_collect, args=(stream, events, lambda e: len(e) == 1), daemon=True)
        t.start()
        v1.create_namespaced_config_map("expiry", cm("after"))
        t.join(15)
        w.stop()
        assert [(e[0], e[1]["metadata"]["name"]) for e in events] == [("ADDED", "after")]
    finally:
        api.close()


def test_update_conflict(core_v1, ns):
    first = core_v1.create_namespaced_config_map(ns, cm("cc", {"v": "0"}))
    a = core_v1.read_namespaced_config_map("cc", ns)
    b = core_v1.read_namespaced_config_map("cc", ns)
    a.data["v"] = "a"
    core_v1.replace_namespaced_config_map("cc", ns, a)
    b.data["v"] = "b"
    with pytest.raises(ApiException) as exc:
        core_v1.replace_namespaced_config_map("cc", ns, b)
    assert exc.value.status == 409
    status = json.loads(exc.value.body)
    assert status["reason"] == "Conflict"
    assert status["message"] == (
        'Operation cannot be fulfilled on configmaps "cc": the object has been modified; '
        "please apply your changes to the latest version and try again"
    )
    assert status["details"] == {"name": "cc", "kind": "configmaps"}
    assert core_v1.read_namespaced_config_map("cc", ns).data == {"v": "a"}
    # An update without resourceVersion is unconditional.
    b.metadata.resource_version = None
    assert core_v1.replace_namespaced_config_map("cc", ns, b).data == {"v": "b"}
    assert first.metadata.uid == core_v1.read_namespaced_config_map("cc", ns).metadata.uid


def test_delete_preconditions(core_v1, ns):
    obj = core_v1.create_namespaced_config_map(ns, cm("pre"))
    with pytest.raises(ApiException) as exc:
        core_v1.delete_namespaced_config_map(
            "pre", ns, body=client.V1DeleteOptions(preconditions=client.V1Preconditions(uid="wrong-uid"))
        )
    # rest.BeforeDelete's words, on the Kind
    assert exc.value.status == 409
    status = json.loads(exc.value.body)
    assert status["message"] == (
        f'Operation cannot be fulfilled on ConfigMap "pre": the UID in the precondition (wrong-uid) does not match '
        f"the UID in record ({obj.metadata.uid}). The object might have been deleted and then recreated"
    )
    assert status["details"] == {"name": "pre", "kind": "ConfigMap"}
    with pytest.raises(ApiException) as exc:
        core_v1.delete_namespaced_config_map(
            "pre", ns, body=client.V1DeleteOptions(preconditions=client.V1Preconditions(resource_version="1"))
        )
    assert exc.value.status == 409
    assert json.loads(exc.value.body)["message"] == (
        'Operation cannot be fulfilled on ConfigMap "pre": the ResourceVersion in the precondition (1) does not '
        f"match the ResourceVersion in record ({obj.metadata.resource_version}). The object might have been modified"
    )
    core_v1.delete_namespaced_config_map(
        "pre",
        ns,
        body=client.V1DeleteOptions(
            preconditions=client.V1Preconditions(uid=obj.metadata.uid, resource_version=obj.metadata.resource_version)
        ),
    )
    with pytest.raises(ApiException) as exc:
        core_v1.read_namespaced_config_map("pre", ns)
    assert exc.value.status == 404


def test_delete_preconditions_name_the_kind_with_its_group_and_namespaces_their_resource(core_v1, apps_v1, ns):
    dep = apps_v1.create_namespaced_deployment(
        ns,
        {
            "metadata": {"name": "pre"},
            "spec": {
                "selector": {"matchLabels": {"app": "pre"}},
                "template": {
                    "metadata": {"labels": {"app": "pre"}},
                    "spec": {"containers": [{"name": "c", "image": "i"}]},
                },
            },
        },
    )
    with pytest.raises(ApiException) as exc:
        apps_v1.delete_namespaced_deployment("pre", ns, body={"preconditions": {"uid": "wrong"}})
    status = json.loads(exc.value.body)
    assert status["message"].startswith(
        f'Operation cannot be fulfilled on Deployment.apps "pre": the UID in the precondition (wrong) does not match '
        f"the UID in record ({dep.metadata.uid})"
    )
    assert status["details"] == {"name": "pre", "group": "apps", "kind": "Deployment"}
    # the namespace REST checks them itself, in the storage layer's words
    uid = core_v1.read_namespace(ns).metadata.uid
    with pytest.raises(ApiException) as exc:
        core_v1.delete_namespace(ns, body={"preconditions": {"uid": "wrong"}})
    assert json.loads(exc.value.body)["message"] == (
        f'Operation cannot be fulfilled on namespaces "{ns}": Precondition failed: UID in precondition: wrong, '
        f"UID in object meta: {uid}"
    )


def test_dry_run_create_leaves_nothing(core_v1, ns):
    before = core_v1.list_namespaced_config_map(ns).metadata.resource_version
    out = core_v1.create_namespaced_config_map(ns, cm("dry", {"a": "1"}), dry_run="All")
    assert out.metadata.name == "dry" and out.data == {"a": "1"}
    assert out.metadata.uid  # filled in as if created
    with pytest.raises(ApiException) as exc:
        core_v1.read_namespaced_config_map("dry", ns)
    assert exc.value.status == 404
    # Dry-run consumed no revision: the next write is the only one after `before`.
    real = core_v1.create_namespaced_config_map(ns, cm("real"))
    events: list = []
    w = watch.Watch()
    _collect(
        w.stream(core_v1.list_namespaced_config_map, ns, resource_version=before, timeout_seconds=5),
        events,
        lambda e: len(e) >= 1,
    )
    w.stop()
    assert [(e[0], e[1]["metadata"]["name"]) for e in events] == [("ADDED", "real")]
    assert real.metadata.resource_version

    # Dry-run update and delete don't change anything either.
    real.data = {"changed": "yes"}
    core_v1.replace_namespaced_config_map("real", ns, real, dry_run="All")
    core_v1.delete_namespaced_config_map("real", ns, dry_run="All")
    assert core_v1.read_namespaced_config_map("real", ns).data is None


def test_status_subresource(apps_v1, ns):
    dep = apps_v1.create_namespaced_deployment(ns, deployment("st"))
    assert dep.metadata.generation == 1

    # Writing status leaves spec alone even if the body carries a different spec.
    dep.status = client.V1DeploymentStatus(replicas=1, ready_replicas=1, observed_generation=1)
    dep.spec.replicas = 5
    out = apps_v1.replace_namespaced_deployment_status("st", ns, dep)
    assert out.status.ready_replicas == 1 and out.status.observed_generation == 1
    assert out.spec.replicas == 1
    assert out.metadata.generation == 1

    # Writing the main resource leaves status alone.
    cur = apps_v1.read_namespaced_deployment("st", ns)
    cur.status = client.V1DeploymentStatus(replicas=99)
    cur.spec.replicas = 2
    out = apps_v1.replace_namespaced_deployment("st", ns, cur)
    assert out.spec.replicas == 2
    assert out.status.replicas == 1 and out.status.ready_replicas == 1
    assert out.metadata.generation == 2

    got = apps_v1.read_namespaced_deployment_status("st", ns)
    assert got.status.ready_replicas == 1 and got.spec.replicas == 2


def test_generation_increments_on_spec_change_only(apps_v1, ns):
    """A Deployment's generation moves with its spec and, as deploymentStrategy has it, its annotations
    (they are copied to its ReplicaSets); not with labels, status or a no-op."""
    dep = apps_v1.create_namespaced_deployment(ns, deployment("gen"))
    assert dep.metadata.generation == 1
    out = apps_v1.patch_namespaced_deployment("gen", ns, {"metadata": {"labels": {"a": "b"}}})
    assert out.metadata.generation == 1
    out = apps_v1.patch_namespaced_deployment("gen", ns, {"metadata": {"annotations": {"x": "y"}}})
    assert out.metadata.generation == 2
    out = apps_v1.patch_namespaced_deployment("gen", ns, {"spec": {"replicas": 3}})
    assert out.metadata.generation == 3
    out = apps_v1.patch_namespaced_deployment(
        "gen", ns, {"spec": {"template": {"spec": {"containers": [{"name": "main", "image": "nginx:1.28"}]}}}}
    )
    assert out.metadata.generation == 4
    out = apps_v1.patch_namespaced_deployment("gen", ns, {"spec": {"replicas": 3}})  # no-op
    assert out.metadata.generation == 4
    out = apps_v1.patch_namespaced_deployment_status("gen", ns, {"status": {"observedGeneration": 4}})
    assert out.metadata.generation == 4


def test_generation_is_kept_by_the_kinds_whose_strategy_keeps_it(server, ns):
    """Which kinds have a metadata.generation is each strategy's: NetworkPolicy, IngressClass, webhook
    configurations and EndpointSlices (also moved by their labels) have one; an HPA, a ResourceQuota or a
    Node, status subresource or not, has none; a PriorityClass keeps its 1."""

    def create(path: str, body: dict) -> dict:
        r = server.request("POST", path, json=body)
        assert r.status_code == 201, r.text
        return r.json()

    def patch(path: str, body: dict) -> dict:
        r = server.request("PATCH", path, json=body, headers={"Content-Type": "application/merge-patch+json"})
        assert r.status_code == 200, r.text
        return r.json()

    netpol = f"/apis/networking.k8s.io/v1/namespaces/{ns}/networkpolicies"
    obj = create(netpol, {"metadata": {"name": "np"}, "spec": {"podSelector": {}}})
    assert obj["metadata"]["generation"] == 1
    obj = patch(f"{netpol}/np", {"spec": {"podSelector": {"matchLabels": {"app": "x"}}}})
    assert obj["metadata"]["generation"] == 2
    slices = f"/apis/discovery.k8s.io/v1/namespaces/{ns}/endpointslices"
    obj = create(slices, {"metadata": {"name": "es"}, "addressType": "IPv4", "endpoints": []})
    assert obj["metadata"]["generation"] == 1
    assert patch(f"{slices}/es", {"metadata": {"labels": {"a": "b"}}})["metadata"]["generation"] == 2
    hooks = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations"
    obj = create(hooks, {"metadata": {"name": f"{ns}-hook"}})
    assert obj["metadata"]["generation"] == 1
    quota = create(f"/api/v1/namespaces/{ns}/resourcequotas", {"metadata": {"name": "q"}, "spec": {"hard": {}}})
    assert "generation" not in quota["metadata"]
    hpa = create(
        f"/apis/autoscaling/v2/namespaces/{ns}/horizontalpodautoscalers",
        {
            "metadata": {"name": "h"},
            "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "d"}, "maxReplicas": 2},
        },
    )
    assert "generation" not in hpa["metadata"]
    pc = create("/apis/scheduling.k8s.io/v1/priorityclasses", {"metadata": {"name": f"{ns}-pc"}, "value": 10})
    assert pc["metadata"]["generation"] == 1
    pc = patch(f"/apis/scheduling.k8s.io/v1/priorityclasses/{ns}-pc", {"description": "changed"})
    assert pc["metadata"]["generation"] == 1
    for path in (f"{hooks}/{ns}-hook", f"/apis/scheduling.k8s.io/v1/priorityclasses/{ns}-pc"):
        server.request("DELETE", path)


def _pod(name: str, node: str = "") -> client.V1Pod:
    spec = client.V1PodSpec(containers=[client.V1Container(name="c", image="busybox")], node_name=node or None)
    return client.V1Pod(metadata=client.V1ObjectMeta(name=name), spec=spec)


def test_pod_generation_follows_the_spec(core_v1, ns):
    """Since 1.33 (KEP-5067, ungated) a pod's metadata.generation is 1 on create and moves with its spec only."""
    pod = core_v1.create_namespaced_pod(ns, _pod("gen"))
    assert pod.metadata.generation == 1
    out = core_v1.patch_namespaced_pod("gen", ns, {"metadata": {"labels": {"a": "b"}}})
    assert out.metadata.generation == 1
    out = core_v1.patch_namespaced_pod("gen", ns, {"spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}})
    assert out.metadata.generation == 2
    out = core_v1.patch_namespaced_pod_status("gen", ns, {"status": {"phase": "Running"}})
    assert out.metadata.generation == 2


def test_pod_deleted_at_once_is_marked_first_and_returned(core_v1, ns):
    """A pod never scheduled goes at once, but as BeforeDelete does it: first marked (deletionTimestamp,
    deletionGracePeriodSeconds 0, generation + 1), which watchers see as MODIFIED, then removed; the DELETE
    answers with that Pod (the pod store's ReturnDeletedObject), not a Status."""
    created = core_v1.create_namespaced_pod(ns, _pod("once"))
    events: list = []
    w = watch.Watch()
    stream = w.stream(
        core_v1.list_namespaced_pod, ns, resource_version=created.metadata.resource_version, timeout_seconds=10
    )
    t = threading.Thread(target=_collect, args=(stream, events, lambda e: e[-1][0] == "DELETED"), daemon=True)
    t.start()
    time.sleep(0.3)
    deleted = json.loads(core_v1.delete_namespaced_pod("once", ns, _preload_content=False).data)
    assert deleted["kind"] == "Pod" and deleted["metadata"]["name"] == "once"
    assert deleted["metadata"]["deletionGracePeriodSeconds"] == 0 and deleted["metadata"]["deletionTimestamp"]
    assert deleted["metadata"]["generation"] == 2
    t.join(10)
    w.stop()
    assert [e[0] for e in events] == ["MODIFIED", "DELETED"], events
    marked = events[0][1]["metadata"]
    assert marked["deletionGracePeriodSeconds"] == 0 and marked["generation"] == 2
    assert events[1][1] == deleted  # the same object, at the revision of its removal


def test_forced_delete_of_a_terminating_pod(core_v1, ns):
    """A scheduled pod waits out its grace period; a delete with gracePeriodSeconds=0 (kubectl delete --force)
    shortens it and removes the pod at once, even with a resourceVersion precondition of the pod as it was."""
    core_v1.create_namespaced_pod(ns, _pod("slow", node="node-a"))
    marked = core_v1.delete_namespaced_pod("slow", ns)
    assert marked.metadata.deletion_grace_period_seconds == 30 and marked.metadata.generation == 2
    rv = core_v1.read_namespaced_pod("slow", ns).metadata.resource_version
    # in the body: kube reads the options of a request with a body from the body alone, not the query
    options = client.V1DeleteOptions(grace_period_seconds=0, preconditions={"resourceVersion": rv})
    gone = core_v1.delete_namespaced_pod("slow", ns, body=options)
    assert gone.kind == "Pod" and gone.metadata.deletion_grace_period_seconds == 0
    with pytest.raises(ApiException) as exc:
        core_v1.read_namespaced_pod("slow", ns)
    assert exc.value.status == 404


def test_finalizers(core_v1, ns):
    core_v1.create_namespaced_config_map(ns, cm("fin", finalizers=["e2e.example.com/hold"]))
    # The object remains, marked for deletion, and the delete answers with the object itself.
    body = core_v1.delete_namespaced_config_map("fin", ns)
    assert body["kind"] == "ConfigMap" and body["metadata"]["deletionTimestamp"]
    obj = core_v1.read_namespaced_config_map("fin", ns)
    assert obj.metadata.deletion_timestamp is not None
    assert obj.metadata.deletion_grace_period_seconds == 0
    assert obj.metadata.finalizers == ["e2e.example.com/hold"]

    # Deleting again is accepted and changes nothing; new finalizers cannot be added.
    core_v1.delete_namespaced_config_map("fin", ns)
    with pytest.raises(ApiException) as exc:
        core_v1.patch_namespaced_config_map(
            "fin", ns, {"metadata": {"finalizers": ["e2e.example.com/hold", "e2e.example.com/more"]}}
        )
    assert exc.value.status == 422
    assert json.loads(exc.value.body)["message"] == (
        'ConfigMap "fin" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the '
        'object is being deleted, found new finalizers []string{"e2e.example.com/more"}'
    )
    # Spec-ish changes are still allowed while terminating.
    core_v1.patch_namespaced_config_map("fin", ns, {"data": {"late": "write"}})

    # Taking the last finalizer off deletes it; the client is answered with its update, as applied
    # (deleteWithoutFinalizers), not with the last stored state. A dry run answers the same.
    patch = {"metadata": {"finalizers": None}, "data": {"late": "last"}}
    out = core_v1.patch_namespaced_config_map("fin", ns, patch, dry_run="All")
    assert (out.metadata.finalizers, out.data["late"]) == (None, "last")
    out = core_v1.patch_namespaced_config_map("fin", ns, patch)
    assert out.metadata.name == "fin"
    assert (out.metadata.finalizers, out.data["late"]) == (None, "last")
    assert out.metadata.deletion_timestamp is not None
    wait_until(lambda: _gone(core_v1, ns, "fin"), timeout=10, message="the object to be deleted")
    # the same through a PUT
    core_v1.create_namespaced_config_map(ns, cm("fin-put", finalizers=["e2e.example.com/hold"]))
    core_v1.delete_namespaced_config_map("fin-put", ns)
    obj = core_v1.read_namespaced_config_map("fin-put", ns)
    obj.metadata.finalizers, obj.data = [], {"put": "yes"}
    out = core_v1.replace_namespaced_config_map("fin-put", ns, obj)
    assert (out.metadata.finalizers, out.data) == (None, {"put": "yes"})
    assert _gone(core_v1, ns, "fin-put")


def test_finalizer_removal_is_a_single_deleted_event(core_v1, ns):
    core_v1.create_namespaced_config_map(ns, cm("fin2", finalizers=["e2e.example.com/hold"]))
    core_v1.delete_namespaced_config_map("fin2", ns)
    rv = core_v1.read_namespaced_config_map("fin2", ns).metadata.resource_version
    events: list = []
    w = watch.Watch()
    stream = w.stream(core_v1.list_namespaced_config_map, ns, resource_version=rv, timeout_seconds=20)
    t = threading.Thread(target=_collect, args=(stream, events, lambda e: e[-1][0] == "DELETED"), daemon=True)
    t.start()
    core_v1.patch_namespaced_config_map("fin2", ns, {"metadata": {"finalizers": None}})
    t.join(15)
    w.stop()
    assert [e[0] for e in events] == ["DELETED"], events
    # The deleted state is the last stored one: still marked, still listing the finalizer.
    assert events[0][1]["metadata"]["finalizers"] == ["e2e.example.com/hold"]


def _gone(core_v1, ns, name) -> bool:
    try:
        core_v1.read_namespaced_config_map(name, ns)
    except ApiException as e:
        return e.status == 404
    return False


def test_delete_collection(core_v1, ns):
    for i in range(3):
        core_v1.create_namespaced_config_map(ns, cm(f"dc{i}", labels={"batch": "x"}))
    core_v1.create_namespaced_config_map(ns, cm("keep"))
    core_v1.delete_collection_namespaced_config_map(ns, label_selector="batch=x")
    assert names(core_v1.list_namespaced_config_map(ns).items) == ["keep"]

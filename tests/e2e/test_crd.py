"""CustomResourceDefinitions end to end: kubectl and the Python client against the real server."""

from __future__ import annotations

import json
import threading
import time
import uuid

import pytest


def _crd(group: str, plural: str, kind: str, *, scope: str = "Namespaced", **version_extra) -> dict:
    schema = {
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "properties": {
                    "replicas": {"type": "integer", "default": 1, "minimum": 0},
                    "size": {"type": "integer", "maximum": 10},
                    "color": {"type": "string", "enum": ["red", "blue"], "default": "red"},
                    "name": {"type": "string"},
                    "selector": {"type": "string"},
                    "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                },
            },
            "status": {
                "type": "object",
                "properties": {"replicas": {"type": "integer"}, "phase": {"type": "string"}},
            },
        },
    }
    version = {"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": schema}}
    version.update(version_extra)
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": {
            "group": group,
            "scope": scope,
            "names": {"plural": plural, "singular": kind.lower(), "kind": kind, "shortNames": [plural[:3] + "x"]},
            "versions": [version],
        },
    }


def _apply_crd(server, crd: dict, tmp_path) -> str:
    name = crd["metadata"]["name"]
    server.kubectl("apply", "-f", "-", input=json.dumps(crd))
    server.kubectl("wait", "--for", "condition=established", f"crd/{name}", "--timeout=10s")
    return name


def _kubectl(server, tmp_path, *args, **kw):
    # kubectl caches discovery: a fresh cache per call sees CRDs made a moment ago
    return server.kubectl("--cache-dir", str(tmp_path / f"cache-{uuid.uuid4().hex[:6]}"), *args, **kw)


@pytest.fixture
def widgets(server, tmp_path):
    group = f"w{uuid.uuid4().hex[:6]}.example.com"
    crd = _crd(
        group,
        "widgets",
        "Widget",
        subresources={
            "status": {},
            "scale": {
                "specReplicasPath": ".spec.replicas",
                "statusReplicasPath": ".status.replicas",
                "labelSelectorPath": ".spec.selector",
            },
        },
        additionalPrinterColumns=[
            {"name": "Color", "type": "string", "jsonPath": ".spec.color"},
            {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"},
            {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
        ],
    )
    name = _apply_crd(server, crd, tmp_path)
    yield group
    server.kubectl("delete", "crd", name, "--wait=false", check=False)


def test_crd_status_conditions(server, widgets):
    r = server.request("GET", f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.{widgets}")
    status = r.json()["status"]
    conds = {c["type"]: c for c in status["conditions"]}
    assert conds["NamesAccepted"]["status"] == "True"
    assert conds["NamesAccepted"]["reason"] == "NoConflicts"
    assert conds["Established"]["reason"] == "InitialNamesAccepted"
    assert status["acceptedNames"]["plural"] == "widgets"
    assert status["acceptedNames"]["listKind"] == "WidgetList"
    assert status["storedVersions"] == ["v1"]


def test_crud_defaults_pruning_and_columns(server, widgets, ns, tmp_path):
    obj = {
        "apiVersion": f"{widgets}/v1",
        "kind": "Widget",
        "metadata": {"name": "a"},
        "spec": {"size": 3, "bogus": 1, "free": {"anything": {"x": 1}}},
    }
    res = _kubectl(server, tmp_path, "-n", ns, "create", "--validate=warn", "-f", "-", input=json.dumps(obj))
    assert f"widget.{widgets}/a created" in res.stdout
    assert 'unknown field "spec.bogus"' in res.stderr
    got = server.request("GET", f"/apis/{widgets}/v1/namespaces/{ns}/widgets/a").json()
    assert got["spec"] == {"size": 3, "replicas": 1, "color": "red", "free": {"anything": {"x": 1}}}
    # a custom resource is a map to kube-apiserver, written with sorted keys: apiVersion before kind
    assert list(got)[:3] == ["apiVersion", "kind", "metadata"]
    # and its list items keep apiVersion and kind (a built-in kind's list leaves them out)
    listed = server.request("GET", f"/apis/{widgets}/v1/namespaces/{ns}/widgets").json()
    assert [list(item)[:2] for item in listed["items"]] == [["apiVersion", "kind"]]
    assert got["metadata"]["generation"] == 1
    assert "status" not in got
    out = _kubectl(server, tmp_path, "-n", ns, "get", "widgets").stdout.splitlines()
    assert out[0].split() == ["NAME", "COLOR", "REPLICAS", "AGE"]
    assert out[1].split()[:3] == ["a", "red", "1"]
    # short name and singular
    assert _kubectl(server, tmp_path, "-n", ns, "get", "widx", "a", "-o", "name").stdout.strip() == (
        f"widget.{widgets}/a"
    )
    # merge patch bumps generation, status is ignored on the main resource
    r = server.request(
        "PATCH",
        f"/apis/{widgets}/v1/namespaces/{ns}/widgets/a",
        data=json.dumps({"spec": {"color": "blue"}, "status": {"phase": "x"}}),
        headers={"Content-Type": "application/merge-patch+json"},
    )
    assert r.status_code == 200, r.text
    assert r.json()["spec"]["color"] == "blue"
    assert r.json()["metadata"]["generation"] == 2
    assert "status" not in r.json()
    # strategic merge patch is not for custom resources
    r = server.request(
        "PATCH",
        f"/apis/{widgets}/v1/namespaces/{ns}/widgets/a",
        data="{}",
        headers={"Content-Type": "application/strategic-merge-patch+json"},
    )
    assert r.status_code == 415
    # status subresource
    r = server.request(
        "PATCH",
        f"/apis/{widgets}/v1/namespaces/{ns}/widgets/a/status",
        data=json.dumps({"status": {"phase": "Ready", "replicas": 1}}),
        headers={"Content-Type": "application/merge-patch+json"},
    )
    assert r.status_code == 200, r.text
    assert r.json()["status"] == {"phase": "Ready", "replicas": 1}
    assert r.json()["metadata"]["generation"] == 2
    # dry run leaves nothing
    r = server.request(
        "POST", f"/apis/{widgets}/v1/namespaces/{ns}/widgets?dryRun=All", json={**obj, "metadata": {"name": "dry"}}
    )
    assert r.status_code == 201, r.text
    assert server.request("GET", f"/apis/{widgets}/v1/namespaces/{ns}/widgets/dry").status_code == 404
    _kubectl(server, tmp_path, "-n", ns, "delete", "widget", "a")
    assert server.request("GET", f"/apis/{widgets}/v1/namespaces/{ns}/widgets/a").status_code == 404


def test_strict_and_invalid(server, widgets, ns):
    base = f"/apis/{widgets}/v1/namespaces/{ns}/widgets"
    obj = {"apiVersion": f"{widgets}/v1", "kind": "Widget", "metadata": {"name": "s"}, "spec": {"bogus": 1}}
    r = server.request("POST", base + "?fieldValidation=Strict", json=obj)
    assert r.status_code == 400
    assert r.json()["message"] == (
        'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.bogus"'
    )
    bad = {
        "apiVersion": f"{widgets}/v1",
        "kind": "Widget",
        "metadata": {"name": "bad"},
        "spec": {"size": 20, "color": "pink", "replicas": "x"},
    }
    r = server.request("POST", base, json=bad)
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["reason"] == "Invalid"
    causes = {c["field"]: c["message"] for c in body["details"]["causes"]}
    assert causes["spec.size"] == "Invalid value: 20: spec.size in body should be less than or equal to 10"
    assert causes["spec.color"] == 'Unsupported value: "pink": supported values: "red", "blue"'
    assert causes["spec.replicas"] == (
        'Invalid value: "string": spec.replicas in body must be of type integer: "string"'
    )
    assert body["message"].startswith(f'Widget.{widgets} "bad" is invalid: [')
    # a custom resource is read as unstructured: its kind must be in the body
    body = b'{"metadata":{"name":"nokind"}}'
    r = server.request("POST", base, data=body, headers={"Content-Type": "application/json"})
    assert (r.status_code, r.json()["reason"]) == (400, "BadRequest")
    assert r.json()["message"] == (
        "the object provided is unrecognized (must be of type Widget): Object 'Kind' is missing in "
        """'{"metadata":{"name":"nokind"}}' ({"metadata":{"name":"nokind"}})"""
    )
    # unknown group/version/resource falls through to 404
    assert server.request("GET", f"/apis/{widgets}/v9/widgets").status_code == 404
    assert server.request("GET", f"/apis/{widgets}/v1/gadgets").status_code == 404


def test_scale_subresource(server, widgets, ns, tmp_path):
    obj = {
        "apiVersion": f"{widgets}/v1",
        "kind": "Widget",
        "metadata": {"name": "sc"},
        "spec": {"replicas": 2, "selector": "app=x"},
    }
    _kubectl(server, tmp_path, "-n", ns, "create", "-f", "-", input=json.dumps(obj))
    _kubectl(server, tmp_path, "-n", ns, "scale", "widget", "sc", "--replicas=5")
    got = server.request("GET", f"/apis/{widgets}/v1/namespaces/{ns}/widgets/sc").json()
    assert got["spec"]["replicas"] == 5
    scale = server.request("GET", f"/apis/{widgets}/v1/namespaces/{ns}/widgets/sc/scale").json()
    assert scale["kind"] == "Scale"
    assert scale["apiVersion"] == "autoscaling/v1"
    assert scale["spec"] == {"replicas": 5}
    assert scale["status"] == {"replicas": 0, "selector": "app=x"}
    # scaled to 0: the custom resource holds replicas: 0; the Scale's spec is empty (replicas is omitempty)
    _kubectl(server, tmp_path, "-n", ns, "scale", "widget", "sc", "--replicas=0")
    assert server.request("GET", f"/apis/{widgets}/v1/namespaces/{ns}/widgets/sc").json()["spec"]["replicas"] == 0
    scale = server.request("GET", f"/apis/{widgets}/v1/namespaces/{ns}/widgets/sc/scale").json()
    assert scale["spec"] == {}
    # a patch that leaves no Scale behind is the client's error, as the Scale's decoding words it
    merge = {"Content-Type": "application/merge-patch+json"}
    r = server.request(
        "PATCH", f"/apis/{widgets}/v1/namespaces/{ns}/widgets/sc/scale", json={"spec": "x"}, headers=merge
    )
    assert r.status_code == 400, r.text
    assert r.json()["message"] == (
        'Scale in version "v1" cannot be handled as a Scale: '
        "json: cannot unmarshal string into Go struct field Scale.spec of type v1.ScaleSpec"
    )


def test_scale_subresource_records_its_managers(server, widgets, ns, tmp_path):
    """Writes through a custom resource's /scale own its replicas in managedFields as the built-in scales do
    (an entry with subresource "scale"), so a later server-side apply of replicas conflicts with the
    scaler; /scale takes server-side apply itself."""
    path = f"/apis/{widgets}/v1/namespaces/{ns}/widgets/own"
    obj = {"apiVersion": f"{widgets}/v1", "kind": "Widget", "metadata": {"name": "own"}, "spec": {"replicas": 1}}
    _kubectl(server, tmp_path, "-n", ns, "create", "-f", "-", input=json.dumps(obj))
    _kubectl(server, tmp_path, "-n", ns, "scale", "widget", "own", "--replicas=3")
    entries = {e["manager"]: e for e in server.request("GET", path).json()["metadata"]["managedFields"]}
    assert entries["kubectl"]["subresource"] == "scale" and entries["kubectl"]["operation"] == "Update"
    assert entries["kubectl"]["fieldsV1"] == {"f:spec": {"f:replicas": {}}}
    assert "f:replicas" not in entries["kubectl-create"]["fieldsV1"].get("f:spec", {})
    applied = dict(obj, spec={"replicas": 6})
    r = _kubectl(
        server, tmp_path, "-n", ns, "apply", "--server-side", "-f", "-", input=json.dumps(applied), check=False
    )
    assert r.returncode != 0
    assert 'conflict with "kubectl" with subresource "scale"' in r.stderr and ".spec.replicas" in r.stderr
    r = server.request(
        "PATCH",
        f"{path}/scale?fieldManager=autoscaler&force=true",
        data="apiVersion: autoscaling/v1\nkind: Scale\nmetadata: {name: own}\nspec: {replicas: 7}\n",
        headers={"Content-Type": "application/apply-patch+yaml"},
    )
    assert r.status_code == 200 and r.json()["spec"] == {"replicas": 7}, r.text
    entries = {e["manager"]: e for e in server.request("GET", path).json()["metadata"]["managedFields"]}
    assert entries["autoscaler"]["operation"] == "Apply" and entries["autoscaler"]["subresource"] == "scale"
    assert "kubectl" not in entries  # the forced apply took replicas from the scaler


def test_discovery(server, widgets):
    r = server.request("GET", f"/apis/{widgets}/v1")
    res = {x["name"]: x for x in r.json()["resources"]}
    assert res["widgets"]["kind"] == "Widget"
    assert res["widgets"]["singularName"] == "widget"
    assert res["widgets"]["shortNames"] == ["widx"]
    assert res["widgets"]["namespaced"] is True
    assert "widgets/status" in res and "widgets/scale" in res
    assert server.request("GET", f"/apis/{widgets}").json()["preferredVersion"]["version"] == "v1"
    agg = server.request(
        "GET", "/apis", headers={"Accept": "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"}
    ).json()
    assert any(item["metadata"]["name"] == widgets for item in agg["items"])


def test_cluster_scoped_and_crd_deletion(server, tmp_path):
    group = f"c{uuid.uuid4().hex[:6]}.example.com"
    name = _apply_crd(server, _crd(group, "gizmos", "Gizmo", scope="Cluster"), tmp_path)
    obj = {"apiVersion": f"{group}/v1", "kind": "Gizmo", "metadata": {"name": "g1"}, "spec": {}}
    r = server.request("POST", f"/apis/{group}/v1/gizmos", json=obj)
    assert r.status_code == 201, r.text
    assert "namespace" not in r.json()["metadata"]
    out = _kubectl(server, tmp_path, "get", "gizmos", "-o", "name").stdout.split()
    assert out == [f"gizmo.{group}/g1"]
    _kubectl(server, tmp_path, "delete", "crd", name, "--timeout=20s")
    assert server.request("GET", f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}").status_code == 404
    assert server.request("GET", f"/apis/{group}/v1/gizmos").status_code == 404
    # a new CRD of the same name starts empty
    _apply_crd(server, _crd(group, "gizmos", "Gizmo", scope="Cluster"), tmp_path)
    r = server.request("GET", f"/apis/{group}/v1/gizmos")
    assert r.json().get("items") == [], r.text
    server.kubectl("delete", "crd", name)


def test_crd_validation(server):
    crd = _crd("bad.example.com", "things", "Thing")
    crd["metadata"]["name"] = "wrong.example.com"
    crd["spec"]["scope"] = "Galaxy"
    crd["spec"]["versions"][0]["storage"] = False
    del crd["spec"]["versions"][0]["schema"]
    r = server.request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=crd)
    assert r.status_code == 422, r.text
    causes = {c["field"]: c["message"] for c in r.json()["details"]["causes"]}
    assert causes["metadata.name"] == 'Invalid value: "wrong.example.com": must be spec.names.plural+"."+spec.group'
    assert causes["spec.scope"] == 'Unsupported value: "Galaxy": supported values: "Cluster", "Namespaced"'
    assert causes["spec.versions[0].schema.openAPIV3Schema"] == "Required value: schemas are required"
    assert causes["spec.versions"].endswith("must have exactly one version marked as storage version")


def test_names_conflict(server, tmp_path):
    group = f"n{uuid.uuid4().hex[:6]}.example.com"
    _apply_crd(server, _crd(group, "alphas", "Alpha"), tmp_path)
    other = _crd(group, "betas", "Alpha")
    other["spec"]["names"]["singular"] = "beta"
    other["spec"]["names"]["listKind"] = "BetaList"  # else "AlphaList" conflicts too, and kube reports the last
    r = server.request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=other)
    assert r.status_code == 201
    deadline = time.time() + 5
    conds = {}
    while time.time() < deadline:
        got = server.request("GET", f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/betas.{group}").json()
        conds = {c["type"]: c for c in (got.get("status") or {}).get("conditions") or []}
        if "NamesAccepted" in conds:
            break
        time.sleep(0.05)
    assert conds["NamesAccepted"]["status"] == "False"
    assert conds["NamesAccepted"]["reason"] == "KindConflict"
    assert conds["NamesAccepted"]["message"] == '"Alpha" is already in use'
    assert conds["Established"]["status"] == "False"
    assert server.request("GET", f"/apis/{group}/v1/betas").status_code == 404
    server.kubectl("delete", "crd", f"betas.{group}", f"alphas.{group}")


def test_operator_loop_with_python_client(server, widgets, ns):
    from kubernetes import client, watch

    api = client.CustomObjectsApi(server.api_client())
    seen: list[tuple[str, str]] = []
    done = threading.Event()

    def operator() -> None:
        listed = api.list_namespaced_custom_object(widgets, "v1", ns, "widgets")
        rv = listed["metadata"]["resourceVersion"]
        w = watch.Watch()
        for ev in w.stream(
            api.list_namespaced_custom_object, widgets, "v1", ns, "widgets", resource_version=rv, timeout_seconds=20
        ):
            obj = ev["object"]
            name = obj["metadata"]["name"]
            seen.append((ev["type"], name))
            meta = obj["metadata"]
            if ev["type"] == "ADDED":
                api.patch_namespaced_custom_object(
                    widgets, "v1", ns, "widgets", name, {"metadata": {"finalizers": ["example.com/cleanup"]}}
                )
                api.patch_namespaced_custom_object_status(
                    widgets, "v1", ns, "widgets", name, {"status": {"phase": "Ready"}}
                )
            elif ev["type"] == "MODIFIED" and meta.get("deletionTimestamp") and meta.get("finalizers"):
                api.patch_namespaced_custom_object(
                    widgets, "v1", ns, "widgets", name, {"metadata": {"finalizers": None}}
                )
            elif ev["type"] == "DELETED":
                w.stop()
                done.set()

    t = threading.Thread(target=operator, daemon=True)
    t.start()
    time.sleep(0.5)
    body = {"apiVersion": f"{widgets}/v1", "kind": "Widget", "metadata": {"name": "op"}, "spec": {}}
    api.create_namespaced_custom_object(widgets, "v1", ns, "widgets", body)
    deadline = time.time() + 10
    while time.time() < deadline:
        got = api.get_namespaced_custom_object(widgets, "v1", ns, "widgets", "op")
        if (got.get("status") or {}).get("phase") == "Ready" and got["metadata"].get("finalizers"):
            break
        time.sleep(0.05)
    assert got["status"] == {"phase": "Ready"}
    assert got["metadata"]["finalizers"] == ["example.com/cleanup"]
    api.delete_namespaced_custom_object(widgets, "v1", ns, "widgets", "op")
    assert done.wait(10), seen
    t.join(5)
    assert seen[0] == ("ADDED", "op")
    assert seen[-1] == ("DELETED", "op")


def test_watch_with_kubectl(server, widgets, ns, tmp_path):
    proc = server.kubectl_popen(
        "--cache-dir", str(tmp_path / "wcache"), "-n", ns, "get", "widgets", "--watch", "-o", "name"
    )
    try:
        time.sleep(1.0)
        obj = {"apiVersion": f"{widgets}/v1", "kind": "Widget", "metadata": {"name": "w1"}, "spec": {}}
        r = server.request("POST", f"/apis/{widgets}/v1/namespaces/{ns}/widgets", json=obj)
        assert r.status_code == 201
        line = proc.stdout.readline().strip()
        assert line == f"widget.{widgets}/w1"
    finally:
        proc.kill()
        proc.wait()


def test_server_side_apply_of_a_custom_resource(server, widgets, ns, tmp_path):
    def widget(**spec):
        return json.dumps({"apiVersion": f"{widgets}/v1", "kind": "Widget", "metadata": {"name": "ssa"}, "spec": spec})

    out = _kubectl(server, tmp_path, "-n", ns, "apply", "--server-side", "-f", "-", input=widget(size=3, name="a"))
    assert out.stdout.strip() == f"widget.{widgets}/ssa serverside-applied"
    # another manager takes a field the first does not apply
    r = server.request(
        "PATCH",
        f"/apis/{widgets}/v1/namespaces/{ns}/widgets/ssa?fieldManager=other",
        data=widget(color="blue"),
        headers={"Content-Type": "application/apply-patch+yaml"},
    )
    assert r.status_code == 200, r.text
    # the first manager changing it conflicts, then forces
    res = _kubectl(
        server,
        tmp_path,
        "-n",
        ns,
        "apply",
        "--server-side",
        "-f",
        "-",
        input=widget(size=3, name="a", color="red"),
        check=False,
    )
    assert res.returncode == 1
    assert 'conflict with "other"' in res.stderr and ".spec.color" in res.stderr, res.stderr
    _kubectl(
        server,
        tmp_path,
        "-n",
        ns,
        "apply",
        "--server-side",
        "--force-conflicts",
        "-f",
        "-",
        input=widget(size=3, name="a", color="red"),
    )
    obj = server.request("GET", f"/apis/{widgets}/v1/namespaces/{ns}/widgets/ssa").json()
    assert obj["spec"]["color"] == "red" and obj["spec"]["size"] == 3
    managers = {m["manager"]: m for m in obj["metadata"]["managedFields"]}
    assert "f:color" in json.dumps(managers["kubectl"]["fieldsV1"])
    # re-applying without a field removes it (no one else owns it)
    _kubectl(server, tmp_path, "-n", ns, "apply", "--server-side", "-f", "-", input=widget(name="a", color="red"))
    obj = server.request("GET", f"/apis/{widgets}/v1/namespaces/{ns}/widgets/ssa").json()
    assert "size" not in obj["spec"]


def test_no_new_custom_resources_while_the_crd_terminates(server, ns):
    """customresource_handler: a create is refused with its own message while the CRD is being deleted (its
    custom resources, held here by a finalizer, are still being removed)."""
    from e2e_helpers import apply_crd, free_form_crd

    group = "terminating.example.com"
    apply_crd(server, free_form_crd(group, "lingers", "Linger"))
    path = f"/apis/{group}/v1/namespaces/{ns}/lingers"
    held = {"apiVersion": f"{group}/v1", "kind": "Linger", "metadata": {"name": "held", "finalizers": ["x/y"]}}
    assert server.request("POST", path, json=held).status_code == 201
    server.kubectl("delete", "crd", f"lingers.{group}", "--wait=false")
    deadline = time.monotonic() + 10
    while True:
        r = server.request("POST", path, json={**held, "metadata": {"name": "new"}})
        if r.status_code != 201 or time.monotonic() > deadline:
            break
        server.request("DELETE", f"{path}/new")
        time.sleep(0.1)
    assert (r.status_code, r.json()["reason"], r.json()["message"]) == (
        405,
        "MethodNotAllowed",
        "create not allowed while custom resource definition is terminating",
    )
    patch = {"Content-Type": "application/merge-patch+json"}
    server.request("PATCH", f"{path}/held", data='{"metadata":{"finalizers":null}}', headers=patch)

"""PATCH end to end: kubectl's client-side apply (three-way strategic merge patches with $setElementOrder,
$patch: delete and $retainKeys), kubectl patch of every type, label/annotate/set/scale/replace/edit, the
Python client's strategic patch, and kube-apiserver's answers to bad patches over raw HTTPS."""

from __future__ import annotations

import json
import os
import stat

import yaml

JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC = "application/strategic-merge-patch+json"


def _deployment(name: str, containers: list[dict], replicas: int = 1) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": containers}},
        },
    }


def _service(name: str, ports: list[dict]) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name},
        "spec": {"selector": {"app": name}, "ports": ports},
    }


def _apply(server, ns: str, obj: dict) -> str:
    return server.kubectl("apply", "-n", ns, "-f", "-", input=yaml.safe_dump(obj)).stdout.strip()


def _get(server, ns: str, resource: str, name: str) -> dict:
    return json.loads(server.kubectl("get", "-n", ns, resource, name, "-o", "json").stdout)


def _path(ns: str, resource: str, name: str) -> str:
    group = {"deployments": "/apis/apps/v1"}.get(resource, "/api/v1")
    return f"{group}/namespaces/{ns}/{resource}/{name}"


# --- kubectl apply (client-side) --------------------------------------------------------------------------------


def test_apply_deployment_removes_a_container_and_keeps_server_fields(server, ns):
    containers = [
        {"name": "web", "image": "nginx:1.27", "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]},
        {"name": "sidecar", "image": "busybox:1.36", "command": ["sleep", "3600"]},
    ]
    assert _apply(server, ns, _deployment("web", containers)) == "deployment.apps/web created"
    created = _get(server, ns, "deployments", "web")
    # defaults filled in by the server survive the apply of the user's fields
    assert created["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"] == "IfNotPresent"

    # drop the sidecar and one env var, change the image: a three-way patch with $patch: delete items
    containers = [{"name": "web", "image": "nginx:1.28", "env": [{"name": "B", "value": "2"}]}]
    assert _apply(server, ns, _deployment("web", containers)) == "deployment.apps/web configured"
    dep = _get(server, ns, "deployments", "web")
    spec = dep["spec"]["template"]["spec"]
    assert [c["name"] for c in spec["containers"]] == ["web"]
    assert spec["containers"][0]["image"] == "nginx:1.28"
    assert spec["containers"][0]["env"] == [{"name": "B", "value": "2"}]
    assert spec["containers"][0]["terminationMessagePath"] == "/dev/termination-log"
    assert dep["metadata"]["generation"] == 2

    # the same file again: kubectl finds nothing to change and nothing is written
    rv = dep["metadata"]["resourceVersion"]
    assert _apply(server, ns, _deployment("web", containers)) == "deployment.apps/web unchanged"
    assert _get(server, ns, "deployments", "web")["metadata"]["resourceVersion"] == rv


def test_apply_deployment_adds_a_container_in_file_order(server, ns):
    first = [{"name": "b", "image": "busybox:1.36"}]
    _apply(server, ns, _deployment("order", first))
    both = [{"name": "a", "image": "nginx:1.27"}, {"name": "b", "image": "busybox:1.36"}]
    _apply(server, ns, _deployment("order", both))
    spec = _get(server, ns, "deployments", "order")["spec"]["template"]["spec"]
    # $setElementOrder puts the new container first, as in the file
    assert [c["name"] for c in spec["containers"]] == ["a", "b"]


def test_apply_deployment_strategy_retain_keys(server, ns):
    dep = _deployment("strat", [{"name": "c", "image": "nginx:1.27"}])
    dep["spec"]["strategy"] = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 2}}
    _apply(server, ns, dep)
    dep["spec"]["strategy"] = {"type": "Recreate"}
    # $retainKeys drops rollingUpdate, which the server defaulted and the user never wrote
    assert _apply(server, ns, dep) == "deployment.apps/strat configured"
    assert _get(server, ns, "deployments", "strat")["spec"]["strategy"] == {"type": "Recreate"}


def test_apply_service_change_one_port_keep_the_other_then_remove_one(server, ns):
    ports = [{"name": "http", "port": 80, "targetPort": 8080}, {"name": "metrics", "port": 81, "targetPort": 9090}]
    assert _apply(server, ns, _service("svc", ports)) == "service/svc created"
    cluster_ip = _get(server, ns, "services", "svc")["spec"]["clusterIP"]

    ports = [{"name": "http", "port": 80, "targetPort": 8081}, {"name": "metrics", "port": 81, "targetPort": 9090}]
    assert _apply(server, ns, _service("svc", ports)) == "service/svc configured"
    spec = _get(server, ns, "services", "svc")["spec"]
    assert [(p["port"], p["targetPort"]) for p in spec["ports"]] == [(80, 8081), (81, 9090)]
    assert spec["clusterIP"] == cluster_ip  # allocated by the server, kept by the merge

    # removing a port sends {"$patch": "delete", "port": 81}
    ports = [{"name": "http", "port": 80, "targetPort": 8081}]
    assert _apply(server, ns, _service("svc", ports)) == "service/svc configured"
    spec = _get(server, ns, "services", "svc")["spec"]
    assert spec["ports"] == [{"name": "http", "protocol": "TCP", "port": 80, "targetPort": 8081}]

    rv = _get(server, ns, "services", "svc")["metadata"]["resourceVersion"]
    assert _apply(server, ns, _service("svc", ports)) == "service/svc unchanged"
    assert _get(server, ns, "services", "svc")["metadata"]["resourceVersion"] == rv


def test_apply_configmap_changes_and_removes_keys(server, ns):
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}, "data": {"a": "1", "b": "2"}}
    _apply(server, ns, cm)
    server.kubectl("label", "-n", ns, "configmap", "cfg", "team=x")  # a field apply does not own
    cm["data"] = {"a": "10", "c": "3"}
    assert _apply(server, ns, cm) == "configmap/cfg configured"
    got = _get(server, ns, "configmaps", "cfg")
    assert got["data"] == {"a": "10", "c": "3"}
    assert got["metadata"]["labels"] == {"team": "x"}
    last = json.loads(got["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"])
    assert last["data"] == {"a": "10", "c": "3"}
    rv = got["metadata"]["resourceVersion"]
    assert _apply(server, ns, cm) == "configmap/cfg unchanged"
    assert _get(server, ns, "configmaps", "cfg")["metadata"]["resourceVersion"] == rv


def test_apply_pod_changes_image_and_labels(server, ns):
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "labels": {"a": "1", "b": "2"}},
        "spec": {"containers": [{"name": "main", "image": "nginx:1.27"}]},
    }
    _apply(server, ns, pod)
    pod["metadata"]["labels"] = {"a": "1"}
    pod["spec"]["containers"][0]["image"] = "nginx:1.28"
    assert _apply(server, ns, pod) == "pod/p configured"
    got = _get(server, ns, "pods", "p")
    assert got["metadata"]["labels"] == {"a": "1"}
    assert got["spec"]["containers"][0]["image"] == "nginx:1.28"
    assert got["spec"]["containers"][0]["terminationMessagePolicy"] == "File"


# --- kubectl patch ----------------------------------------------------------------------------------------------


def test_kubectl_patch_every_type(server, ns):
    server.kubectl("create", "-n", ns, "deployment", "d", "--image=nginx:1.27")
    server.kubectl(
        "patch", "-n", ns, "deployment", "d", "--type=strategic", "-p",
        json.dumps({"spec": {"template": {"spec": {"containers": [{"name": "side", "image": "busybox:1.36"}]}}}}),
    )  # fmt: skip
    names = [c["name"] for c in _get(server, ns, "deployments", "d")["spec"]["template"]["spec"]["containers"]]
    assert names == ["side", "nginx"]  # merged by name: the new container first, the live one kept

    server.kubectl(
        "patch", "-n", ns, "deployment", "d", "--type=merge", "-p",
        json.dumps({"metadata": {"annotations": {"x": "y"}}, "spec": {"replicas": 2}}),
    )  # fmt: skip
    server.kubectl(
        "patch", "-n", ns, "deployment", "d", "--type=json", "-p",
        json.dumps([
            {"op": "test", "path": "/spec/replicas", "value": 2},
            {"op": "replace", "path": "/spec/template/spec/containers/0/image", "value": "busybox:1.37"},
            {"op": "add", "path": "/metadata/labels/a~1b", "value": "c"},
        ]),
    )  # fmt: skip
    got = _get(server, ns, "deployments", "d")
    assert got["spec"]["replicas"] == 2
    assert got["metadata"]["annotations"]["x"] == "y"
    assert got["metadata"]["labels"]["a/b"] == "c"
    assert got["spec"]["template"]["spec"]["containers"][0]["image"] == "busybox:1.37"

    rv = got["metadata"]["resourceVersion"]
    failed = server.kubectl(
        "patch", "-n", ns, "deployment", "d", "--type=json", "-p",
        json.dumps([{"op": "test", "path": "/spec/replicas", "value": 5}, {"op": "remove", "path": "/metadata/labels"}]),
        check=False,
    )  # fmt: skip
    assert failed.returncode == 1
    assert "The request is invalid: the server rejected our request due to an error in our request" in failed.stderr
    assert _get(server, ns, "deployments", "d")["metadata"]["resourceVersion"] == rv

    # a patch that changes nothing is not written
    out = server.kubectl("patch", "-n", ns, "deployment", "d", "--type=merge", "-p", '{"spec":{"replicas":2}}')
    assert "(no change)" in out.stdout
    assert _get(server, ns, "deployments", "d")["metadata"]["resourceVersion"] == rv


def test_kubectl_label_annotate(server, ns):
    server.kubectl("create", "-n", ns, "configmap", "c", "--from-literal=k=v")
    server.kubectl("label", "-n", ns, "configmap", "c", "x=1", "y=2")
    refused = server.kubectl("label", "-n", ns, "configmap", "c", "x=3", check=False)
    assert "'x' already has a value (1), and --overwrite is false" in refused.stderr
    server.kubectl("label", "-n", ns, "configmap", "c", "x=3", "--overwrite")
    server.kubectl("label", "-n", ns, "configmap", "c", "y-")
    server.kubectl("annotate", "-n", ns, "configmap", "c", "note=hello")
    server.kubectl("annotate", "-n", ns, "configmap", "c", "note=bye", "--overwrite")
    meta = _get(server, ns, "configmaps", "c")["metadata"]
    assert meta["labels"] == {"x": "3"}
    assert meta["annotations"] == {"note": "bye"}


def test_kubectl_set_image_env_resources_and_scale(server, ns):
    server.kubectl("create", "-n", ns, "deployment", "s", "--image=nginx:1.27")
    server.kubectl("set", "image", "-n", ns, "deployment/s", "nginx=nginx:1.28")
    server.kubectl("set", "env", "-n", ns, "deployment/s", "A=1", "B=2")
    server.kubectl("set", "env", "-n", ns, "deployment/s", "B-")
    server.kubectl("set", "resources", "-n", ns, "deployment/s", "--limits=cpu=200m,memory=64Mi")
    server.kubectl("scale", "-n", ns, "deployment/s", "--replicas=3")
    got = _get(server, ns, "deployments", "s")
    c = got["spec"]["template"]["spec"]["containers"][0]
    assert c["image"] == "nginx:1.28"
    assert c["env"] == [{"name": "A", "value": "1"}]
    assert c["resources"] == {"limits": {"cpu": "200m", "memory": "64Mi"}}
    assert got["spec"]["replicas"] == 3


def test_kubectl_replace_and_edit(server, ns, tmp_path):
    server.kubectl("create", "-n", ns, "configmap", "e", "--from-literal=greeting=foo")
    obj = _get(server, ns, "configmaps", "e")
    obj["data"]["other"] = "x"
    server.kubectl("replace", "-n", ns, "-f", "-", input=json.dumps(obj))
    assert _get(server, ns, "configmaps", "e")["data"] == {"greeting": "foo", "other": "x"}

    editor = tmp_path / "editor.sh"
    editor.write_text('#!/bin/sh\nsed -i s/foo/bar/ "$1"\n')
    editor.chmod(editor.stat().st_mode | stat.S_IEXEC)
    env = {**os.environ, "EDITOR": str(editor), "KUBE_EDITOR": str(editor)}
    import subprocess

    res = subprocess.run(
        ["kubectl", "--kubeconfig", str(server.kubeconfig), "edit", "-n", ns, "configmap", "e"],
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert "configmap/e edited" in res.stdout
    assert _get(server, ns, "configmaps", "e")["data"] == {"greeting": "bar", "other": "x"}


def test_python_client_strategic_patch(server, ns, apps_v1):
    server.kubectl("create", "-n", ns, "deployment", "py", "--image=nginx:1.27")
    body = {
        "spec": {
            "template": {
                "spec": {
                    "containers": [
                        {"name": "nginx", "env": [{"name": "MODE", "value": "fast"}]},
                        {"name": "extra", "image": "busybox:1.36"},
                    ]
                }
            }
        }
    }
    dep = apps_v1.patch_namespaced_deployment("py", ns, body)
    containers = dep.spec.template.spec.containers
    assert sorted(c.name for c in containers) == ["extra", "nginx"]
    nginx = next(c for c in containers if c.name == "nginx")
    assert nginx.image == "nginx:1.27"
    assert [(e.name, e.value) for e in nginx.env] == [("MODE", "fast")]


# --- raw HTTPS: kube-apiserver's answers ------------------------------------------------------------------------


def _patch(server, path: str, body, content_type: str, **params):
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return server.request("PATCH", path, data=data, headers={"Content-Type": content_type}, params=params)


def test_patch_errors_as_kube(server, ns):
    server.kubectl("create", "-n", ns, "configmap", "err", "--from-literal=k=v")
    path = _path(ns, "configmaps", "err")

    r = _patch(server, path, {"data": {}}, "application/json")
    assert r.status_code == 415
    assert r.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": "the body of the request was in an unknown format - accepted media types include: "
        "application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, "
        "application/apply-patch+yaml",
        "reason": "UnsupportedMediaType",
        "code": 415,
    }

    r = _patch(server, path, [{"op": "test", "path": "/data/k", "value": "nope"}], JSON_PATCH)
    assert r.status_code == 422
    assert r.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": "the server rejected our request due to an error in our request",
        "reason": "Invalid",
        "details": {},
        "code": 422,
    }
    r = _patch(server, path, [{"op": "remove", "path": "/data/missing"}], JSON_PATCH)
    assert (r.status_code, r.json()["message"]) == (
        422,
        "the server rejected our request due to an error in our request",
    )

    r = _patch(server, path, {"op": "add"}, JSON_PATCH)
    assert (r.status_code, r.json()["reason"]) == (400, "BadRequest")
    assert r.json()["message"] == (
        "error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp"
    )
    r = _patch(server, path, {"op": "add"}, JSON_PATCH, fieldValidation="Ignore")
    assert r.json()["message"] == "json: cannot unmarshal object into Go value of type jsonpatch.Patch"

    r = _patch(server, path, [{"op": "add", "path": "/data/x", "value": "1"}] * 10001, JSON_PATCH)
    assert r.status_code == 413
    assert r.json()["message"] == (
        "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001"
    )

    r = _patch(server, path, b'{"data": {', MERGE_PATCH)
    assert (r.status_code, r.json()["message"]) == (400, "error decoding patch: unexpected end of JSON input")
    r = _patch(server, path, b"null", MERGE_PATCH)
    assert (r.status_code, r.json()["message"]) == (400, "Invalid JSON Patch")
    r = _patch(server, path, b"[1]", STRATEGIC)
    assert (r.status_code, r.json()["message"]) == (
        400,
        "json: cannot unmarshal array into Go value of type map[string]interface {}",
    )

    r = _patch(server, path, [{"op": "replace", "path": "", "value": [1]}], JSON_PATCH)
    assert r.status_code == 422
    assert r.json()["message"] == (
        ' "" is invalid: patch: Invalid value: "[1]": couldn\'t get version/kind; json parse error: json: cannot '
        'unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; '
        'Kind string "json:\\"kind,omitempty\\"" }'
    )

    r = _patch(server, path, {"data": {"k": "v2"}}, MERGE_PATCH, force="true")
    assert r.status_code == 422
    assert (
        r.json()["message"]
        == 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch'
    )


def test_strategic_patch_errors_as_kube(server, ns):
    server.kubectl("create", "-n", ns, "deployment", "sp", "--image=nginx:1.27")
    path = _path(ns, "deployments", "sp")

    # upstream's text; upstream answers these with a 500 (kubernetes#79210), here the 400 of a bad patch
    r = _patch(server, path, {"spec": {"template": {"spec": {"containers": [{"image": "x"}]}}}}, STRATEGIC)
    assert r.status_code == 400
    assert r.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": "map: map[image:x] does not contain declared merge key: name",
        "reason": "BadRequest",
        "code": 400,
    }
    r = _patch(server, path, {"spec": {"strategy": {"$retainKeys": "type"}}}, STRATEGIC)
    assert (r.status_code, r.json()["message"]) == (400, "invalid patch format of retainKeys")
    r = _patch(server, path, {"spec": {"strategy": {"$retainKeys": ["type"], "rollingUpdate": {}}}}, STRATEGIC)
    assert (r.status_code, r.json()["message"]) == (400, "invalid patch format of retainKeys")
    r = _patch(server, path, {"metadata": {"$deleteFromPrimitiveListfinalizers": ["a"]}}, STRATEGIC)
    assert (r.status_code, r.json()["message"]) == (400, "invalid patch format of primitive list")
    r = _patch(server, path, {"spec": {"template": {"spec": {"containers": [[1]]}}}}, STRATEGIC)
    assert r.status_code == 400
    assert r.json()["message"].startswith("list element types are not identical: [[map[image:nginx:1.27 ")
    assert r.json()["message"].endswith("] [[1]]]")
    r = _patch(server, path, {"spec": {"template": {"spec": {"$patch": "merge"}}}}, STRATEGIC)
    assert r.status_code == 400
    assert r.json()["message"].startswith("unknown patch type: merge in map: map[$patch:merge")


def test_strategic_patch_directives(server, ns):
    server.kubectl("create", "-n", ns, "deployment", "dir", "--image=nginx:1.27")
    path = _path(ns, "deployments", "dir")
    r = _patch(server, path, {"metadata": {"finalizers": ["a.io/x", "b.io/y"]}}, STRATEGIC)
    assert r.status_code == 200, r.text
    r = _patch(server, path, {"metadata": {"finalizers": ["c.io/z", "a.io/x"]}}, STRATEGIC)
    assert r.json()["metadata"]["finalizers"] == ["c.io/z", "a.io/x", "b.io/y"]  # merged as a set
    r = _patch(server, path, {"metadata": {"$deleteFromPrimitiveList/finalizers": ["a.io/x", "c.io/z"]}}, STRATEGIC)
    assert r.json()["metadata"]["finalizers"] == ["b.io/y"]
    r = _patch(server, path, {"metadata": {"finalizers": [{"$patch": "replace"}]}}, STRATEGIC)
    assert r.status_code == 400  # a list of strings has no items to replace by
    r = _patch(server, path, {"metadata": {"finalizers": None}}, STRATEGIC)
    assert "finalizers" not in r.json()["metadata"]

    containers = {"containers": [{"name": "a", "image": "busybox:1.36"}, {"$patch": "replace"}]}
    r = _patch(server, path, {"spec": {"template": {"spec": containers}}}, STRATEGIC)
    assert [c["name"] for c in r.json()["spec"]["template"]["spec"]["containers"]] == ["a"]

    order = {
        "$setElementOrder/containers": [{"name": "b"}, {"name": "a"}],
        "containers": [{"name": "b", "image": "x:1"}],
    }
    r = _patch(server, path, {"spec": {"template": {"spec": order}}}, STRATEGIC)
    assert [c["name"] for c in r.json()["spec"]["template"]["spec"]["containers"]] == ["b", "a"]

    r = _patch(server, path, {"spec": {"template": {"metadata": {"labels": {"extra": "1"}}}}}, STRATEGIC)
    assert r.status_code == 200
    r = _patch(
        server, path, {"spec": {"template": {"metadata": {"labels": {"$patch": "replace", "app": "dir"}}}}}, STRATEGIC
    )
    assert r.json()["spec"]["template"]["metadata"]["labels"] == {"app": "dir"}

    rv = r.json()["metadata"]["resourceVersion"]
    r = _patch(server, path, {"spec": {"template": {"metadata": {"labels": {"app": "dir"}}}}}, STRATEGIC)
    assert r.json()["metadata"]["resourceVersion"] == rv  # nothing changed: nothing written


def test_scale_subresource_strategic_patch(server, ns):
    server.kubectl("create", "-n", ns, "deployment", "sc", "--image=nginx:1.27")
    path = _path(ns, "deployments", "sc") + "/scale"
    r = _patch(server, path, {"spec": {"replicas": 4}}, STRATEGIC)
    assert r.status_code == 200, r.text
    assert r.json()["spec"] == {"replicas": 4}
    assert _get(server, ns, "deployments", "sc")["spec"]["replicas"] == 4


def test_json_patch_strict_decoding_of_operations(server, ns):
    server.kubectl("create", "-n", ns, "configmap", "sd", "--from-literal=k=v")
    path = _path(ns, "configmaps", "sd")
    ops = [{"op": "add", "path": "/data/x", "value": "1", "foo": 1}]
    r = _patch(server, path, ops, JSON_PATCH)
    assert r.status_code == 200, r.text
    assert r.headers["Warning"] == '299 - "json patch unknown field \\"foo\\""'
    assert r.json()["data"] == {"k": "v", "x": "1"}

    r = _patch(server, path, ops, JSON_PATCH, fieldValidation="Strict")
    assert r.status_code == 422
    status = r.json()
    assert status["message"].startswith(' "" is invalid: patch: Invalid value: "{\\"apiVersion\\":\\"v1\\",')
    assert status["message"].endswith('": strict decoding error: json patch unknown field "foo"')
    assert status["details"]["causes"][0]["field"] == "patch"

    r = _patch(server, path, ops, JSON_PATCH, fieldValidation="Ignore")
    assert r.status_code == 200 and "Warning" not in r.headers


def test_patch_dry_run_writes_nothing(server, ns):
    server.kubectl("create", "-n", ns, "configmap", "dry", "--from-literal=k=v")
    before = _get(server, ns, "configmaps", "dry")
    r = _patch(server, _path(ns, "configmaps", "dry"), {"data": {"k": "w"}}, STRATEGIC, dryRun="All")
    assert r.status_code == 200
    assert r.json()["data"] == {"k": "w"}
    after = _get(server, ns, "configmaps", "dry")
    assert after["data"] == {"k": "v"}
    assert after["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]

"""The OpenAPI of custom resources, as kube's CRD OpenAPI controllers publish it: /openapi/v2 (JSON and the
protobuf kubectl asks for) and the /openapi/v3 group-version documents, checked with kubectl explain."""

from __future__ import annotations

import json
import time
import uuid

import pytest

PROTO = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"


def _crd(group: str, *, description: str = "Gadget is a thing with gears.", scope: str = "Namespaced") -> dict:
    schema = {
        "type": "object",
        "description": description,
        "properties": {
            "spec": {
                "type": "object",
                "description": "Spec holds the gears.",
                "required": ["gears"],
                "properties": {
                    "gears": {"type": "integer", "description": "How many gears turn.", "default": 3, "minimum": 1},
                    "port": {"x-kubernetes-int-or-string": True, "description": "A port by number or name."},
                    "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                    "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
                },
            },
            "status": {"type": "object", "properties": {"turning": {"type": "boolean"}}},
        },
    }
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"gadgets.{group}"},
        "spec": {
            "group": group,
            "scope": scope,
            "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "shortNames": ["gdg"]},
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": schema},
                    "subresources": {
                        "status": {},
                        "scale": {"specReplicasPath": ".spec.gears", "statusReplicasPath": ".status.gears"},
                    },
                },
                {"name": "v1beta1", "served": False, "storage": False, "schema": {"openAPIV3Schema": schema}},
            ],
        },
    }


def _reversed(group: str) -> str:
    return ".".join(reversed(group.split(".")))


def _kubectl(server, tmp_path, *args, version: str | None = "1.33", **kw):
    # kubectl caches discovery and OpenAPI by hash: a fresh cache per call sees what was published a moment ago
    cache = tmp_path / f"cache-{uuid.uuid4().hex[:6]}"
    return server.kubectl("--cache-dir", str(cache), *args, version=version, **kw)


def _v3_index(server) -> dict:
    r = server.request("GET", "/openapi/v3")
    assert r.status_code == 200
    return r.json()["paths"]


def _wait(predicate, timeout: float = 5.0):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.02)


@pytest.fixture
def gadgets(server):
    group = f"g{uuid.uuid4().hex[:6]}.example.com"
    crd = _crd(group)
    server.kubectl("apply", "-f", "-", input=json.dumps(crd))
    server.kubectl("wait", "--for", "condition=established", f"crd/gadgets.{group}", "--timeout=10s")
    yield group, crd
    server.request("DELETE", f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.{group}")


def test_v3_document_of_the_group_version(server, gadgets):
    group, _ = gadgets
    index = _v3_index(server)
    assert f"apis/{group}/v1" in index
    assert f"apis/{group}/v1beta1" not in index  # not served
    assert f"apis/{group}" not in index  # CRD groups have no group document
    url = index[f"apis/{group}/v1"]["serverRelativeURL"]
    r = server.request("GET", url)
    assert r.status_code == 200
    assert r.headers["Cache-Control"] == "public, immutable"
    doc = r.json()
    assert doc["openapi"] == "3.0.0"
    assert doc["info"] == {"title": "Kubernetes CRD Swagger", "version": "v0.1.0"}
    name = f"{_reversed(group)}.v1.Gadget"
    schemas = doc["components"]["schemas"]
    gadget = schemas[name]
    assert gadget["x-kubernetes-group-version-kind"] == [{"group": group, "kind": "Gadget", "version": "v1"}]
    assert gadget["description"] == "Gadget is a thing with gears."
    assert gadget["properties"]["metadata"] == {
        "allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}],
        "description": "Standard object's metadata. More info: "
        "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
    }
    assert gadget["properties"]["apiVersion"]["type"] == "string"
    spec = gadget["properties"]["spec"]
    assert spec["required"] == ["gears"]
    assert spec["properties"]["gears"] == {
        "default": 3,
        "description": "How many gears turn.",
        "minimum": 1,
        "type": "integer",
    }
    assert spec["properties"]["port"]["anyOf"] == [{"type": "integer"}, {"type": "string"}]
    assert spec["properties"]["tags"]["x-kubernetes-list-type"] == "set"
    listing = schemas[f"{_reversed(group)}.v1.GadgetList"]
    assert listing["description"] == "GadgetList is a list of Gadget"
    assert listing["required"] == ["items"]
    assert listing["properties"]["items"]["items"] == {"$ref": f"#/components/schemas/{name}"}
    assert listing["x-kubernetes-group-version-kind"] == [{"group": group, "kind": "GadgetList", "version": "v1"}]
    assert "io.k8s.api.autoscaling.v1.Scale" in schemas  # the scale subresource's type

    ns_path = f"/apis/{group}/v1/namespaces/{{namespace}}/gadgets"
    assert set(doc["paths"]) == {
        f"/apis/{group}/v1/gadgets",
        ns_path,
        ns_path + "/{name}",
        ns_path + "/{name}/status",
        ns_path + "/{name}/scale",
    }
    prefix = "".join(p[:1].upper() + p[1:] for p in group.split("."))  # e.g. Gabc123ExampleCom
    collection = doc["paths"][ns_path]
    assert collection["post"]["operationId"] == f"create{prefix}V1NamespacedGadget"
    assert collection["post"]["description"] == "create a Gadget"
    assert collection["delete"]["operationId"] == f"delete{prefix}V1CollectionNamespacedGadget"
    assert collection["get"]["x-kubernetes-action"] == "list"
    assert collection["get"]["x-kubernetes-group-version-kind"] == {"group": group, "kind": "Gadget", "version": "v1"}
    assert [p["name"] for p in collection["parameters"]] == ["namespace", "pretty"]
    create_params = {p["name"] for p in collection["post"]["parameters"]}
    assert {"dryRun", "fieldManager", "fieldValidation"} <= create_params  # kubectl looks for fieldValidation
    item = doc["paths"][ns_path + "/{name}"]
    assert item["patch"]["description"] == "partially update the specified Gadget"
    assert set(item["patch"]["requestBody"]["content"]) == {
        "application/json-patch+json",
        "application/merge-patch+json",
        "application/apply-patch+yaml",
    }
    assert sorted(item["patch"]["responses"]) == ["200", "401"]
    status = doc["paths"][ns_path + "/{name}/status"]
    assert status["get"]["operationId"] == f"read{prefix}V1NamespacedGadgetStatus"
    assert status["get"]["description"] == "read status of the specified Gadget"
    scale = doc["paths"][ns_path + "/{name}/scale"]
    assert scale["put"]["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/io.k8s.api.autoscaling.v1.Scale"
    }
    every = doc["paths"][f"/apis/{group}/v1/gadgets"]["get"]
    assert every["operationId"] == f"list{prefix}V1GadgetForAllNamespaces"


def test_v2_json_and_protobuf(server, gadgets):
    group, _ = gadgets
    doc = server.request("GET", "/openapi/v2").json()
    name = f"{_reversed(group)}.v1.Gadget"
    gadget = doc["definitions"][name]
    assert gadget["properties"]["metadata"]["$ref"] == "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
    spec = gadget["properties"]["spec"]["properties"]
    assert "default" not in spec["gears"]  # the v2 document carries no defaults
    assert "anyOf" not in spec["port"]  # no junctors in v2
    assert spec["free"] == {"x-kubernetes-preserve-unknown-fields": True}  # no type, no properties: kubectl 1.27
    assert f"{_reversed(group)}.v1.GadgetList" in doc["definitions"]
    item = doc["paths"][f"/apis/{group}/v1/namespaces/{{namespace}}/gadgets/{{name}}"]
    assert item["get"]["parameters"] == [{"$ref": "#/parameters/resourceVersion-5WAnf1kx"}]
    assert "io.k8s.api.core.v1.Pod" in doc["definitions"]  # built-in ones stay
    proto = server.request("GET", "/openapi/v2", headers={"Accept": PROTO})
    assert proto.status_code == 200
    assert proto.headers["Content-Type"] == "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
    assert name.encode() in proto.content


@pytest.mark.parametrize("version", ["1.33", "1.27"])
def test_kubectl_explain(server, gadgets, tmp_path, version):
    group, _ = gadgets
    out = _kubectl(server, tmp_path, "explain", "gadgets", version=version).stdout
    assert "KIND:       Gadget" in out or "KIND:     Gadget" in out
    assert "Gadget is a thing with gears." in out
    assert "spec\t<Object>" in out
    field = _kubectl(server, tmp_path, "explain", "gdg.spec.gears", version=version).stdout
    assert "How many gears turn." in field
    assert "<integer>" in field
    spec = _kubectl(server, tmp_path, "explain", "gadgets.spec", f"--api-version={group}/v1", version=version).stdout
    for name in ("gears", "port", "tags", "free"):
        assert f"  {name}\t" in spec


def test_updated_and_removed_within_a_second(server, tmp_path):
    group = f"u{uuid.uuid4().hex[:6]}.example.com"
    crd = _crd(group)
    start = time.monotonic()
    server.kubectl("create", "-f", "-", input=json.dumps(crd))
    assert _wait(lambda: f"apis/{group}/v1" in _v3_index(server), 1.0), "not published within a second"
    assert time.monotonic() - start < 2.0
    old_url = _v3_index(server)[f"apis/{group}/v1"]["serverRelativeURL"]

    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["description"] = "Gadget, revised."
    server.kubectl("apply", "-f", "-", input=json.dumps(crd))
    assert _wait(lambda: _v3_index(server)[f"apis/{group}/v1"]["serverRelativeURL"] != old_url, 1.0)
    # the old hash answers with a redirect to the current document
    r = server.request("GET", old_url, allow_redirects=False)
    assert r.status_code == 301
    assert "Gadget, revised." in _kubectl(server, tmp_path, "explain", "gadgets", f"--api-version={group}/v1").stdout

    server.kubectl("delete", "crd", f"gadgets.{group}")
    assert _wait(lambda: f"apis/{group}/v1" not in _v3_index(server), 1.0)
    v2 = server.request("GET", "/openapi/v2").json()
    assert f"{_reversed(group)}.v1.Gadget" not in v2["definitions"]
    assert not [p for p in v2["paths"] if group in p]
    assert server.request("GET", f"/openapi/v3/apis/{group}/v1").status_code == 404


def test_cluster_scoped_paths(server):
    group = f"c{uuid.uuid4().hex[:6]}.example.com"
    crd = _crd(group, scope="Cluster")
    server.kubectl("apply", "-f", "-", input=json.dumps(crd))
    server.kubectl("wait", "--for", "condition=established", f"crd/gadgets.{group}", "--timeout=10s")
    try:
        doc = server.request("GET", f"/openapi/v3/apis/{group}/v1").json()
        assert sorted(doc["paths"]) == [
            f"/apis/{group}/v1/gadgets",
            f"/apis/{group}/v1/gadgets/{{name}}",
            f"/apis/{group}/v1/gadgets/{{name}}/scale",
            f"/apis/{group}/v1/gadgets/{{name}}/status",
        ]
        item = doc["paths"][f"/apis/{group}/v1/gadgets/{{name}}"]
        assert item["get"]["operationId"].endswith("V1Gadget")
        assert [p["name"] for p in item["parameters"]] == ["name", "pretty"]
    finally:
        server.kubectl("delete", "crd", f"gadgets.{group}")

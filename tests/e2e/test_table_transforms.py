"""Tables and the other transformed answers (as=Table, as=PartialObjectMetadata) as kube-apiserver 1.33 gives
them: the Scale columns of the scale subresources, row conditions, the embedded object's version, YAML Tables,
includeObject's validation and what an Accept clause of q=0 means."""

from __future__ import annotations

import json

import yaml
from e2e_helpers import apply_crd, free_form_crd, header_of, parse_table, status_of

TABLE_ACCEPT = "application/json;as=Table;v=v1;g=meta.k8s.io"
YAML_TABLE_ACCEPT = "application/yaml;as=Table;v=v1;g=meta.k8s.io"
SCALE_COLUMNS = ["Name", "Desired", "Available", "Age"]


def _table(server, path: str, accept: str = TABLE_ACCEPT) -> dict:
    r = server.request("GET", path, headers={"Accept": accept})
    assert r.status_code == 200, r.text
    return r.json()


def _labels(app: str) -> dict:
    return {"matchLabels": {"app": app}}


def _template(app: str) -> dict:
    return {"metadata": {"labels": {"app": app}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}


def test_scale_subresource_table_has_scale_columns(server, ns):
    """ScaleREST.ConvertToTable hands the Scale to the resource's table generator, which prints it with
    printScale: Name (no "name" format), Desired (spec.replicas), Available (status.replicas), Age."""
    spec = {"replicas": 3, "selector": _labels("web"), "template": _template("web")}
    objects = [
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": spec},
        {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web"}, "spec": spec},
        {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "web"}, "spec": {**spec}},
        {
            "apiVersion": "v1",
            "kind": "ReplicationController",
            "metadata": {"name": "web"},
            "spec": {"replicas": 3, "selector": {"app": "web"}, "template": _template("web")},
        },
    ]
    server.kubectl(
        "-n", ns, "apply", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List", "items": objects})
    )
    server.kubectl(
        "-n", ns, "patch", "deploy", "web", "--subresource=status", "--type=merge", "-p", '{"status":{"replicas":2}}'
    )

    out = server.kubectl("-n", ns, "get", "deploy", "web", "--subresource=scale").stdout
    assert header_of(out) == ["NAME", "DESIRED", "AVAILABLE", "AGE"], out
    row = parse_table(out)[0]
    assert (row["NAME"], row["DESIRED"], row["AVAILABLE"]) == ("web", "3", "2"), out

    for path in (
        f"/apis/apps/v1/namespaces/{ns}/deployments/web/scale",
        f"/apis/apps/v1/namespaces/{ns}/replicasets/web/scale",
        f"/apis/apps/v1/namespaces/{ns}/statefulsets/web/scale",
        f"/api/v1/namespaces/{ns}/replicationcontrollers/web/scale",
    ):
        table = _table(server, path)
        assert [c["name"] for c in table["columnDefinitions"]] == SCALE_COLUMNS, path
        assert [c["type"] for c in table["columnDefinitions"]] == ["string", "integer", "integer", "string"]
        assert table["columnDefinitions"][0]["format"] == ""
        assert table["columnDefinitions"][1]["description"] == (
            "replicas is the desired number of instances for the scaled object."
        )
        assert table["rows"][0]["cells"][:3] == ["web", 3, 2 if "deployments" in path else 0], path
        assert table["rows"][0]["object"]["kind"] == "PartialObjectMetadata"

    # the status subresource answers the parent kind, printed with the parent's columns
    status = _table(server, f"/apis/apps/v1/namespaces/{ns}/deployments/web/status")
    assert [c["name"] for c in status["columnDefinitions"]][:3] == ["Name", "Ready", "Up-to-date"]


def test_custom_resource_scale_table_uses_the_crd_columns(server, ns):
    """The CR scale subresource's request scope keeps the resource's TableConvertor (customresource_handler
    copies the scope and changes only the kind, serializer and namer): the CRD's printer columns are
    evaluated against the Scale, so a path the Scale has gives its value and any other path an empty cell."""
    group = "tabletransforms.example.com"
    crd = free_form_crd(group, "scalers", "Scaler")
    crd["spec"]["versions"][0]["subresources"] = {
        "status": {},
        "scale": {"specReplicasPath": ".spec.size", "statusReplicasPath": ".status.size"},
    }
    crd["spec"]["versions"][0]["additionalPrinterColumns"] = [
        {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"},
        {"name": "Size", "type": "integer", "jsonPath": ".spec.size"},
    ]
    apply_crd(server, crd)
    obj = {"apiVersion": f"{group}/v1", "kind": "Scaler", "metadata": {"name": "s1"}, "spec": {"size": 4}}
    server.kubectl("-n", ns, "apply", "-f", "-", input=json.dumps(obj))

    table = _table(server, f"/apis/{group}/v1/namespaces/{ns}/scalers/s1/scale")
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "Replicas", "Size"]
    # .spec.replicas exists on the Scale (4, from .spec.size); .spec.size does not
    assert table["rows"][0]["cells"] == ["s1", 4, None]


def test_pod_rows_of_finished_pods_carry_completed_condition(server, ns):
    for name in ("done", "fail", "run"):
        pod = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name},
            "spec": {"containers": [{"name": "c", "image": "busybox"}]},
        }
        server.kubectl("-n", ns, "apply", "-f", "-", input=json.dumps(pod))
    for name, phase in (("done", "Succeeded"), ("fail", "Failed"), ("run", "Running")):
        patch = json.dumps({"status": {"phase": phase}})
        server.kubectl("-n", ns, "patch", "pod", name, "--subresource=status", "--type=merge", "-p", patch)

    rows = {r["cells"][0]: r for r in _table(server, f"/api/v1/namespaces/{ns}/pods")["rows"]}
    assert rows["done"]["conditions"] == [
        {"type": "Completed", "status": "True", "reason": "Succeeded", "message": "The pod has completed successfully."}
    ]
    assert rows["fail"]["conditions"] == [
        {"type": "Completed", "status": "True", "reason": "Failed", "message": "The pod failed."}
    ]
    assert "conditions" not in rows["run"]  # omitempty
    one = _table(server, f"/api/v1/namespaces/{ns}/pods/fail")
    assert one["rows"][0]["conditions"][0]["reason"] == "Failed"
    # kubectl still prints the rows as before
    out = server.kubectl("-n", ns, "get", "pods", "done", "fail").stdout
    assert {r["NAME"]: r["STATUS"] for r in parse_table(out)} == {"done": "Succeeded", "fail": "Failed"}


def test_include_object_embeds_the_request_version(server, ns):
    """asTable converts a row's object to the scope's kind's version: an HPA read through autoscaling/v1
    embeds an autoscaling/v1 object, as a GET there returns."""
    hpa = {
        "apiVersion": "autoscaling/v1",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "h1"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "minReplicas": 1,
            "maxReplicas": 5,
            "targetCPUUtilizationPercentage": 60,
        },
    }
    server.kubectl("-n", ns, "apply", "-f", "-", input=json.dumps(hpa))
    v1 = f"/apis/autoscaling/v1/namespaces/{ns}/horizontalpodautoscalers"
    v2 = f"/apis/autoscaling/v2/namespaces/{ns}/horizontalpodautoscalers"
    for path in (f"{v1}?includeObject=Object", f"{v1}/h1?includeObject=Object"):
        table = _table(server, path)
        embedded = table["rows"][0]["object"]
        assert embedded["apiVersion"] == "autoscaling/v1", path
        assert embedded["kind"] == "HorizontalPodAutoscaler"
        assert embedded["spec"]["targetCPUUtilizationPercentage"] == 60
        assert "metrics" not in embedded["spec"]
        assert embedded == server.request("GET", f"{v1}/h1").json() | {"metadata": embedded["metadata"]}
        assert table["rows"][0]["cells"][2] == "cpu: <unknown>/60%"  # still printed from the full object
    embedded = _table(server, f"{v2}?includeObject=Object")["rows"][0]["object"]
    assert embedded["apiVersion"] == "autoscaling/v2"
    assert embedded["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"] == 60


def test_yaml_table(server, ns):
    """AllowsMediaTypeTransform lets a Table be written as JSON or YAML; the YAML serializer answers
    application/yaml."""
    server.kubectl("-n", ns, "create", "configmap", "cm1", "--from-literal=a=b")
    for path in (f"/api/v1/namespaces/{ns}/configmaps/cm1", f"/api/v1/namespaces/{ns}/configmaps"):
        r = server.request("GET", path, headers={"Accept": YAML_TABLE_ACCEPT})
        assert r.status_code == 200, r.text
        assert r.headers["Content-Type"] == "application/yaml"
        table = yaml.safe_load(r.text)
        assert table["kind"] == "Table" and table["apiVersion"] == "meta.k8s.io/v1"
        assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "Data", "Age"]
        assert next(row for row in table["rows"] if row["cells"][0] == "cm1")["cells"][1] == 1
    # a v1beta1 Table embeds v1beta1 PartialObjectMetadata
    r = server.request(
        "GET",
        f"/api/v1/namespaces/{ns}/configmaps/cm1",
        headers={"Accept": "application/yaml;as=Table;v=v1beta1;g=meta.k8s.io"},
    )
    table = yaml.safe_load(r.text)
    assert table["apiVersion"] == "meta.k8s.io/v1beta1"
    assert table["rows"][0]["object"]["apiVersion"] == "meta.k8s.io/v1beta1"
    # PartialObjectMetadata is allowed in any media type: YAML too
    accept = "application/yaml;as=PartialObjectMetadata;v=v1;g=meta.k8s.io"
    r = server.request("GET", f"/api/v1/namespaces/{ns}/configmaps/cm1", headers={"Accept": accept})
    assert r.headers["Content-Type"] == "application/yaml"
    assert yaml.safe_load(r.text)["kind"] == "PartialObjectMetadata"
    # a watch has no YAML stream serializer: 406 (NegotiateOutputMediaTypeStream), the Status in YAML as
    # ErrorNegotiated writes it
    r = server.request(
        "GET", f"/api/v1/namespaces/{ns}/configmaps?watch=1&timeoutSeconds=1", headers={"Accept": YAML_TABLE_ACCEPT}
    )
    assert (r.status_code, r.headers["Content-Type"]) == (406, "application/yaml")
    assert yaml.safe_load(r.text)["reason"] == "NotAcceptable"


def test_yaml_table_of_custom_resources(server, ns):
    group = "yamltables.example.com"
    crd = free_form_crd(group, "widgets", "Widget")
    crd["spec"]["versions"][0]["additionalPrinterColumns"] = [
        {"name": "Color", "type": "string", "jsonPath": ".spec.color"}
    ]
    apply_crd(server, crd)
    obj = {"apiVersion": f"{group}/v1", "kind": "Widget", "metadata": {"name": "w1"}, "spec": {"color": "red"}}
    server.kubectl("-n", ns, "apply", "-f", "-", input=json.dumps(obj))
    for path in (f"/apis/{group}/v1/namespaces/{ns}/widgets", f"/apis/{group}/v1/namespaces/{ns}/widgets/w1"):
        r = server.request("GET", path, headers={"Accept": YAML_TABLE_ACCEPT})
        assert r.status_code == 200, r.text
        assert r.headers["Content-Type"] == "application/yaml"
        table = yaml.safe_load(r.text)
        assert table["kind"] == "Table"
        assert table["rows"][0]["cells"] == ["w1", "red"]


def test_invalid_include_object(server, ns):
    server.kubectl("-n", ns, "create", "configmap", "cm1")
    message = (
        'Unable to convert to Table as requested: includeObject: Invalid value: "Foo": '
        "must be 'Metadata', 'Object', 'None', or empty"
    )
    for path in (f"/api/v1/namespaces/{ns}/configmaps", f"/api/v1/namespaces/{ns}/configmaps/cm1"):
        r = server.request("GET", f"{path}?includeObject=Foo", headers={"Accept": TABLE_ACCEPT})
        assert status_of(r, 400, "BadRequest")["message"] == message
    # empty means Metadata
    table = _table(server, f"/api/v1/namespaces/{ns}/configmaps/cm1?includeObject=")
    assert table["rows"][0]["object"]["kind"] == "PartialObjectMetadata"


def test_include_object_none_writes_null(server, ns):
    """asTable sets a nil object; TableRow.object is a RawExtension, which encodes as null."""
    server.kubectl("-n", ns, "create", "configmap", "cm1")
    r = server.request(
        "GET", f"/api/v1/namespaces/{ns}/configmaps/cm1?includeObject=None", headers={"Accept": TABLE_ACCEPT}
    )
    assert b'"object":null' in r.content
    assert r.json()["rows"][0] == {"cells": r.json()["rows"][0]["cells"], "object": None}


def test_accept_clause_with_q_zero_is_kept(server, ns):
    """goautoneg.ParseAccept keeps q=0 clauses and 1.33's NegotiateMediaTypeOptions does not check q, so
    application/json;q=0 still answers JSON."""
    server.kubectl("-n", ns, "create", "configmap", "cm1")
    r = server.request("GET", f"/api/v1/namespaces/{ns}/configmaps/cm1", headers={"Accept": "application/json;q=0"})
    assert r.status_code == 200, r.text
    assert r.headers["Content-Type"] == "application/json"
    assert r.json()["kind"] == "ConfigMap"
    # goautoneg's ordering puts a concrete type before a wildcard, whatever their q (Go's insertion sort
    # with its Less): */* then application/yaml;q=0.5 answers YAML
    r = server.request(
        "GET", f"/api/v1/namespaces/{ns}/configmaps/cm1", headers={"Accept": "*/*, application/yaml;q=0.5"}
    )
    assert r.headers["Content-Type"] == "application/yaml"
    assert yaml.safe_load(r.text)["kind"] == "ConfigMap"


def test_aggregated_discovery_core_group_has_no_name(server):
    accept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
    r = server.request("GET", "/api", headers={"Accept": accept})
    assert r.status_code == 200
    assert r.json()["items"][0]["metadata"] == {"creationTimestamp": None}
    assert b'"metadata":{"creationTimestamp":null}' in r.content
    groups = server.request("GET", "/apis", headers={"Accept": accept}).json()["items"]
    apps = next(g for g in groups if g["metadata"].get("name") == "apps")
    assert apps["metadata"] == {"name": "apps", "creationTimestamp": None}

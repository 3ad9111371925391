"""Server-side apply and managedFields as users meet them: kubectl apply --server-side, kubectl diff
--server-side, --show-managed-fields, and the Python client's server-side apply and patches."""

from __future__ import annotations

import json

import pytest
import yaml


def deployment(name: str, *containers: dict, replicas: int = 2, labels: dict | None = None) -> dict:
    meta: dict = {"name": name}
    if labels:
        meta["labels"] = labels
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": meta,
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": list(containers)}},
        },
    }


def apply(server, ns: str, obj: dict, *args: str, check: bool = True):
    return server.kubectl("-n", ns, "apply", "--server-side", *args, "-f", "-", input=yaml.safe_dump(obj), check=check)


def get(server, ns: str, kind: str, name: str) -> dict:
    out = server.kubectl("-n", ns, "get", kind, name, "-o", "json", "--show-managed-fields").stdout
    return json.loads(out)


def owners(obj: dict) -> dict[str, dict]:
    return {(e["manager"], e["operation"]): e for e in obj["metadata"].get("managedFields", [])}


def test_apply_creates_and_updates_a_deployment(server, ns):
    nginx = {"name": "nginx", "image": "nginx:1.25", "ports": [{"containerPort": 80}]}
    res = apply(server, ns, deployment("web", nginx))
    assert res.stdout.strip() == "deployment.apps/web serverside-applied"
    dep = get(server, ns, "deploy", "web")
    entry = owners(dep)[("kubectl", "Apply")]
    assert entry["apiVersion"] == "apps/v1" and entry["fieldsType"] == "FieldsV1" and "subresource" not in entry
    assert entry["fieldsV1"] == {
        "f:spec": {
            "f:replicas": {},
            "f:selector": {},
            "f:template": {
                "f:metadata": {"f:labels": {"f:app": {}}},
                "f:spec": {
                    "f:containers": {
                        'k:{"name":"nginx"}': {
                            ".": {},
                            "f:image": {},
                            "f:name": {},
                            "f:ports": {'k:{"containerPort":80,"protocol":"TCP"}': {".": {}, "f:containerPort": {}}},
                        }
                    }
                },
            },
        }
    }
    assert len(dep["metadata"]["managedFields"]) == 1  # creating by apply leaves no Update entry
    # defaults are applied as for any write
    assert dep["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"] == "IfNotPresent"
    rv = dep["metadata"]["resourceVersion"]

    # the same configuration again changes nothing, not even the resourceVersion
    apply(server, ns, deployment("web", nginx))
    assert get(server, ns, "deploy", "web")["metadata"]["resourceVersion"] == rv

    apply(server, ns, deployment("web", {**nginx, "image": "nginx:1.26"}))
    dep = get(server, ns, "deploy", "web")
    assert dep["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.26"
    assert dep["metadata"]["resourceVersion"] != rv and dep["metadata"]["generation"] == 2


def test_apply_configmap_and_service(server, ns):
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}, "data": {"a": "1", "b": "2"}}
    apply(server, ns, cm)
    cm["data"] = {"a": "1", "c": "3"}  # b is dropped: it was only this applier's, so it goes
    res = apply(server, ns, cm)
    assert res.stdout.strip() == "configmap/cfg serverside-applied"
    got = get(server, ns, "cm", "cfg")
    assert got["data"] == {"a": "1", "c": "3"}
    assert owners(got)[("kubectl", "Apply")]["fieldsV1"] == {"f:data": {"f:a": {}, "f:c": {}}}

    svc = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "svc"},
        "spec": {"selector": {"app": "x"}, "ports": [{"name": "http", "port": 80, "targetPort": 8080}]},
    }
    apply(server, ns, svc)
    svc["spec"]["ports"].append({"name": "https", "port": 443, "targetPort": 8443})
    apply(server, ns, svc)
    got = get(server, ns, "svc", "svc")
    assert [p["port"] for p in got["spec"]["ports"]] == [80, 443]
    assert got["spec"]["clusterIP"]  # allocated by the server, owned by nobody
    fields = owners(got)[("kubectl", "Apply")]["fieldsV1"]["f:spec"]
    assert set(fields) == {"f:ports", "f:selector"}
    assert set(fields["f:ports"]) == {'k:{"port":80,"protocol":"TCP"}', 'k:{"port":443,"protocol":"TCP"}'}


def test_second_manager_conflict_and_force(server, ns):
    nginx = {"name": "nginx", "image": "nginx"}
    apply(server, ns, deployment("web", nginx, replicas=2))
    # another manager owns a field of its own, and co-owns replicas by applying the same value
    other = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "labels": {"team": "a"}}}
    other["spec"] = {"replicas": 2}
    apply(server, ns, other, "--field-manager=other")
    dep = get(server, ns, "deploy", "web")
    assert owners(dep)[("other", "Apply")]["fieldsV1"] == {
        "f:metadata": {"f:labels": {"f:team": {}}},
        "f:spec": {"f:replicas": {}},
    }
    assert dep["metadata"]["labels"] == {"team": "a"}

    # changing a field others own is a conflict
    res = apply(server, ns, deployment("web", nginx, replicas=5), check=False)
    assert res.returncode == 1
    assert 'Apply failed with 1 conflict: conflict with "other": .spec.replicas' in res.stderr, res.stderr
    assert get(server, ns, "deploy", "web")["spec"]["replicas"] == 2

    # an Update manager is named with the version it used
    server.kubectl("-n", ns, "scale", "deploy", "web", "--replicas=3")
    res = apply(server, ns, deployment("web", nginx, replicas=4), "--field-manager=other", check=False)
    assert res.returncode == 1
    assert 'conflict with "kubectl" with subresource "scale" using apps/v1: .spec.replicas' in res.stderr, res.stderr

    # --force-conflicts takes the field over
    apply(server, ns, deployment("web", nginx, replicas=4), "--force-conflicts")
    dep = get(server, ns, "deploy", "web")
    assert dep["spec"]["replicas"] == 4
    managers = owners(dep)
    assert "f:replicas" in managers[("kubectl", "Apply")]["fieldsV1"]["f:spec"]
    assert "f:spec" not in managers[("other", "Apply")]["fieldsV1"]
    assert ("kubectl", "Update") not in managers  # the scale's entry lost its only field


def test_reapplying_without_a_container_removes_it(server, ns):
    main = {"name": "main", "image": "nginx"}
    side = {"name": "side", "image": "busybox", "command": ["sleep", "3600"]}
    apply(server, ns, deployment("web", main, side))
    dep = get(server, ns, "deploy", "web")
    assert [c["name"] for c in dep["spec"]["template"]["spec"]["containers"]] == ["main", "side"]
    apply(server, ns, deployment("web", main))
    dep = get(server, ns, "deploy", "web")
    assert [c["name"] for c in dep["spec"]["template"]["spec"]["containers"]] == ["main"]
    containers = owners(dep)[("kubectl", "Apply")]["fieldsV1"]["f:spec"]["f:template"]["f:spec"]["f:containers"]
    assert list(containers) == ['k:{"name":"main"}']


def test_kubectl_diff_server_side(server, ns):
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}, "data": {"a": "1"}}
    # a new object: the dry-run apply creates it, nothing is stored
    res = server.kubectl("-n", ns, "diff", "--server-side", "-f", "-", input=yaml.safe_dump(cm), check=False)
    assert res.returncode == 1 and '+  a: "1"' in res.stdout, res.stdout
    assert server.kubectl("-n", ns, "get", "cm", "cfg", check=False).returncode == 1
    apply(server, ns, cm)
    res = server.kubectl("-n", ns, "diff", "--server-side", "-f", "-", input=yaml.safe_dump(cm), check=False)
    assert (res.returncode, res.stdout) == (0, "")
    cm["data"]["a"] = "2"
    res = server.kubectl("-n", ns, "diff", "--server-side", "-f", "-", input=yaml.safe_dump(cm), check=False)
    assert res.returncode == 1, res.stderr
    assert '-  a: "1"' in res.stdout and '+  a: "2"' in res.stdout
    assert get(server, ns, "cm", "cfg")["data"] == {"a": "1"}  # dry run


def test_managed_fields_shown_only_when_asked(server, ns):
    server.kubectl("-n", ns, "create", "deployment", "web", "--image=nginx")
    server.kubectl("-n", ns, "label", "deployment", "web", "tier=front")
    plain = yaml.safe_load(server.kubectl("-n", ns, "get", "deploy", "web", "-o", "yaml").stdout)
    assert "managedFields" not in plain["metadata"]
    shown = yaml.safe_load(
        server.kubectl("-n", ns, "get", "deploy", "web", "-o", "yaml", "--show-managed-fields").stdout
    )
    by_manager = {e["manager"]: e for e in shown["metadata"]["managedFields"]}
    assert set(by_manager) == {"kubectl-create", "kubectl-label"}
    create = by_manager["kubectl-create"]
    assert create["operation"] == "Update" and create["apiVersion"] == "apps/v1"
    spec = create["fieldsV1"]["f:spec"]
    assert spec["f:strategy"] == {"f:rollingUpdate": {".": {}, "f:maxSurge": {}, "f:maxUnavailable": {}}, "f:type": {}}
    assert spec["f:template"]["f:spec"]["f:containers"]['k:{"name":"nginx"}'] == {
        ".": {},
        "f:image": {},
        "f:imagePullPolicy": {},
        "f:name": {},
        "f:resources": {},
        "f:terminationMessagePath": {},
        "f:terminationMessagePolicy": {},
    }
    assert by_manager["kubectl-label"]["fieldsV1"] == {"f:metadata": {"f:labels": {"f:tier": {}}}}


def test_client_side_apply_then_server_side_apply(server, ns):
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}, "data": {"a": "1"}}
    server.kubectl("-n", ns, "apply", "-f", "-", input=yaml.safe_dump(cm))
    assert ("kubectl-client-side-apply", "Update") in owners(get(server, ns, "cm", "cfg"))
    cm["data"]["a"] = "2"
    apply(server, ns, cm)  # what kubectl applied before is not a conflict for kubectl
    got = get(server, ns, "cm", "cfg")
    assert got["data"] == {"a": "2"}
    last = json.loads(got["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"])
    assert last["data"] == {"a": "2"}  # kept in step for a later client-side apply


def test_python_client_server_side_apply(server, ns, api_client):
    from kubernetes import client, dynamic
    from kubernetes.client.rest import ApiException

    dyn = dynamic.DynamicClient(api_client)
    cms = dyn.resources.get(api_version="v1", kind="ConfigMap")
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "py", "namespace": ns}, "data": {"x": "1"}}
    out = cms.server_side_apply(body=body, name="py", namespace=ns, field_manager="py-one")
    assert [(e["manager"], e["operation"], e["fieldsV1"]) for e in out.to_dict()["metadata"]["managedFields"]] == [
        ("py-one", "Apply", {"f:data": {"f:x": {}}})
    ]
    core = client.CoreV1Api(api_client)
    second = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "py"}, "data": {"y": "2"}}
    out = core.patch_namespaced_config_map(
        "py", ns, second, field_manager="py-two", _content_type="application/apply-patch+yaml"
    )
    assert out.data == {"x": "1", "y": "2"}
    with pytest.raises(ApiException) as e:
        cms.server_side_apply(body={**body, "data": {"y": "3"}}, name="py", namespace=ns, field_manager="py-one")
    assert e.value.status == 409
    status = json.loads(e.value.body)
    assert status["message"] == 'Apply failed with 1 conflict: conflict with "py-two": .data.y'
    assert status["details"]["causes"] == [
        {"reason": "FieldManagerConflict", "message": 'conflict with "py-two"', "field": ".data.y"}
    ]
    out = cms.server_side_apply(
        body={**body, "data": {"y": "3"}}, name="py", namespace=ns, field_manager="py-one", force_conflicts=True
    )
    assert out.to_dict()["data"] == {"y": "3"}  # x went (py-one no longer applies it), y is py-one's now
    # an update through the typed client is named after its user agent
    out = core.patch_namespaced_config_map("py", ns, {"data": {"z": "4"}})
    assert ("OpenAPI-Generator", "Update") in {(e.manager, e.operation) for e in out.metadata.managed_fields}


def test_apply_requires_a_field_manager_and_a_known_schema(server, ns):
    path = f"/api/v1/namespaces/{ns}/configmaps/raw"
    headers = {"Content-Type": "application/apply-patch+yaml"}
    body = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: raw\ndata:\n  a: b\n"
    r = server.request("PATCH", path, data=body, headers=headers)
    assert r.status_code == 422
    assert r.json()["message"] == (
        'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch'
    )
    r = server.request("PATCH", path + "?fieldManager=m", data=body + "spec: {}\n", headers=headers)
    assert r.status_code == 400 and r.json()["reason"] == "BadRequest"  # upstream: 500 (kubernetes#139253)
    assert r.json()["message"] == (
        "failed to create typed patch object (/raw; /v1, Kind=ConfigMap): .spec: field not declared in schema"
    )
    r = server.request("PATCH", path + "?fieldManager=m", data=body, headers=headers)
    assert r.status_code == 201
    r = server.request(
        "PATCH",
        path + "?fieldManager=m&force=true",
        data=json.dumps({"data": {"a": "c"}}),
        headers={"Content-Type": "application/merge-patch+json"},
    )
    assert r.status_code == 422
    assert r.json()["message"] == (
        'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch'
    )


def test_managed_fields_reset_status_and_scale(server, ns, api_client):
    from kubernetes import client

    apps = client.AppsV1Api(api_client)
    server.kubectl("-n", ns, "create", "deployment", "web", "--image=nginx")
    apps.patch_namespaced_deployment_status(
        "web", ns, {"status": {"observedGeneration": 1, "replicas": 1}}, field_manager="controller"
    )
    server.kubectl("-n", ns, "scale", "deployment", "web", "--replicas=2")
    dep = get(server, ns, "deploy", "web")
    by_manager = {(e["manager"], e.get("subresource", "")): e for e in dep["metadata"]["managedFields"]}
    assert by_manager[("controller", "status")]["fieldsV1"] == {
        "f:status": {"f:observedGeneration": {}, "f:replicas": {}}
    }
    assert by_manager[("kubectl", "scale")]["fieldsV1"] == {"f:spec": {"f:replicas": {}}}
    assert "f:replicas" not in by_manager[("kubectl-create", "")]["fieldsV1"]["f:spec"]
    # managedFields: [{}] clears them, and they stay cleared
    r = server.request(
        "PATCH",
        f"/apis/apps/v1/namespaces/{ns}/deployments/web",
        data=json.dumps({"metadata": {"managedFields": [{}]}}),
        headers={"Content-Type": "application/merge-patch+json"},
    )
    assert r.status_code == 200 and "managedFields" not in r.json()["metadata"]
    server.kubectl("-n", ns, "label", "deployment", "web", "x=y")
    assert "managedFields" not in get(server, ns, "deploy", "web")["metadata"]


def test_field_manager_option_is_checked_on_every_write(server, ns):
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "fm"}, "data": {"a": "b"}}
    r = server.request("POST", f"/api/v1/namespaces/{ns}/configmaps?fieldManager=" + "m" * 129, json=body)
    assert r.status_code == 422
    assert r.json()["message"] == (
        'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes'
    )
    r = server.request("POST", f"/api/v1/namespaces/{ns}/configmaps?fieldManager=creator", json=body)
    assert r.status_code == 201
    assert [(e["manager"], e["operation"]) for e in r.json()["metadata"]["managedFields"]] == [("creator", "Update")]
    body = r.json()
    body["data"]["a"] = "c"
    r = server.request("PUT", f"/api/v1/namespaces/{ns}/configmaps/fm?fieldManager=m%09x", json=body)
    assert r.status_code == 422
    assert r.json()["message"] == (
        'UpdateOptions.meta.k8s.io "" is invalid: fieldManager: Invalid value: "m\\tx": '
        "invalid character U+0009 (at position 1)"
    )


def test_apply_through_the_scale_subresource(server, ns):
    server.kubectl("-n", ns, "create", "deployment", "web", "--image=nginx")
    path = f"/apis/apps/v1/namespaces/{ns}/deployments/web/scale"
    scale = {"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "web"}, "spec": {"replicas": 4}}
    headers = {"Content-Type": "application/apply-patch+yaml"}
    r = server.request("PATCH", path + "?fieldManager=autoscaler", data=json.dumps(scale), headers=headers)
    assert r.status_code == 409
    # the Scale's field manager sees the parent's owners of replicas in the Scale's version
    assert r.json()["message"] == (
        'Apply failed with 1 conflict: conflict with "kubectl-create" using autoscaling/v1: .spec.replicas'
    )
    r = server.request("PATCH", path + "?fieldManager=autoscaler&force=true", data=json.dumps(scale), headers=headers)
    assert r.status_code == 200 and r.json()["spec"] == {"replicas": 4}
    dep = get(server, ns, "deploy", "web")
    assert dep["spec"]["replicas"] == 4
    entry = next(e for e in dep["metadata"]["managedFields"] if e["manager"] == "autoscaler")
    assert (entry["operation"], entry["apiVersion"], entry["subresource"]) == ("Apply", "apps/v1", "scale")
    assert entry["fieldsV1"] == {"f:spec": {"f:replicas": {}}}


def test_apply_through_the_status_subresource_records_its_manager(server, ns):
    """A controller's SSA of status (controller-runtime's Status().Patch(..., client.Apply)): the
    managedFields get its Apply entry for status; the same apply again writes nothing; another
    manager's different value conflicts."""
    server.kubectl("-n", ns, "create", "deployment", "web", "--image=nginx")
    status = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": ns},
        "status": {"replicas": 3, "conditions": [{"type": "Available", "status": "True", "reason": "Ok"}]},
    }
    apply(server, ns, status, "--subresource=status", "--field-manager=ctrl")
    dep = get(server, ns, "deploy", "web")
    by_manager = {(e["manager"], e["operation"], e.get("subresource", "")): e for e in dep["metadata"]["managedFields"]}
    assert by_manager[("ctrl", "Apply", "status")]["fieldsV1"] == {
        "f:status": {
            "f:conditions": {'k:{"type":"Available"}': {".": {}, "f:reason": {}, "f:status": {}, "f:type": {}}},
            "f:replicas": {},
        }
    }
    assert ("kubectl-create", "Update", "") in by_manager
    assert dep["status"]["replicas"] == 3
    apply(server, ns, status, "--subresource=status", "--field-manager=ctrl")
    assert get(server, ns, "deploy", "web")["metadata"]["resourceVersion"] == dep["metadata"]["resourceVersion"]
    status["status"]["replicas"] = 4
    r = apply(server, ns, status, "--subresource=status", "--field-manager=other", check=False)
    assert r.returncode != 0 and 'conflict with "ctrl"' in r.stderr and ".status.replicas" in r.stderr


def test_apply_a_raw_extension_field(server, ns):
    """A RawExtension field (ControllerRevision.data) holds any JSON value and is owned whole
    (__untyped_atomic_): an object in it applies, and another manager's different value is a conflict on
    .data itself."""
    revision = {
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": {"name": "rev"},
        "revision": 1,
        "data": {"spec": {"template": {"metadata": {"labels": {"a": "b"}}}}},
    }
    apply(server, ns, revision)
    apply(server, ns, revision)  # again: no change
    obj = get(server, ns, "controllerrevision", "rev")
    assert obj["data"] == revision["data"]
    assert owners(obj)[("kubectl", "Apply")]["fieldsV1"] == {"f:data": {}, "f:revision": {}}
    revision["data"] = {"spec": {"replicas": 2}}
    res = apply(server, ns, revision, "--field-manager=other", check=False)
    assert 'Apply failed with 1 conflict: conflict with "kubectl": .data' in res.stderr


def test_apply_that_creates_drops_the_resource_version_it_carries(server, ns):
    """An apply creates through the update path, whose storage clears a resourceVersion in the configuration
    (a POST with one is refused): the object is made, with the server's resourceVersion."""
    path = f"/api/v1/namespaces/{ns}/configmaps/rv-applied?fieldManager=t"
    body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"rv-applied","resourceVersion":"123"}}'
    r = server.request("PATCH", path, data=body, headers={"Content-Type": "application/apply-patch+yaml"})
    assert r.status_code == 201, r.text
    assert r.json()["metadata"]["resourceVersion"] != "123"

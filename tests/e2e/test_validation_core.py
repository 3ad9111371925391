"""Invalid core objects are refused with kube-apiserver's 422 Invalid: the same message, reason, causes
and field paths, through kubectl and raw HTTP; the valid ones still go through."""

from __future__ import annotations

import json

import yaml


def pod(name: str, *containers: dict, **spec) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"containers": list(containers), **spec},
    }


def app(name: str = "app", image: str = "nginx:1.27", **fields) -> dict:
    return {"name": name, "image": image, **fields}


def post(server, ns: str, resource: str, body: dict):
    return server.request("POST", f"/api/v1/namespaces/{ns}/{resource}", json=body)


def invalid(r) -> dict:
    assert r.status_code == 422, (r.status_code, r.text[:500])
    body = r.json()
    assert body["kind"] == "Status" and body["reason"] == "Invalid" and body["code"] == 422
    return body


def test_pod_without_containers(server, ns):
    manifest = yaml.safe_dump(pod("empty"))
    res = server.kubectl("-n", ns, "create", "-f", "-", input=manifest, check=False)
    assert res.returncode == 1
    assert res.stderr.strip() == 'The Pod "empty" is invalid: spec.containers: Required value'
    body = invalid(post(server, ns, "pods", pod("empty")))
    assert body["message"] == 'Pod "empty" is invalid: spec.containers: Required value'
    assert body["details"] == {
        "name": "empty",
        "kind": "Pod",
        "causes": [{"reason": "FieldValueRequired", "message": "Required value", "field": "spec.containers"}],
    }


def test_two_containers_with_the_same_name(server, ns):
    body = invalid(post(server, ns, "pods", pod("dup", app(), app(image="busybox"))))
    assert body["message"] == 'Pod "dup" is invalid: spec.containers[1].name: Duplicate value: "app"'
    assert body["details"]["causes"] == [
        {"reason": "FieldValueDuplicate", "message": 'Duplicate value: "app"', "field": "spec.containers[1].name"}
    ]


def test_requests_above_limits(server, ns):
    resources = {"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}
    manifest = yaml.safe_dump(pod("greedy", app(resources=resources)))
    res = server.kubectl("-n", ns, "create", "-f", "-", input=manifest, check=False)
    assert res.returncode == 1
    assert res.stderr.strip() == (
        'The Pod "greedy" is invalid: spec.containers[0].resources.requests: Invalid value: "2": '
        "must be less than or equal to cpu limit of 1"
    )


def test_several_errors_are_listed(server, ns):
    body = invalid(post(server, ns, "pods", pod("many", app(name="Bad_Name", image=""), restartPolicy="Sometimes")))
    fields = [c["field"] for c in body["details"]["causes"]]
    assert fields == ["spec.containers[0].name", "spec.containers[0].image", "spec.restartPolicy"]
    assert body["message"].startswith('Pod "many" is invalid: [spec.containers[0].name: Invalid value: "Bad_Name": ')
    assert body["message"].endswith(
        ', spec.containers[0].image: Required value, spec.restartPolicy: Unsupported value: "Sometimes": '
        'supported values: "Always", "OnFailure", "Never"]'
    )


def test_bad_label(server, ns):
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "badlabel", "labels": {"app": "-x"}}}
    res = server.kubectl("-n", ns, "create", "-f", "-", input=yaml.safe_dump(cm), check=False)
    assert res.returncode == 1
    assert res.stderr.strip() == (
        'The ConfigMap "badlabel" is invalid: metadata.labels: Invalid value: "-x": a valid label must be an empty '
        "string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
        "character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
        "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
    )


def test_config_map_over_one_mebibyte(server, ns):
    big = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "big"},
        "data": {"k": "x" * (1 << 20), "l": "y"},
    }
    body = invalid(post(server, ns, "configmaps", big))
    assert body["message"] == 'ConfigMap "big" is invalid: []: Too long: may not be more than 1048576 bytes'
    assert body["details"]["causes"] == [
        {"reason": "FieldValueTooLong", "message": "Too long: may not be more than 1048576 bytes", "field": "[]"}
    ]
    exact = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "exact"}, "data": {"k": "x" * (1 << 20)}}
    assert post(server, ns, "configmaps", exact).status_code == 201


def test_immutable_config_map(server, ns):
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "imm"}, "data": {"a": "1"}, "immutable": True}
    server.kubectl("-n", ns, "create", "-f", "-", input=yaml.safe_dump(cm))
    res = server.kubectl("-n", ns, "patch", "configmap", "imm", "-p", '{"data":{"a":"2"}}', check=False)
    assert res.returncode == 1
    assert res.stderr.strip() == (
        'The ConfigMap "imm" is invalid: data: Forbidden: field is immutable when `immutable` is set'
    )
    # Labels may still change.
    out = server.kubectl("-n", ns, "label", "configmap", "imm", "x=y").stdout
    assert out.strip() == "configmap/imm labeled"


def test_pod_updates(server, ns):
    server.kubectl("-n", ns, "create", "-f", "-", input=yaml.safe_dump(pod("web", app())))
    # The image may change.
    patch = json.dumps({"spec": {"containers": [{"name": "app", "image": "nginx:1.28"}]}})
    assert server.kubectl("-n", ns, "patch", "pod", "web", "-p", patch).stdout.strip() == "pod/web patched"
    # A container's name may not.
    current = json.loads(server.kubectl("-n", ns, "get", "pod", "web", "-o", "json").stdout)
    current["spec"]["containers"][0]["name"] = "renamed"
    r = server.request("PUT", f"/api/v1/namespaces/{ns}/pods/web", json=current)
    body = invalid(r)
    assert body["message"].startswith(
        'Pod "web" is invalid: spec: Forbidden: pod updates may not change fields other than '
        "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` "
        "(only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if "
        "it was previously negative)\n"
    )
    (cause,) = body["details"]["causes"]
    assert cause["reason"] == "FieldValueForbidden" and cause["field"] == "spec"
    # Nor may containers be added.
    current = json.loads(server.kubectl("-n", ns, "get", "pod", "web", "-o", "json").stdout)
    current["spec"]["containers"].append(app(name="extra"))
    body = invalid(server.request("PUT", f"/api/v1/namespaces/{ns}/pods/web", json=current))
    assert (
        body["message"]
        == 'Pod "web" is invalid: spec.containers: Forbidden: pod updates may not add or remove containers'
    )


def test_valid_objects_still_succeed(server, ns):
    manifests = [
        pod("ok", app(ports=[{"containerPort": 80}], resources={"requests": {"cpu": "100m"}, "limits": {"cpu": "1"}})),
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": "tls"},
            "type": "kubernetes.io/tls",
            "stringData": {"tls.crt": "c", "tls.key": "k"},
        },
        {
            "apiVersion": "v1",
            "kind": "ReplicationController",
            "metadata": {"name": "rc"},
            "spec": {
                "replicas": 1,
                "template": {"metadata": {"labels": {"app": "rc"}}, "spec": {"containers": [app()]}},
            },
        },
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {"name": "claim"},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
        },
    ]
    for manifest in manifests:
        res = server.kubectl("-n", ns, "create", "-f", "-", input=yaml.safe_dump(manifest))
        assert res.returncode == 0, res.stderr


def test_secret_type_is_immutable(server, ns):
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "type": "Opaque", "data": {}}
    server.kubectl("-n", ns, "create", "-f", "-", input=yaml.safe_dump(secret))
    res = server.kubectl(
        "-n",
        ns,
        "patch",
        "secret",
        "s",
        "-p",
        '{"type":"kubernetes.io/basic-auth","stringData":{"username":"u"}}',
        check=False,
    )
    assert res.returncode == 1
    assert (
        res.stderr.strip()
        == 'The Secret "s" is invalid: type: Invalid value: "kubernetes.io/basic-auth": field is immutable'
    )


def test_secret_update_lists_the_change_before_the_new_object(server, ns):
    """ValidateSecretUpdate checks the type change before it validates the new Secret: the causes come in that
    order (most kinds validate the new object first)."""
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s2"}, "type": "Opaque", "data": {}}
    server.kubectl("-n", ns, "create", "-f", "-", input=yaml.safe_dump(secret))
    res = server.kubectl("-n", ns, "patch", "secret", "s2", "-p", '{"type":"kubernetes.io/tls"}', check=False)
    assert res.returncode == 1
    assert res.stderr.strip().splitlines() == [
        'The Secret "s2" is invalid: ',
        '* type: Invalid value: "kubernetes.io/tls": field is immutable',
        "* data[tls.crt]: Required value",
        "* data[tls.key]: Required value",
    ]

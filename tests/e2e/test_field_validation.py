"""Server-side field validation and typed decoding of built-in kinds, as kubectl and clients see them
(KEP-2885: fieldValidation=Strict, Warn (the default) and Ignore)."""

from __future__ import annotations

import json

import pytest
import yaml

DEPLOYMENT_WITH_PROBLEMS = """{
  "apiVersion": "apps/v1",
  "kind": "Deployment",
  "metadata": {"name": "%s", "name": "%s", "unknownMeta": "x", "labels": {"app": "nginx"}},
  "spec": {
    "unknown1": "val1",
    "unknownDupe": "valDupe",
    "unknownDupe": "valDupe2",
    "paused": true,
    "paused": false,
    "selector": {"matchLabels": {"app": "nginx"}},
    "template": {
      "metadata": {"labels": {"app": "nginx"}},
      "spec": {"containers": [{
        "name": "nginx", "image": "nginx:latest", "unknownNested": "val1",
        "imagePullPolicy": "Always", "imagePullPolicy": "Never"}]}
    }
  }
}"""

EXPECTED_PROBLEMS = [
    'duplicate field "metadata.name"',
    'unknown field "metadata.unknownMeta"',
    'unknown field "spec.unknown1"',
    'unknown field "spec.unknownDupe"',
    'duplicate field "spec.paused"',
    'unknown field "spec.template.spec.containers[0].unknownNested"',
    'duplicate field "spec.template.spec.containers[0].imagePullPolicy"',
]


def _post(server, ns, body: str, query: str = "", content_type: str = "application/json"):
    return server.request(
        "POST",
        f"/apis/apps/v1/namespaces/{ns}/deployments{query}",
        data=body.encode(),
        headers={"Content-Type": content_type},
    )


def _warnings(resp) -> list[str]:
    raw = resp.raw.headers.getlist("Warning") if hasattr(resp.raw.headers, "getlist") else []
    out = []
    for value in raw:
        assert value.startswith('299 - "'), value
        out.append(json.loads(value[len("299 - ") :]))
    return out


def test_strict_lists_every_unknown_and_duplicate_field_in_document_order(server, ns):
    resp = _post(server, ns, DEPLOYMENT_WITH_PROBLEMS % ("d1", "d1"), "?fieldValidation=Strict")
    assert resp.status_code == 400, resp.text
    body = resp.json()
    assert body["reason"] == "BadRequest"
    assert body["message"] == (
        'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: '
        + ", ".join(EXPECTED_PROBLEMS)
    )
    assert server.request("GET", f"/apis/apps/v1/namespaces/{ns}/deployments/d1").status_code == 404


@pytest.mark.parametrize("query", ["", "?fieldValidation=Warn"])
def test_warn_is_the_default_and_sends_one_warning_per_problem(server, ns, query):
    name = "warn" if query else "default"
    resp = _post(server, ns, DEPLOYMENT_WITH_PROBLEMS % (name, name), query)
    assert resp.status_code == 201, resp.text
    assert _warnings(resp) == EXPECTED_PROBLEMS
    obj = resp.json()
    # unknown fields are dropped, the last of duplicated keys wins
    assert "unknownMeta" not in obj["metadata"] and "unknown1" not in obj["spec"]
    assert "paused" not in obj["spec"]  # the last one, false, which Go's encoder leaves out (omitempty)
    assert obj["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"] == "Never"
    assert "unknownNested" not in obj["spec"]["template"]["spec"]["containers"][0]


def test_ignore_drops_unknown_fields_silently(server, ns):
    resp = _post(server, ns, DEPLOYMENT_WITH_PROBLEMS % ("ign", "ign"), "?fieldValidation=Ignore")
    assert resp.status_code == 201, resp.text
    assert _warnings(resp) == []
    assert "unknown1" not in resp.json()["spec"]


def test_yaml_duplicates_are_reported_with_line_numbers(server, ns):
    body = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ycm\n  name: ycm\ndata:\n  a: b\nextra: 1\n"
    resp = server.request(
        "POST",
        f"/api/v1/namespaces/{ns}/configmaps?fieldValidation=Strict",
        data=body.encode(),
        headers={"Content-Type": "application/yaml"},
    )
    assert resp.status_code == 400, resp.text
    assert resp.json()["message"] == (
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: '
        'yaml: unmarshal errors:\n  line 5: key "name" already set in map, unknown field "extra"'
    )
    resp = server.request(
        "POST",
        f"/api/v1/namespaces/{ns}/configmaps",
        data=body.encode(),
        headers={"Content-Type": "application/yaml"},
    )
    assert resp.status_code == 201, resp.text
    assert _warnings(resp) == ['line 5: key "name" already set in map', 'unknown field "extra"']


def test_unsupported_directive_is_invalid(server, ns):
    resp = server.request(
        "POST",
        f"/api/v1/namespaces/{ns}/configmaps?fieldValidation=Loose",
        json={"metadata": {"name": "x"}},
    )
    assert resp.status_code == 422
    assert resp.json()["message"] == (
        'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loose": '
        'supported values: "", "Ignore", "Strict", "Warn"'
    )


@pytest.mark.parametrize(
    ("spec_patch", "message"),
    [
        (
            {"replicas": "3"},
            "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32",
        ),
        (
            {"replicas": 3000000000},
            "json: cannot unmarshal number 3000000000 into Go struct field DeploymentSpec.spec.replicas of type int32",
        ),
        (
            {"paused": "yes"},
            "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.paused of type bool",
        ),
        (
            {
                "template": {
                    "spec": {"containers": [{"name": "c", "image": "i", "resources": {"limits": {"cpu": "lots"}}}]}
                }
            },
            "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        ),
    ],
)
def test_type_errors_are_bad_requests_in_gos_words(server, ns, spec_patch, message):
    obj = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "typed"},
        "spec": {
            "selector": {"matchLabels": {"app": "t"}},
            "template": {"metadata": {"labels": {"app": "t"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}},
        },
    }
    obj["spec"].update(spec_patch)
    resp = _post(server, ns, json.dumps(obj))
    assert resp.status_code == 400, resp.text
    assert resp.json()["message"] == f'Deployment in version "v1" cannot be handled as a Deployment: {message}'


def test_quantities_are_stored_in_canonical_form(server, ns):
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "q"},
        "spec": {
            "containers": [
                {
                    "name": "c",
                    "image": "busybox",
                    "resources": {
                        "requests": {"cpu": 0.5, "memory": "1024Mi"},
                        "limits": {"cpu": "1000m", "memory": "2048Mi", "ephemeral-storage": "1.5Gi"},
                    },
                }
            ]
        },
    }
    resp = server.request("POST", f"/api/v1/namespaces/{ns}/pods", json=pod)
    assert resp.status_code == 201, resp.text
    res = resp.json()["spec"]["containers"][0]["resources"]
    assert res == {
        # requests not given default to the limits (SetDefaults_Pod)
        "requests": {"cpu": "500m", "memory": "1Gi", "ephemeral-storage": "1536Mi"},
        "limits": {"cpu": "1", "memory": "2Gi", "ephemeral-storage": "1536Mi"},
    }


def test_times_are_stored_in_utc_as_kube_writes_them(server, ns):
    """metav1.Time is written back in UTC to the second, metav1.MicroTime in UTC with six fraction digits,
    whatever offset and fraction the client sent (the Python client sends datetime.isoformat()); a
    MicroTime without its six digits is refused in time.Parse's words."""
    cm = server.request("POST", f"/api/v1/namespaces/{ns}/configmaps", json={"metadata": {"name": "t"}}).json()
    event = {
        "apiVersion": "events.k8s.io/v1",
        "kind": "Event",
        "metadata": {"name": "t"},
        "eventTime": "2024-01-01T10:00:00.123456+01:00",
        "series": {"count": 2, "lastObservedTime": "2024-01-01T10:00:01.500000-00:30"},
        "reportingController": "e2e.example.com/c",
        "reportingInstance": "i",
        "action": "A",
        "reason": "R",
        "type": "Normal",
        "regarding": {"kind": "ConfigMap", "name": "t", "namespace": ns, "uid": cm["metadata"]["uid"]},
    }
    r = server.request("POST", f"/apis/events.k8s.io/v1/namespaces/{ns}/events", json=event)
    assert r.status_code == 201, r.text
    got = r.json()
    assert got["eventTime"] == "2024-01-01T09:00:00.123456Z"
    assert got["series"]["lastObservedTime"] == "2024-01-01T10:30:01.500000Z"
    event["metadata"]["name"] = "t2"
    event["eventTime"] = "2024-01-01T10:00:00Z"
    r = server.request("POST", f"/apis/events.k8s.io/v1/namespaces/{ns}/events", json=event)
    assert r.status_code == 400, r.text
    assert r.json()["message"] == (
        'Event in version "v1" cannot be handled as a Event: parsing time "2024-01-01T10:00:00Z" as '
        '"2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"'
    )
    # a status condition's time through a patch (kubectl patch --subresource=status)
    server.kubectl("-n", ns, "create", "deployment", "tt", "--image=nginx")
    cond = {"type": "Available", "status": "True", "lastTransitionTime": "2024-06-01T12:00:00.75+05:30"}
    res = server.kubectl(
        "-n",
        ns,
        "patch",
        "deployment",
        "tt",
        "--subresource=status",
        "--type=merge",
        "-p",
        json.dumps({"status": {"conditions": [cond]}}),
        "-o",
        "json",
    )
    assert json.loads(res.stdout)["status"]["conditions"][0]["lastTransitionTime"] == "2024-06-01T06:30:00Z"


def test_kubectl_rejects_typos_by_default_and_accepts_them_without_validation(server, ns):
    manifest = yaml.safe_dump(
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "typo"},
            "spec": {"ports": [{"port": 80, "targetPrt": 8080}], "selectr": {"app": "x"}},
        }
    )
    res = server.kubectl("-n", ns, "create", "-f", "-", input=manifest, check=False)
    assert res.returncode == 1
    assert (
        'Service in version "v1" cannot be handled as a Service: strict decoding error: '
        'unknown field "spec.ports[0].targetPrt", unknown field "spec.selectr"'
    ) in res.stderr, res.stderr
    res = server.kubectl("-n", ns, "create", "-f", "-", "--validate=warn", input=manifest)
    assert 'Warning: unknown field "spec.selectr"' in res.stderr
    assert res.stdout.strip() == "service/typo created"
    spec = json.loads(server.kubectl("-n", ns, "get", "service", "typo", "-o", "json").stdout)["spec"]
    assert "selectr" not in spec and "targetPrt" not in spec["ports"][0]


def test_patch_result_is_checked_for_unknown_fields(server, ns):
    server.kubectl("-n", ns, "create", "configmap", "pcm", "--from-literal=a=b")
    # kubectl patch sends no fieldValidation: the server's default (Warn) applies
    res = server.kubectl("-n", ns, "patch", "configmap", "pcm", "--type=merge", "-p", '{"dataa": {"x": "y"}}')
    assert 'Warning: unknown field "dataa"' in res.stderr, res.stderr
    resp = server.request(
        "PATCH",
        f"/api/v1/namespaces/{ns}/configmaps/pcm?fieldValidation=Strict",
        data=b'{"data": {"c": "d"}, "dataa": 1}',
        headers={"Content-Type": "application/merge-patch+json"},
    )
    assert resp.status_code == 400, resp.text
    assert resp.json()["message"].endswith('strict decoding error: unknown field "dataa"')
    resp = server.request(
        "PATCH",
        f"/api/v1/namespaces/{ns}/configmaps/pcm",
        data=b'{"data": {"c": "d"}, "dataa": 1}',
        headers={"Content-Type": "application/merge-patch+json"},
    )
    assert resp.status_code == 200, resp.text
    assert _warnings(resp) == ['unknown field "dataa"']
    assert resp.json()["data"] == {"a": "b", "c": "d"}


def test_python_dynamic_client_under_strict(server, ns, api_client):
    from kubernetes.client.rest import ApiException
    from kubernetes.dynamic import DynamicClient

    configmaps = DynamicClient(api_client).resources.get(api_version="v1", kind="ConfigMap")
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "pyc"}, "dta": {"a": "b"}}
    with pytest.raises(ApiException) as exc:
        configmaps.create(body=body, namespace=ns, query_params=[("fieldValidation", "Strict")])
    assert exc.value.status == 400
    assert 'strict decoding error: unknown field "dta"' in json.loads(exc.value.body)["message"]
    created = configmaps.create(body=body, namespace=ns)
    assert created.metadata.name == "pyc" and "dta" not in created.to_dict()


MERGE_PATCH_WITH_PROBLEMS = b"""{"spec": {
  "unknown1": "val1", "unknownDupe": "valDupe", "unknownDupe": "valDupe2",
  "paused": true, "paused": false,
  "template": {"spec": {"containers": [{
    "name": "nginx", "image": "nginx:latest", "unknownNested": "val1",
    "imagePullPolicy": "Always", "imagePullPolicy": "Never"}]}}}}"""

PATCH_PROBLEMS = [
    'duplicate field "spec.unknownDupe"',
    'duplicate field "spec.paused"',
    'duplicate field "spec.template.spec.containers[0].imagePullPolicy"',
    'unknown field "spec.template.spec.containers[0].unknownNested"',
    'unknown field "spec.unknown1"',
    'unknown field "spec.unknownDupe"',
]


@pytest.mark.parametrize("patch_type", ["application/merge-patch+json", "application/strategic-merge-patch+json"])
def test_patch_reports_its_repeated_keys_then_the_unknown_fields_of_the_result(server, ns, patch_type):
    # kube's patcher: the patch body's duplicates in order, then the patched object's unknown fields sorted
    resp = _post(server, ns, DEPLOYMENT_WITH_PROBLEMS % ("p", "p"), "?fieldValidation=Ignore")
    assert resp.status_code == 201, resp.text
    path = f"/apis/apps/v1/namespaces/{ns}/deployments/p"
    strict = server.request(
        "PATCH", path + "?fieldValidation=Strict", data=MERGE_PATCH_WITH_PROBLEMS, headers={"Content-Type": patch_type}
    )
    assert strict.status_code == 400, strict.text
    assert strict.json()["message"].endswith("strict decoding error: " + ", ".join(PATCH_PROBLEMS))
    warn = server.request("PATCH", path, data=MERGE_PATCH_WITH_PROBLEMS, headers={"Content-Type": patch_type})
    assert warn.status_code == 200, warn.text
    assert _warnings(warn) == PATCH_PROBLEMS

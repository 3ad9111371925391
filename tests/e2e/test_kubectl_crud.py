"""The everyday kubectl workflow on built-in kinds: create, get (every output format), label, annotate, replace,
delete, describe; with kubectl 1.33 (default) and a subset with kubectl 1.27."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field

import pytest
import yaml
from e2e_helpers import ROOT_CA_CONFIG_MAP, header_of, parse_table, wait_for_root_ca, without_root_ca


@dataclass
class Kind:
    resource: str  # as in "configmaps" or "deployments.apps"
    type_name: str  # kubectl's prefix: "configmap", "deployment.apps"
    name: str
    manifest: dict
    columns: list[str]
    wide: list[str] = field(default_factory=list)


def _pod_spec(image="nginx:1.27"):
    return {"containers": [{"name": "main", "image": image}]}


KINDS = {
    "configmap": Kind(
        "configmaps",
        "configmap",
        "cm1",
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm1"}, "data": {"k1": "v1", "k2": "v2"}},
        ["NAME", "DATA", "AGE"],
    ),
    "secret": Kind(
        "secrets",
        "secret",
        "sec1",
        {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "sec1"}, "stringData": {"user": "admin"}},
        ["NAME", "TYPE", "DATA", "AGE"],
    ),
    "deployment": Kind(
        "deployments.apps",
        "deployment.apps",
        "dep1",
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "dep1"},
            "spec": {
                "selector": {"matchLabels": {"app": "dep1"}},
                "template": {"metadata": {"labels": {"app": "dep1"}}, "spec": _pod_spec()},
            },
        },
        ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"],
        ["CONTAINERS", "IMAGES", "SELECTOR"],
    ),
    "service": Kind(
        "services",
        "service",
        "svc1",
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "svc1"},
            "spec": {"selector": {"app": "dep1"}, "ports": [{"port": 80}]},
        },
        ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"],
        ["SELECTOR"],
    ),
    "pod": Kind(
        "pods",
        "pod",
        "pod1",
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "pod1"}, "spec": _pod_spec()},
        ["NAME", "READY", "STATUS", "RESTARTS", "AGE"],
        ["IP", "NODE", "NOMINATED NODE", "READINESS GATES"],
    ),
    "job": Kind(
        "jobs.batch",
        "job.batch",
        "job1",
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {"name": "job1"},
            "spec": {"template": {"spec": {"restartPolicy": "Never", **_pod_spec("busybox:1.36")}}},
        },
        ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"],
        ["CONTAINERS", "IMAGES", "SELECTOR"],
    ),
}


def check_defaults(kind: str, obj: dict) -> None:
    """What kube-apiserver fills in on create, as users see it in -o yaml."""
    spec = obj.get("spec", {})
    if kind == "configmap":
        assert obj["data"] == {"k1": "v1", "k2": "v2"}
    elif kind == "secret":
        assert obj["type"] == "Opaque"
        assert obj["data"] == {"user": "YWRtaW4="}
        assert "stringData" not in obj
    elif kind == "deployment":
        assert obj["metadata"]["generation"] == 1
        assert spec["replicas"] == 1
        assert spec["strategy"]["type"] == "RollingUpdate"
        assert spec["strategy"]["rollingUpdate"] == {"maxSurge": "25%", "maxUnavailable": "25%"}
        assert spec["revisionHistoryLimit"] == 10
        assert spec["progressDeadlineSeconds"] == 600
        assert spec["template"]["spec"]["restartPolicy"] == "Always"
    elif kind == "service":
        assert spec["type"] == "ClusterIP"
        assert spec["clusterIP"] and spec["clusterIP"] != "None"
        assert spec["clusterIPs"] == [spec["clusterIP"]]
        assert spec["sessionAffinity"] == "None"
        assert spec["ports"][0]["protocol"] == "TCP"
        assert spec["ports"][0]["targetPort"] == 80
    elif kind == "pod":
        assert obj["status"]["phase"] == "Pending"
        assert spec["restartPolicy"] == "Always"
        assert spec["dnsPolicy"] == "ClusterFirst"
        assert spec["terminationGracePeriodSeconds"] == 30
        assert spec["containers"][0]["imagePullPolicy"] == "IfNotPresent"
    elif kind == "job":
        uid = obj["metadata"]["uid"]
        assert spec["selector"]["matchLabels"] == {"batch.kubernetes.io/controller-uid": uid}
        labels = spec["template"]["metadata"]["labels"]
        assert labels["batch.kubernetes.io/controller-uid"] == uid
        assert labels["batch.kubernetes.io/job-name"] == "job1"
        assert spec["backoffLimit"] == 6
        assert spec["completions"] == 1 and spec["parallelism"] == 1


def mutate_for_replace(kind: str, obj: dict) -> None:
    obj["metadata"].setdefault("labels", {})["replaced"] = "yes"
    if kind == "configmap":
        obj["data"]["k3"] = "v3"
    elif kind == "deployment":
        obj["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.28"
    elif kind == "pod":
        obj["spec"]["containers"][0]["image"] = "nginx:1.28"


def check_replaced(kind: str, before: dict, after: dict) -> None:
    assert after["metadata"]["labels"]["replaced"] == "yes"
    assert int(after["metadata"]["resourceVersion"]) > int(before["metadata"]["resourceVersion"])
    assert after["metadata"]["uid"] == before["metadata"]["uid"]
    if kind == "configmap":
        assert after["data"]["k3"] == "v3"
    elif kind == "deployment":
        assert after["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.28"
        # the annotate moved it too (a Deployment's annotations go to its ReplicaSets), the replace once more
        assert after["metadata"]["generation"] == before["metadata"]["generation"] + 1 == 3
    elif kind == "pod":
        assert after["spec"]["containers"][0]["image"] == "nginx:1.28"
    elif kind == "service":
        assert after["spec"].get("clusterIP") == before["spec"].get("clusterIP")


def crud_cycle(server, ns: str, kind: str, version: str | None, validate: tuple[str, ...] = ()) -> None:
    k = KINDS[kind]

    def kc(*args, **kw):
        return server.kubectl("-n", ns, *args, version=version, **kw)

    res = kc("create", "-f", "-", *validate, input=yaml.safe_dump(k.manifest))
    assert res.stdout.strip() == f"{k.type_name}/{k.name} created"

    # Table: server-side columns.
    out = kc("get", k.resource, k.name).stdout
    assert header_of(out) == k.columns
    rows = parse_table(out)
    assert [r["NAME"] for r in rows] == [k.name]
    # (lists of the namespace's ConfigMaps leave out the kube-root-ca.crt its publisher puts there)
    out = kc("get", k.resource, "-o", "wide").stdout
    assert header_of(out) == k.columns + k.wide
    assert [r["NAME"] for r in without_root_ca(parse_table(out))] == [k.name]

    obj = yaml.safe_load(kc("get", k.resource, k.name, "-o", "yaml").stdout)
    assert obj["kind"] == k.manifest["kind"] and obj["apiVersion"] == k.manifest["apiVersion"]
    meta = obj["metadata"]
    assert meta["name"] == k.name and meta["namespace"] == ns
    assert meta["uid"] and meta["resourceVersion"] and meta["creationTimestamp"].endswith("Z")

    lst = json.loads(kc("get", k.resource, "-o", "json").stdout)
    assert lst["kind"] == "List" and [i["metadata"]["name"] for i in without_root_ca(lst["items"])] == [k.name]
    assert without_root_ca(kc("get", k.resource, "-o", "name").stdout.split()) == [f"{k.type_name}/{k.name}"]

    assert kc("label", k.resource, k.name, "e2e=yes").stdout.strip() == f"{k.type_name}/{k.name} labeled"
    assert kc("get", k.resource, "-l", "e2e=yes", "-o", "name").stdout.split() == [f"{k.type_name}/{k.name}"]
    res = kc("get", k.resource, "-l", "e2e=no")
    assert res.stdout == "" and res.stderr.strip() == f"No resources found in {ns} namespace."
    # kubectl 1.27 prints "annotate" rather than "annotated".
    assert kc("annotate", k.resource, k.name, "e2e/note=hello").stdout.strip() in (
        f"{k.type_name}/{k.name} annotated",
        f"{k.type_name}/{k.name} annotate",
    )

    before = json.loads(kc("get", k.resource, k.name, "-o", "json").stdout)
    assert before["metadata"]["labels"]["e2e"] == "yes"
    assert before["metadata"]["annotations"]["e2e/note"] == "hello"
    changed = json.loads(json.dumps(before))
    mutate_for_replace(kind, changed)
    res = kc("replace", "-f", "-", *validate, input=json.dumps(changed))
    assert res.stdout.strip() == f"{k.type_name}/{k.name} replaced"
    after = json.loads(kc("get", k.resource, k.name, "-o", "json").stdout)
    check_replaced(kind, before, after)

    # Replacing with the old resourceVersion is a conflict.
    res = kc("replace", "-f", "-", *validate, input=json.dumps(before), check=False)
    assert res.returncode == 1
    assert "Error from server (Conflict)" in res.stderr
    assert "the object has been modified; please apply your changes to the latest version and try again" in res.stderr

    started = time.monotonic()
    res = kc("delete", k.resource, k.name, timeout=30)
    assert res.stdout.strip() == f'{k.type_name} "{k.name}" deleted'
    assert time.monotonic() - started < 10
    res = kc("get", k.resource, k.name, check=False)
    assert res.returncode == 1
    assert res.stderr.strip() == f'Error from server (NotFound): {k.resource} "{k.name}" not found'


@pytest.mark.parametrize("kind", list(KINDS))
def test_crud(server, ns, kind):
    crud_cycle(server, ns, kind, None)


@pytest.mark.parametrize("kind", ["configmap", "deployment", "service"])
def test_crud_kubectl_1_27(server, ns, kind):
    # kubectl 1.27 validates against /openapi/v2 (protobuf) on create and replace.
    crud_cycle(server, ns, kind, "1.27")


def test_kubectl_1_27_validates_against_openapi_v2(server, ns):
    # kubectl 1.27 downloads /openapi/v2 as protobuf to validate (and to decide on server-side field validation).
    manifest = yaml.safe_dump(KINDS["configmap"].manifest)
    res = server.kubectl("-n", ns, "create", "-f", "-", version="1.27", input=manifest)
    assert res.stdout.strip() == "configmap/cm1 created"
    bad = yaml.safe_dump({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "bad"}, "spec": {}})
    res = server.kubectl("-n", ns, "create", "-f", "-", version="1.27", input=bad, check=False)
    assert res.returncode == 1
    assert 'unknown field "spec"' in res.stderr, res.stderr


def _defaults_bug(reason: str):
    return pytest.mark.xfail(strict=True, reason=f"server bug: create does not apply defaults: {reason}")


DEFAULTS_PARAMS = [
    pytest.param("configmap"),
    pytest.param("secret"),
    pytest.param("deployment"),
    pytest.param("service"),
    pytest.param("pod"),
    pytest.param("job"),
]


@pytest.mark.parametrize("kind", DEFAULTS_PARAMS)
def test_create_applies_defaults(server, ns, kind):
    k = KINDS[kind]
    server.kubectl("-n", ns, "create", "-f", "-", input=yaml.safe_dump(k.manifest))
    obj = yaml.safe_load(server.kubectl("-n", ns, "get", k.resource, k.name, "-o", "yaml").stdout)
    check_defaults(kind, obj)


def test_get_yaml_and_json_of_single_object_and_list(server, ns):
    server.kubectl("-n", ns, "create", "-f", "-", input=yaml.safe_dump(KINDS["configmap"].manifest))
    docs = yaml.safe_load(server.kubectl("-n", ns, "get", "cm", "-o", "yaml").stdout)
    assert docs["kind"] == "List" and docs["apiVersion"] == "v1"
    assert [i["kind"] for i in docs["items"]] == ["ConfigMap"] * len(docs["items"])
    assert [i["metadata"]["name"] for i in without_root_ca(docs["items"])] == ["cm1"]
    one = json.loads(server.kubectl("-n", ns, "get", "cm", "cm1", "-o", "json").stdout)
    assert one["kind"] == "ConfigMap"
    # jsonpath and custom-columns are computed client-side from the objects.
    assert server.kubectl("-n", ns, "get", "cm", "cm1", "-o", "jsonpath={.data.k1}").stdout == "v1"
    out = server.kubectl("-n", ns, "get", "cm", "-o", "custom-columns=N:.metadata.name,K:.data.k2").stdout
    assert [r for r in parse_table(out) if r["N"] != ROOT_CA_CONFIG_MAP] == [{"N": "cm1", "K": "v2"}]
    # --sort-by asks the server for the objects inside the table.
    server.kubectl(
        "-n",
        ns,
        "create",
        "-f",
        "-",
        input=yaml.safe_dump({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a-first"}}),
    )
    out = server.kubectl("-n", ns, "get", "cm", "--sort-by=.metadata.name", "-o", "name").stdout.split()
    assert out == sorted(out)
    assert "configmap/a-first" in out and "configmap/cm1" in out


def test_get_all_namespaces_and_show_labels(server, ns):
    server.kubectl(
        "-n",
        ns,
        "create",
        "-f",
        "-",
        input=yaml.safe_dump(
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "lbl", "labels": {"tier": "web"}}}
        ),
    )
    out = server.kubectl("get", "configmaps", "-A", "--show-labels").stdout
    assert header_of(out) == ["NAMESPACE", "NAME", "DATA", "AGE", "LABELS"]
    rows = without_root_ca(r for r in parse_table(out) if r["NAMESPACE"] == ns)
    assert rows == [{"NAMESPACE": ns, "NAME": "lbl", "DATA": "0", "AGE": rows[0]["AGE"], "LABELS": "tier=web"}]
    out = server.kubectl("get", "configmaps", "-A", "-l", "tier=web", "-o", "name").stdout.split()
    assert "configmap/lbl" in out
    out = server.kubectl("get", "configmaps", "-n", ns, "--field-selector", "metadata.name=lbl", "-o", "name")
    assert out.stdout.split() == ["configmap/lbl"]


@pytest.mark.parametrize("version", [None, "1.27"], ids=["kubectl-1.33", "kubectl-1.27"])
def test_imperative_generators(server, ns, version):
    def kc(*args, **kw):
        return server.kubectl("-n", ns, *args, version=version, **kw)

    assert (
        kc("create", "configmap", "gen-cm", "--from-literal=a=1", "--from-literal=b=2").stdout.strip()
        == "configmap/gen-cm created"
    )
    assert (
        kc("create", "secret", "generic", "gen-sec", "--from-literal=pw=s3cret").stdout.strip()
        == "secret/gen-sec created"
    )
    assert (
        kc("create", "deployment", "gen-dep", "--image=nginx:1.27", "--replicas=2").stdout.strip()
        == "deployment.apps/gen-dep created"
    )
    assert kc("create", "service", "clusterip", "gen-svc", "--tcp=8080:80").stdout.strip() == "service/gen-svc created"
    assert (
        kc("create", "job", "gen-job", "--image=busybox:1.36", "--", "true").stdout.strip()
        == "job.batch/gen-job created"
    )
    assert kc("run", "gen-pod", "--image=nginx:1.27", "--labels=run=gen-pod").stdout.strip() == "pod/gen-pod created"

    cm = json.loads(kc("get", "cm", "gen-cm", "-o", "json").stdout)
    assert cm["data"] == {"a": "1", "b": "2"}
    sec = json.loads(kc("get", "secret", "gen-sec", "-o", "json").stdout)
    assert sec["data"] == {"pw": "czNjcmV0"}
    dep = json.loads(kc("get", "deploy", "gen-dep", "-o", "json").stdout)
    assert dep["spec"]["replicas"] == 2
    assert dep["spec"]["selector"] == {"matchLabels": {"app": "gen-dep"}}
    svc = json.loads(kc("get", "svc", "gen-svc", "-o", "json").stdout)
    assert svc["spec"]["ports"][0]["port"] == 8080 and svc["spec"]["ports"][0]["targetPort"] == 80
    job = json.loads(kc("get", "job", "gen-job", "-o", "json").stdout)
    assert job["spec"]["template"]["spec"]["containers"][0]["command"] == ["true"]
    pod = json.loads(kc("get", "pod", "gen-pod", "-o", "json").stdout)
    assert pod["metadata"]["labels"] == {"run": "gen-pod"}
    names = kc("get", "deploy,svc,job,pod,cm,secret", "-o", "name").stdout.split()
    assert {
        "deployment.apps/gen-dep",
        "service/gen-svc",
        "job.batch/gen-job",
        "pod/gen-pod",
        "configmap/gen-cm",
        "secret/gen-sec",
    } <= set(names)


def test_create_namespace_with_kubectl(server):
    name = f"kubectl-ns-{int(time.time() * 1000) % 10**8}"
    assert server.kubectl("create", "ns", name).stdout.strip() == f"namespace/{name} created"
    out = server.kubectl("get", "ns", name).stdout
    assert header_of(out) == ["NAME", "STATUS", "AGE"]
    assert parse_table(out)[0]["STATUS"] == "Active"
    obj = json.loads(server.kubectl("get", "ns", name, "-o", "json").stdout)
    assert obj["metadata"]["labels"] == {"kubernetes.io/metadata.name": name}
    assert obj["spec"] == {"finalizers": ["kubernetes"]}
    assert server.kubectl("label", "ns", name, "team=e2e").stdout.strip() == f"namespace/{name} labeled"
    assert server.kubectl("annotate", "ns", name, "note=x").stdout.strip() == f"namespace/{name} annotated"
    assert f"namespace/{name}" in server.kubectl("get", "ns", "-l", "team=e2e", "-o", "name").stdout.split()
    assert header_of(server.kubectl("get", "ns", name, "-o", "wide").stdout) == ["NAME", "STATUS", "AGE"]
    assert yaml.safe_load(server.kubectl("get", "ns", name, "-o", "yaml").stdout)["status"] == {"phase": "Active"}
    obj = json.loads(server.kubectl("get", "ns", name, "-o", "json").stdout)
    obj["metadata"]["labels"]["replaced"] = "yes"
    assert server.kubectl("replace", "-f", "-", input=json.dumps(obj)).stdout.strip() == f"namespace/{name} replaced"
    after = json.loads(server.kubectl("get", "ns", name, "-o", "json").stdout)
    assert after["metadata"]["labels"]["replaced"] == "yes"
    assert after["spec"] == {"finalizers": ["kubernetes"]}
    res = server.kubectl("create", "ns", name, check=False)
    assert res.returncode == 1
    assert res.stderr.strip() == f'Error from server (AlreadyExists): namespaces "{name}" already exists'
    server.kubectl("delete", "ns", name, "--timeout=60s", timeout=90)


def test_delete_namespace_removes_contents(server):
    name = f"doomed-{int(time.time() * 1000) % 10**8}"
    server.create_namespace(name)
    kinds = ["configmap", "secret", "deployment", "service", "pod", "job"]
    server.kubectl("-n", name, "create", "-f", "-", input=yaml.safe_dump_all([KINDS[k].manifest for k in kinds]))
    started = time.monotonic()
    res = server.kubectl("delete", "ns", name, "--timeout=60s", timeout=90)
    assert res.stdout.strip() == f'namespace "{name}" deleted'
    assert time.monotonic() - started < 30
    res = server.kubectl("get", "ns", name, check=False)
    assert res.stderr.strip() == f'Error from server (NotFound): namespaces "{name}" not found'
    for k in kinds:
        r = server.request("GET", _path(name, KINDS[k]))
        assert r.status_code == 404, (k, r.text)
    # The namespace can be created again, empty.
    server.create_namespace(name)
    assert without_root_ca(server.kubectl("get", "all,cm,secret", "-n", name, "-o", "name").stdout.split()) == []
    server.request("DELETE", f"/api/v1/namespaces/{name}")


def _path(ns: str, k: Kind) -> str:
    api_version = k.manifest["apiVersion"]
    prefix = "/api/v1" if api_version == "v1" else f"/apis/{api_version}"
    return f"{prefix}/namespaces/{ns}/{k.resource.split('.')[0]}/{k.name}"


def test_delete_unscheduled_pod_is_prompt(server, ns):
    server.kubectl("-n", ns, "run", "lonely", "--image=nginx:1.27")
    started = time.monotonic()
    res = server.kubectl("-n", ns, "delete", "pod", "lonely", "--timeout=20s", timeout=30)
    elapsed = time.monotonic() - started
    assert res.stdout.strip() == 'pod "lonely" deleted'
    assert elapsed < 5, f"kubectl delete pod took {elapsed:.1f}s"
    assert server.request("GET", f"/api/v1/namespaces/{ns}/pods/lonely").status_code == 404


class TestErrors:
    def test_get_missing(self, server, ns):
        res = server.kubectl("-n", ns, "get", "configmap", "nope", check=False)
        assert res.returncode == 1
        assert res.stdout == ""
        assert res.stderr.strip() == 'Error from server (NotFound): configmaps "nope" not found'

    @pytest.mark.parametrize("version", [None, "1.27"], ids=["kubectl-1.33", "kubectl-1.27"])
    def test_get_missing_grouped(self, server, ns, version):
        res = server.kubectl("-n", ns, "get", "deploy", "nope", check=False, version=version)
        assert res.stderr.strip() == 'Error from server (NotFound): deployments.apps "nope" not found'

    def test_delete_missing(self, server, ns):
        res = server.kubectl("-n", ns, "delete", "configmap", "nope", check=False)
        assert res.returncode == 1
        assert res.stderr.strip() == 'Error from server (NotFound): configmaps "nope" not found'

    def test_create_twice_from_file(self, server, ns):
        manifest = yaml.safe_dump({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "dup"}})
        server.kubectl("-n", ns, "create", "-f", "-", input=manifest)
        res = server.kubectl("-n", ns, "create", "-f", "-", input=manifest, check=False)
        assert res.returncode == 1
        assert (
            res.stderr.strip()
            == 'Error from server (AlreadyExists): error when creating "STDIN": configmaps "dup" already exists'
        )

    def test_create_twice_imperative(self, server, ns):
        server.kubectl("-n", ns, "create", "configmap", "dup")
        res = server.kubectl("-n", ns, "create", "configmap", "dup", check=False)
        assert res.returncode == 1
        assert res.stderr.strip() == 'error: failed to create configmap: configmaps "dup" already exists'

    def test_list_in_missing_namespace_is_empty(self, server):
        res = server.kubectl("-n", "no-such-namespace-e2e", "get", "configmaps")
        assert res.stderr.strip() == "No resources found in no-such-namespace-e2e namespace."

    def test_create_in_missing_namespace(self, server):
        manifest = yaml.safe_dump({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}})
        res = server.kubectl("-n", "no-such-namespace-e2e", "create", "-f", "-", input=manifest, check=False)
        assert (
            res.stderr.strip()
            == 'Error from server (NotFound): error when creating "STDIN": namespaces "no-such-namespace-e2e" not found'
        )

    def test_invalid_name(self, server, ns):
        manifest = yaml.safe_dump({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "Bad_Name"}})
        res = server.kubectl("-n", ns, "create", "-f", "-", input=manifest, check=False)
        assert res.returncode == 1
        assert res.stderr.startswith(
            'The ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": '
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters"
        ), res.stderr

    def test_unknown_field_is_rejected_by_strict_validation(self, server, ns):
        manifest = yaml.safe_dump(
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "strict"}, "spec": {"x": 1}}
        )
        res = server.kubectl("-n", ns, "create", "-f", "-", input=manifest, check=False)
        assert res.returncode == 1
        assert "Error from server (BadRequest)" in res.stderr, res.stderr
        assert 'strict decoding error: unknown field "spec"' in res.stderr
        res = server.kubectl("-n", ns, "create", "-f", "-", "--validate=false", input=manifest)
        assert res.stdout.strip() == "configmap/strict created"

    def test_unknown_resource_type(self, server):
        res = server.kubectl("get", "flurbles", check=False)
        assert res.returncode == 1
        assert 'the server doesn\'t have a resource type "flurbles"' in res.stderr


class TestDescribe:
    def test_describe_configmap(self, server, ns):
        server.kubectl("-n", ns, "create", "-f", "-", input=yaml.safe_dump(KINDS["configmap"].manifest))
        out = server.kubectl("-n", ns, "describe", "configmap", "cm1").stdout
        lines = out.splitlines()
        assert lines[0].split() == ["Name:", "cm1"]
        assert lines[1].split() == ["Namespace:", ns]
        assert "Data" in lines and "k1:" in lines and "v1" in lines
        assert lines[-1].split() == ["Events:", "<none>"]

    def test_describe_deployment(self, server, ns):
        server.kubectl("-n", ns, "create", "-f", "-", input=yaml.safe_dump(KINDS["deployment"].manifest))
        out = server.kubectl("-n", ns, "describe", "deployment", "dep1").stdout
        fields = {
            line.split(":", 1)[0]: line.split(":", 1)[1].strip()
            for line in out.splitlines()
            if ":" in line and not line.startswith(" ")
        }
        assert fields["Name"] == "dep1"
        assert fields["Namespace"] == ns
        assert fields["Selector"] == "app=dep1"
        assert fields["StrategyType"] == "RollingUpdate"
        assert fields["Replicas"].startswith("1 desired")
        assert "nginx:1.27" in out

    def test_describe_pod_lists_events(self, server, ns):
        server.kubectl("-n", ns, "create", "-f", "-", input=yaml.safe_dump(KINDS["pod"].manifest))
        pod = json.loads(server.kubectl("-n", ns, "get", "pod", "pod1", "-o", "json").stdout)
        event = {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": "pod1.e2e"},
            "involvedObject": {
                "kind": "Pod",
                "namespace": ns,
                "name": "pod1",
                "uid": pod["metadata"]["uid"],
                "apiVersion": "v1",
            },
            "reason": "E2EReason",
            "message": "hello from the e2e test",
            "type": "Normal",
            "source": {"component": "e2e"},
            "count": 1,
            "firstTimestamp": pod["metadata"]["creationTimestamp"],
            "lastTimestamp": pod["metadata"]["creationTimestamp"],
        }
        server.kubectl("-n", ns, "create", "-f", "-", input=json.dumps(event))
        out = server.kubectl("-n", ns, "describe", "pod", "pod1").stdout
        assert "Status:           Pending" in out or "Status:" in out
        events = out[out.index("Events:") :]
        assert "E2EReason" in events and "hello from the e2e test" in events
        # kubectl get events, server-side columns
        out = server.kubectl("-n", ns, "get", "events").stdout
        assert header_of(out) == ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
        assert parse_table(out)[0]["OBJECT"] == "pod/pod1"


class TestUnscheduledPod:
    """No kubelet: a pod never gets a node. Streaming subresources must fail fast, not hang."""

    def test_exec_and_attach_have_no_host(self, server, ns):
        server.kubectl("-n", ns, "create", "-f", "-", input=yaml.safe_dump(KINDS["pod"].manifest))
        for sub in ("exec?command=ls&stdout=true", "attach?stdout=true"):
            r = server.request("POST", f"/api/v1/namespaces/{ns}/pods/pod1/{sub}")
            assert r.status_code == 400, (sub, r.text[:300])
            body = r.json()
            assert body["reason"] == "BadRequest"
            assert body["message"] == "pod pod1 does not have a host assigned"
        r = server.request("GET", f"/api/v1/namespaces/{ns}/pods/pod1/portforward?ports=80")
        assert r.status_code == 400, r.text[:300]
        assert r.json()["message"] == "pod pod1 does not have a host assigned"
        res = server.kubectl("-n", ns, "exec", "pod1", "--", "ls", check=False, timeout=30)
        assert res.returncode != 0
        assert "does not have a host assigned" in res.stderr, res.stderr

    def test_logs_are_empty(self, server, ns):
        server.kubectl("-n", ns, "create", "-f", "-", input=yaml.safe_dump(KINDS["pod"].manifest))
        # No node, so no location to stream from: kube answers 204 No Content.
        r = server.request("GET", f"/api/v1/namespaces/{ns}/pods/pod1/log")
        assert r.status_code == 204, r.text[:300]
        assert r.text == ""
        r = server.request("GET", f"/api/v1/namespaces/{ns}/pods/pod1/log?container=nope")
        assert r.status_code == 400
        assert r.json()["message"] == "container nope is not valid for pod pod1"
        res = server.kubectl("-n", ns, "logs", "pod1", timeout=30)
        assert res.stdout == ""


def test_chunked_list(server, ns):
    for i in range(7):
        server.request(
            "POST",
            f"/api/v1/namespaces/{ns}/configmaps",
            json={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"chunk-{i}"}},
        )
    out = server.kubectl("-n", ns, "get", "configmaps", "--chunk-size=2", "-o", "name").stdout.split()
    assert [n for n in out if "chunk-" in n] == [f"configmap/chunk-{i}" for i in range(7)]
    rows = parse_table(server.kubectl("-n", ns, "get", "configmaps", "--chunk-size=3").stdout)
    assert [r["NAME"] for r in rows if r["NAME"].startswith("chunk-")] == [f"chunk-{i}" for i in range(7)]


def test_scale_deployment(server, ns):
    server.kubectl("-n", ns, "create", "-f", "-", input=yaml.safe_dump(KINDS["deployment"].manifest))
    res = server.kubectl("-n", ns, "scale", "deployment", "dep1", "--replicas=3")
    assert res.stdout.strip() == "deployment.apps/dep1 scaled"
    dep = json.loads(server.kubectl("-n", ns, "get", "deploy", "dep1", "-o", "json").stdout)
    assert dep["spec"]["replicas"] == 3
    assert dep["metadata"]["generation"] == 2
    scale = server.request("GET", f"/apis/apps/v1/namespaces/{ns}/deployments/dep1/scale").json()
    assert scale["kind"] == "Scale" and scale["apiVersion"] == "autoscaling/v1"
    assert scale["spec"] == {"replicas": 3}
    assert scale["status"]["selector"] == "app=dep1"
    # --current-replicas is a precondition.
    res = server.kubectl("-n", ns, "scale", "deployment", "dep1", "--current-replicas=1", "--replicas=5", check=False)
    assert res.returncode == 1
    assert "Expected replicas to be 1, was 3" in res.stderr, res.stderr
    # A patch that leaves no Scale behind is the client's error, in the Scale's decoding words.
    path = f"/apis/apps/v1/namespaces/{ns}/deployments/dep1/scale"
    merge = {"Content-Type": "application/merge-patch+json"}
    for patch, go_field in (
        ({"metadata": "x"}, "string into Go struct field Scale.metadata of type v1.ObjectMeta"),
        ({"spec": 5}, "number into Go struct field Scale.spec of type v1.ScaleSpec"),
        ({"spec": {"replicas": "x"}}, "string into Go struct field ScaleSpec.spec.replicas of type int32"),
    ):
        r = server.request("PATCH", path, json=patch, headers=merge)
        assert (r.status_code, r.json()["message"]) == (
            400,
            f'Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal {go_field}',
        )
    # A PUT of the Scale names the deployment (checkName), and its uid, when given, must be the deployment's.
    body = {"kind": "Scale", "apiVersion": "autoscaling/v1", "metadata": {"name": "zzz"}, "spec": {"replicas": 2}}
    r = server.request("PUT", path, json=body)
    assert (r.status_code, r.json()["message"]) == (
        400,
        "the name of the object (zzz) does not match the name on the URL (dep1)",
    )
    body["metadata"] = {"name": "dep1", "uid": "wrong"}
    r = server.request("PUT", path, json=body)
    assert r.status_code == 409 and r.json()["reason"] == "Conflict"
    assert r.json()["message"] == (
        f'Operation cannot be fulfilled on deployments.apps "dep1": Precondition failed: '
        f"UID in precondition: wrong, UID in object meta: {dep['metadata']['uid']}"
    )
    body["metadata"]["uid"] = dep["metadata"]["uid"]
    assert server.request("PUT", path, json=body).json()["spec"] == {"replicas": 2}


def test_put_body_names_the_object_of_the_url(server, ns):
    """checkName: a PUT whose body has another name, no name, or another namespace is a 400."""
    server.kubectl("-n", ns, "create", "configmap", "named")
    path = f"/api/v1/namespaces/{ns}/configmaps/named"
    cases = [
        ({"name": "other"}, "the name of the object (other) does not match the name on the URL (named)"),
        ({}, "the name of the object (named based on URL) was undeterminable: name must be provided"),
        (
            {"name": "named", "namespace": "elsewhere"},
            f"the namespace of the object (elsewhere) does not match the namespace on the request ({ns})",
        ),
    ]
    for meta, message in cases:
        r = server.request("PUT", path, json={"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta})
        assert (r.status_code, r.json()["reason"], r.json()["message"]) == (400, "BadRequest", message)


def test_patched_object_names_the_object_of_the_url(server, ns):
    """checkName runs on a patch's result too: kube's words for another name, no name, another namespace."""
    server.kubectl("-n", ns, "create", "configmap", "patched")
    cases = [
        (
            "merge",
            '{"metadata":{"name":"zz"}}',
            "the name of the object (zz) does not match the name on the URL (patched)",
        ),
        (
            "json",
            '[{"op":"remove","path":"/metadata/name"}]',
            "the name of the object (patched based on URL) was undeterminable: name must be provided",
        ),
        (
            "merge",
            '{"metadata":{"namespace":"elsewhere"}}',
            f"the namespace of the object (elsewhere) does not match the namespace on the request ({ns})",
        ),
    ]
    for patch_type, patch, message in cases:
        res = server.kubectl("-n", ns, "patch", "cm", "patched", "--type", patch_type, "-p", patch, check=False)
        assert res.stderr.strip() == f"Error from server (BadRequest): {message}"
    # a patch that drops the namespace keeps the object where the URL says
    server.kubectl(
        "-n", ns, "patch", "cm", "patched", "--type", "json", "-p", '[{"op":"remove","path":"/metadata/namespace"}]'
    )
    assert server.kubectl("-n", ns, "get", "cm", "patched", "-o", "jsonpath={.metadata.namespace}").stdout == ns


def test_explain(server):
    out = server.kubectl("explain", "deployment.spec.replicas").stdout
    assert "KIND:       Deployment" in out
    assert "FIELD: replicas <integer>" in out
    out = server.kubectl("explain", "pods").stdout
    assert "KIND:       Pod" in out and "<PodSpec>" in out


def test_managed_fields(server, ns):
    server.kubectl("-n", ns, "create", "configmap", "mf", "--from-literal=a=b")
    server.kubectl("-n", ns, "label", "configmap", "mf", "x=y")
    obj = json.loads(server.kubectl("-n", ns, "get", "cm", "mf", "-o", "json", "--show-managed-fields").stdout)
    entries = {e["manager"]: e for e in obj["metadata"]["managedFields"]}
    create = entries["kubectl-create"]
    assert create["operation"] == "Update" and create["apiVersion"] == "v1" and create["fieldsType"] == "FieldsV1"
    assert create["fieldsV1"] == {"f:data": {".": {}, "f:a": {}}}
    assert entries["kubectl-label"]["fieldsV1"] == {"f:metadata": {"f:labels": {".": {}, "f:x": {}}}}
    # Hidden by default.
    plain = json.loads(server.kubectl("-n", ns, "get", "cm", "mf", "-o", "json").stdout)
    assert "managedFields" not in plain["metadata"]


def test_list_larger_than_one_write_piece(server, ns, core_v1):
    """A large JSON list is written in pieces of about LIST_PIECE_BYTES (64 KiB): with its length when the
    pieces are the watch cache's joined runs, chunked (as kube-apiserver streams a list) when the items are
    picked by a selector; a list of ~700 KiB crosses many, and kubectl, the Python client and a raw GET all
    read one whole, valid document."""
    payload = "p" * (24 << 10)
    for i in range(30):
        r = server.request(
            "POST",
            f"/api/v1/namespaces/{ns}/configmaps",
            json={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"big-{i:02}"}, "data": {"v": payload}},
        )
        assert r.status_code == 201, r.text
    r = server.request("GET", f"/api/v1/namespaces/{ns}/configmaps", headers={"Accept": "application/json"})
    assert r.status_code == 200 and len(r.content) > 700_000
    assert int(r.headers["Content-Length"]) == len(r.content) and "Transfer-Encoding" not in r.headers
    listed = r.json()
    selected = server.request(
        "GET",
        f"/api/v1/namespaces/{ns}/configmaps?fieldSelector=metadata.name!=x",
        headers={"Accept": "application/json"},
    )
    assert selected.headers["Transfer-Encoding"] == "chunked" and "Content-Length" not in selected.headers
    assert selected.json()["items"] == listed["items"]
    assert [i["metadata"]["name"] for i in listed["items"] if i["metadata"]["name"].startswith("big-")] == [
        f"big-{i:02}" for i in range(30)
    ]
    assert listed["kind"] == "ConfigMapList" and listed["metadata"]["resourceVersion"]
    out = json.loads(server.kubectl("-n", ns, "get", "configmaps", "-o", "json").stdout)
    assert sum(1 for i in out["items"] if i["data"].get("v") == payload) == 30
    items = core_v1.list_namespaced_config_map(ns).items
    assert sum(1 for i in items if (i.data or {}).get("v") == payload) == 30


def test_large_list_to_a_client_that_reads_slowly(server, ns):
    """Pieces of a large list wait for a client that stops reading (the connection drains before the next
    piece is written) rather than piling up in the server; meanwhile other requests are answered, and the
    slow client still gets the whole document; one that goes away leaves the server serving."""
    payload = "q" * (900 << 10)
    for i in range(16):  # ~14 MiB: more than the socket buffers hold (up to 4 MiB sent, as much received)
        r = server.request(
            "POST",
            f"/api/v1/namespaces/{ns}/configmaps",
            json={
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": f"slow-{i:02}"},
                "data": {"v": payload},
            },
        )
        assert r.status_code == 201, r.text
    with server.request(
        "GET", f"/api/v1/namespaces/{ns}/configmaps", headers={"Accept": "application/json"}, stream=True
    ) as r:
        assert r.status_code == 200
        first = r.raw.read(1024)
        time.sleep(1.0)  # the server's writes back up meanwhile
        assert server.request("GET", f"/api/v1/namespaces/{ns}/configmaps/slow-00").status_code == 200
        body = first + r.raw.read()
    names = [i["metadata"]["name"] for i in without_root_ca(json.loads(body)["items"])]
    assert names == [f"slow-{i:02}" for i in range(16)]
    # a client that goes away in the middle: the server lets the list go and serves on
    with server.request(
        "GET", f"/api/v1/namespaces/{ns}/configmaps", headers={"Accept": "application/json"}, stream=True
    ) as r:
        r.raw.read(1024)
        time.sleep(0.5)
    assert server.request("GET", "/readyz").text == "ok"
    assert server.request("GET", f"/api/v1/namespaces/{ns}/configmaps?limit=1").json()["items"]


def test_raw_objects_are_written_in_go_field_order(server, ns):
    """kube-apiserver writes a built-in object as its Go struct: kind before apiVersion, then metadata with the
    server's fields (uid, resourceVersion, creationTimestamp, managedFields) in ObjectMeta order, whatever
    order the client sent; the same bytes in a GET, a watch event and an object the server made itself."""
    server.kubectl("-n", ns, "create", "configmap", "order", "--from-literal=a=b")
    server.kubectl("-n", ns, "label", "configmap", "order", "x=y")
    raw = server.kubectl("get", "--raw", f"/api/v1/namespaces/{ns}/configmaps/order").stdout
    obj = json.loads(raw)  # a dict keeps the document's key order
    assert list(obj) == ["kind", "apiVersion", "metadata", "data"]
    assert list(obj["metadata"]) == [
        "name",
        "namespace",
        "uid",
        "resourceVersion",
        "creationTimestamp",
        "labels",
        "managedFields",
    ]
    r = server.request(
        "GET",
        f"/api/v1/namespaces/{ns}/configmaps?watch=1&fieldSelector=metadata.name=order&timeoutSeconds=1",
        stream=True,
    )
    event = json.loads(next(r.iter_lines()))
    r.close()
    assert event["type"] == "ADDED" and list(event["object"]) == list(obj)
    assert list(event["object"]["metadata"]) == list(obj["metadata"])
    dry = server.request(
        "POST",
        f"/api/v1/namespaces/{ns}/configmaps?dryRun=All",
        json={"metadata": {"labels": {"a": "b"}, "name": "dry"}, "apiVersion": "v1", "kind": "ConfigMap"},
    )
    assert dry.status_code == 201, dry.text
    assert list(dry.json()) == ["kind", "apiVersion", "metadata"]
    assert list(dry.json()["metadata"]) == ["name", "namespace", "uid", "creationTimestamp", "labels", "managedFields"]
    # made by the server itself (the bootstrap controller), not decoded from a request
    svc = json.loads(server.kubectl("get", "--raw", "/api/v1/namespaces/default/services/kubernetes").stdout)
    assert list(svc)[:3] == ["kind", "apiVersion", "metadata"]
    assert list(svc["metadata"]) == list(obj["metadata"])  # the same fields as the labelled ConfigMap's


def test_list_items_of_built_in_kinds_leave_out_kind_and_api_version(server, ns):
    """A typed list's items carry no kind and apiVersion on the wire (kubernetes#3030): raw JSON and YAML
    lists and a deletecollection's answer. kubectl fills them in when it prints a list; a single object and
    a watch event keep them."""
    # the namespace's kube-root-ca.crt (with data too) is one of the items, first by name
    wait_for_root_ca(server, ns)
    server.kubectl("-n", ns, "create", "configmap", "one", "--from-literal=a=b")
    server.kubectl("-n", ns, "create", "configmap", "two", "--from-literal=c=d")
    path = f"/api/v1/namespaces/{ns}/configmaps"
    listed = json.loads(server.kubectl("get", "--raw", path).stdout)
    assert listed["kind"] == "ConfigMapList" and listed["apiVersion"] == "v1"
    assert [list(item)[:2] for item in listed["items"]] == [["metadata", "data"]] * 3
    assert [item["metadata"]["name"] for item in listed["items"]] == [ROOT_CA_CONFIG_MAP, "one", "two"]
    assert listed["items"][2]["data"] == {"c": "d"}
    paged = server.request("GET", path + "?limit=1").json()
    assert list(paged["items"][0]) == ["metadata", "data"] and paged["metadata"]["continue"]
    as_yaml = yaml.safe_load(server.request("GET", path, headers={"Accept": "application/yaml"}).text)
    assert [i["metadata"]["name"] for i in as_yaml["items"]] == [ROOT_CA_CONFIG_MAP, "one", "two"]
    assert all("kind" not in i and "apiVersion" not in i for i in as_yaml["items"])
    printed = json.loads(server.kubectl("-n", ns, "get", "configmaps", "-o", "json").stdout)
    assert {(i["kind"], i["apiVersion"]) for i in printed["items"]} == {("ConfigMap", "v1")}
    deleted = server.request("DELETE", path).json()
    assert deleted["kind"] == "ConfigMapList" and [list(i)[:1] for i in deleted["items"]] == [["metadata"]] * 3


def test_objects_the_server_writes_itself_record_their_manager(server, ns):
    """managedFields of what the bootstrap controllers made name them as kube-apiserver's do; a namespace's
    name label is a default, so the namespace's creator owns it."""
    default = json.loads(server.kubectl("get", "ns", "default", "--show-managed-fields", "-o", "json").stdout)
    assert [(m["manager"], m["operation"]) for m in default["metadata"]["managedFields"]] == [
        ("kube-apiserver", "Update")
    ]
    assert default["metadata"]["managedFields"][0]["fieldsV1"] == {
        "f:metadata": {"f:labels": {".": {}, "f:kubernetes.io/metadata.name": {}}}
    }
    svc = json.loads(
        server.kubectl("get", "-n", "default", "svc", "kubernetes", "--show-managed-fields", "-o", "json").stdout
    )
    entry = svc["metadata"]["managedFields"][0]
    assert entry["manager"] == "kube-apiserver" and "f:ports" in entry["fieldsV1"]["f:spec"]
    mine = json.loads(server.kubectl("get", "ns", ns, "--show-managed-fields", "-o", "json").stdout)
    assert mine["metadata"]["managedFields"][0]["fieldsV1"]["f:metadata"]["f:labels"] == {
        ".": {},
        "f:kubernetes.io/metadata.name": {},
    }
    # a generated name comes after the defaults: the label is there, but nobody's managed field
    gen = server.request("POST", "/api/v1/namespaces", json={"metadata": {"generateName": "gen-"}}).json()
    try:
        assert gen["metadata"]["labels"] == {"kubernetes.io/metadata.name": gen["metadata"]["name"]}
        assert gen["metadata"]["managedFields"][0]["fieldsV1"] == {"f:metadata": {"f:generateName": {}}}
    finally:
        server.request("DELETE", f"/api/v1/namespaces/{gen['metadata']['name']}")


def test_empty_values_go_never_writes_are_not_stored(server, ns, core_v1):
    """Go's encoder leaves out the empty values of omitempty fields, so kube-apiserver never returns the
    `labels: {}`, `env: []` or `hostPort: 0` a manifest (a Helm chart's, say) may carry; nor may we."""
    manifest = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "empties", "labels": {}, "annotations": {}},
        "spec": {
            "nodeSelector": {},
            "tolerations": [],
            "containers": [{"name": "c", "image": "nginx", "env": [], "ports": [{"containerPort": 80, "hostPort": 0}]}],
        },
    }
    created = json.loads(server.kubectl("-n", ns, "create", "-f", "-", "-o", "json", input=json.dumps(manifest)).stdout)
    for obj in (created, json.loads(server.kubectl("-n", ns, "get", "pod", "empties", "-o", "json").stdout)):
        assert "labels" not in obj["metadata"] and "annotations" not in obj["metadata"]
        assert "nodeSelector" not in obj["spec"]
        # (the empty tolerations are gone: those there are DefaultTolerationSeconds admission's)
        assert [t["key"] for t in obj["spec"]["tolerations"]] == [
            "node.kubernetes.io/not-ready",
            "node.kubernetes.io/unreachable",
        ]
        container = obj["spec"]["containers"][0]
        assert "env" not in container and container["ports"] == [{"containerPort": 80, "protocol": "TCP"}]
    pod = core_v1.read_namespaced_pod("empties", ns)
    assert pod.metadata.labels is None and pod.spec.node_selector is None

    # kubectl diff of an object made by server-side apply: kubectl's patch carries `annotations: {}`,
    # which must not show up as a change.
    cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: diffed\ndata:\n  a: '1'\n"
    server.kubectl("-n", ns, "apply", "--server-side", "-f", "-", input=cm)
    res = server.kubectl("-n", ns, "diff", "-f", "-", input=cm.replace("'1'", "'2'"), check=False)
    assert res.returncode == 1, res.stderr  # 1: there are differences
    changed = [line for line in res.stdout.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")]
    assert changed == ['-  a: "1"', '+  a: "2"'], res.stdout


def test_fields_go_always_writes_are_there_when_unset(server, ns):
    """Decoding into Go types gives every unset non-pointer struct and scalar without omitempty its zero
    value, which the encoder writes: a NetworkPolicy's podSelector: {}, an Event's reportingComponent: "",
    a CronJob's job template metadata with a null creationTimestamp, a Scale of 0 with spec: {}."""
    netpol = {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": {"name": "np"}, "spec": {}}
    out = json.loads(server.kubectl("-n", ns, "create", "-f", "-", "-o", "json", input=json.dumps(netpol)).stdout)
    assert out["spec"] == {"podSelector": {}, "policyTypes": ["Ingress"]}
    event = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": "ev"},
        "involvedObject": {"kind": "Pod", "name": "p", "namespace": ns},
        "reason": "Tested",
    }
    out = json.loads(server.kubectl("-n", ns, "create", "-f", "-", "-o", "json", input=json.dumps(event)).stdout)
    assert out["source"] == {} and out["reportingComponent"] == "" and out["reportingInstance"] == ""
    server.kubectl("-n", ns, "create", "cronjob", "cj", "--image=busybox", "--schedule=* * * * *")
    out = json.loads(server.kubectl("-n", ns, "get", "cronjob", "cj", "-o", "json").stdout)
    assert out["spec"]["jobTemplate"]["spec"]["template"]["metadata"] == {"creationTimestamp": None}
    server.kubectl("-n", ns, "create", "deployment", "zero", "--image=nginx", "--replicas=0")
    scale = server.request("GET", f"/apis/apps/v1/namespaces/{ns}/deployments/zero/scale").json()
    assert scale["spec"] == {} and scale["status"]["replicas"] == 0


def test_lease_drops_the_coordinated_leader_election_fields(server, ns):
    """spec.strategy and spec.preferredHolder are behind CoordinatedLeaderElection, off in 1.33: dropped on
    create and on an update that adds them."""
    lease = {
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": {"name": "cle"},
        "spec": {"holderIdentity": "a", "strategy": "OldestEmulationVersion", "preferredHolder": "b"},
    }
    server.kubectl("-n", ns, "create", "-f", "-", input=json.dumps(lease))
    spec = json.loads(server.kubectl("-n", ns, "get", "lease", "cle", "-o", "json").stdout)["spec"]
    assert spec == {"holderIdentity": "a"}
    server.kubectl("-n", ns, "apply", "--server-side", "--force-conflicts", "-f", "-", input=json.dumps(lease))
    spec = json.loads(server.kubectl("-n", ns, "get", "lease", "cle", "-o", "json").stdout)["spec"]
    assert spec == {"holderIdentity": "a"}


def test_quota_scopes_must_apply_to_the_limits(server, ns):
    res = server.kubectl(
        "-n", ns, "create", "quota", "q", "--hard=requests.storage=10Gi", "--scopes=BestEffort", check=False
    )
    assert res.stderr.strip() == (
        'error: failed to create quota: ResourceQuota "q" is invalid: spec.scopes: '
        'Invalid value: []core.ResourceQuotaScope{"BestEffort"}: unsupported scope applied to resource'
    )
    server.kubectl("-n", ns, "create", "quota", "q", "--hard=pods=3", "--scopes=BestEffort")

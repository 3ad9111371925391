"""kubectl's view of the server: discovery, version and the raw health/metrics endpoints."""

from __future__ import annotations

import json

import pytest
from e2e_helpers import parse_table

KUBECTL_VERSIONS = [pytest.param(None, id="kubectl-1.33"), pytest.param("1.27", id="kubectl-1.27")]

# resource -> (short names, group/version, namespaced, kind)
EXPECTED_RESOURCES = {
    "pods": ("po", "v1", "true", "Pod"),
    "configmaps": ("cm", "v1", "true", "ConfigMap"),
    "secrets": ("", "v1", "true", "Secret"),
    "services": ("svc", "v1", "true", "Service"),
    "namespaces": ("ns", "v1", "false", "Namespace"),
    "nodes": ("no", "v1", "false", "Node"),
    "serviceaccounts": ("sa", "v1", "true", "ServiceAccount"),
    "events": ("ev", "v1", "true", "Event"),
    "persistentvolumes": ("pv", "v1", "false", "PersistentVolume"),
    "deployments": ("deploy", "apps/v1", "true", "Deployment"),
    "replicasets": ("rs", "apps/v1", "true", "ReplicaSet"),
    "statefulsets": ("sts", "apps/v1", "true", "StatefulSet"),
    "daemonsets": ("ds", "apps/v1", "true", "DaemonSet"),
    "jobs": ("", "batch/v1", "true", "Job"),
    "cronjobs": ("cj", "batch/v1", "true", "CronJob"),
    "customresourcedefinitions": ("crd,crds", "apiextensions.k8s.io/v1", "false", "CustomResourceDefinition"),
    "clusterroles": ("", "rbac.authorization.k8s.io/v1", "false", "ClusterRole"),
    "roles": ("", "rbac.authorization.k8s.io/v1", "true", "Role"),
    "leases": ("", "coordination.k8s.io/v1", "true", "Lease"),
    "ingresses": ("ing", "networking.k8s.io/v1", "true", "Ingress"),
    "storageclasses": ("sc", "storage.k8s.io/v1", "false", "StorageClass"),
    "horizontalpodautoscalers": ("hpa", "autoscaling/v2", "true", "HorizontalPodAutoscaler"),
}


@pytest.mark.parametrize("version", KUBECTL_VERSIONS)
def test_api_resources(server, version):
    res = server.kubectl("api-resources", version=version)
    assert "error" not in res.stderr.lower(), res.stderr
    rows = parse_table(res.stdout)
    assert list(rows[0]) == ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"]
    by_key = {(r["NAME"], r["APIVERSION"]): r for r in rows}
    for name, (short, gv, namespaced, kind) in EXPECTED_RESOURCES.items():
        row = by_key.get((name, gv))
        assert row is not None, f"{name} ({gv}) missing from api-resources"
        assert (row["SHORTNAMES"], row["NAMESPACED"], row["KIND"]) == (short, namespaced, kind), row
    # Subresources are not resources.
    assert not any("/" in r["NAME"] for r in rows)


def test_api_resources_filters(server):
    out = server.kubectl("api-resources", "--namespaced=false", "-o", "name").stdout.split()
    assert "namespaces" in out and "nodes" in out
    assert "pods" not in out
    out = server.kubectl("api-resources", "--api-group=apps", "-o", "name").stdout.split()
    assert {"deployments.apps", "replicasets.apps", "statefulsets.apps", "daemonsets.apps"} <= set(out)
    assert all(name.endswith(".apps") for name in out)
    out = server.kubectl("api-resources", "--verbs=list", "-o", "name").stdout.split()
    assert "configmaps" in out
    assert "bindings" not in out  # create only


@pytest.mark.parametrize("version", KUBECTL_VERSIONS)
def test_api_versions(server, version):
    out = server.kubectl("api-versions", version=version).stdout.split()
    assert out == sorted(out)
    for gv in (
        "v1",
        "apps/v1",
        "batch/v1",
        "autoscaling/v1",
        "autoscaling/v2",
        "rbac.authorization.k8s.io/v1",
        "apiextensions.k8s.io/v1",
        "apiregistration.k8s.io/v1",
        "coordination.k8s.io/v1",
        "networking.k8s.io/v1",
        "storage.k8s.io/v1",
        "policy/v1",
        "discovery.k8s.io/v1",
    ):
        assert gv in out


def test_kubectl_version(server):
    res = server.kubectl("version", "-o", "json")
    info = json.loads(res.stdout)
    sv = info["serverVersion"]
    assert sv["major"] == "1" and sv["minor"] == "33"
    assert sv["gitVersion"].startswith("v1.33.")
    # 1.33 client against a 1.33 server: no skew warning.
    assert "WARNING" not in res.stderr


def test_raw_version(server):
    info = json.loads(server.kubectl("get", "--raw", "/version").stdout)
    assert info["gitVersion"].startswith("v1.33.")
    assert {"major", "minor", "gitCommit", "gitTreeState", "buildDate", "goVersion", "compiler", "platform"} <= set(
        info
    )


@pytest.mark.parametrize("path", ["/healthz", "/livez", "/readyz"])
def test_raw_health(server, path):
    assert server.kubectl("get", "--raw", path).stdout == "ok"


def test_raw_readyz_verbose(server):
    out = server.kubectl("get", "--raw", "/readyz?verbose").stdout
    lines = out.splitlines()
    assert "[+]ping ok" in lines
    # kube's order: the storage checks, then the post-start hooks, "shutdown" last
    assert lines[:5] == ["[+]ping ok", "[+]log ok", "[+]etcd ok", "[+]etcd-readiness ok", "[+]informer-sync ok"]
    assert lines[5].startswith("[+]poststarthook/") and lines[-2] == "[+]shutdown ok"
    assert lines[-1] == "readyz check passed"
    assert server.kubectl("get", "--raw", "/readyz/etcd-readiness").stdout == "ok"
    assert server.kubectl("get", "--raw", "/readyz/informer-sync").stdout == "ok"
    # etcd-readiness and informer-sync are readiness checks only
    livez = server.kubectl("get", "--raw", "/livez?verbose").stdout
    assert "[+]etcd-readiness ok" not in livez and "informer-sync" not in livez


def test_raw_healthz_single_check(server):
    assert server.kubectl("get", "--raw", "/healthz/ping").stdout == "ok"
    res = server.kubectl("get", "--raw", "/healthz/nonexistent", check=False)
    assert res.returncode != 0


def test_raw_metrics(server, ns):
    server.kubectl("get", "configmaps", "-n", ns)
    out = server.kubectl("get", "--raw", "/metrics").stdout
    assert "# TYPE apiserver_request_total counter" in out
    samples = [line for line in out.splitlines() if line.startswith("apiserver_request_total{")]
    assert any('resource="configmaps"' in s and 'verb="LIST"' in s and 'code="200"' in s for s in samples), samples
    assert "# TYPE apiserver_request_duration_seconds histogram" in out
    buckets = [line for line in out.splitlines() if line.startswith("apiserver_request_duration_seconds_bucket{")]
    listed = [b for b in buckets if 'resource="configmaps"' in b and 'verb="LIST"' in b]
    assert any('le="+Inf"' in b and float(b.rsplit(" ", 1)[1]) >= 1 for b in listed), listed


def test_raw_api_and_apis(server):
    api = json.loads(server.kubectl("get", "--raw", "/api").stdout)
    assert api["kind"] == "APIVersions" and api["versions"] == ["v1"]
    apis = json.loads(server.kubectl("get", "--raw", "/apis").stdout)
    assert apis["kind"] == "APIGroupList"
    apps = next(g for g in apis["groups"] if g["name"] == "apps")
    assert apps["preferredVersion"] == {"groupVersion": "apps/v1", "version": "v1"}
    v1 = json.loads(server.kubectl("get", "--raw", "/api/v1").stdout)
    assert v1["kind"] == "APIResourceList" and v1["groupVersion"] == "v1"
    pods = next(r for r in v1["resources"] if r["name"] == "pods")
    assert pods["namespaced"] is True and pods["kind"] == "Pod" and "po" in pods["shortNames"]
    assert "watch" in pods["verbs"]
    assert any(r["name"] == "pods/status" for r in v1["resources"])


def test_kubectl_1_27_version_skew_warning(server):
    res = server.kubectl("version", version="1.27", check=False)
    assert "Server Version" in res.stdout
    assert "v1.33." in res.stdout


def test_apis_lists_groups_in_apiservice_order(server):
    # the aggregator's own group first, then by groupPriorityMinimum and APIService name: admissionregistration
    # and apiextensions share 16700, so v1.admissionregistration.k8s.io sorts first
    groups = [g["name"] for g in json.loads(server.kubectl("get", "--raw", "/apis").stdout)["groups"]]
    builtin = [g for g in groups if g.endswith(".k8s.io") or "." not in g]
    assert builtin[:3] == ["apiregistration.k8s.io", "apps", "events.k8s.io"]
    i = builtin.index("admissionregistration.k8s.io")
    assert builtin[i : i + 3] == ["admissionregistration.k8s.io", "apiextensions.k8s.io", "scheduling.k8s.io"]
    assert builtin[-1] == "flowcontrol.apiserver.k8s.io"


def test_storage_version_hash_names_the_stored_kind(server):
    """storageVersionHash is 8 bytes of sha256 over "<group>/<version>/<kind>" of what is stored (the core
    group's starts with "/"): an autoscaling/v1 HPA shows autoscaling/v2's, an events.k8s.io event core v1's,
    and componentstatuses, never stored, none. The values are kube-apiserver 1.33's own."""

    def hashes(path: str) -> dict[str, str | None]:
        doc = json.loads(server.kubectl("get", "--raw", path).stdout)
        return {r["name"]: r.get("storageVersionHash") for r in doc["resources"] if "/" not in r["name"]}

    core = hashes("/api/v1")
    assert (core["configmaps"], core["pods"], core["events"]) == ("qFsyl6wFWjQ=", "xPOwRZ+Yhw8=", "r2yiGXH7wu8=")
    assert core["componentstatuses"] is None
    assert hashes("/apis/autoscaling/v1")["horizontalpodautoscalers"] == "qwQve8ut294="
    assert hashes("/apis/autoscaling/v2")["horizontalpodautoscalers"] == "qwQve8ut294="
    assert hashes("/apis/events.k8s.io/v1")["events"] == "r2yiGXH7wu8="


def test_core_resource_list_is_unversioned(server):
    """The core group's APIResourceList is written without apiVersion (stripVersionNegotiatedSerializer); the
    other groups' have it."""
    core = json.loads(server.kubectl("get", "--raw", "/api/v1").stdout)
    assert list(core)[:2] == ["kind", "groupVersion"] and "apiVersion" not in core
    apps = json.loads(server.kubectl("get", "--raw", "/apis/apps/v1").stdout)
    assert list(apps)[:3] == ["kind", "apiVersion", "groupVersion"]


def test_metrics_label_requests_as_kube_does(server, ns):
    """MonitorRequest's labels: the verb is the HTTP method (a collection GET is LIST, a server-side apply
    APPLY, a watch WATCH), scope "resource" for a named object or a create; the health endpoints are
    counted with their path as the subresource; the process and build metrics are there; one
    apiserver_storage_objects series per storage."""
    server.kubectl("-n", ns, "create", "configmap", "metric-a")
    server.kubectl("-n", ns, "get", "configmaps")
    server.kubectl("-n", ns, "get", "configmap", "metric-a", "--request-timeout=10s")
    manifest = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "metric-b", "namespace": ns}}
    server.kubectl("apply", "--server-side", "-f", "-", input=json.dumps(manifest))
    server.kubectl("delete", "configmap", "metric-a", "-n", ns)
    server.kubectl("get", "--raw", "/readyz")
    server.request("GET", f"/api/v1/namespaces/{ns}/configmaps?watch=1&timeoutSeconds=1")
    out = server.kubectl("get", "--raw", "/metrics").stdout
    totals = [line for line in out.splitlines() if line.startswith("apiserver_request_total{")]

    def counted(verb: str, scope: str, resource: str = "configmaps", subresource: str = "") -> bool:
        want = (f'verb="{verb}"', f'scope="{scope}"', f'resource="{resource}"', f'subresource="{subresource}"')
        return any(all(w in line for w in want) for line in totals)

    assert counted("POST", "resource") and counted("LIST", "namespace") and counted("GET", "resource")
    assert counted("APPLY", "resource") and counted("DELETE", "resource") and counted("WATCH", "namespace")
    assert not any('verb="CREATE"' in line or 'verb="UPDATE"' in line for line in totals)
    assert counted("GET", "", "", "/readyz")
    watch_buckets = [line for line in out.splitlines() if "duration_seconds_count" in line and 'verb="WATCH"' in line]
    assert watch_buckets  # a watch's duration is observed too
    assert "process_cpu_seconds_total " in out and "process_resident_memory_bytes " in out
    assert 'kubernetes_build_info{build_date="' in out and 'git_version="v1.33.0"' in out
    # the in-flight watermarks, published each second once requests ran
    inflight = [line for line in out.splitlines() if line.startswith("apiserver_current_inflight_requests{")]
    assert {line.split('"')[1] for line in inflight} == {"mutating", "readOnly"}, inflight
    objects = [line for line in out.splitlines() if line.startswith("apiserver_storage_objects{")]
    assert any('resource="events"' in line for line in objects)
    assert not any('"events.events.k8s.io"' in line or '"componentstatuses"' in line for line in objects)

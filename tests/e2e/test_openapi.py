"""/openapi/v2 and /openapi/v3 as kube-apiserver 1.33 serves them, seen through kubectl explain (v3, and
v2 with --output=plaintext-openapiv2), kubectl 1.27's validation (v2 as protobuf), the Python client and
raw HTTPS (negotiation, ETag / 304, the hash-immutable v3 URLs)."""

from __future__ import annotations

import gzip

import orjson
import pytest
import yaml

PROTO_V2 = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
PROTO_V2_RETURNED = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"


def explain(server, *args: str, version: str | None = None) -> str:
    return server.kubectl("explain", *args, version=version).stdout


# --- kubectl explain (OpenAPI v3) --------------------------------------------------------------------


def test_explain_pods(server):
    out = explain(server, "pods")
    assert out.startswith(
        "KIND:       Pod\nVERSION:    v1\n\nDESCRIPTION:\n"
        "    Pod is a collection of containers that can run on a host. This resource is\n"
        "    created by clients and scheduled onto hosts.\n"
    )
    assert (
        "  metadata\t<ObjectMeta>\n    Standard object's metadata. More info:\n"
        "    https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata\n"
    ) in out
    assert "  spec\t<PodSpec>\n    Specification of the desired behavior of the pod. More info:\n" in out
    assert "  status\t<PodStatus>\n    Most recently observed status of the pod." in out
    fields = [line.split("\t")[0].strip() for line in out.splitlines() if line.startswith("  ") and "\t<" in line]
    assert fields == ["apiVersion", "kind", "metadata", "spec", "status"]


def test_explain_nested_field_of_an_embedded_struct(server):
    out = explain(server, "deployment.spec.strategy.rollingUpdate")
    assert out.startswith(
        "GROUP:      apps\nKIND:       Deployment\nVERSION:    v1\n\n"
        "FIELD: rollingUpdate <RollingUpdateDeployment>\n\n\nDESCRIPTION:\n"
        "    Rolling update config params. Present only if DeploymentStrategyType =\n"
        "    RollingUpdate.\n"
        "    Spec to control the desired behavior of rolling update.\n"
    )
    # IntOrString has no type of its own in v3 (a oneOf): kubectl shows the definition's name.
    assert (
        "  maxSurge\t<IntOrString>\n    The maximum number of pods that can be scheduled above the desired number of\n"
    ) in out
    assert (
        "  maxUnavailable\t<IntOrString>\n    The maximum number of pods that can be unavailable during the update."
        in out
    )


def test_explain_leaf_field(server):
    out = explain(server, "pod.spec.containers.image")
    assert out == (
        "KIND:       Pod\nVERSION:    v1\n\nFIELD: image <string>\n\n\nDESCRIPTION:\n"
        "    Container image name. More info:\n"
        "    https://kubernetes.io/docs/concepts/containers/images This field is optional\n"
        "    to allow higher level config management to default or override container\n"
        "    images in workload controllers like Deployments and StatefulSets.\n    \n\n"
    )
    out = explain(server, "deployment.spec.replicas")
    assert "FIELD: replicas <integer>\n" in out
    assert "    Number of desired pods. This is a pointer to distinguish between explicit\n" in out


def test_explain_unknown_field(server):
    res = server.kubectl("explain", "pods.spec.nope", check=False)
    assert res.returncode == 1
    assert res.stderr.strip() == 'error: field "nope" does not exist'


def test_explain_recursive(server):
    out = explain(server, "deployment.spec.strategy", "--recursive")
    assert out.endswith(
        "FIELDS:\n"
        "  rollingUpdate\t<RollingUpdateDeployment>\n"
        "    maxSurge\t<IntOrString>\n"
        "    maxUnavailable\t<IntOrString>\n"
        "  type\t<string>\n\n"
    )
    out = explain(server, "configmaps", "--recursive")
    assert (
        "  apiVersion\t<string>\n  binaryData\t<map[string]string>\n  data\t<map[string]string>\n"
        "  immutable\t<boolean>\n  kind\t<string>\n  metadata\t<ObjectMeta>\n    annotations\t<map[string]string>\n"
    ) in out
    assert (
        "    ownerReferences\t<[]OwnerReference>\n"
        "      apiVersion\t<string> -required-\n"
        "      blockOwnerDeletion\t<boolean>\n"
        "      controller\t<boolean>\n"
        "      kind\t<string> -required-\n"
        "      name\t<string> -required-\n"
        "      uid\t<string> -required-\n"
    ) in out
    out = explain(server, "pods.spec.containers.ports", "--recursive")
    assert out.endswith(
        "FIELDS:\n"
        "  containerPort\t<integer> -required-\n"
        "  hostIP\t<string>\n"
        "  hostPort\t<integer>\n"
        "  name\t<string>\n"
        "  protocol\t<string>\n\n"
    )


@pytest.mark.parametrize(
    ("resource", "group", "kind", "version", "description"),
    [
        ("cronjobs", "batch", "CronJob", "v1", "CronJob represents the configuration of a single cron job."),
        ("services", "", "Service", "v1", "Service is a named abstraction of software service (for example, mysql)"),
        ("roles", "rbac.authorization.k8s.io", "Role", "v1", "Role is a namespaced, logical grouping of"),
        ("hpa", "autoscaling", "HorizontalPodAutoscaler", "v2", "HorizontalPodAutoscaler is the configuration for"),
        ("leases", "coordination.k8s.io", "Lease", "v1", "Lease defines a lease concept."),
        ("ingresses", "networking.k8s.io", "Ingress", "v1", "Ingress is a collection of rules that allow inbound"),
        ("pdb", "policy", "PodDisruptionBudget", "v1", "PodDisruptionBudget is an object to define the max"),
        (
            "crds",
            "apiextensions.k8s.io",
            "CustomResourceDefinition",
            "v1",
            "CustomResourceDefinition represents a resource that should be exposed on the",
        ),
        ("apiservices", "apiregistration.k8s.io", "APIService", "v1", "APIService represents a server for a"),
    ],
)
def test_explain_kinds(server, resource, group, kind, version, description):
    out = explain(server, resource)
    head = (f"GROUP:      {group}\n" if group else "") + f"KIND:       {kind}\nVERSION:    {version}\n\nDESCRIPTION:\n"
    assert out.startswith(head + "    " + description), out[:400]
    assert "  metadata\t<ObjectMeta>\n" in out
    top = "  rules\t<[]PolicyRule>\n" if kind == "Role" else f"  spec\t<{kind}Spec>"
    assert top in out


def test_explain_cluster_scoped_and_subresource_kinds(server):
    out = explain(server, "namespaces.spec.finalizers")
    assert "FIELD: finalizers <[]string>\n" in out
    out = explain(server, "nodes.status.capacity")
    assert "FIELD: capacity <map[string]Quantity>\n" in out


# --- kubectl explain on OpenAPI v2 -------------------------------------------------------------------


def test_explain_plaintext_openapiv2(server):
    out = explain(server, "--output=plaintext-openapiv2", "services.spec")
    assert out.startswith(
        "KIND:     Service\nVERSION:  v1\n\nRESOURCE: spec <Object>\n\nDESCRIPTION:\n"
        "     Spec defines the behavior of a service.\n"
    )
    assert "     ServiceSpec describes the attributes that a user creates on a service.\n" in out
    fields = [line.split("\t")[0].strip() for line in out.splitlines() if line.startswith("   ") and "\t<" in line]
    assert fields[:4] == ["allocateLoadBalancerNodePorts", "clusterIP", "clusterIPs", "externalIPs"]
    assert "   ports\t<[]Object>\n     The list of ports that are exposed by this service." in out
    assert "   selector\t<map[string]string>\n" in out


def test_explain_plaintext_openapiv2_kubectl_1_27(server):
    # kubectl 1.27 reads /openapi/v2 as the gnostic protobuf document for this.
    out = explain(server, "--output=plaintext-openapiv2", "deployment.spec.strategy", "--recursive", version="1.27")
    assert out == (
        "KIND:     Deployment\nVERSION:  apps/v1\n\nRESOURCE: strategy <Object>\n\nDESCRIPTION:\n"
        "     The deployment strategy to use to replace existing pods with new ones.\n\n"
        "     DeploymentStrategy describes how to replace existing pods with new ones.\n\n"
        "FIELDS:\n   rollingUpdate\t<Object>\n      maxSurge\t<string>\n      maxUnavailable\t<string>\n"
        "   type\t<string>\n"
    )
    out = explain(server, "deployment.spec.replicas", version="1.27")
    assert "FIELD: replicas <integer>\n" in out


# --- validation on create: kubectl 1.27 (OpenAPI v2 protobuf) and the current kubectl (v3) ------------


DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "typo"},
    "spec": {
        "selector": {"matchLabels": {"app": "typo"}},
        "template": {
            "metadata": {"labels": {"app": "typo"}},
            "spec": {"containers": [{"name": "c", "image": "nginx"}]},
        },
    },
}


@pytest.mark.parametrize("version", [None, "1.27"], ids=["kubectl-1.33", "kubectl-1.27"])
def test_create_validates_fields(server, ns, version):
    good = yaml.safe_dump({**DEPLOYMENT, "metadata": {"name": f"ok-{version or 'current'}".replace(".", "-")}})
    res = server.kubectl("-n", ns, "create", "-f", "-", input=good, version=version)
    assert res.stdout.strip().startswith("deployment.apps/ok-") and res.stdout.strip().endswith(" created")
    bad = orjson.loads(orjson.dumps(DEPLOYMENT))
    bad["spec"]["template"]["spec"]["containers"][0]["imagee"] = "nginx"
    res = server.kubectl("-n", ns, "create", "-f", "-", input=yaml.safe_dump(bad), version=version, check=False)
    assert res.returncode == 1
    # kubectl finds fieldValidation on the Deployment's PATCH operation, so the server checks (Strict).
    assert 'unknown field "spec.template.spec.containers[0].imagee"' in res.stderr, res.stderr
    assert server.request("GET", f"/apis/apps/v1/namespaces/{ns}/deployments/typo").status_code == 404


# --- the Python client --------------------------------------------------------------------------------


def _client_get(api_client, path: str) -> tuple[int, bytes, dict]:
    method, url, headers, _, _ = api_client.param_serialize("GET", path, header_params={"Accept": "application/json"})
    resp = api_client.call_api(method, url, header_params=headers)
    resp.read()
    return resp.status, resp.data, dict(resp.getheaders())


def test_python_client_reads_openapi(api_client):
    status, body, _ = _client_get(api_client, "/openapi/v2")
    assert status == 200
    doc = orjson.loads(body)
    assert doc["swagger"] == "2.0"
    assert doc["info"] == {"title": "Kubernetes", "version": "v1.33.0"}
    assert doc["securityDefinitions"]["BearerToken"] == {
        "description": "Bearer Token authentication",
        "in": "header",
        "name": "authorization",
        "type": "apiKey",
    }
    dep = doc["definitions"]["io.k8s.api.apps.v1.Deployment"]
    assert dep["x-kubernetes-group-version-kind"] == [{"group": "apps", "kind": "Deployment", "version": "v1"}]
    assert dep["properties"]["spec"] == {
        "$ref": "#/definitions/io.k8s.api.apps.v1.DeploymentSpec",
        "description": "Specification of the desired behavior of the Deployment.",
    }
    strategy = doc["definitions"]["io.k8s.api.apps.v1.DeploymentSpec"]["properties"]["strategy"]
    assert strategy["x-kubernetes-patch-strategy"] == "retainKeys"
    containers = doc["definitions"]["io.k8s.api.core.v1.PodSpec"]["properties"]["containers"]
    assert containers["x-kubernetes-patch-merge-key"] == "name"
    assert containers["x-kubernetes-list-type"] == "map" and containers["x-kubernetes-list-map-keys"] == ["name"]
    assert doc["definitions"]["io.k8s.apimachinery.pkg.util.intstr.IntOrString"]["format"] == "int-or-string"
    assert doc["definitions"]["io.k8s.apimachinery.pkg.api.resource.Quantity"]["type"] == "string"
    patch = doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]["patch"]
    assert patch["operationId"] == "patchAppsV1NamespacedDeployment"
    assert patch["x-kubernetes-action"] == "patch"
    assert patch["x-kubernetes-group-version-kind"] == {"group": "apps", "kind": "Deployment", "version": "v1"}
    # kube keeps dryRun and fieldValidation inline: kubectl looks them up by name.
    inline = {p["name"] for p in patch["parameters"] if "name" in p}
    assert {"dryRun", "fieldValidation"} <= inline
    assert {"$ref": "#/parameters/force-tOGGb0Yi"} in patch["parameters"]
    assert doc["parameters"]["force-tOGGb0Yi"]["name"] == "force"

    status, body, _ = _client_get(api_client, "/openapi/v3/apis/apps/v1")
    assert status == 200
    v3 = orjson.loads(body)
    assert v3["openapi"] == "3.0.0"
    schemas = v3["components"]["schemas"]
    assert "io.k8s.api.core.v1.Namespace" not in schemas  # only what apps/v1 refers to
    dep = schemas["io.k8s.api.apps.v1.Deployment"]
    assert dep["properties"]["metadata"] == {
        "allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}],
        "default": {},
        "description": "Standard object's metadata. More info: "
        "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
    }
    spec = schemas["io.k8s.api.apps.v1.DeploymentSpec"]["properties"]
    assert "default" not in spec["selector"]  # a pointer
    assert spec["template"]["default"] == {}
    assert spec["replicas"] == {
        "description": "Number of desired pods. This is a pointer to distinguish between explicit zero and not "
        "specified. Defaults to 1.",
        "format": "int32",
        "type": "integer",
    }
    assert schemas["io.k8s.apimachinery.pkg.util.intstr.IntOrString"]["oneOf"] == [
        {"type": "integer"},
        {"type": "string"},
    ]
    paths = v3["paths"]
    assert set(paths) >= {
        "/apis/apps/v1/",
        "/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale",
        "/apis/apps/v1/watch/namespaces/{namespace}/deployments",
    }
    create = paths["/apis/apps/v1/namespaces/{namespace}/deployments"]["post"]
    assert create["requestBody"] == {
        "content": {"*/*": {"schema": {"$ref": "#/components/schemas/io.k8s.api.apps.v1.Deployment"}}},
        "required": True,
    }
    assert [p["name"] for p in create["parameters"]] == ["dryRun", "fieldManager", "fieldValidation"]
    scale = paths["/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale"]["get"]
    assert scale["x-kubernetes-group-version-kind"] == {"group": "autoscaling", "kind": "Scale", "version": "v1"}


# --- negotiation and caching ------------------------------------------------------------------------


def test_v2_negotiation_and_etag(server):
    r = server.request("GET", "/openapi/v2", headers={"Accept": "application/json"})
    assert r.status_code == 200
    assert r.headers["Content-Type"] == "application/json"
    etag = r.headers["ETag"]
    assert etag.startswith('"') and len(etag) == 130  # quoted SHA-512, upper-case hex
    assert r.headers["Cache-Control"] == "no-cache, private"
    assert "Accept" in r.headers["Vary"]
    r2 = server.request("GET", "/openapi/v2", headers={"Accept": "application/json", "If-None-Match": etag})
    assert r2.status_code == 304 and r2.content == b"" and r2.headers["ETag"] == etag

    p = server.request("GET", "/openapi/v2", headers={"Accept": PROTO_V2})
    assert p.status_code == 200
    assert p.headers["Content-Type"] == PROTO_V2_RETURNED
    assert p.headers["ETag"] == etag  # the JSON's, re-used (kube-openapi: the Vary header tells them apart)
    doc = _decode(p.content)
    assert _string(doc, 1) == "2.0"
    info = _decode(doc[2][0])
    assert (_string(info, 1), _string(info, 2)) == ("Kubernetes", "v1.33.0")
    json_doc = r.json()
    assert len(_decode(doc[8][0])[2]) == len(json_doc["paths"])
    assert len(_decode(doc[9][0])[1]) == len(json_doc["definitions"])

    assert server.request("GET", "/openapi/v2", headers={"Accept": "application/xml"}).status_code == 406
    assert server.request("GET", "/openapi/v2", headers={"Accept": "text/plain, */*;q=0.5"}).status_code == 200

    z = server.request(
        "GET", "/openapi/v2", headers={"Accept": "application/json", "Accept-Encoding": "gzip"}, stream=True
    )
    assert z.headers["Content-Encoding"] == "gzip"
    assert orjson.loads(gzip.decompress(z.raw.read())) == json_doc


def test_v3_index_and_group_version_documents(server):
    r = server.request("GET", "/openapi/v3")
    assert r.status_code == 200
    index = r.json()["paths"]
    assert {"api", "api/v1", "apis", "apis/apps", "apis/apps/v1", "apis/batch/v1", "version"} <= set(index)
    url = index["apis/apps/v1"]["serverRelativeURL"]
    assert url.startswith("/openapi/v3/apis/apps/v1?hash=")
    digest = url.split("hash=")[1]

    plain = server.request("GET", "/openapi/v3/apis/apps/v1")
    assert plain.status_code == 200
    assert plain.headers["ETag"] == f'"{digest}"'
    assert plain.headers["Cache-Control"] == "no-cache, private"
    assert "Expires" not in plain.headers

    pinned = server.request("GET", url)
    assert pinned.status_code == 200 and pinned.content == plain.content
    assert pinned.headers["Cache-Control"] == "public, immutable"
    assert pinned.headers["Expires"].endswith(" GMT")

    stale = server.request("GET", "/openapi/v3/apis/apps/v1?hash=0123", allow_redirects=False)
    assert stale.status_code == 301
    assert stale.headers["Location"] == url

    again = server.request("GET", "/openapi/v3/apis/apps/v1", headers={"If-None-Match": f'"{digest}"'})
    assert again.status_code == 304 and again.content == b""

    missing = server.request("GET", "/openapi/v3/apis/nope.example.com/v1")
    assert missing.status_code == 404 and missing.content == b""

    core = server.request("GET", index["api/v1"]["serverRelativeURL"]).json()
    pod = core["components"]["schemas"]["io.k8s.api.core.v1.Pod"]
    assert pod["x-kubernetes-group-version-kind"] == [{"group": "", "kind": "Pod", "version": "v1"}]
    exec_path = core["paths"]["/api/v1/namespaces/{namespace}/pods/{name}/exec"]
    assert exec_path["get"]["operationId"] == "connectCoreV1GetNamespacedPodExec"
    assert exec_path["post"]["x-kubernetes-action"] == "connect"
    log = core["paths"]["/api/v1/namespaces/{namespace}/pods/{name}/log"]["get"]
    assert log["operationId"] == "readCoreV1NamespacedPodLog"
    assert "text/plain" in log["responses"]["200"]["content"]


# --- a minimal protobuf reader for the checks above ---------------------------------------------------


def _decode(buf: bytes) -> dict[int, list]:
    """Field number → values (bytes for length-delimited fields, ints for varints)."""
    out: dict[int, list] = {}
    i = 0
    while i < len(buf):
        key, i = _varint(buf, i)
        num, wire = key >> 3, key & 7
        if wire == 0:
            value, i = _varint(buf, i)
        elif wire == 2:
            n, i = _varint(buf, i)
            value, i = buf[i : i + n], i + n
        elif wire == 1:
            value, i = buf[i : i + 8], i + 8
        elif wire == 5:
            value, i = buf[i : i + 4], i + 4
        else:
            raise AssertionError(f"wire type {wire}")
        out.setdefault(num, []).append(value)
    return out


def _varint(buf: bytes, i: int) -> tuple[int, int]:
    shift = n = 0
    while True:
        b = buf[i]
        i += 1
        n |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return n, i


def _string(msg: dict[int, list], num: int) -> str:
    return msg[num][0].decode()


def test_issuer_discovery_paths_are_documented(server):
    """The service account issuer discovery endpoints have their OpenAPI v3 documents (generated clients'
    WellKnownApi and OpenidApi come from them) and v2 paths; they are not behind authentication: no 401
    response, no security scheme."""
    index = server.request("GET", "/openapi/v3").json()["paths"]
    for key, path, op_id, media in (
        (
            ".well-known/openid-configuration",
            "/.well-known/openid-configuration/",
            "getServiceAccountIssuerOpenIDConfiguration",
            "application/json",
        ),
        ("openid/v1/jwks", "/openid/v1/jwks/", "getServiceAccountIssuerOpenIDKeyset", "application/jwk-set+json"),
    ):
        doc = server.request("GET", index[key]["serverRelativeURL"]).json()
        assert doc["components"] == {}
        get = doc["paths"][path]["get"]
        assert get["operationId"] == op_id and list(get["responses"]) == ["200"]
        assert list(get["responses"]["200"]["content"]) == [media]
    v2 = server.request("GET", "/openapi/v2").json()["paths"]
    assert v2["/openid/v1/jwks/"]["get"]["operationId"] == "getServiceAccountIssuerOpenIDKeyset"
    assert "401" in v2["/version/"]["get"]["responses"]

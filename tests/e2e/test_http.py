"""Raw HTTPS against the server: Status bodies, limits, negotiation, tables, aggregated discovery, watch-list
bookmarks and authentication, checked byte-for-byte where clients depend on it."""

from __future__ import annotations

import base64
import json
import threading

import pytest
import yaml
from e2e_helpers import ROOT_CA_CONFIG_MAP, apply_crd, free_form_crd, status_of, wait_for_root_ca, without_root_ca

STATUS_KEYS = ["kind", "apiVersion", "metadata", "status", "message", "reason", "details", "code"]
DISCOVERY_V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
DISCOVERY_V2BETA1 = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"
KUBECTL_DISCOVERY_ACCEPT = f"{DISCOVERY_V2},{DISCOVERY_V2BETA1},application/json"
TABLE_ACCEPT = "application/json;as=Table;v=v1;g=meta.k8s.io"


def post_cm(server, ns, name="x", **kw):
    return server.request(
        "POST",
        f"/api/v1/namespaces/{ns}/configmaps",
        json={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}},
        **kw,
    )


def test_not_found_status_key_order(server, ns):
    r = server.request("GET", f"/api/v1/namespaces/{ns}/configmaps/nope")
    body = status_of(r, 404, "NotFound")
    assert list(body) == STATUS_KEYS
    assert body["message"] == 'configmaps "nope" not found'
    assert body["details"] == {"name": "nope", "kind": "configmaps"}
    # Byte-exact, as some clients compare the whole body.
    assert r.text.rstrip("\n") == (
        '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \\"nope\\" not found",'
        '"reason":"NotFound","details":{"name":"nope","kind":"configmaps"},"code":404}'
    )


def test_not_found_grouped_resource(server, ns):
    r = server.request("GET", f"/apis/apps/v1/namespaces/{ns}/deployments/nope")
    body = status_of(r, 404, "NotFound")
    assert body["message"] == 'deployments.apps "nope" not found'
    assert body["details"] == {"name": "nope", "group": "apps", "kind": "deployments"}
    assert list(body) == STATUS_KEYS


@pytest.mark.parametrize("path", ["/no/such/path", "/apis/nope.example.com/v1/things", "/api/v1/flurbles"])
def test_unknown_path_is_404_status(server, path):
    body = status_of(server.request("GET", path), 404, "NotFound")
    assert body["message"] == "the server could not find the requested resource"
    assert list(body) == STATUS_KEYS


def test_already_exists(server, ns):
    assert post_cm(server, ns, "twice").status_code == 201
    body = status_of(post_cm(server, ns, "twice"), 409, "AlreadyExists")
    assert body["message"] == 'configmaps "twice" already exists'
    assert body["details"] == {"name": "twice", "kind": "configmaps"}
    assert list(body) == STATUS_KEYS


def test_already_exists_of_a_generated_name_and_of_an_object_being_deleted(server, ns):
    """CheckGeneratedNameError: an object with a generateName whose name is taken is the generate-name
    conflict (retry after 1 s); an existing object that is being deleted is said to be (store.Create)."""
    path = f"/api/v1/namespaces/{ns}/configmaps"
    assert post_cm(server, ns, "g-taken").status_code == 201
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "g-taken", "generateName": "g-"}}
    r = server.request("POST", path, json=cm)
    body = status_of(r, 409, "AlreadyExists")
    assert body["message"] == (
        'configmaps "g-taken" already exists, the server was not able to generate a unique name for the object'
    )
    assert body["details"] == {"name": "g-taken", "kind": "configmaps", "retryAfterSeconds": 1}
    assert r.headers["Retry-After"] == "1"
    held = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "held", "finalizers": ["example.com/x"]}}
    assert server.request("POST", path, json=held).status_code == 201
    assert server.request("DELETE", f"{path}/held").status_code == 200
    body = status_of(post_cm(server, ns, "held"), 409, "AlreadyExists")
    assert body["message"] == 'object is being deleted: configmaps "held" already exists'
    server.request(
        "PATCH",
        f"{path}/held",
        data='{"metadata":{"finalizers":null}}',
        headers={"Content-Type": "application/merge-patch+json"},
    )


def test_create_drops_a_resource_version_it_cannot_parse(server, ns):
    """kube's storage refuses only a resourceVersion that parses as a revision; "-1" is dropped."""
    path = f"/api/v1/namespaces/{ns}/configmaps"
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "rv-neg", "resourceVersion": "-1"}}
    r = server.request("POST", path, json=cm)
    assert r.status_code == 201 and r.json()["metadata"]["resourceVersion"] != "-1"
    cm["metadata"] = {"name": "rv-set", "resourceVersion": "5"}
    body = status_of(server.request("POST", path, json=cm), 400, "BadRequest")
    assert body["message"] == "resourceVersion should not be set on objects to be created"


def test_body_too_large(server, ns):
    big = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "huge"}, "data": {"k": "x" * (3 << 20)}}
    r = server.request(
        "POST",
        f"/api/v1/namespaces/{ns}/configmaps",
        data=json.dumps(big),
        headers={"Content-Type": "application/json"},
    )
    body = status_of(r, 413, "RequestEntityTooLarge")
    assert "limit is 3145728" in body["message"]
    assert server.request("GET", f"/api/v1/namespaces/{ns}/configmaps/huge").status_code == 404


def test_object_too_large_for_storage(server, ns):
    # Under the request limit but over the 1 MiB a ConfigMap may hold (kube counts the values' bytes: exactly
    # 1 MiB is still accepted).
    big = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "big"}, "data": {"k": "x" * ((1 << 20) + 1)}}
    r = server.request("POST", f"/api/v1/namespaces/{ns}/configmaps", json=big)
    body = status_of(r, 422, "Invalid")
    # The detail's wording changed across releases ("must have at most" / "may not be more than").
    assert body["message"].startswith('ConfigMap "big" is invalid: []: Too long: ')
    assert body["message"].endswith(" 1048576 bytes")


def test_malformed_json(server, ns):
    r = server.request(
        "POST", f"/api/v1/namespaces/{ns}/configmaps", data="{bad json", headers={"Content-Type": "application/json"}
    )
    body = status_of(r, 400, "BadRequest")
    assert list(body) == ["kind", "apiVersion", "metadata", "status", "message", "reason", "code"]


def test_wrong_content_type(server, ns):
    r = server.request(
        "POST", f"/api/v1/namespaces/{ns}/configmaps", data="name: x", headers={"Content-Type": "text/plain"}
    )
    body = status_of(r, 415, "UnsupportedMediaType")
    assert body["message"].startswith(
        "the body of the request was in an unknown format - accepted media types "
        "include: application/json, application/yaml"
    )


def test_yaml_body_is_accepted(server, ns):
    r = server.request(
        "POST",
        f"/api/v1/namespaces/{ns}/configmaps",
        data="apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fromyaml\ndata:\n  a: b\n",
        headers={"Content-Type": "application/yaml"},
    )
    assert r.status_code == 201, r.text
    assert r.json()["data"] == {"a": "b"}
    r = server.request("GET", f"/api/v1/namespaces/{ns}/configmaps/fromyaml", headers={"Accept": "application/yaml"})
    assert r.status_code == 200 and r.headers["Content-Type"] == "application/yaml"
    assert "name: fromyaml" in r.text


def test_yaml_scalars_read_as_go_yaml_reads_them(server, ns):
    """A YAML body's plain scalars as sigs.k8s.io/yaml resolves them: `1e0` is the integer 1 (it was refused as
    a string for an int32), `y` is true, `1:20` a string."""
    body = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: yamlscalars\n  annotations:\n    t: 1:20\n"
        "spec:\n  replicas: 1e0\n  selector: {matchLabels: {app: y-app}}\n  template:\n"
        "    metadata: {labels: {app: y-app}}\n    spec:\n      containers:\n      - {name: c, image: i, tty: y}\n"
    )
    r = server.request(
        "POST", f"/apis/apps/v1/namespaces/{ns}/deployments", data=body, headers={"Content-Type": "application/yaml"}
    )
    assert r.status_code == 201, r.text
    dep = r.json()
    assert dep["spec"]["replicas"] == 1 and dep["spec"]["template"]["spec"]["containers"][0]["tty"] is True
    assert dep["metadata"]["annotations"] == {"t": "1:20"}  # PyYAML's YAML 1.1 reads 80, sexagesimal


def test_forbidden_answers_always_carry_details(server):
    """NewForbidden sets details even when they are empty, as for a non-resource path."""
    r = server.anonymous("GET", "/apis")
    body = status_of(r, 403, "Forbidden")
    assert body["message"] == 'forbidden: User "system:anonymous" cannot get path "/apis"'
    assert body["details"] == {} and list(body) == STATUS_KEYS


def test_bodies_nested_too_deep_are_a_400_and_the_server_lives_on(server, ns):
    base = f"/api/v1/namespaces/{ns}/configmaps"
    yaml_headers = {"Content-Type": "application/yaml"}
    head = "apiVersion: v1\nkind: ConfigMap\nmetadata: {generateName: deep-}\nx: "
    # deep enough that composing it would overflow libyaml's C recursion and kill the process
    r = server.request("POST", base, data=head + "[" * 200_000 + "]" * 200_000, headers=yaml_headers)
    assert status_of(r, 400, "BadRequest")["message"] == (
        "the object provided is unrecognized (must be of type ConfigMap): error converting YAML to JSON: yaml: "
        f"exceeded max depth of 100 ({head.encode()[:30].hex()} ...)"
    )
    body = (
        '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"deep-"},"x":' + "[" * 150 + "]" * 150 + "}"
    )
    r = server.request("POST", base, data=body, headers={"Content-Type": "application/json"})
    assert status_of(r, 400, "BadRequest")["message"] == (
        "the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse "
        'error: exceeded max depth of 100 ({"apiVersion":"v1","kind":"Con ...)'
    )
    aliases = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{n}: &{n} [" + ", ".join([f"*{p}"] * 9) + "]\n" for p, n in zip("abcdefg", "bcdefgh", strict=True)
    )
    r = server.request("POST", base, data=head + "1\n" + aliases, headers=yaml_headers)
    message = status_of(r, 400, "BadRequest")["message"]
    assert message == (
        "the object provided is unrecognized (must be of type ConfigMap): error converting YAML to JSON: yaml: "
        f"document contains excessive aliasing ({head.encode()[:30].hex()} ...)"
    )
    # YAML keys and values JSON has no form for: as sigs.k8s.io/yaml converts them, or a 400
    r = server.request("POST", base, data=head + "1\ndata: {1: one, false: two}\n", headers=yaml_headers)
    assert r.status_code == 201, r.text
    assert r.json()["data"] == {"1": "one", "false": "two"}
    r = server.request("POST", base, data=head + ".nan\n", headers=yaml_headers)
    assert status_of(r, 400, "BadRequest")["message"] == (
        "the object provided is unrecognized (must be of type ConfigMap): error converting YAML to JSON: json: "
        f"unsupported value: NaN ({head.encode()[:30].hex()} ...)"
    )
    assert server.request("GET", "/readyz").text == "ok"


@pytest.mark.parametrize(
    ("body", "content_type", "detail"),
    [
        (
            b"{bad",
            "application/json",
            "couldn't get version/kind; json parse error: invalid character 'b' looking for beginning of object "
            "key string ({bad)",
        ),
        (
            b"",
            "application/json",
            "couldn't get version/kind; json parse error: unexpected end of JSON input (<empty>)",
        ),
        (
            b'{"kind":"ConfigMap",',
            "application/json",
            'couldn\'t get version/kind; json parse error: unexpected end of JSON input ({"kind":"ConfigMap",)',
        ),
        (
            b'{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"x"}} trailing',
            "application/json",
            "couldn't get version/kind; json parse error: invalid character 't' after top-level value "
            '({"kind":"ConfigMap","apiVersio ...)',
        ),
        (
            b"[1]",
            "application/json",
            "couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type "
            'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" } '
            "(5b315d)",
        ),
        (
            b'{"kind":"ConfigMap","apiVersion":5}',
            "application/json",
            "couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field "
            '.apiVersion of type string ({"kind":"ConfigMap","apiVersio ...)',
        ),
        (
            b"a: [1",
            "application/yaml",
            "error converting YAML to JSON: yaml: line 1: did not find expected ',' or ']' (613a205b31)",
        ),
        (
            b"kind: ConfigMap\nmetadata:\n  name: a\n bad: 1\n",
            "application/yaml",
            "error converting YAML to JSON: yaml: line 3: did not find expected key "
            "(6b696e643a20436f6e6669674d61700a6d657461646174613a0a20206e61 ...)",
        ),
        (
            b'{"kind":"ConfigMap","apiVersion":"v1"}',
            "application/vnd.kubernetes.protobuf",
            "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] "
            '({"kind":"ConfigMap","apiVersio ...)',
        ),
    ],
)
def test_malformed_bodies_are_refused_in_kube_apiserver_words(server, ns, body, content_type, detail):
    # transformDecodeError: the body did not decode far enough to say its kind, so the message names the
    # kind expected and shows the body's start (as text when it opens like JSON, else in hex)
    for method, path in (
        ("POST", f"/api/v1/namespaces/{ns}/configmaps"),
        ("PUT", f"/api/v1/namespaces/{ns}/configmaps/x"),
    ):
        r = server.request(method, path, data=body, headers={"Content-Type": content_type})
        message = status_of(r, 400, "BadRequest")["message"]
        assert message == f"the object provided is unrecognized (must be of type ConfigMap): {detail}", message


def test_not_acceptable(server, ns):
    r = server.request("GET", f"/api/v1/namespaces/{ns}/configmaps", headers={"Accept": "application/xml"})
    body = status_of(r, 406, "NotAcceptable")
    assert body["message"].startswith("only the following media types are accepted: application/json, application/yaml")


def test_errors_are_written_in_the_negotiated_media_type(server, ns):
    """ErrorNegotiated: an API request's Status error is YAML when its Accept asks for YAML (a YAML Table
    too), JSON when the Accept names nothing that can be written."""
    path = f"/api/v1/namespaces/{ns}/configmaps/nope"
    for accept in ("application/yaml", "application/yaml;as=Table;v=v1;g=meta.k8s.io"):
        r = server.request("GET", path, headers={"Accept": accept})
        assert (r.status_code, r.headers["Content-Type"]) == (404, "application/yaml")
        assert yaml.safe_load(r.text)["message"] == 'configmaps "nope" not found'
    r = server.request("GET", path, headers={"Accept": "text/html"})
    assert (r.status_code, r.headers["Content-Type"]) == (404, "application/json")
    assert post_cm(server, ns, "gone").status_code == 201
    r = server.request(
        "DELETE",
        f"/api/v1/namespaces/{ns}/configmaps/gone",
        headers={"Accept": "application/yaml;as=Table;v=v1;g=meta.k8s.io"},
    )
    assert (r.status_code, r.headers["Content-Type"]) == (200, "application/yaml")
    assert yaml.safe_load(r.text)["status"] == "Success"


def test_not_acceptable_writes_nothing(server, ns):
    """The write handlers negotiate the answer's form before they read the body (NegotiateOutputMediaType
    comes first in create, update, patch and delete): an Accept they cannot answer is a 406 and nothing is
    stored; with a bad Content-Type as well, the 406 is what the client gets."""
    path = f"/api/v1/namespaces/{ns}/configmaps"
    html = {"Accept": "text/html"}
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "acc"}, "data": {"a": "1"}}
    status_of(server.request("POST", path, json=cm, headers=html), 406, "NotAcceptable")
    assert server.request("GET", f"{path}/acc").status_code == 404
    status_of(
        server.request("POST", path, data="x", headers={**html, "Content-Type": "text/plain"}), 406, "NotAcceptable"
    )
    assert post_cm(server, ns, "acc").status_code == 201
    before = server.request("GET", f"{path}/acc").json()
    status_of(
        server.request("PUT", f"{path}/acc", json={**before, "data": {"a": "2"}}, headers=html), 406, "NotAcceptable"
    )
    merge = {**html, "Content-Type": "application/merge-patch+json"}
    status_of(server.request("PATCH", f"{path}/acc", data='{"data":{"b":"x"}}', headers=merge), 406, "NotAcceptable")
    status_of(server.request("DELETE", f"{path}/acc", headers=html), 406, "NotAcceptable")
    status_of(server.request("DELETE", path, headers=html), 406, "NotAcceptable")
    assert server.request("GET", f"{path}/acc").json() == before


def test_wildcard_accept(server, ns):
    r = server.request("GET", f"/api/v1/namespaces/{ns}/configmaps", headers={"Accept": "*/*"})
    assert r.status_code == 200 and r.headers["Content-Type"] == "application/json"
    assert r.json()["kind"] == "ConfigMapList"


def test_method_not_allowed(server, ns):
    """A method that no route of the path takes is go-restful's 405, worded by kube's service error handler
    (empty details); a path that is no route at all is a 404."""
    assert post_cm(server, ns, "m").status_code == 201
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "m"}}
    for method, path in [
        ("POST", f"/api/v1/namespaces/{ns}/configmaps/m"),  # a POST to an object
        ("PUT", f"/api/v1/namespaces/{ns}/configmaps"),  # a PUT of a collection
        ("PATCH", f"/api/v1/namespaces/{ns}/configmaps"),
        ("POST", "/api/v1/configmaps"),  # across all namespaces: list and watch only
        ("DELETE", "/api/v1/configmaps"),
        ("PUT", "/api/v1/nodes"),
        ("GET", "/apis/authentication.k8s.io/v1/tokenreviews"),  # a create-only resource: no list route
        ("GET", f"/api/v1/namespaces/{ns}/pods/p/eviction"),  # a subresource's route takes POST only
        ("DELETE", f"/api/v1/namespaces/{ns}/pods/p/status"),
    ]:
        headers = {"Content-Type": "application/merge-patch+json"} if method == "PATCH" else {}
        body = status_of(server.request(method, path, json=cm, headers=headers), 405, "MethodNotAllowed")
        assert body["message"] == "the server does not allow this method on the requested resource", (method, path)
        assert body["details"] == {}
    status_of(server.request("GET", "/api/v1/configmaps/m"), 404, "NotFound")
    # no route at all at a create-only resource's object path
    status_of(server.request("GET", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews/x"), 404, "NotFound")
    # a watch of a resource that lists but cannot be watched: the list handler's own refusal
    body = status_of(server.request("GET", "/api/v1/componentstatuses?watch=1"), 405, "MethodNotAllowed")
    assert body["message"] == 'watch is not supported on resources of kind "componentstatuses"'
    assert server.request("GET", f"/api/v1/namespaces/{ns}/configmaps/m").status_code == 200  # nothing deleted


def test_table(server, ns):
    assert post_cm(server, ns, "t1").status_code == 201
    r = server.request("GET", f"/api/v1/namespaces/{ns}/configmaps", headers={"Accept": TABLE_ACCEPT})
    assert r.status_code == 200, r.text
    # kube-apiserver labels a Table response with the serializer's plain media type.
    assert r.headers["Content-Type"].split(";")[0] == "application/json"
    table = r.json()
    assert table["kind"] == "Table" and table["apiVersion"] == "meta.k8s.io/v1"
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "Data", "Age"]
    assert {"name", "type", "format", "description", "priority"} <= set(table["columnDefinitions"][0])
    assert table["metadata"]["resourceVersion"]
    row = next(r for r in table["rows"] if r["cells"][0] == "t1")
    assert row["cells"][1] == 0
    # includeObject defaults to Metadata: a PartialObjectMetadata per row.
    assert row["object"]["kind"] == "PartialObjectMetadata"
    assert row["object"]["apiVersion"] == "meta.k8s.io/v1"
    assert row["object"]["metadata"]["name"] == "t1"

    r = server.request(
        "GET", f"/api/v1/namespaces/{ns}/configmaps/t1?includeObject=Object", headers={"Accept": TABLE_ACCEPT}
    )
    row = r.json()["rows"][0]
    assert row["object"]["kind"] == "ConfigMap"
    r = server.request(
        "GET", f"/api/v1/namespaces/{ns}/configmaps/t1?includeObject=None", headers={"Accept": TABLE_ACCEPT}
    )
    assert "object" not in r.json()["rows"][0] or r.json()["rows"][0]["object"] is None


def test_partial_object_metadata(server, ns):
    assert post_cm(server, ns, "pom").status_code == 201
    accept = "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"
    r = server.request("GET", f"/api/v1/namespaces/{ns}/configmaps", headers={"Accept": accept})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["kind"] == "PartialObjectMetadataList" and body["apiVersion"] == "meta.k8s.io/v1"
    assert body["items"][0]["kind"] == "PartialObjectMetadata"
    assert "data" not in body["items"][0]


@pytest.mark.parametrize("path", ["/apis", "/api"])
def test_aggregated_discovery(server, path):
    r = server.request("GET", path, headers={"Accept": KUBECTL_DISCOVERY_ACCEPT})
    assert r.status_code == 200
    assert r.headers["Content-Type"] == DISCOVERY_V2
    assert "Accept" in r.headers.get("Vary", "")
    body = r.json()
    assert body["kind"] == "APIGroupDiscoveryList" and body["apiVersion"] == "apidiscovery.k8s.io/v2"
    groups = {g["metadata"].get("name", ""): g for g in body["items"]}
    if path == "/api":
        assert list(groups) == [""]
        resources = {res["resource"]: res for res in groups[""]["versions"][0]["resources"]}
        pods = resources["pods"]
        # the legacy APIResource has no group or version for a kind of its own group version
        assert pods["scope"] == "Namespaced" and pods["responseKind"] == {"group": "", "version": "", "kind": "Pod"}
        assert pods["singularResource"] == "pod" and pods["shortNames"] == ["po"]
        assert "status" in {s["subresource"] for s in pods["subresources"]}
    else:
        assert "" not in groups and "apps" in groups
        apps = groups["apps"]
        assert apps["versions"][0]["version"] == "v1"
        assert apps["versions"][0].get("freshness", "Current") == "Current"
        deploy = next(res for res in apps["versions"][0]["resources"] if res["resource"] == "deployments")
        assert deploy["shortNames"] == ["deploy"] and deploy["categories"] == ["all"]
        subs = {s["subresource"]: s["responseKind"] for s in deploy["subresources"]}
        assert deploy["responseKind"] == {"group": "", "version": "", "kind": "Deployment"}
        assert subs["status"] == {"group": "", "version": "", "kind": "Deployment"}
        assert subs["scale"] == {"group": "autoscaling", "version": "v1", "kind": "Scale"}


@pytest.mark.parametrize("path", ["/apis", "/api"])
def test_aggregated_discovery_v2beta1_and_fallback(server, path):
    r = server.request("GET", path, headers={"Accept": f"{DISCOVERY_V2BETA1},application/json"})
    assert r.status_code == 200
    assert r.headers["Content-Type"] == DISCOVERY_V2BETA1
    assert r.json()["apiVersion"] == "apidiscovery.k8s.io/v2beta1"
    r = server.request("GET", path, headers={"Accept": "application/json"})
    assert r.status_code == 200
    assert r.json()["kind"] == ("APIVersions" if path == "/api" else "APIGroupList")


def _watch_lines(server, path: str, until, timeout_seconds: int = 10) -> list[dict]:
    events = []
    with server.request(
        "GET", path + f"&timeoutSeconds={timeout_seconds}", stream=True, timeout=timeout_seconds + 10
    ) as r:
        assert r.status_code == 200, r.text
        assert r.headers["Content-Type"] == "application/json"
        assert r.headers.get("Transfer-Encoding") == "chunked"
        for line in r.iter_lines():
            if not line:
                continue
            events.append(json.loads(line))
            if until(events):
                break
    return events


def test_watch_list_initial_events_end_bookmark(server, ns):
    wait_for_root_ca(server, ns)  # so that it is one of the initial events, not one after the bookmark
    for name in ("w1", "w2", "w3"):
        assert post_cm(server, ns, name).status_code == 201
    path = (
        f"/api/v1/namespaces/{ns}/configmaps?watch=true&sendInitialEvents=true"
        "&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"
    )
    events = _watch_lines(server, path, lambda ev: ev[-1]["type"] == "BOOKMARK")
    initial = [(e["type"], e["object"]["metadata"]["name"]) for e in events[:-1]]
    assert sorted(initial) == [("ADDED", ROOT_CA_CONFIG_MAP), ("ADDED", "w1"), ("ADDED", "w2"), ("ADDED", "w3")]
    bookmark = events[-1]
    assert bookmark["type"] == "BOOKMARK"
    obj = bookmark["object"]
    assert obj["kind"] == "ConfigMap" and obj["apiVersion"] == "v1"
    assert obj["metadata"]["annotations"] == {"k8s.io/initial-events-end": "true"}
    assert int(obj["metadata"]["resourceVersion"]) >= max(
        int(e["object"]["metadata"]["resourceVersion"]) for e in events[:-1]
    )


def test_watch_list_empty_collection_still_bookmarks(server, ns):
    path = (
        f"/api/v1/namespaces/{ns}/secrets?watch=true&sendInitialEvents=true"
        "&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"
    )
    events = _watch_lines(server, path, lambda ev: ev[-1]["type"] == "BOOKMARK")
    assert len(events) == 1
    assert events[0]["object"]["metadata"]["annotations"] == {"k8s.io/initial-events-end": "true"}


def test_bookmarks_are_empty_objects_of_the_kind(server, ns):
    """The cacher's bookmark is an empty object of the kind: a built-in kind's Go zero value as encoding/json
    writes it, a custom resource's an Unstructured with its resourceVersion only (keys sorted)."""
    query = "?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"
    [event] = _watch_lines(server, f"/api/v1/namespaces/{ns}/pods{query}", lambda ev: ev[-1]["type"] == "BOOKMARK")
    obj = event["object"]
    assert list(obj) == ["kind", "apiVersion", "metadata", "spec", "status"]
    assert (obj["spec"], obj["status"]) == ({"containers": None}, {})
    assert list(obj["metadata"]) == ["resourceVersion", "creationTimestamp", "annotations"]
    group = "bookmarks.example.com"
    apply_crd(server, free_form_crd(group, "marks", "Mark"))
    [event] = _watch_lines(
        server, f"/apis/{group}/v1/namespaces/{ns}/marks{query}", lambda ev: ev[-1]["type"] == "BOOKMARK"
    )
    assert event["object"] == {
        "apiVersion": f"{group}/v1",
        "kind": "Mark",
        "metadata": {
            "annotations": {"k8s.io/initial-events-end": "true"},
            "resourceVersion": event["object"]["metadata"]["resourceVersion"],
        },
    }


def test_watch_list_requires_resource_version_match(server, ns):
    r = server.request("GET", f"/api/v1/namespaces/{ns}/configmaps?watch=true&sendInitialEvents=true")
    body = status_of(r, 422, "Invalid")
    assert "resourceVersionMatch" in body["message"]


def test_watch_list_off_with_its_feature_gate(server_factory):
    """--feature-gates=WatchList=false: a watch carrying sendInitialEvents is refused, as by kube-apiserver 1.33
    with its default gates (validateWatchOptions); the other gates are only reported."""
    srv = server_factory("--feature-gates=WatchList=false,SomeGate=true")
    path = "/api/v1/namespaces/default/configmaps?watch=true&sendInitialEvents=true"
    r = srv.request("GET", path)
    assert status_of(r, 422, "Invalid")["message"] == (
        'ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: sendInitialEvents requires '
        "setting resourceVersionMatch to NotOlderThan, sendInitialEvents: Forbidden: sendInitialEvents is "
        "forbidden for watch unless the WatchList feature gate is enabled]"
    )
    r = srv.request("GET", path.replace("=true&s", "=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=1&s"))
    assert status_of(r, 422, "Invalid")["details"]["causes"] == [
        {
            "reason": "FieldValueForbidden",
            "message": "Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled",
            "field": "sendInitialEvents",
        }
    ]
    log = srv.log_tail(200)
    assert "--feature-gates=SomeGate=true: not switchable here" in log and "WatchList=false" not in log


def test_watch_too_old_resource_version_via_http(server_factory):
    srv = server_factory("--default-watch-cache-size=5")
    srv.create_namespace("old")
    base = "/api/v1/namespaces/old/configmaps"
    old_rv = int(srv.request("GET", base).json()["metadata"]["resourceVersion"])
    for i in range(12):
        assert post_cm(srv, "old", f"c{i}").status_code == 201
    r = srv.request("GET", f"{base}?watch=true&resourceVersion={old_rv}&timeoutSeconds=5", stream=True)
    with r:
        if r.status_code == 410:
            status = r.json()
        else:
            assert r.status_code == 200, r.text[:300]
            first = json.loads(next(line for line in r.iter_lines() if line))
            assert first["type"] == "ERROR", first
            status = first["object"]
    assert status["kind"] == "Status" and status["apiVersion"] == "v1"
    assert status["code"] == 410 and status["reason"] == "Expired", status
    assert status["message"].startswith(f"too old resource version: {old_rv} ("), status
    # A list at that exact revision is served from storage history (the state then: empty), or 410 once compacted.
    r = srv.request("GET", f"{base}?resourceVersion={old_rv}&resourceVersionMatch=Exact")
    if r.status_code == 410:
        status_of(r, 410, "Expired")
    else:
        assert r.status_code == 200, r.text[:300]
        # (the namespace's kube-root-ca.crt, published by its controller, may already be there)
        assert without_root_ca(r.json()["items"]) == [] and r.json()["metadata"]["resourceVersion"] == str(old_rv)
    assert len(without_root_ca(srv.request("GET", base).json()["items"])) == 12


def test_anonymous_requests(server):
    r = server.anonymous("GET", "/api/v1/namespaces")
    body = status_of(r, 403, "Forbidden")
    assert body["message"] == (
        'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" '
        'in API group "" at the cluster scope'
    )
    assert body["details"] == {"kind": "namespaces"}
    assert list(body) == STATUS_KEYS
    for path in ("/healthz", "/livez", "/readyz"):
        r = server.anonymous("GET", path)
        assert r.status_code == 200 and r.text == "ok", (path, r.text)
    r = server.anonymous("GET", "/version")
    assert r.status_code == 200 and r.json()["major"] == "1"


def test_bad_bearer_token_is_401(server):
    r = server.anonymous("GET", "/api/v1/namespaces", headers={"Authorization": "Bearer not-a-real-token"})
    assert r.status_code == 401, r.text
    assert r.headers["Content-Type"] == "application/json"
    assert r.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": "Unauthorized",
        "reason": "Unauthorized",
        "code": 401,
    }
    # Even health endpoints refuse a request whose credentials fail.
    assert server.anonymous("GET", "/healthz", headers={"Authorization": "Bearer nope"}).status_code == 401


def test_get_list_resource_versions(server, ns):
    r = post_cm(server, ns, "rv")
    created_rv = int(r.json()["metadata"]["resourceVersion"])
    lst = server.request("GET", f"/api/v1/namespaces/{ns}/configmaps").json()
    assert lst["kind"] == "ConfigMapList" and lst["apiVersion"] == "v1"
    assert int(lst["metadata"]["resourceVersion"]) >= created_rv
    # resourceVersion=0: served from the cache, any freshness.
    r = server.request("GET", f"/api/v1/namespaces/{ns}/configmaps?resourceVersion=0")
    assert r.status_code == 200
    # A future revision is a timeout error, not a hang.
    future = int(lst["metadata"]["resourceVersion"]) + 1000
    r = server.request("GET", f"/api/v1/namespaces/{ns}/configmaps?resourceVersion={future}", timeout=15)
    assert r.status_code == 504, r.text
    assert r.json()["reason"] == "Timeout"
    # The same for one object, whatever the size of the number.
    r = server.request("GET", f"/api/v1/namespaces/{ns}/configmaps/rv?resourceVersion={future}", timeout=15)
    assert r.status_code == 504, r.text
    assert r.headers["retry-after"] == "1"
    body = r.json()
    assert body["reason"] == "Timeout" and body["message"].startswith("Timeout: Too large resource version: "), body
    assert body["details"]["causes"] == [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}]
    # A watch that starts with the state from there gets that Status inside a 200 stream, as an ERROR event
    # (the cacher's errWatcher); a plain watch from there waits for what comes
    # (test_watch_from_a_future_resource_version).
    watch_list = "?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan"
    r = server.request("GET", f"/api/v1/namespaces/{ns}/configmaps{watch_list}&resourceVersion={future}", timeout=15)
    assert r.status_code == 200, r.text
    [event] = [json.loads(line) for line in r.text.splitlines()]
    assert event["type"] == "ERROR" and event["object"]["code"] == 504, event
    assert event["object"]["message"].startswith("Timeout: Too large resource version: ")
    assert event["object"]["details"]["causes"] == body["details"]["causes"]
    # Not a number, or past a uint64: 400.
    for rv in ("9" * 30, "abc", "\u00b2", "-1"):
        for query in (f"/rv?resourceVersion={rv}", f"?resourceVersion={rv}", f"?watch=1&resourceVersion={rv}"):
            r = server.request("GET", f"/api/v1/namespaces/{ns}/configmaps{query}", timeout=15)
            assert r.status_code == 400, (query, r.text)
            reason = "value out of range" if rv.isascii() and rv.isdigit() else "invalid syntax"
            assert r.json()["message"] == (
                f'invalid resource version: resourceVersion: Invalid value: "{rv}": '
                f'strconv.ParseUint: parsing "{rv}": {reason}'
            ), r.text


def test_continue_tokens_the_server_cannot_use(server, ns):
    """storage.DecodeContinue's errors, answered as 400 "invalid continue token: ...": a zero revision, an
    empty start key, another encoding version, a key path.Clean would change, and no token at all."""

    def token(**fields) -> str:
        return base64.urlsafe_b64encode(json.dumps({"v": "meta.k8s.io/v1", "rv": 5, **fields}).encode()).decode()

    invalid = "invalid continue token: continue key is not valid"
    cases = [
        (token(rv=0, start="a"), f"{invalid}: incorrect encoded start resourceVersion (version meta.k8s.io/v1)"),
        (token(start=""), f"{invalid}: encoded start key empty (version meta.k8s.io/v1)"),
        (token(v="v2", start="a"), f"{invalid}: server does not recognize this encoded version v2"),
        (token(start="../a"), f"{invalid}: ../a"),
    ]
    for value, message in cases:
        r = server.request("GET", f"/api/v1/namespaces/{ns}/configmaps?limit=1&continue={value}")
        assert (r.status_code, r.json()["message"]) == (400, message)
    r = server.request("GET", f"/api/v1/namespaces/{ns}/configmaps?limit=1&continue=!!")
    assert r.status_code == 400 and r.json()["message"].startswith(f"{invalid}: "), r.text


def test_watch_from_a_future_resource_version(server, ns):
    """A plain watch from a resourceVersion the server has not reached is answered at once (200, no 504) and
    gets the events after that resourceVersion only, as kube's cacheWatcher sends them; no bookmark from
    before it either."""
    wait_for_root_ca(server, ns)  # made before the watch's resourceVersion, so no event of it comes
    rv = int(post_cm(server, ns, "base").json()["metadata"]["resourceVersion"])
    target = rv + 3
    created: list[tuple[str, int]] = []
    stop = threading.Event()

    def keep_creating() -> None:
        n = 0
        while not stop.wait(0.1) and n < 100:
            r = post_cm(server, ns, f"next-{n}")
            created.append((f"next-{n}", int(r.json()["metadata"]["resourceVersion"])))
            n += 1

    writer = threading.Thread(target=keep_creating, daemon=True)
    writer.start()
    try:
        path = f"/api/v1/namespaces/{ns}/configmaps?watch=1&allowWatchBookmarks=true&resourceVersion={target}"
        events = _watch_lines(server, path, lambda ev: ev[-1]["type"] == "ADDED")
    finally:
        stop.set()
        writer.join(10)
    assert [e["type"] for e in events] == ["ADDED"], events
    first = next(name for name, v in created if v > target)
    assert events[0]["object"]["metadata"]["name"] == first, (events, created, target)


def test_watch_without_initial_events_starts_at_the_current_revision(server, ns):
    # sendInitialEvents=false from resourceVersion "": no synthetic ADDED for what exists, no
    # initial-events-end bookmark; only what happens after the watch starts (KEP-3157).
    wait_for_root_ca(server, ns)  # made before the watch starts, so no event of it comes
    assert post_cm(server, ns, "before").status_code == 201
    path = (
        f"/api/v1/namespaces/{ns}/configmaps?watch=true&sendInitialEvents=false"
        "&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"
    )
    stop = threading.Event()

    def keep_creating() -> None:  # until the watcher has seen one: no guessing when the watch is open
        n = 0
        while not stop.wait(0.1) and n < 100:
            post_cm(server, ns, f"after-{n}")
            n += 1

    writer = threading.Thread(target=keep_creating, daemon=True)
    writer.start()
    try:
        events = _watch_lines(server, path, lambda ev: ev[-1]["type"] == "ADDED")
    finally:
        stop.set()
        writer.join(10)
    assert [e["type"] for e in events] == ["ADDED"], events
    assert events[0]["object"]["metadata"]["name"].startswith("after-"), events


def test_numbers_in_the_query_are_go_int64s(server, ns):
    """limit and timeoutSeconds are decoded as ListOptions (strconv.ParseInt) for a list and a watch alike: a
    value it refuses is a 400 with its words. "²" passes str.isdigit() but is no number; "٣" is a digit of
    another script; an empty value is no number either."""
    cases = [
        ("\u00b2", "invalid syntax"),
        ("\u0663", "invalid syntax"),
        ("abc", "invalid syntax"),
        ("", "invalid syntax"),
    ]
    cases.append(("9223372036854775808", "value out of range"))
    for param in ("limit", "timeoutSeconds"):
        for watch in ("", "&watch=1"):
            for value, why in cases:
                r = server.request("GET", f"/api/v1/namespaces/{ns}/configmaps?{param}={value}{watch}")
                assert r.status_code == 400, (param, value, watch, r.text)
                assert r.json()["message"] == f'strconv.ParseInt: parsing "{value}": {why}'
    r = server.request("GET", f"/api/v1/namespaces/{ns}/configmaps?limit=%2B1&timeoutSeconds=-5")
    assert r.status_code == 200 and r.json()["kind"] == "ConfigMapList"


def test_boolean_query_parameters_as_kube_decodes_them(server, ns):
    """watch, allowWatchBookmarks and sendInitialEvents are false only when absent, "0" or "false" (any case):
    ?watch with no value is a watch, as in kube-apiserver."""
    wait_for_root_ca(server, ns)  # one of the initial events, which then are exactly two ADDED
    server.request(
        "POST", f"/api/v1/namespaces/{ns}/configmaps", json={"metadata": {"name": "flags"}, "data": {"a": "b"}}
    )
    base = f"/api/v1/namespaces/{ns}/configmaps"
    for query in ("watch", "watch=1", "watch=yes", "watch=TRUE"):
        r = server.request("GET", f"{base}?{query}&timeoutSeconds=1")
        assert r.status_code == 200, (query, r.text)
        first = r.text.splitlines()[0]
        assert '"type":"ADDED"' in first, (query, first)
    for query in ("watch=0", "watch=false", "watch=False"):
        r = server.request("GET", f"{base}?{query}")
        assert r.json()["kind"] == "ConfigMapList", query
    # sendInitialEvents with an empty value is true, and so needs allowWatchBookmarks (also true when empty)
    r = server.request("GET", f"{base}?watch&sendInitialEvents&resourceVersionMatch=NotOlderThan&timeoutSeconds=1")
    assert r.status_code == 422, r.text
    assert r.json()["details"]["causes"][0]["field"] == "allowWatchBookmarks"
    r = server.request(
        "GET",
        f"{base}?watch&sendInitialEvents&allowWatchBookmarks&resourceVersionMatch=NotOlderThan&timeoutSeconds=1",
    )
    lines = [json.loads(x) for x in r.text.splitlines()]
    assert [e["type"] for e in lines][:3] == ["ADDED", "ADDED", "BOOKMARK"], lines
    assert sorted(e["object"]["metadata"]["name"] for e in lines[:2]) == ["flags", ROOT_CA_CONFIG_MAP]
    assert lines[2]["object"]["metadata"]["annotations"] == {"k8s.io/initial-events-end": "true"}


@pytest.mark.parametrize(
    ("name", "problem"),
    [("..", "may not be '..'"), (".", "may not be '.'"), ("a%25b", "may not contain '%'")],
)
def test_names_that_cannot_be_a_key_segment_are_a_400(server, ns, name, problem):
    """NamespaceKeyFunc: a name from the URL that cannot be a segment of the storage key is a bad request,
    whatever the verb."""
    shown = name.replace("%25", "%")
    for verb in ("get", "delete"):
        res = server.kubectl(verb, "--raw", f"/api/v1/namespaces/{ns}/configmaps/{name}", check=False)
        assert res.stderr.strip() == f'Error from server (BadRequest): Name parameter invalid: "{shown}": {problem}'


@pytest.mark.parametrize("accept", ["application/yaml", "application/yaml, application/json"])
def test_watch_cannot_be_yaml(server, ns, accept):
    """A watch is streamed as JSON (or protobuf): a first choice of YAML, which has no stream form, is a 406
    listing the stream media types (NegotiateOutputMediaTypeStream), itself written in YAML (ErrorNegotiated
    negotiates the Status as any object); a list may be YAML."""
    path = f"/api/v1/namespaces/{ns}/configmaps"
    r = server.request("GET", f"{path}?watch=1&timeoutSeconds=1", headers={"Accept": accept})
    assert (r.status_code, r.headers["Content-Type"]) == (406, "application/yaml")
    assert yaml.safe_load(r.text)["message"] == (
        "only the following media types are accepted: "
        "application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch"
    )
    r = server.request("GET", path, headers={"Accept": accept})
    assert r.status_code == 200 and r.headers["Content-Type"] == "application/yaml"


def test_cache_control(server, ns):
    """WithCacheControl: "no-cache, private" on every response whose handler sets none (errors and health
    too); aggregated discovery is public, with a strong ETag and 304 on a match."""
    for path in (f"/api/v1/namespaces/{ns}", "/api/v1/namespaces/x/configmaps/missing", "/version", "/readyz"):
        assert server.request("GET", path).headers["Cache-Control"] == "no-cache, private", path
    assert server.anonymous("GET", "/api/v1/namespaces").headers["Cache-Control"] == "no-cache, private"  # 401
    for path in ("/api", "/apis"):
        r = server.request("GET", path, headers={"Accept": KUBECTL_DISCOVERY_ACCEPT})
        assert r.status_code == 200 and r.headers["Cache-Control"] == "public"
        etag = r.headers["ETag"]
        assert etag.startswith('"') and etag.endswith('"') and len(etag) == 130  # sha512, hex
        again = server.request("GET", path, headers={"Accept": KUBECTL_DISCOVERY_ACCEPT, "If-None-Match": etag})
        assert (again.status_code, again.content, again.headers["ETag"]) == (304, b"", etag)
        stale = server.request("GET", path, headers={"Accept": KUBECTL_DISCOVERY_ACCEPT, "If-None-Match": '"x"'})
        assert stale.status_code == 200 and stale.json()["kind"] == "APIGroupDiscoveryList"


@pytest.mark.parametrize(
    ("agent", "query", "pretty"),
    [
        ("curl/8.5.0", "", True),
        ("Mozilla/5.0 (X11)", "", True),
        ("Wget/1.21", "", True),
        ("curl/8.5.0", "?pretty=false", False),
        ("kubectl/v1.33.0", "", False),
        ("kubectl/v1.33.0", "?pretty=true", True),
        ("python-requests/2.32", "?pretty=1", True),
    ],
)
def test_pretty_json_for_people(server, ns, agent, query, pretty):
    """isPrettyPrint: ?pretty, else a curl, Wget or browser User-Agent, gets JSON indented by two spaces
    (objects, lists and errors alike); other clients compact JSON. /version is always indented."""
    for path in (f"/api/v1/namespaces/{ns}", f"/api/v1/namespaces/{ns}/configmaps", f"/api/v1/namespaces/{ns}/pods/x"):
        r = server.request("GET", path + query, headers={"User-Agent": agent})
        assert r.content.startswith(b'{\n  "kind": ') == pretty, r.content[:40]
        assert int(r.headers["Content-Length"]) == len(r.content)
        r.json()
    assert server.request("GET", "/version", headers={"User-Agent": agent}).content.startswith(b'{\n  "major": "1"')


def test_partial_object_metadata_form_must_fit_the_answer(server, ns):
    """asPartialObjectMetadata(List): a list asked for as PartialObjectMetadata, or one object as
    PartialObjectMetadataList, is a 406 naming the internal type kube-apiserver holds."""
    pom = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
    pom_list = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
    r = server.request("GET", f"/api/v1/namespaces/{ns}/configmaps", headers={"Accept": pom})
    assert (r.status_code, r.json()["reason"], r.json()["message"]) == (
        406,
        "NotAcceptable",
        "you requested PartialObjectMetadata, but the requested object is a list (*core.ConfigMapList)",
    )
    r = server.request("GET", f"/apis/apps/v1/namespaces/{ns}/deployments", headers={"Accept": pom})
    assert r.json()["message"].endswith("(*apps.DeploymentList)")
    r = server.request("GET", f"/api/v1/namespaces/{ns}", headers={"Accept": pom_list})
    assert (r.status_code, r.json()["message"]) == (
        406,
        "you requested PartialObjectMetadataList, but the requested object is not a list (*core.Namespace)",
    )
    assert server.request("GET", f"/api/v1/namespaces/{ns}", headers={"Accept": pom}).json()["kind"] == (
        "PartialObjectMetadata"
    )

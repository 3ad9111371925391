"""What kube's CRD controllers and CRD validation do, end to end: NamesAccepted conflicts, API approval of
*.k8s.io groups, kube's validation messages, deprecated versions' warnings, selectable fields (field
selectors on list and watch, kubectl --field-selector), categories and names in kubectl, and a restart."""

from __future__ import annotations

import copy
import json
import time
import uuid

import pytest

CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
SCHEMA = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "properties": {
                "color": {"type": "string"},
                "size": {"type": "integer"},
                "on": {"type": "boolean"},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            },
        }
    },
}


def _crd(group: str, plural: str = "things", kind: str = "Thing", **names) -> dict:
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": {
            "group": group,
            "scope": "Namespaced",
            "names": {"plural": plural, "kind": kind, **names},
            "versions": [
                {"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": copy.deepcopy(SCHEMA)}}
            ],
        },
    }


def _group(prefix: str = "c") -> str:
    return f"{prefix}{uuid.uuid4().hex[:6]}.example.com"


def _conditions(server, name: str) -> dict:
    got = server.request("GET", f"{CRDS}/{name}").json()
    return {c["type"]: c for c in (got.get("status") or {}).get("conditions") or []}


def _wait_condition(server, name: str, type_: str, timeout: float = 5.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        conds = _conditions(server, name)
        if type_ in conds or time.monotonic() > deadline:
            return conds
        time.sleep(0.05)


def _create(server, crd: dict, *, established: bool = True) -> None:
    r = server.request("POST", CRDS, json=crd)
    assert r.status_code == 201, r.text
    if established:
        server.kubectl("wait", "--for", "condition=established", f"crd/{crd['metadata']['name']}", "--timeout=10s")


def _causes(r) -> dict[str, str]:
    assert r.status_code == 422, r.text
    return {c["field"]: c["message"] for c in r.json()["details"]["causes"]}


def _kubectl(server, tmp_path, *args, **kw):
    return server.kubectl("--cache-dir", str(tmp_path / f"cache-{uuid.uuid4().hex[:6]}"), *args, **kw)


# --- conditions ------------------------------------------------------------------------------------------


def test_names_conflicts_and_release(server):
    group = _group("n")
    _create(server, _crd(group, "alphas", "Alpha", shortNames=["al", "shared"]))
    # plural ok, kind ok, one short name taken: only that is reported, nothing served
    other = _crd(group, "betas", "Beta", shortNames=["shared", "be"])
    _create(server, other, established=False)
    conds = _wait_condition(server, f"betas.{group}", "NamesAccepted")
    assert conds["NamesAccepted"]["status"] == "False"
    assert conds["NamesAccepted"]["reason"] == "ShortNamesConflict"
    assert conds["NamesAccepted"]["message"] == '"shared" is already in use'
    assert conds["Established"]["status"] == "False"
    assert conds["Established"]["reason"] == "NotAccepted"
    assert conds["Established"]["message"] == "not all names are accepted"
    accepted = server.request("GET", f"{CRDS}/betas.{group}").json()["status"]["acceptedNames"]
    assert accepted["plural"] == "betas" and accepted["kind"] == "Beta"  # each name accepted on its own
    assert "shortNames" not in accepted
    assert server.request("GET", f"/apis/{group}/v1/betas").status_code == 404
    # a kind and a list kind taken: the last conflict found is the one reported
    third = _crd(group, "gammas", "Alpha", singular="alphas")
    _create(server, third, established=False)
    conds = _wait_condition(server, f"gammas.{group}", "NamesAccepted")
    assert conds["NamesAccepted"]["reason"] == "ListKindConflict"
    assert conds["NamesAccepted"]["message"] == '"AlphaList" is already in use'
    # deleting the first CRD frees its names: the others are accepted and established
    server.kubectl("delete", "crd", f"alphas.{group}")
    server.kubectl("wait", "--for", "condition=established", f"crd/betas.{group}", "--timeout=10s")
    conds = _conditions(server, f"betas.{group}")
    assert conds["NamesAccepted"] | {"lastTransitionTime": ""} == {
        "type": "NamesAccepted",
        "status": "True",
        "reason": "NoConflicts",
        "message": "no conflicts found",
        "lastTransitionTime": "",
    }
    assert conds["Established"]["reason"] == "InitialNamesAccepted"
    assert server.request("GET", f"/apis/{group}/v1/betas").status_code == 200
    server.kubectl("delete", "crd", f"betas.{group}", f"gammas.{group}")


def test_api_approval_of_protected_groups(server):
    group = f"p{uuid.uuid4().hex[:6]}.k8s.io"
    crd = _crd(group)
    r = server.request("POST", CRDS, json=crd)
    assert _causes(r) == {
        "metadata.annotations[api-approved.kubernetes.io]": "Required value: protected groups must have approval "
        'annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111'
    }
    crd["metadata"]["annotations"] = {"api-approved.kubernetes.io": "yes please"}
    assert _causes(server.request("POST", CRDS, json=crd)) == {
        "metadata.annotations[api-approved.kubernetes.io]": 'Invalid value: "yes please": protected groups must '
        'have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with '
        '"unapproved", see https://github.com/kubernetes/enhancements/pull/1111'
    }
    crd["metadata"]["annotations"] = {"api-approved.kubernetes.io": "https://github.com/kubernetes/kubernetes/pull/1"}
    _create(server, crd)
    cond = _wait_condition(server, f"things.{group}", "KubernetesAPIApprovalPolicyConformant")[
        "KubernetesAPIApprovalPolicyConformant"
    ]
    assert (cond["status"], cond["reason"], cond["message"]) == (
        "True",
        "ApprovedAnnotation",
        "approved in https://github.com/kubernetes/kubernetes/pull/1",
    )
    patch = {"metadata": {"annotations": {"api-approved.kubernetes.io": "unapproved, experimental"}}}
    r = server.request(
        "PATCH", f"{CRDS}/things.{group}", json=patch, headers={"Content-Type": "application/merge-patch+json"}
    )
    assert r.status_code == 200, r.text
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        cond = _conditions(server, f"things.{group}")["KubernetesAPIApprovalPolicyConformant"]
        if cond["reason"] == "UnapprovedAnnotation":
            break
        time.sleep(0.05)
    assert (cond["status"], cond["reason"], cond["message"]) == (
        "False",
        "UnapprovedAnnotation",
        'not approved: "unapproved, experimental"',
    )
    # a group outside the protected ones has no such condition
    other = _group()
    _create(server, _crd(other))
    assert "KubernetesAPIApprovalPolicyConformant" not in _conditions(server, f"things.{other}")
    server.kubectl("delete", "crd", f"things.{group}", f"things.{other}")


# --- validation ------------------------------------------------------------------------------------------


def _post(server, crd: dict):
    return server.request("POST", CRDS, json=crd, params={"dryRun": "All"})


def test_validation_of_names_and_versions(server):
    crd = _crd("v.example.com", "Things", "thing kind", shortNames=["ok", "Not OK"], listKind="thing kind")
    crd["metadata"]["name"] = "Things.v.example.com"
    crd["spec"]["versions"].append(dict(crd["spec"]["versions"][0]))
    crd["spec"]["versions"].append({**crd["spec"]["versions"][0], "name": "V2", "storage": False})
    causes = _causes(_post(server, crd))
    dns1035 = (
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
        "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
        "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
    )
    assert causes["spec.names.plural"] == f'Invalid value: "Things": {dns1035}'
    assert causes["spec.names.kind"] == (
        f'Invalid value: "thing kind": may have mixed case, but should otherwise match: {dns1035}'
    )
    assert causes["spec.names.listKind"] == 'Invalid value: "thing kind": kind and listKind may not be the same'
    assert causes["spec.names.shortNames[1]"] == f'Invalid value: "Not OK": {dns1035}'
    assert causes["spec.versions[2].name"] == f'Invalid value: "V2": {dns1035}'
    assert causes["spec.versions"].endswith(": must have exactly one version marked as storage version")
    messages = [c["message"] for c in _post(server, crd).json()["details"]["causes"] if c["field"] == "spec.versions"]
    assert any(m.endswith(": must contain unique version names") for m in messages)


def test_structural_schema_messages(server):
    crd = _crd(_group())
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"] = {
        "type": "object",
        "properties": {
            "spec": {"properties": {"a": {"type": "string"}}},
            "list": {"type": "array"},
            "metadata": {"type": "object", "properties": {"labels": {"type": "object"}}},
        },
        "anyOf": [{"properties": {"extra": {"type": "string"}}}],
    }
    causes = _causes(_post(server, crd))
    root = "spec.validation.openAPIV3Schema"  # one version: kube reports at its internal top-level schema
    assert causes[f"{root}.properties[spec].type"] == "Required value: must not be empty for specified object fields"
    assert causes[f"{root}.properties[list].items"] == "Required value: must be specified"
    assert causes[f"{root}.properties[metadata]"] == (
        "Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified"
    )
    assert causes[f"{root}.anyOf[0].properties[extra].type"] == "Forbidden: must be empty to be structural"
    assert causes[f"{root}.properties[extra]"] == (
        f"Required value: because it is defined in {root}.anyOf[0].properties[extra]"
    )
    # two versions with different schemas: each at its own path
    crd = _crd(_group())
    crd["spec"]["versions"].append(
        {"name": "v2", "served": True, "storage": False, "schema": {"openAPIV3Schema": {"properties": {}}}}
    )
    causes = _causes(_post(server, crd))
    assert causes == {"spec.versions[1].schema.openAPIV3Schema.type": "Required value: must not be empty at the root"}


def test_defaults_and_extensions(server):
    crd = _crd(_group())
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"] = {
        "type": "object",
        "properties": {
            "metadata": {"type": "object", "properties": {"name": {"type": "string", "default": "x"}}},
            "spec": {
                "type": "object",
                "properties": {
                    "n": {"type": "integer", "default": "three"},
                    "o": {"type": "object", "default": {"z": 1}, "properties": {"y": {"type": "string"}}},
                    "ports": {
                        "type": "array",
                        "x-kubernetes-list-type": "map",
                        "x-kubernetes-list-map-keys": ["port"],
                        "items": {"type": "object", "properties": {"port": {"type": "integer"}}},
                    },
                    "m": {"type": "string", "x-kubernetes-map-type": "granular"},
                    "u": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
                },
            },
        },
    }
    causes = _causes(_post(server, crd))
    root = "spec.validation.openAPIV3Schema"
    assert causes[f"{root}.properties[metadata].properties[name].default"] == (
        "Forbidden: must not be set in top-level metadata"
    )
    assert causes[f"{root}.properties[spec].properties[ports].items.properties[port].default"] == (
        "Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a "
        "required property"
    )
    assert causes[f"{root}.properties[spec].properties[m].type"] == (
        'Invalid value: "string": must be object if x-kubernetes-map-type is specified'
    )
    assert causes[f"{root}.properties[spec].properties[u].uniqueItems"] == (
        "Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic"
    )
    # defaults are checked once the schema is otherwise structural
    del crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["metadata"]
    spec = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
    for name in ("ports", "m", "u"):
        del spec[name]
    causes = _causes(_post(server, crd))
    assert causes[f"{root}.properties[spec].properties[n].default"] == (
        'Invalid value: "string":  in body must be of type integer: "string"'
    )
    assert causes[f"{root}.properties[spec].properties[o].default"] == (
        'Invalid value: map[string]interface {}{"z":1}: must not have unknown fields'
    )


def test_status_root_subresources_columns_and_deprecation(server):
    crd = _crd(_group())
    version = crd["spec"]["versions"][0]
    version["schema"]["openAPIV3Schema"]["nullable"] = True
    version["subresources"] = {"status": {}, "scale": {"specReplicasPath": "spec.n", "statusReplicasPath": ".spec.n"}}
    version["additionalPrinterColumns"] = [{"name": "X", "type": "text", "jsonPath": ".spec.color", "format": "blob"}]
    version["deprecationWarning"] = "please move"
    causes = _causes(_post(server, crd))
    allowed = (
        "[Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern "
        "MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields "
        "XValidations]"
    )
    assert causes["spec.validation.openAPIV3Schema"].endswith(
        f": only {allowed} fields are allowed at the root of the schema if the status subresource is enabled"
    )
    assert causes["spec.validation.openAPIV3Schema.nullable"] == "Forbidden: nullable cannot be true at the root"
    assert causes["spec.subresources.scale.specReplicasPath"] == (
        'Invalid value: "spec.n": must be a simple json path starting with .'
    )
    assert causes["spec.subresources.scale.statusReplicasPath"] == (
        'Invalid value: ".spec.n": should be a json path under .status'
    )
    assert causes["spec.additionalPrinterColumns[0].type"] == (
        'Invalid value: "text": must be one of boolean,date,integer,number,string'
    )
    assert causes["spec.additionalPrinterColumns[0].format"] == (
        'Invalid value: "blob": must be one of byte,date,date-time,double,float,int32,int64,password'
    )
    assert causes["spec.versions[0].deprecationWarning"] == (
        'Invalid value: "please move": can only be set for deprecated versions'
    )


def test_selectable_fields_validation(server):
    crd = _crd(_group())
    crd["spec"]["versions"][0]["selectableFields"] = [
        {"jsonPath": ".spec.color"},
        {"jsonPath": ".spec.labels"},
        {"jsonPath": ".spec.nothing"},
        {"jsonPath": "spec.color"},
        {"jsonPath": ".spec.color"},
        {"jsonPath": ""},
    ]
    causes = _causes(_post(server, crd))
    path = "spec.selectableFields"  # one version: hoisted like the schema
    assert causes == {
        f"{path}[1].jsonPath": 'Invalid value: ".spec.labels": must point to a field of type string, boolean or '
        "integer. Enum string fields and strings with formats are allowed.",
        f"{path}[2].jsonPath": 'Invalid value: ".spec.nothing": is an invalid path: does not refer to a valid field',
        f"{path}[3].jsonPath": 'Invalid value: "spec.color": is an invalid path: expected [ or . but got: spec',
        f"{path}[4].jsonPath": 'Duplicate value: ".spec.color"',
        f"{path}[5].jsonPath": "Required value",
    }


# --- serving ---------------------------------------------------------------------------------------------


@pytest.fixture
def things(server):
    group = _group("s")
    crd = _crd(group, categories=["all", "gizmos"], shortNames=["thg"])
    v1 = crd["spec"]["versions"][0]
    v1["selectableFields"] = [{"jsonPath": ".spec.color"}, {"jsonPath": ".spec.size"}, {"jsonPath": ".spec.on"}]
    v1["deprecated"] = True
    v2 = {**v1, "name": "v2", "storage": False, "deprecated": False}
    v1beta1 = {**v1, "name": "v1beta1", "storage": False, "deprecationWarning": "v1beta1 is going away"}
    crd["spec"]["versions"] += [v2, v1beta1]
    _create(server, crd)
    yield group
    server.request("DELETE", f"{CRDS}/things.{group}")


def _thing(group: str, name: str, version: str = "v1", **spec) -> dict:
    return {"apiVersion": f"{group}/{version}", "kind": "Thing", "metadata": {"name": name}, "spec": spec}


def test_deprecated_versions_warn(server, things, ns):
    base = f"/apis/{things}/v1/namespaces/{ns}/things"
    r = server.request("POST", base, json=_thing(things, "a", color="red"))
    assert r.status_code == 201
    default = f'299 - "{things}/v1 Thing is deprecated; use {things}/v2 Thing"'
    assert r.headers["Warning"] == default
    assert server.request("GET", f"{base}/a").headers["Warning"] == default
    assert server.request("GET", f"{base}/missing").headers["Warning"] == default  # errors too
    r = server.request("GET", f"/apis/{things}/v1beta1/namespaces/{ns}/things")
    assert r.headers["Warning"] == '299 - "v1beta1 is going away"'
    assert "Warning" not in server.request("GET", f"/apis/{things}/v2/namespaces/{ns}/things").headers
    res = server.kubectl("get", f"things.v1.{things}", "-n", ns, "a")
    assert f"Warning: {things}/v1 Thing is deprecated; use {things}/v2 Thing" in res.stderr


def test_field_selectors_list_watch_and_kubectl(server, things, ns, tmp_path):
    base = f"/apis/{things}/v1/namespaces/{ns}/things"
    for name, spec in (
        ("a", {"color": "red", "size": 1, "on": True}),
        ("b", {"color": "blue", "size": 2}),
        ("c", {"color": "red", "size": 3, "on": False}),
    ):
        assert server.request("POST", base, json=_thing(things, name, **spec)).status_code == 201

    def names(selector: str) -> list[str]:
        r = server.request("GET", base, params={"fieldSelector": selector})
        assert r.status_code == 200, r.text
        return [i["metadata"]["name"] for i in r.json()["items"]]

    assert names("spec.color=red") == ["a", "c"]
    assert names("spec.size=2") == ["b"]
    assert names("spec.on=true") == ["a"]
    assert names("spec.on!=true") == ["b", "c"]  # an absent field selects as ""
    assert names("spec.color=red,metadata.name!=a") == ["c"]
    assert names(f"metadata.namespace={ns}") == ["a", "b", "c"]
    r = server.request("GET", base, params={"fieldSelector": "spec.shape=round"})
    assert r.status_code == 400
    assert r.json()["message"] == "field label not supported: spec.shape"
    assert r.json()["reason"] == "BadRequest"
    # watch: only the selected objects' events
    rv = server.request("GET", base).json()["metadata"]["resourceVersion"]
    with server.request(
        "GET",
        base,
        params={"watch": "1", "fieldSelector": "spec.color=green", "resourceVersion": rv, "timeoutSeconds": "2"},
        stream=True,
    ) as w:
        server.request("POST", base, json=_thing(things, "d", color="green"))
        server.request("POST", base, json=_thing(things, "e", color="red"))
        events = [json.loads(line) for line in w.iter_lines() if line]
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [("ADDED", "d")]
    out = _kubectl(server, tmp_path, "get", "thg", "-n", ns, "--field-selector", "spec.color=red", "-o", "name")
    assert out.stdout.split() == [f"thing.{things}/a", f"thing.{things}/c", f"thing.{things}/e"]
    bad = _kubectl(server, tmp_path, "get", "things", "-n", ns, "--field-selector", "spec.shape=x", check=False)
    assert bad.returncode != 0
    assert "field label not supported: spec.shape" in bad.stderr


def test_categories_and_names_in_kubectl(server, things, ns, tmp_path):
    base = f"/apis/{things}/v2/namespaces/{ns}/things"
    assert server.request("POST", base, json=_thing(things, "one", "v2", color="red")).status_code == 201
    server.kubectl("create", "configmap", "cm", "-n", ns)
    out = _kubectl(server, tmp_path, "get", "all", "-n", ns, "-o", "name").stdout.split()
    assert f"thing.{things}/one" in out
    assert "configmap/cm" not in out  # configmaps are not in "all"
    assert _kubectl(server, tmp_path, "get", "gizmos", "-n", ns, "-o", "name").stdout.split() == [f"thing.{things}/one"]
    for name in ("thg", "thing", "things", f"things.{things}", f"thing.{things}"):
        got = _kubectl(server, tmp_path, "get", name, "one", "-n", ns, "-o", "name").stdout.strip()
        assert got == f"thing.{things}/one", name


def test_restart_reinstalls_routes(server_factory, tmp_path):
    srv = server_factory()
    group = _group("r")
    crd = _crd(group, shortNames=["rth"])
    crd["spec"]["versions"][0]["selectableFields"] = [{"jsonPath": ".spec.color"}]
    _create(srv, crd)
    r = srv.request("POST", f"/apis/{group}/v1/namespaces/default/things", json=_thing(group, "x", color="red"))
    assert r.status_code == 201
    srv.restart()
    r = srv.request("GET", f"/apis/{group}/v1/namespaces/default/things", params={"fieldSelector": "spec.color=red"})
    assert r.status_code == 200, r.text
    assert [i["metadata"]["name"] for i in r.json()["items"]] == ["x"]
    assert _kubectl(srv, tmp_path, "get", "rth", "x", "-o", "name").stdout.strip() == f"thing.{group}/x"
    index = srv.request("GET", "/openapi/v3").json()["paths"]
    assert f"apis/{group}/v1" in index
    conds = _conditions(srv, f"things.{group}")
    assert conds["Established"]["status"] == "True"


def test_custom_resource_finalizers_without_a_path_are_warned_about(server, things, ns):
    base = f"/apis/{things}/v2/namespaces/{ns}/things"
    body = _thing(things, "fin", "v2", color="red")
    body["metadata"]["finalizers"] = ["example.com/ok", "plain-finalizer"]
    r = server.request("POST", base, json=body)
    assert r.status_code == 201, r.text  # unlike built-in kinds, not an error
    assert r.headers["Warning"] == (
        '299 - "metadata.finalizers: \\"plain-finalizer\\": prefer a domain-qualified finalizer name including a '
        'path (/) to avoid accidental conflicts with other finalizer writers"'
    )
    patch = {"metadata": {"finalizers": None}}
    r = server.request("PATCH", f"{base}/fin", json=patch, headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 200 and "Warning" not in r.headers

"""Validation of API Priority and Fairness objects as users meet it: a bad PriorityLevelConfiguration or
FlowSchema gets kube-apiserver 1.33's 422 Invalid, on create and on update, with its message; good ones
and the bootstrap configuration still go through, and the mandatory objects keep their spec.

The shared server's bootstrap objects are listed by other tests: every object made here is deleted
again, and changes to the mandatory ones are dry runs.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
import yaml
from e2e_helpers import invalid_status, kubectl_refused

FC = "/apis/flowcontrol.apiserver.k8s.io/v1"
API_VERSION = "flowcontrol.apiserver.k8s.io/v1"
MERGE = {"Content-Type": "application/merge-patch+json"}


def _name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


def _level(name: str, **limited: Any) -> dict[str, Any]:
    spec_limited = {
        "nominalConcurrencyShares": 5,
        "limitResponse": {"type": "Queue", "queuing": {"queues": 16, "handSize": 4, "queueLengthLimit": 20}},
    }
    spec_limited.update(limited)
    return {
        "apiVersion": API_VERSION,
        "kind": "PriorityLevelConfiguration",
        "metadata": {"name": name},
        "spec": {"type": "Limited", "limited": spec_limited},
    }


def _schema(name: str, level: str, **spec: Any) -> dict[str, Any]:
    obj = {
        "apiVersion": API_VERSION,
        "kind": "FlowSchema",
        "metadata": {"name": name},
        "spec": {
            "priorityLevelConfiguration": {"name": level},
            "matchingPrecedence": 7000,
            "distinguisherMethod": {"type": "ByUser"},
            "rules": [
                {
                    "subjects": [{"kind": "User", "user": {"name": "validation-e2e-nobody"}}],
                    "resourceRules": [
                        {"verbs": ["get", "list"], "apiGroups": [""], "resources": ["configmaps"], "namespaces": ["*"]}
                    ],
                }
            ],
        },
    }
    obj["spec"].update(spec)
    return obj


@pytest.fixture
def made(server):
    """(resource, name) of the objects a test made; deleted at its end whatever happened."""
    objects: list[tuple[str, str]] = []
    yield objects
    for resource, name in objects:
        server.request("DELETE", f"{FC}/{resource}/{name}")


# --- the bootstrap configuration ---


def test_bootstrap_objects_listed_and_accepted_unchanged(server) -> None:
    schemas = server.kubectl("get", "flowschemas", "-o", "name").stdout.split()
    assert {
        "flowschema.flowcontrol.apiserver.k8s.io/exempt",
        "flowschema.flowcontrol.apiserver.k8s.io/catch-all",
    } <= set(schemas)
    levels = server.kubectl("get", "prioritylevelconfigurations").stdout
    assert "exempt" in levels and "catch-all" in levels and "global-default" in levels
    # every bootstrap object passes validation as it is (a dry-run update of the stored object)
    for resource, kind in (
        ("flowschemas", "FlowSchema"),
        ("prioritylevelconfigurations", "PriorityLevelConfiguration"),
    ):
        for item in server.request("GET", f"{FC}/{resource}").json()["items"]:
            item.update(apiVersion=API_VERSION, kind=kind)
            name = item["metadata"]["name"]
            r = server.request("PUT", f"{FC}/{resource}/{name}?dryRun=All", json=item)
            assert r.status_code == 200, (name, r.text)


# --- PriorityLevelConfiguration ---


def test_bad_priority_level_refused_on_create(server, made) -> None:
    name = _name("bogus-level")
    made.append(("prioritylevelconfigurations", name))
    bogus = _level(name)
    bogus["spec"]["type"] = "bogus"
    err = kubectl_refused(server, "create", bogus)
    assert (
        f'The PriorityLevelConfiguration "{name}" is invalid: spec.type: Unsupported value: "bogus": '
        'supported values: "Exempt", "Limited"' in err
    )
    empty = _level(name)
    empty["spec"]["type"] = ""
    status = invalid_status(server.request("POST", f"{FC}/prioritylevelconfigurations", json=empty))
    assert status["message"] == (
        f'PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io "{name}" is invalid: spec.type: Unsupported value: '
        '"": supported values: "Exempt", "Limited"'
    )
    assert status["details"]["causes"] == [
        {
            "reason": "FieldValueNotSupported",
            "message": 'Unsupported value: "": supported values: "Exempt", "Limited"',
            "field": "spec.type",
        }
    ]
    assert server.request("GET", f"{FC}/prioritylevelconfigurations/{name}").status_code == 404


def test_bad_priority_level_refused_on_update(server, made) -> None:
    name = _name("team-level")
    made.append(("prioritylevelconfigurations", name))
    server.kubectl("apply", "-f", "-", input=yaml.safe_dump(_level(name)))
    assert name in server.kubectl("get", "prioritylevelconfigurations", name).stdout

    too_big = _level(name, limitResponse={"type": "Queue", "queuing": {"queues": 16, "handSize": 17}})
    err = kubectl_refused(server, "apply", too_big)
    assert (
        f'The PriorityLevelConfiguration "{name}" is invalid: spec.limited.limitResponse.queuing.handSize: '
        "Invalid value: 17: should not be greater than queues (16)" in err
    )

    current = server.request("GET", f"{FC}/prioritylevelconfigurations/{name}").json()
    current["spec"]["type"] = "bogus"
    status = invalid_status(server.request("PUT", f"{FC}/prioritylevelconfigurations/{name}", json=current))
    assert status["message"] == (
        f'PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io "{name}" is invalid: spec.type: Unsupported value: '
        '"bogus": supported values: "Exempt", "Limited"'
    )

    patch = {"spec": {"limited": {"lendablePercent": 150, "limitResponse": {"type": "Reject", "queuing": None}}}}
    status = invalid_status(
        server.request("PATCH", f"{FC}/prioritylevelconfigurations/{name}", data=json.dumps(patch), headers=MERGE)
    )
    assert status["details"]["causes"] == [
        {
            "reason": "FieldValueInvalid",
            "message": "Invalid value: 150: must be between 0 and 100, inclusive",
            "field": "spec.limited.lendablePercent",
        }
    ]
    # nothing of that was stored; a good change is
    stored = server.request("GET", f"{FC}/prioritylevelconfigurations/{name}").json()
    assert stored["spec"]["type"] == "Limited" and stored["spec"]["limited"]["lendablePercent"] == 0
    ok = {"spec": {"limited": {"lendablePercent": 50, "limitResponse": {"type": "Reject", "queuing": None}}}}
    r = server.request("PATCH", f"{FC}/prioritylevelconfigurations/{name}", data=json.dumps(ok), headers=MERGE)
    assert r.status_code == 200, r.text
    assert r.json()["spec"]["limited"]["limitResponse"] == {"type": "Reject"}


# --- FlowSchema ---


def test_bad_flow_schema_refused_on_create(server, made) -> None:
    name = _name("bogus-schema")
    made.append(("flowschemas", name))
    err = kubectl_refused(server, "create", _schema(name, "global-default", distinguisherMethod={"type": "ByGroup"}))
    assert (
        f'The FlowSchema "{name}" is invalid: spec.distinguisherMethod.type: Unsupported value: '
        'flowcontrol.FlowDistinguisherMethod{Type:"ByGroup"}: supported values: "ByNamespace", "ByUser"' in err
    )
    status = invalid_status(
        server.request("POST", f"{FC}/flowschemas", json=_schema(name, "global-default", matchingPrecedence=1))
    )
    assert status["message"] == (
        f'FlowSchema.flowcontrol.apiserver.k8s.io "{name}" is invalid: spec.matchingPrecedence: Invalid value: 1: '
        "only the schema named 'exempt' may have matchingPrecedence 1"
    )
    no_subjects = _schema(name, "")
    no_subjects["spec"]["rules"][0]["subjects"] = []
    status = invalid_status(server.request("POST", f"{FC}/flowschemas", json=no_subjects))
    assert status["details"]["causes"] == [
        {
            "reason": "FieldValueRequired",
            "message": "Required value: must reference a priority level",
            "field": "spec.priorityLevelConfiguration.name",
        },
        {
            "reason": "FieldValueRequired",
            "message": "Required value: subjects must contain at least one value",
            "field": "spec.rules[0].subjects",
        },
    ]
    assert server.request("GET", f"{FC}/flowschemas/{name}").status_code == 404


def test_bad_flow_schema_refused_on_update(server, made) -> None:
    name = _name("team-schema")
    made.append(("flowschemas", name))
    good = _schema(name, "global-default")
    server.kubectl("apply", "-f", "-", input=yaml.safe_dump(good))
    rows = server.kubectl("get", "flowschemas", name).stdout
    assert name in rows and "global-default" in rows

    bad = json.loads(json.dumps(good))
    bad["spec"]["rules"][0]["resourceRules"][0]["verbs"] = ["get", "fetch"]
    err = kubectl_refused(server, "apply", bad)
    assert (
        f'The FlowSchema "{name}" is invalid: spec.rules[0].resourceRules[0].verbs: Unsupported value: '
        '[]string{"get", "fetch"}: supported values: "create", "delete", "deletecollection", "get", "list", '
        '"patch", "proxy", "update", "watch"' in err
    )

    current = server.request("GET", f"{FC}/flowschemas/{name}").json()
    current["spec"]["rules"][0]["nonResourceRules"] = [{"verbs": ["get"], "nonResourceURLs": ["/metrics*"]}]
    status = invalid_status(server.request("PUT", f"{FC}/flowschemas/{name}", json=current))
    assert status["message"] == (
        f'FlowSchema.flowcontrol.apiserver.k8s.io "{name}" is invalid: spec.rules[0].nonResourceRules[0]'
        '.nonResourceURLs[0]: Invalid value: "/metrics*": wildcard can only do suffix matching'
    )
    # a good change goes through
    patch = {"spec": {"matchingPrecedence": 7100}}
    r = server.request("PATCH", f"{FC}/flowschemas/{name}", data=json.dumps(patch), headers=MERGE)
    assert r.status_code == 200, r.text
    assert r.json()["spec"]["matchingPrecedence"] == 7100


# --- the mandatory objects (dry runs: the shared server keeps its configuration) ---


def test_mandatory_objects_keep_their_spec(server) -> None:
    patch = {"spec": {"limited": {"nominalConcurrencyShares": 50}}}
    r = server.request(
        "PATCH", f"{FC}/prioritylevelconfigurations/catch-all?dryRun=All", data=json.dumps(patch), headers=MERGE
    )
    message = invalid_status(r)["message"]
    assert message.startswith(
        'PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io "catch-all" is invalid: spec: Invalid value: '
        'flowcontrol.PriorityLevelConfigurationSpec{Type:"Limited", '
        "Limited:(*flowcontrol.LimitedPriorityLevelConfiguration)(0xc"
    )
    assert message.endswith(
        "Exempt:(*flowcontrol.ExemptPriorityLevelConfiguration)(nil)}: spec of 'catch-all' must equal the fixed value"
    )

    r = server.request(
        "PATCH",
        f"{FC}/flowschemas/exempt?dryRun=All",
        data=json.dumps({"spec": {"matchingPrecedence": 2}}),
        headers=MERGE,
    )
    message = invalid_status(r)["message"]
    assert message.startswith(
        'FlowSchema.flowcontrol.apiserver.k8s.io "exempt" is invalid: spec: Invalid value: flowcontrol.FlowSchemaSpec{'
    )
    assert message.endswith("spec of 'exempt' must equal the fixed value")

    # the exempt level's exempt section is the operator's to tune
    patch = {"spec": {"exempt": {"nominalConcurrencyShares": 10, "lendablePercent": 20}}}
    r = server.request(
        "PATCH", f"{FC}/prioritylevelconfigurations/exempt?dryRun=All", data=json.dumps(patch), headers=MERGE
    )
    assert r.status_code == 200, r.text
    assert r.json()["spec"]["exempt"] == {"nominalConcurrencyShares": 10, "lendablePercent": 20}
    patch = {"spec": {"exempt": {"lendablePercent": 101}}}
    r = server.request(
        "PATCH", f"{FC}/prioritylevelconfigurations/exempt?dryRun=All", data=json.dumps(patch), headers=MERGE
    )
    assert invalid_status(r)["details"]["causes"] == [
        {
            "reason": "FieldValueInvalid",
            "message": "Invalid value: 101: must be between 0 and 100, inclusive",
            "field": "spec.exempt.lendablePercent",
        }
    ]
    stored = server.request("GET", f"{FC}/prioritylevelconfigurations/exempt").json()
    assert stored["spec"]["exempt"] == {"nominalConcurrencyShares": 0, "lendablePercent": 0}

"""x-kubernetes-validations end to end: a CRD with CEL rules applied with kubectl, custom resources
accepted and rejected with kube's messages, a transition rule, messageExpression, and CRDs refused for
rules that do not compile or cost too much."""

from __future__ import annotations

import json
import uuid

import pytest


def _crd(group: str, spec_schema: dict) -> dict:
    schema = {
        "type": "object",
        "properties": {
            "spec": spec_schema,
            "status": {
                "type": "object",
                "properties": {"phase": {"type": "string", "maxLength": 20}},
                "x-kubernetes-validations": [{"rule": "self.phase != 'Broken'", "message": "phase may not be Broken"}],
            },
        },
    }
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"scalers.{group}"},
        "spec": {
            "group": group,
            "scope": "Namespaced",
            "names": {"plural": "scalers", "singular": "scaler", "kind": "Scaler"},
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": schema},
                    "subresources": {"status": {}},
                }
            ],
        },
    }


SPEC = {
    "type": "object",
    "properties": {
        "replicas": {"type": "integer"},
        "maxReplicas": {"type": "integer"},
        "mode": {
            "type": "string",
            "maxLength": 10,
            "x-kubernetes-validations": [
                {"rule": "self == oldSelf", "message": "mode is immutable"},
            ],
        },
        "memory": {"type": "string", "maxLength": 20},
        "name": {"type": "string", "maxLength": 63},
    },
    "x-kubernetes-validations": [
        {"rule": "self.replicas <= self.maxReplicas", "message": "replicas must not exceed maxReplicas"},
        {
            "rule": "!has(self.memory) || quantity(self.memory).isLessThan(quantity('1Gi'))",
            "messageExpression": "'memory ' + self.memory + ' is too much'",
        },
        {
            "rule": "!has(self.name) || self.name.startsWith('x-')",
            "fieldPath": ".name",
            "reason": "FieldValueForbidden",
        },
        {"rule": "self.maxReplicas < 100"},
    ],
}


@pytest.fixture(scope="module")
def scalers(server):
    group = f"c{uuid.uuid4().hex[:6]}.example.com"
    crd = _crd(group, SPEC)
    server.kubectl("apply", "-f", "-", input=json.dumps(crd))
    server.kubectl("wait", "--for", "condition=established", f"crd/scalers.{group}", "--timeout=10s")
    yield group
    server.kubectl("delete", "crd", f"scalers.{group}", "--wait=false", check=False)


def _cr(group: str, name: str, spec: dict) -> str:
    return json.dumps({"apiVersion": f"{group}/v1", "kind": "Scaler", "metadata": {"name": name}, "spec": spec})


def test_valid_resource_is_accepted(server, ns, scalers):
    res = server.kubectl("-n", ns, "apply", "-f", "-", input=_cr(scalers, "ok", {"replicas": 2, "maxReplicas": 3}))
    assert "created" in res.stdout


def test_rule_failures_are_reported_together(server, ns, scalers):
    spec = {"replicas": 500, "maxReplicas": 300, "memory": "2Gi", "name": "bad"}
    res = server.kubectl("-n", ns, "apply", "-f", "-", input=_cr(scalers, "bad", spec), check=False)
    assert res.returncode != 0
    assert (
        'The Scaler "bad" is invalid: \n'
        '* spec: Invalid value: "object": replicas must not exceed maxReplicas\n'
        '* spec: Invalid value: "object": memory 2Gi is too much\n'
        "* spec.name: Forbidden: failed rule: !has(self.name) || self.name.startsWith('x-')\n"
        '* spec: Invalid value: "object": failed rule: self.maxReplicas < 100\n'
    ) in res.stderr


def test_status_cause_fields(server, ns, scalers):
    body = json.loads(_cr(scalers, "viaapi", {"replicas": 3, "maxReplicas": 1}))
    r = server.request("POST", f"/apis/{scalers}/v1/namespaces/{ns}/scalers", json=body)
    assert r.status_code == 422
    status = r.json()
    assert status["reason"] == "Invalid"
    assert status["message"] == (
        "Scaler."
        + scalers
        + ' "viaapi" is invalid: spec: Invalid value: "object": replicas must not exceed maxReplicas'
    )
    assert status["details"]["causes"] == [
        {
            "reason": "FieldValueInvalid",
            "message": 'Invalid value: "object": replicas must not exceed maxReplicas',
            "field": "spec",
        }
    ]


def test_transition_rule_with_old_self(server, ns, scalers):
    server.kubectl(
        "-n", ns, "apply", "-f", "-", input=_cr(scalers, "t", {"replicas": 1, "maxReplicas": 2, "mode": "fast"})
    )
    res = server.kubectl(
        "-n", ns, "patch", "scaler", "t", "--type=merge", "-p", '{"spec":{"mode":"slow"}}', check=False
    )
    assert res.returncode != 0
    assert res.stderr == 'The Scaler "t" is invalid: spec.mode: Invalid value: "string": mode is immutable\n'
    # other fields may change; the unchanged mode passes its transition rule
    server.kubectl("-n", ns, "patch", "scaler", "t", "--type=merge", "-p", '{"spec":{"replicas":2}}')


def test_status_subresource_rules(server, ns, scalers):
    server.kubectl("-n", ns, "apply", "-f", "-", input=_cr(scalers, "s", {"replicas": 1, "maxReplicas": 2}))
    res = server.kubectl(
        "-n", ns, "patch", "scaler", "s", "--subresource=status", "--type=merge",
        "-p", '{"status":{"phase":"Broken"}}', check=False,
    )  # fmt: skip
    assert res.returncode != 0
    assert 'status: Invalid value: "object": phase may not be Broken' in res.stderr


def test_crd_with_a_rule_that_does_not_compile_is_refused(server):
    group = f"c{uuid.uuid4().hex[:6]}.example.com"
    spec = {
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        "x-kubernetes-validations": [{"rule": "self.b > 1"}],
    }
    res = server.kubectl("apply", "-f", "-", input=json.dumps(_crd(group, spec)), check=False)
    assert res.returncode != 0
    assert (
        f'The CustomResourceDefinition "scalers.{group}" is invalid: '
        "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: "
        'apiextensions.ValidationRule{Rule:"self.b > 1", Message:"", MessageExpression:"", '
        'Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: '
        "compilation failed: ERROR: <input>:1:5: undefined field 'b'\n"
        " | self.b > 1\n"
        " | ....^"
    ) in res.stderr


def test_crd_with_too_expensive_rule_is_refused(server):
    group = f"c{uuid.uuid4().hex[:6]}.example.com"
    spec = {
        "type": "object",
        "properties": {"items": {"type": "array", "items": {"type": "string"}}},
        "x-kubernetes-validations": [{"rule": "self.items.all(a, self.items.all(b, a != b || a == b))"}],
    }
    res = server.kubectl("apply", "-f", "-", input=json.dumps(_crd(group, spec)), check=False)
    assert res.returncode != 0
    assert (
        "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Forbidden: "
        "estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding "
        "maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"
    ) in res.stderr


def test_blocking_schema_errors_stop_the_rules(server, ns, scalers):
    """hasBlockingErr: a value too long (or of the wrong type, outside its enum, missing, too many) means the
    rules would read an object of another shape: they do not run, and one cause says so."""
    body = json.loads(_cr(scalers, "blocked", {"replicas": 5, "maxReplicas": 1, "mode": "far-too-long-mode"}))
    r = server.request("POST", f"/apis/{scalers}/v1/namespaces/{ns}/scalers", json=body)
    assert r.status_code == 422, r.text
    causes = [(c["reason"], c.get("field"), c["message"]) for c in r.json()["details"]["causes"]]
    assert causes == [
        ("FieldValueTooLong", "spec.mode", "Too long: may not be more than 10 bytes"),
        (
            "FieldValueInvalid",
            "<nil>",
            'Invalid value: "null": some validation rules were not checked because the object was invalid; '
            "correct the existing errors to complete validation",
        ),
    ]

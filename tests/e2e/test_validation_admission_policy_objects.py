"""ValidatingAdmissionPolicy(Binding) validation as users meet it: kubectl and raw requests get
kube-apiserver's 422 Invalid with its field paths and messages on create and on update, CEL expressions
included, and well-formed policies and bindings are accepted.

The policies are cluster-scoped and the server is shared: each test uses its own names and removes
what it made."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
import yaml
from e2e_helpers import invalid_status, kubectl_refused

BASE = "/apis/admissionregistration.k8s.io/v1"
POLICIES = f"{BASE}/validatingadmissionpolicies"
BINDINGS = f"{BASE}/validatingadmissionpolicybindings"
SYNTAX_ERROR = (
    "ERROR: <input>:1:4: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', "
    "'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | 1 +\n | ...^"
)


def policy(name: str, **spec: Any) -> dict[str, Any]:
    """A valid policy on a resource nothing else uses, with spec's fields replaced."""
    body: dict[str, Any] = {
        "failurePolicy": "Fail",
        "matchConstraints": {
            "resourceRules": [
                {
                    "apiGroups": ["e2e.example.com"],
                    "apiVersions": ["v1"],
                    "operations": ["CREATE"],
                    "resources": ["widgets"],
                }
            ]
        },
        "validations": [{"expression": "object.spec.size < 10", "message": "too big"}],
    }
    body.update(spec)
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": name},
        "spec": body,
    }


def binding(name: str, **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"policyName": "e2e-vap-unused", "validationActions": ["Deny"]}
    body.update(spec)
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": name},
        "spec": body,
    }


@pytest.fixture
def cleanup(server):
    made: list[str] = []
    yield made
    for path in made:
        server.request("DELETE", path)


def _causes(status: dict[str, Any]) -> list[str]:
    return [f"{c['field']}: {c['message']}" for c in status["details"]["causes"]]


def test_the_reported_policy_is_refused(server) -> None:
    obj = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "e2e-vap-reported"},
        "spec": {"validations": [{"expression": "1 +"}]},
    }
    err = kubectl_refused(server, "create", obj)
    assert 'The ValidatingAdmissionPolicy "e2e-vap-reported" is invalid:' in err
    assert "spec.matchConstraints: Required value" in err
    assert 'spec.validations[0].expression: Invalid value: "1 +": compilation failed: ' + SYNTAX_ERROR in err
    status = invalid_status(server.request("POST", POLICIES, json=obj))
    # failurePolicy is defaulted to Fail, so only these two remain
    assert _causes(status) == [
        "spec.matchConstraints: Required value",
        'spec.validations[0].expression: Invalid value: "1 +": compilation failed: ' + SYNTAX_ERROR,
    ]
    assert status["message"].startswith(
        'ValidatingAdmissionPolicy.admissionregistration.k8s.io "e2e-vap-reported" is invalid: '
        "[spec.matchConstraints: Required value, spec.validations[0].expression: Invalid value: "
    )
    assert server.request("GET", f"{POLICIES}/e2e-vap-reported").status_code == 404


def test_typed_cel_errors_on_create(server) -> None:
    obj = policy(
        "e2e-vap-types",
        paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
        matchConditions=[{"name": "only-named", "expression": "object.metadata.name"}],
        validations=[
            {"expression": "object.spec.size", "messageExpression": "authorizer.path('/x').check('get').reason()"},
            {"expression": "request.nope == 'x'", "reason": "Teapot"},
        ],
        auditAnnotations=[{"key": "size", "valueExpression": "object.spec.size + 1"}],
    )
    status = invalid_status(server.request("POST", POLICIES, json=obj))
    assert _causes(status) == [
        'spec.matchConditions[0].expression: Invalid value: "object.metadata.name": must evaluate to bool but got dyn',
        'spec.validations[0].expression: Invalid value: "object.spec.size": must evaluate to bool but got dyn',
        "spec.validations[0].messageExpression: Invalid value: \"authorizer.path('/x').check('get').reason()\": "
        "compilation failed: ERROR: <input>:1:1: undeclared reference to 'authorizer' (in container '')\n"
        " | authorizer.path('/x').check('get').reason()\n | ^",
        "spec.validations[1].expression: Invalid value: \"request.nope == 'x'\": compilation failed: ERROR: "
        "<input>:1:8: undefined field 'nope'\n | request.nope == 'x'\n | .......^",
        'spec.validations[1].reason: Unsupported value: "Teapot": supported values: "Forbidden", "Invalid", '
        '"RequestEntityTooLarge"',
        'spec.auditAnnotations[0].valueExpression: Invalid value: "object.spec.size + 1": must evaluate to one of '
        "[string null_type] but got int",
    ]


def test_valid_policy_accepted_and_bad_update_refused(server, cleanup) -> None:
    name = "e2e-vap-lifecycle"
    obj = policy(
        name,
        paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
        matchConditions=[{"name": "has-params", "expression": "params.data.enabled == 'true'"}],
        variables=[
            {"name": "size", "expression": "object.spec.size"},
            {"name": "tooBig", "expression": "variables.size > int(params.data.max)"},
        ],
        validations=[
            {
                "expression": "!variables.tooBig",
                "messageExpression": "'size ' + string(variables.size) + ' is above ' + params.data.max",
                "reason": "Forbidden",
            },
            {"expression": "authorizer.group('e2e.example.com').resource('widgets').check('create').allowed()"},
        ],
        auditAnnotations=[{"key": "size", "valueExpression": "string(variables.size)"}],
    )
    res = server.kubectl("apply", "-f", "-", input=yaml.safe_dump(obj))
    cleanup.append(f"{POLICIES}/{name}")
    assert f"validatingadmissionpolicy.admissionregistration.k8s.io/{name} created" in res.stdout
    stored = server.request("GET", f"{POLICIES}/{name}").json()
    assert stored["spec"]["failurePolicy"] == "Fail"

    # kubectl apply of a broken change: the stored object stays as it was
    broken = copy.deepcopy(obj)
    broken["spec"]["variables"][1]["expression"] = "variables.missing > 1"
    broken["spec"]["validations"].append({"expression": "1 +"})
    err = kubectl_refused(server, "apply", broken)
    assert f'The ValidatingAdmissionPolicy "{name}" is invalid:' in err
    assert (
        'spec.variables[1].expression: Invalid value: "variables.missing > 1": compilation failed: ERROR: '
        "<input>:1:10: undefined field 'missing'" in err
    )
    # tooBig did not compile: later expressions see it as dyn, and !dyn is still a bool
    assert 'spec.validations[0].expression: Invalid value: "!variables.tooBig"' not in err
    assert 'spec.validations[2].expression: Invalid value: "1 +": compilation failed: ' + SYNTAX_ERROR in err

    # a PUT with the stored resourceVersion
    current = server.request("GET", f"{POLICIES}/{name}").json()
    current["spec"]["matchConstraints"]["resourceRules"][0]["operations"] = ["*", "CREATE"]
    current["spec"]["failurePolicy"] = "Sometimes"
    status = invalid_status(server.request("PUT", f"{POLICIES}/{name}", json=current))
    assert _causes(status) == [
        'spec.failurePolicy: Unsupported value: "Sometimes": supported values: "Fail", "Ignore"',
        'spec.matchConstraints.resourceRules[0].operations: Invalid value: []admissionregistration.OperationType{"*", '
        "\"CREATE\"}: if '*' is present, must not specify other operations",
    ]
    after = server.request("GET", f"{POLICIES}/{name}").json()
    assert after["metadata"]["resourceVersion"] == stored["metadata"]["resourceVersion"]

    # a merge patch that empties what a policy must have
    patch = json.dumps({"spec": {"validations": None, "matchConstraints": {"resourceRules": None}}})
    res = server.kubectl("patch", "validatingadmissionpolicy", name, "--type=merge", "-p", patch, check=False)
    assert res.returncode != 0
    assert "spec.matchConstraints.resourceRules: Required value" in res.stderr
    # the audit annotation is left, so a policy without validations is fine
    assert "spec.validations: Required value" not in res.stderr

    # a good update goes through
    good = copy.deepcopy(obj)
    good["spec"]["validations"][0]["message"] = "too big"
    res = server.kubectl("apply", "-f", "-", input=yaml.safe_dump(good))
    assert "configured" in res.stdout


def test_status_update_is_validated(server, cleanup) -> None:
    name = "e2e-vap-status"
    assert server.request("POST", POLICIES, json=policy(name)).status_code == 201
    cleanup.append(f"{POLICIES}/{name}")
    current = server.request("GET", f"{POLICIES}/{name}").json()
    current["status"] = {
        "typeChecking": {"expressionWarnings": [{"fieldRef": "", "warning": ""}]},
        "conditions": [
            {"type": "Ready", "status": "Maybe", "lastTransitionTime": "2024-01-01T00:00:00Z", "reason": "x y"}
        ],
    }
    status = invalid_status(server.request("PUT", f"{POLICIES}/{name}/status", json=current))
    assert _causes(status) == [
        "status.typeChecking.expressionWarnings[0].warning: Required value",
        "status.typeChecking.expressionWarnings[0].fieldRef: Required value",
        'status.conditions[0].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"',
        'status.conditions[0].reason: Invalid value: "x y": a condition reason must start with alphabetic character, '
        "optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric "
        "character or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or "
        "'ReasonA:ReasonB', regex used for validation is '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')",
    ]
    current["status"] = {
        "typeChecking": {"expressionWarnings": [{"fieldRef": "spec.validations[0].expression", "warning": "dyn"}]}
    }
    r = server.request("PUT", f"{POLICIES}/{name}/status", json=current)
    assert r.status_code == 200, r.text


def test_bindings(server, cleanup) -> None:
    bad = binding(
        "e2e-vapb-bad",
        policyName="Not_A_Name",
        paramRef={"name": "cfg", "selector": {}},
        matchResources={"resourceRules": [{"operations": ["CREATE"]}]},
        validationActions=["Deny", "Warn"],
    )
    err = kubectl_refused(server, "create", bad)
    assert 'The ValidatingAdmissionPolicyBinding "e2e-vapb-bad" is invalid:' in err
    status = invalid_status(server.request("POST", BINDINGS, json=bad))
    assert _causes(status) == [
        'spec.policyName: Invalid value: "Not_A_Name": a lowercase RFC 1123 subdomain must consist of lower case '
        "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
        "'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        "spec.paramRef.name: Forbidden: name and selector are mutually exclusive",
        "spec.paramRef.selector: Forbidden: name and selector are mutually exclusive",
        "spec.paramRef.parameterNotFoundAction: Required value",
        "spec.matchResouces.resourceRules[0].apiGroups: Required value",
        "spec.matchResouces.resourceRules[0].apiVersions: Required value",
        "spec.matchResouces.resourceRules[0].resources: Required value",
        'spec.validationActions: Invalid value: []admissionregistration.ValidationAction{"Deny", "Warn"}: must not '
        "contain both Deny and Warn (repeating the same validation failure information in the API response and "
        "headers serves no purpose)",
    ]
    for err_line in _causes(status):
        assert err_line in err

    name = "e2e-vapb-good"
    good = binding(
        name,
        paramRef={"name": "cfg", "namespace": "default", "parameterNotFoundAction": "Deny"},
        matchResources={"namespaceSelector": {"matchLabels": {"env": "test"}}},
        validationActions=["Warn", "Audit"],
    )
    res = server.kubectl("create", "-f", "-", input=yaml.safe_dump(good))
    cleanup.append(f"{BINDINGS}/{name}")
    assert f"validatingadmissionpolicybinding.admissionregistration.k8s.io/{name} created" in res.stdout

    changed = copy.deepcopy(good)
    changed["spec"]["validationActions"] = ["Audit", "Audit", "Block"]
    changed["spec"]["paramRef"] = {"selector": {"matchLabels": {"a": "b"}}, "parameterNotFoundAction": "Ignore"}
    err = kubectl_refused(server, "apply", changed)
    assert f'The ValidatingAdmissionPolicyBinding "{name}" is invalid:' in err
    assert (
        'spec.paramRef.parameterNotFoundAction: Unsupported value: "Ignore": supported values: "Deny", "Allow"' in err
    )
    assert 'spec.validationActions[1]: Duplicate value: "Audit"' in err
    assert 'spec.validationActions[2]: Unsupported value: "Block": supported values: "Audit", "Deny", "Warn"' in err
    current = server.request("GET", f"{BINDINGS}/{name}").json()
    assert current["spec"]["validationActions"] == ["Warn", "Audit"]
    current["spec"]["validationActions"] = []
    status = invalid_status(server.request("PUT", f"{BINDINGS}/{name}", json=current))
    assert _causes(status) == ["spec.validationActions: Required value: at least one validation action is required"]
    current["spec"]["validationActions"] = ["Deny"]
    assert server.request("PUT", f"{BINDINGS}/{name}", json=current).status_code == 200

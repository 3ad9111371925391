"""admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy(Binding) validation: kube-apiserver 1.33's
messages, field paths and order (pkg/apis/admissionregistration/validation), CEL expressions compiled
as the admission plugin declares them.

Compile errors come from the shared CEL environment (cel-cpp underneath); where its text differs from
cel-go's the test says so."""

from __future__ import annotations

import copy
import subprocess
import sys
from typing import Any

import pytest
from validation_groups_helpers import errors

from kube_apiserver.apis.admissionregistration.cel_compiler import CELCompiler
from kube_apiserver.apis.admissionregistration.defaults import DEFAULTERS
from kube_apiserver.apis.admissionregistration.validation.common import (
    cel_type_string,
    is_cel_identifier,
    parse_cel_type,
)
from kube_apiserver.apis.admissionregistration.validation.policies import (
    UPDATE_VALIDATORS,
    VALIDATORS,
    validate_validating_admission_policy,
    validate_validating_admission_policy_binding,
    validate_validating_admission_policy_update,
)
from kube_apiserver.apis.scheme import build_scheme

GROUP = "admissionregistration.k8s.io"
SYNTAX_ERROR = (
    "Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', "
    "NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}"
)
RULES = [
    {
        "operations": ["CREATE", "UPDATE"],
        "apiGroups": ["apps"],
        "apiVersions": ["v1"],
        "resources": ["deployments"],
        "scope": "*",
    }
]


def match_resources(**changes: Any) -> dict[str, Any]:
    out = {
        "resourceRules": copy.deepcopy(RULES),
        "matchPolicy": "Equivalent",
        "namespaceSelector": {},
        "objectSelector": {},
    }
    out.update(changes)
    return out


def policy(name: str = "demo", **spec: Any) -> dict[str, Any]:
    """A policy as the defaults leave it, with spec's fields replaced (None removes one)."""
    full: dict[str, Any] = {
        "failurePolicy": "Fail",
        "matchConstraints": match_resources(),
        "validations": [{"expression": "object.spec.replicas <= 5"}],
    }
    for key, value in spec.items():
        if value is None:
            full.pop(key, None)
        else:
            full[key] = value
    return {"apiVersion": f"{GROUP}/v1", "kind": "ValidatingAdmissionPolicy", "metadata": {"name": name}, "spec": full}


def binding(**spec: Any) -> dict[str, Any]:
    full: dict[str, Any] = {"policyName": "demo", "validationActions": ["Deny"]}
    full.update(spec)
    return {
        "apiVersion": f"{GROUP}/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": "demo-binding"},
        "spec": full,
    }


def check(obj: dict[str, Any]) -> list[str]:
    return errors(validate_validating_admission_policy(obj))


def check_binding(obj: dict[str, Any]) -> list[str]:
    return errors(validate_validating_admission_policy_binding(obj))


def caret(source: str, column: int) -> str:
    """The source and caret lines cel-go's issues.String() appends."""
    return f"\n | {source}\n | " + "." * (column - 1) + "^"


# --- the policy: the reported problem and complete, valid policies ---


def test_the_reported_policy_is_refused() -> None:
    obj = {"apiVersion": f"{GROUP}/v1", "kind": "ValidatingAdmissionPolicy", "metadata": {"name": "p"}}
    obj["spec"] = {"validations": [{"expression": "1 +"}]}
    assert check(obj) == [
        "spec.failurePolicy: Required value",
        "spec.matchConstraints: Required value",
        f'spec.validations[0].expression: Invalid value: "1 +": compilation failed: ERROR: <input>:1:4: {SYNTAX_ERROR}'
        + caret("1 +", 4),
    ]
    # as the server sees it, after defaulting (failurePolicy: Fail)
    DEFAULTERS[("v1", "ValidatingAdmissionPolicy")](obj)
    assert errors(build_scheme().validate(obj)) == [
        "spec.matchConstraints: Required value",
        f'spec.validations[0].expression: Invalid value: "1 +": compilation failed: ERROR: <input>:1:4: {SYNTAX_ERROR}'
        + caret("1 +", 4),
    ]


def test_valid_policies() -> None:
    assert check(policy()) == []
    full = policy(
        paramKind={"apiVersion": "rules.example.com/v1", "kind": "ReplicaLimit"},
        matchConstraints=match_resources(
            namespaceSelector={"matchExpressions": [{"key": "env", "operator": "In", "values": ["prod"]}]},
            excludeResourceRules=[{**RULES[0], "resourceNames": ["skip-me"]}],
        ),
        matchConditions=[
            {"name": "not-system", "expression": "!request.userInfo.username.startsWith('system:')"},
            {"name": "has-params", "expression": "params.maxReplicas > 0"},
            {
                "name": "allowed",
                "expression": "authorizer.group('apps').resource('deployments').check('get').allowed()",
            },
        ],
        variables=[
            {"name": "replicas", "expression": "object.spec.replicas"},
            {"name": "tooMany", "expression": "variables.replicas > params.maxReplicas"},
            {"name": "names", "expression": "object.spec.template.spec.containers.map(c, c.name)"},
        ],
        validations=[
            {
                "expression": "!variables.tooMany",
                "messageExpression": "'at most ' + string(params.maxReplicas) + ' replicas, not ' + string(variables.replicas)",
                "reason": "Invalid",
            },
            {"expression": "variables.names.all(n, n.size() < 64)", "message": "container names are too long"},
            {"expression": "authorizer.requestResource.namespace('x').check('update').allowed()"},
            {"expression": "request.operation == 'CREATE' || namespaceObject.metadata.labels['env'] == 'dev'"},
        ],
        auditAnnotations=[
            {"key": "high-replicas", "valueExpression": "variables.tooMany ? 'high' : 'normal'"},
            {"key": "nothing", "valueExpression": "null"},
            {"key": "names", "valueExpression": "variables.names.join(',')"},
        ],
    )
    assert check(full) == []


# --- spec fields in upstream's order ---


def test_failure_policy_and_match_constraints() -> None:
    assert check(policy(failurePolicy="Maybe", matchConstraints=None)) == [
        'spec.failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"',
        "spec.matchConstraints: Required value",
    ]
    assert check(policy(matchConstraints={})) == [
        "spec.matchConstraints.matchPolicy: Required value",
        "spec.matchConstraints.namespaceSelector: Required value",
        "spec.matchConstraints.objectSelector: Required value",
        "spec.matchConstraints.resourceRules: Required value",
    ]
    bad = match_resources(
        matchPolicy="Sometimes",
        objectSelector={"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]},
        resourceRules=[
            {
                "resourceNames": ["a/b", "x", "x"],
                "operations": ["*", "PATCH"],
                "apiGroups": ["*", "apps"],
                "apiVersions": ["*", ""],
                "resources": ["*/*", "pods", "pods/*", "pods/status", "*"],
                "scope": "All",
            }
        ],
        excludeResourceRules=[{}],
    )
    assert check(policy(matchConstraints=bad)) == [
        'spec.matchConstraints.matchPolicy: Unsupported value: "Sometimes": supported values: "Equivalent", "Exact"',
        "spec.matchConstraints.objectSelector.matchExpressions[0].values: Forbidden: may not be specified when "
        "`operator` is 'Exists' or 'DoesNotExist'",
        "spec.matchConstraints.resourceRules[0].resourceNames[0]: Invalid value: \"a/b\": may not contain '/'",
        'spec.matchConstraints.resourceRules[0].resourceNames[2]: Duplicate value: "x"',
        'spec.matchConstraints.resourceRules[0].operations: Invalid value: []admissionregistration.OperationType{"*", '
        "\"PATCH\"}: if '*' is present, must not specify other operations",
        'spec.matchConstraints.resourceRules[0].operations[1]: Unsupported value: "PATCH": supported values: "*", '
        '"CONNECT", "CREATE", "DELETE", "UPDATE"',
        'spec.matchConstraints.resourceRules[0].apiGroups: Invalid value: []string{"*", "apps"}: if \'*\' is present, '
        "must not specify other API groups",
        'spec.matchConstraints.resourceRules[0].apiVersions: Invalid value: []string{"*", ""}: if \'*\' is present, '
        "must not specify other API versions",
        "spec.matchConstraints.resourceRules[0].apiVersions[1]: Required value",
        "spec.matchConstraints.resourceRules[0].resources[2]: Invalid value: \"pods/*\": if '*/*' is present, must "
        "not specify pods/*",
        "spec.matchConstraints.resourceRules[0].resources[3]: Invalid value: \"pods/status\": if 'pods/*' is "
        "present, must not specify pods/status",
        'spec.matchConstraints.resourceRules[0].resources: Invalid value: []string{"*/*", "pods", "pods/*", '
        '"pods/status", "*"}: if \'*/*\' is present, must not specify other resources',
        'spec.matchConstraints.resourceRules[0].scope: Unsupported value: "All": supported values: "*", "Cluster", '
        '"Namespaced"',
        "spec.matchConstraints.excludeResourceRules[0].operations: Required value",
        "spec.matchConstraints.excludeResourceRules[0].apiGroups: Required value",
        "spec.matchConstraints.excludeResourceRules[0].apiVersions: Required value",
        "spec.matchConstraints.excludeResourceRules[0].resources: Required value",
    ]
    # '*' beside a resource without a subresource; subresources may be listed next to it
    rule = {**RULES[0], "resources": ["*", "pods", ""]}
    assert check(policy(matchConstraints=match_resources(resourceRules=[rule]))) == [
        "spec.matchConstraints.resourceRules[0].resources[2]: Required value",
        'spec.matchConstraints.resourceRules[0].resources: Invalid value: []string{"*", "pods", ""}: if \'*\' is '
        "present, must not specify other resources without subresources",
    ]
    # upstream remembers only the last plain entry: "*" after "pods" hides the conflict
    rule = {**RULES[0], "resources": ["pods", "*"]}
    assert check(policy(matchConstraints=match_resources(resourceRules=[rule]))) == []
    rule = {**RULES[0], "resources": ["*", "pods/status", "*/scale"]}
    assert check(policy(matchConstraints=match_resources(resourceRules=[rule]))) == []


def test_param_kind() -> None:
    def param_kind(**kind: Any) -> list[str]:
        return check(policy(paramKind=kind))

    assert param_kind(apiVersion="v1", kind="ConfigMap") == []
    assert param_kind() == ["spec.paramKind.apiVersion: Required value", "spec.paramKind.kind: Required value"]
    assert param_kind(apiVersion="a/b/c", kind="Config_Map") == [
        'spec.paramKind.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
        'spec.paramKind.kind: Invalid value: "Config_Map": may have mixed case, but should otherwise match: a DNS-1035 '
        "label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end "
        "with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
        "'[a-z]([-a-z0-9]*[a-z0-9])?')",
    ]
    assert param_kind(apiVersion="example.com/", kind="X") == [
        'spec.paramKind.apiVersion: Invalid value: "example.com/": version must be specified'
    ]
    assert param_kind(apiVersion="Example.com/V1", kind="X") == [
        'spec.paramKind.apiVersion: Invalid value: "Example.com": a lowercase RFC 1123 subdomain must consist of '
        "lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
        "'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        'spec.paramKind.apiVersion: Invalid value: "V1": a DNS-1035 label must consist of lower case alphanumeric '
        "characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. "
        "'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    ]


def test_match_conditions() -> None:
    conditions = [
        {"name": "a", "expression": "  'yes'  "},
        {"name": "a", "expression": "params.enabled == true"},
        {"name": "bad name", "expression": " "},
        {"name": "", "expression": "variables.x"},
    ]
    assert check(policy(matchConditions=conditions)) == [
        # the trimmed expression is compiled and shown
        "spec.matchConditions[0].expression: Invalid value: \"'yes'\": must evaluate to bool but got string",
        # params is declared only with a paramKind (cel-go names 'params' at 1:1)
        'spec.matchConditions[1].expression: Invalid value: "params.enabled == true": compilation failed: ERROR: '
        "<input>:1:7: undeclared reference to 'params.enabled' (in container '')" + caret("params.enabled == true", 7),
        'spec.matchConditions[1].name: Duplicate value: "a"',
        "spec.matchConditions[2].expression: Required value",
        'spec.matchConditions[2].name: Invalid value: "bad name": name part must consist of alphanumeric '
        "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
        "'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        # match conditions never see the policy's variables (cel-go names 'variables' at 1:1)
        'spec.matchConditions[3].expression: Invalid value: "variables.x": compilation failed: ERROR: <input>:1:10: '
        "undeclared reference to 'variables.x' (in container '')" + caret("variables.x", 10),
        "spec.matchConditions[3].name: Required value",
    ]
    with_params = policy(paramKind={"apiVersion": "v1", "kind": "ConfigMap"}, matchConditions=conditions[1:2])
    assert check(with_params) == []
    many = [{"name": f"c{i}", "expression": "true"} for i in range(65)]
    assert check(policy(matchConditions=many)) == ["spec.matchConditions: Too many: 65: must have at most 64 items"]


def test_variables_compose_in_order() -> None:
    variables = [
        {"name": "later", "expression": "variables.first"},
        {"name": "first", "expression": "object.spec.replicas > 1"},
        {"name": "broken", "expression": "object.spec.replicas >"},
        {"name": "foo-bar", "expression": "1"},
        {"name": "in", "expression": "2"},
        {"name": " ", "expression": ""},
    ]
    validations = [
        {"expression": "variables.first"},  # bool: a typed field
        {"expression": "variables.later"},  # dyn: its expression did not compile
        {"expression": "variables.broken == 1"},
        {"expression": "variables.missing"},
    ]
    assert check(policy(variables=variables, validations=validations)) == [
        'spec.variables[0].expression: Invalid value: "variables.first": compilation failed: ERROR: <input>:1:10: '
        "undefined field 'first'" + caret("variables.first", 10),
        'spec.variables[2].expression: Invalid value: "object.spec.replicas >": compilation failed: ERROR: '
        "<input>:1:23: " + SYNTAX_ERROR + caret("object.spec.replicas >", 23),
        'spec.variables[3].name: Invalid value: "foo-bar": name is not a valid CEL identifier',
        'spec.variables[4].name: Invalid value: "in": name is not a valid CEL identifier',
        "spec.variables[5].name: Required value: name is not specified",
        "spec.variables[5].expression: Required value: expression is not specified",
        'spec.validations[1].expression: Invalid value: "variables.later": must evaluate to bool but got dyn',
        'spec.validations[3].expression: Invalid value: "variables.missing": compilation failed: ERROR: '
        "<input>:1:10: undefined field 'missing'" + caret("variables.missing", 10),
    ]
    typed = [
        {"name": "names", "expression": "object.spec.containers.map(c, c.name)"},
        {"name": "limits", "expression": "{'cpu': quantity('1')}"},
        {"name": "user", "expression": "request.userInfo"},
        {"name": "foo_bar", "expression": "{'a': 1}"},
        {"name": "fooBar", "expression": "{'a': true}"},
    ]
    checks = [
        {"expression": "variables.names.exists(n, n == 'web')"},
        {"expression": "variables.limits['cpu'].isInteger()"},
        {"expression": "variables.user.username != ''"},
        {"expression": "variables.foo_bar['a'] == 1 && variables.fooBar['a']"},
        {"expression": "variables.names"},
    ]
    assert check(policy(variables=typed, validations=checks)) == [
        'spec.validations[4].expression: Invalid value: "variables.names": must evaluate to bool but got list(dyn)'
    ]


def test_validations() -> None:
    validations = [
        {"expression": "object.spec.paused"},
        {"expression": " ", "messageExpression": "  ", "message": " "},
        {"expression": "true", "messageExpression": "1", "message": "two\nlines", "reason": "Teapot"},
        {"expression": "true", "messageExpression": "authorizer.path('/x').check('get').reason()"},
        {"expression": "true", "reason": "Forbidden", "message": "  fine  "},
        {"expression": "1 == 1", "messageExpression": "object.metadata.name + ' is ' + string(request.dryRun)"},
    ]
    assert check(policy(validations=validations)) == [
        'spec.validations[0].expression: Invalid value: "object.spec.paused": must evaluate to bool but got dyn',
        "spec.validations[1].expression: Required value: expression is not specified",
        'spec.validations[1].messageExpression: Invalid value: "  ": must be non-empty if specified',
        'spec.validations[1].message: Invalid value: " ": message must be non-empty if specified',
        'spec.validations[2].messageExpression: Invalid value: "1": must evaluate to string but got int',
        'spec.validations[2].message: Invalid value: "two\\nlines": message must not contain line breaks',
        'spec.validations[2].reason: Unsupported value: "Teapot": supported values: "Forbidden", "Invalid", '
        '"RequestEntityTooLarge"',
        # messageExpressions have no authorizer
        "spec.validations[3].messageExpression: Invalid value: \"authorizer.path('/x').check('get').reason()\": "
        "compilation failed: ERROR: <input>:1:1: undeclared reference to 'authorizer' (in container '')"
        + caret("authorizer.path('/x').check('get').reason()", 1),
    ]
    assert check(policy(validations=[], auditAnnotations=[])) == [
        "spec.validations: Required value: validations or auditAnnotations must contain at least one item",
        "spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item",
    ]


def test_typed_declarations() -> None:
    compiler = CELCompiler(False)
    bool_type = parse_cel_type("BOOL")
    # request and namespaceObject are typed as upstream builds them
    _, err = compiler.compile("request.uid == ''", [bool_type], False, True)
    assert err == (
        "Invalid",
        "compilation failed: ERROR: <input>:1:8: undefined field 'uid'" + caret("request.uid == ''", 8),
    )
    for source in (
        "request.kind.group == 'apps' && request.requestResource.resource == 'pods' && !request.dryRun",
        "namespaceObject.metadata.labels['a'] == 'b' && namespaceObject.status.phase == 'Active'",
        "namespaceObject.metadata.creationTimestamp < timestamp('2030-01-01T00:00:00Z')",
        "request.userInfo.groups.exists(g, g == 'admins') && request.userInfo.extra['k'].size() > 0",
        "authorizer.serviceAccount('ns', 'sa').group('').resource('pods').subresource('log').name('p')"
        ".fieldSelector('a=b').check('get').errored()",
    ):
        assert compiler.compile(source, [bool_type], False, True) == (bool_type, None), source
    assert compiler.compile("object", [parse_cel_type("ANY")], False, True) == (parse_cel_type("DYN"), None)


def test_cel_type_names() -> None:
    names = {
        "BOOL": "bool",
        "NULL": "null_type",
        "LIST<MAP<STRING, LIST<INT>>>": "list(map(string, list(int)))",
        "optional_type<UINT>": "optional_type(uint)",
        "TYPE<DOUBLE>": "type(double)",
        "TIMESTAMP": "google.protobuf.Timestamp",
        "kubernetes.Quantity": "kubernetes.Quantity",
    }
    for name, shown in names.items():
        assert cel_type_string(parse_cel_type(name)) == shown
    assert is_cel_identifier("_a1") and not is_cel_identifier("namespace") and not is_cel_identifier("1a")


def test_audit_annotations() -> None:
    annotations = [
        {"key": "ok", "valueExpression": "'x'"},
        {"key": "ok", "valueExpression": " 1 "},
        {"key": "bad key", "valueExpression": ""},
        {"key": "long", "valueExpression": "'" + "x" * 5119 + "'"},
        {"key": "maybe", "valueExpression": "object.spec.replicas > 3 ? 'many' : 'few'"},
        {"key": "absent", "valueExpression": "null"},
    ]
    assert check(policy(validations=None, auditAnnotations=annotations)) == [
        'spec.auditAnnotations[1].valueExpression: Invalid value: " 1 ": must evaluate to one of [string null_type] '
        "but got int",
        'spec.auditAnnotations[1].key: Duplicate value: "ok"',
        'spec.auditAnnotations[2].key: Invalid value: "demo/bad key": name part must consist of alphanumeric '
        "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
        "'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        "spec.auditAnnotations[2].valueExpression: Required value: valueExpression is not specified",
        "spec.auditAnnotations[3].valueExpression: Required value: must not exceed 5120 bytes in length",
    ]
    unnamed = policy(name="", auditAnnotations=[{"key": "k", "valueExpression": "'v'"}])
    assert check(unnamed) == ['spec.auditAnnotations[0].key: Invalid value: "k": requires metadata.name be non-empty']
    many = [{"key": f"k{i}", "valueExpression": "'v'"} for i in range(21)]
    shown = ", ".join(
        f'admissionregistration.AuditAnnotation{{Key:"k{i}", ValueExpression:"\'v\'"}}' for i in range(21)
    )
    assert check(policy(auditAnnotations=many)) == [
        f"spec.auditAnnotations: Invalid value: []admissionregistration.AuditAnnotation{{{shown}}}: must not have "
        "more than 20 auditAnnotations"
    ]


def test_odd_input_does_not_raise() -> None:
    odd = policy(
        paramKind="x",
        matchConstraints={"resourceRules": [1, {"operations": "x"}], "namespaceSelector": "y"},
        matchConditions=[None, {"name": 1, "expression": 2}],
        variables=[3],
        validations=[4, {"expression": ["x"]}],
        auditAnnotations=[5],
    )
    assert check(odd)  # reported, never an exception
    assert check_binding(binding(paramRef="x", matchResources=[1], validationActions=[{}]))


# --- status ---


def test_status_update() -> None:
    status = {
        "observedGeneration": 2,
        "typeChecking": {"expressionWarnings": [{"fieldRef": "spec.validations[0].expression", "warning": "w"}]},
        "conditions": [
            {"type": "Ready", "status": "True", "lastTransitionTime": "2024-01-01T00:00:00Z", "reason": "Checked"}
        ],
    }
    old = policy()
    new = {**policy(), "status": status}
    assert validate_validating_admission_policy_update(new, old) == []
    bad = {
        "typeChecking": {"expressionWarnings": [{"fieldRef": " "}]},
        "conditions": [
            {"type": "Ready"},
            {
                "type": "Ready",
                "status": "Yes",
                "lastTransitionTime": "2024-01-01T00:00:00Z",
                "reason": "not valid",
                "observedGeneration": -1,
                "message": "m" * 32769,
            },
        ],
    }
    assert errors(validate_validating_admission_policy_update({**policy(), "status": bad}, old)) == [
        "status.typeChecking.expressionWarnings[0].warning: Required value",
        "status.typeChecking.expressionWarnings[0].fieldRef: Required value",
        'status.conditions[0].status: Unsupported value: "": supported values: "False", "True", "Unknown"',
        "status.conditions[0].lastTransitionTime: Required value: must be set",
        "status.conditions[0].reason: Required value: must be set",
        'status.conditions[1].type: Duplicate value: "Ready"',
        'status.conditions[1].status: Unsupported value: "Yes": supported values: "False", "True", "Unknown"',
        "status.conditions[1].observedGeneration: Invalid value: -1: must be greater than or equal to zero",
        'status.conditions[1].reason: Invalid value: "not valid": a condition reason must start with alphabetic '
        "character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an "
        "alphanumeric character or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or "
        "'ReasonA:ReasonB', regex used for validation is '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')",
        "status.conditions[1].message: Too long: may not be more than 32768 bytes",
    ]


# --- the binding ---


def test_valid_bindings() -> None:
    assert check_binding(binding()) == []
    full = binding(
        paramRef={"name": "limits", "namespace": "default", "parameterNotFoundAction": "Deny"},
        matchResources=match_resources(resourceRules=[]),
        validationActions=["Warn", "Audit"],
    )
    assert check_binding(full) == []
    by_selector = binding(paramRef={"selector": {"matchLabels": {"a": "b"}}, "parameterNotFoundAction": "Allow"})
    assert check_binding(by_selector) == []


def test_binding_rules() -> None:
    assert check_binding(binding(policyName="", validationActions=[])) == [
        "spec.policyName: Required value",
        "spec.validationActions: Required value: at least one validation action is required",
    ]
    bad = binding(
        policyName="Demo_Policy",
        paramRef={"name": "a/b", "selector": {"matchLabels": {"a": "-x"}}, "parameterNotFoundAction": "Ignore"},
        matchResources={"resourceRules": [{"operations": ["CREATE"]}]},
        validationActions=["Deny", "Warn", "Deny", "Block"],
    )
    assert check_binding(bad) == [
        'spec.policyName: Invalid value: "Demo_Policy": a lowercase RFC 1123 subdomain must consist of lower case '
        "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
        "'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        "spec.paramRef.name: Invalid value: \"a/b\": may not contain '/'",
        "spec.paramRef.name: Forbidden: name and selector are mutually exclusive",
        'spec.paramRef.selector.matchLabels: Invalid value: "-x": a valid label must be an empty string or consist of '
        "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
        "'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        "spec.paramRef.selector: Forbidden: name and selector are mutually exclusive",
        'spec.paramRef.parameterNotFoundAction: Unsupported value: "Ignore": supported values: "Deny", "Allow"',
        # sic: upstream's field path is misspelt
        "spec.matchResouces.matchPolicy: Required value",
        "spec.matchResouces.namespaceSelector: Required value",
        "spec.matchResouces.objectSelector: Required value",
        "spec.matchResouces.resourceRules[0].apiGroups: Required value",
        "spec.matchResouces.resourceRules[0].apiVersions: Required value",
        "spec.matchResouces.resourceRules[0].resources: Required value",
        'spec.validationActions[2]: Duplicate value: "Deny"',
        'spec.validationActions[3]: Unsupported value: "Block": supported values: "Audit", "Deny", "Warn"',
        'spec.validationActions: Invalid value: []admissionregistration.ValidationAction{"Deny", "Warn", "Deny", '
        '"Block"}: must not contain both Deny and Warn (repeating the same validation failure information in the API '
        "response and headers serves no purpose)",
    ]
    assert check_binding(binding(paramRef={})) == [
        "spec.paramRef: Required value: one of name or selector must be specified",
        "spec.paramRef.parameterNotFoundAction: Required value",
    ]
    assert check_binding(binding(paramRef={"name": "x", "parameterNotFoundAction": ""})) == [
        "spec.paramRef.parameterNotFoundAction: Required value"
    ]


# --- wiring: the scheme gathers the tables ---


@pytest.mark.parametrize("kind", ["ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"])
def test_tables_reach_the_scheme(kind: str) -> None:
    scheme = build_scheme()
    assert VALIDATORS[("v1", kind)] in scheme.validators[(GROUP, "v1", kind)]
    assert UPDATE_VALIDATORS[("v1", kind)] in scheme.update_validators[(GROUP, "v1", kind)]


def test_binding_update_adds_nothing_to_validate() -> None:
    # ValidateValidatingAdmissionPolicyBindingUpdate is the create validation of the new binding
    new, old = binding(policyName="other"), binding()
    assert UPDATE_VALIDATORS[("v1", "ValidatingAdmissionPolicyBinding")](new, old) == []
    assert errors(build_scheme().validate(binding(policyName=""))) == ["spec.policyName: Required value"]


def test_update_recompiles_match_conditions_only_when_they_or_the_param_kind_change() -> None:
    # a stored policy whose match condition no longer compiles (say, a library it used is gone) can still
    # have its other fields changed; changing the conditions or the paramKind compiles them again
    broken = [{"name": "c", "expression": "params.enabled == true"}]
    old = policy(matchConditions=broken)
    new = policy(matchConditions=copy.deepcopy(broken), failurePolicy="Ignore")
    assert errors(validate_validating_admission_policy_update(new, old)) == []
    assert check(new) != []  # as a create it would be refused
    changed = policy(matchConditions=[{"name": "c", "expression": "params.enabled == true "}])
    assert [e.split(":")[0] for e in errors(validate_validating_admission_policy_update(changed, old))] == [
        "spec.matchConditions[0].expression"
    ]
    with_kind = policy(matchConditions=copy.deepcopy(broken), paramKind={"apiVersion": "v1", "kind": "Secret"})
    assert errors(validate_validating_admission_policy_update(with_kind, old)) == []  # now params exists
    without_kind = policy(matchConditions=copy.deepcopy(broken))
    assert errors(validate_validating_admission_policy_update(without_kind, with_kind)) != []
    # other fields are checked as on create
    bad = policy(matchConditions=copy.deepcopy(broken), failurePolicy="Sometimes")
    assert [e.split(":")[0] for e in errors(validate_validating_admission_policy_update(bad, old))] == [
        "spec.failurePolicy"
    ]


def test_the_scheme_loads_no_cel_until_an_expression_is_compiled() -> None:
    # build_scheme() runs at every start and imports every validation module: the CEL and protobuf
    # libraries (~80 ms) wait for the first expression
    code = (
        "import sys\n"
        "from kube_apiserver.apis.scheme import build_scheme\n"
        "build_scheme()\n"
        "print(sorted(m for m in ('cel_expr_python', 'google.protobuf') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]"

"""admissionregistration.k8s.io/v1 webhook configuration validation: kube-apiserver 1.33's messages,
field paths and error order (pkg/apis/admissionregistration/validation)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from validation_groups_helpers import errors

from kube_apiserver.apis.admissionregistration.resources import RESOURCES
from kube_apiserver.apis.admissionregistration.validation.webhooks import (
    UPDATE_REPLACES_OBJECT_VALIDATION,
    UPDATE_VALIDATORS,
    VALIDATORS,
    parse_go_url,
    validate_mutating_webhook_configuration,
    validate_mutating_webhook_configuration_update,
    validate_validating_webhook_configuration,
    validate_validating_webhook_configuration_update,
)
from kube_apiserver.apis.scheme import build_scheme
from kube_apiserver.registry.strategy import RESTStrategy

GROUP = "admissionregistration.k8s.io"
DNS1123_SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
QUALIFIED_NAME = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
LABEL_VALUE = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
    "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
DNS1035_LABEL = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation "
    "is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)
FORM = "; desired format: https://host[/path]"


def hook(**changes: Any) -> dict[str, Any]:
    """A webhook as the v1 defaults leave it."""
    out: dict[str, Any] = {
        "name": "webhook.example.com",
        "clientConfig": {"url": "https://example.com/hook"},
        "rules": [
            {"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"], "scope": "*"}
        ],
        "failurePolicy": "Fail",
        "matchPolicy": "Equivalent",
        "namespaceSelector": {},
        "objectSelector": {},
        "sideEffects": "None",
        "timeoutSeconds": 10,
        "admissionReviewVersions": ["v1"],
    }
    for key, value in changes.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out


def config(*hooks: dict[str, Any], kind: str = "ValidatingWebhookConfiguration") -> dict[str, Any]:
    return {"apiVersion": f"{GROUP}/v1", "kind": kind, "metadata": {"name": "cfg"}, "webhooks": list(hooks)}


def validate(*hooks: dict[str, Any]) -> list[str]:
    return errors(validate_validating_webhook_configuration(config(*hooks)))


def rule(**changes: Any) -> dict[str, Any]:
    out = {"operations": ["CREATE"], "apiGroups": ["a"], "apiVersions": ["a"], "resources": ["a"]}
    out.update(changes)
    return out


def test_valid_configurations() -> None:
    assert validate(hook()) == []
    assert validate(hook(), hook(name="webhook2.example.com", sideEffects="NoneOnDryRun")) == []
    service = {"namespace": "ns", "name": "svc", "path": "/validate", "port": 8443}
    assert validate(hook(clientConfig={"service": service, "caBundle": "Zm9v"})) == []
    mutating = config(hook(reinvocationPolicy="IfNeeded"), kind="MutatingWebhookConfiguration")
    assert validate_mutating_webhook_configuration(mutating) == []
    assert validate_validating_webhook_configuration(config()) == []


def test_the_bogus_webhook_of_the_report() -> None:
    bad = hook(name="nodots", clientConfig={}, sideEffects="Bogus", admissionReviewVersions=[])
    assert validate(bad) == [
        'webhooks[0].name: Invalid value: "nodots": should be a domain with at least three segments separated by dots',
        'webhooks[0].sideEffects: Unsupported value: "Bogus": supported values: "None", "NoneOnDryRun"',
        "webhooks[0].clientConfig: Required value: exactly one of url or service is required",
        "webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1",
    ]


def test_names() -> None:
    assert validate(hook(name="k8s.io"), hook(name=""), hook(name="Bad_Name.example.com")) == [
        'webhooks[0].name: Invalid value: "k8s.io": should be a domain with at least three segments separated by dots',
        "webhooks[1].name: Required value",
        f'webhooks[2].name: Invalid value: "Bad_Name.example.com": {DNS1123_SUBDOMAIN}',
    ]
    assert validate(hook(), hook(), hook(name="other.example.com"), hook()) == [
        'webhooks[1].name: Duplicate value: "webhook.example.com"',
        'webhooks[3].name: Duplicate value: "webhook.example.com"',
    ]


def test_rules_operations() -> None:
    rules = [
        rule(operations=[]),
        rule(operations=None),
        rule(operations=["CREATE", ""]),
        rule(operations=["CREATE", "*"]),
    ]
    rules.append(rule(operations=["PATCH"]))
    supported = 'supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"'
    assert validate(hook(rules=rules)) == [
        "webhooks[0].rules[0].operations: Required value",
        "webhooks[0].rules[1].operations: Required value",
        f'webhooks[0].rules[2].operations[1]: Unsupported value: "": {supported}',
        'webhooks[0].rules[3].operations: Invalid value: []admissionregistration.OperationType{"CREATE", "*"}: '
        "if '*' is present, must not specify other operations",
        f'webhooks[0].rules[4].operations[0]: Unsupported value: "PATCH": {supported}',
    ]


def test_rules_groups_versions_scope() -> None:
    rules = [
        rule(apiGroups=[], apiVersions=None),
        rule(apiGroups=["*", "apps"], apiVersions=["v1", "*"]),
        rule(apiVersions=["v1", ""], scope="Global"),
        rule(apiGroups=[""], scope="Namespaced"),
    ]
    assert validate(hook(rules=rules)) == [
        "webhooks[0].rules[0].apiGroups: Required value",
        "webhooks[0].rules[0].apiVersions: Required value",
        'webhooks[0].rules[1].apiGroups: Invalid value: []string{"*", "apps"}: '
        "if '*' is present, must not specify other API groups",
        'webhooks[0].rules[1].apiVersions: Invalid value: []string{"v1", "*"}: '
        "if '*' is present, must not specify other API versions",
        "webhooks[0].rules[2].apiVersions[1]: Required value",
        'webhooks[0].rules[2].scope: Unsupported value: "Global": supported values: "*", "Cluster", "Namespaced"',
    ]


def test_rules_resources() -> None:
    ok = [["*", "a/b", "a/*", "*/b"], ["a/*", "a"], ["pods", "*"], ["*/*"]]
    assert validate(hook(rules=[rule(resources=r) for r in ok])) == []
    bad = [[], ["", "a"], ["*", "a"], ["a/*", "a/x"], ["*/a", "x/a"], ["*/*", "a"]]
    assert validate(hook(rules=[rule(resources=r) for r in bad])) == [
        "webhooks[0].rules[0].resources: Required value",
        "webhooks[0].rules[1].resources[0]: Required value",
        'webhooks[0].rules[2].resources: Invalid value: []string{"*", "a"}: '
        "if '*' is present, must not specify other resources without subresources",
        "webhooks[0].rules[3].resources[1]: Invalid value: \"a/x\": if 'a/*' is present, must not specify a/x",
        "webhooks[0].rules[4].resources[1]: Invalid value: \"x/a\": if '*/a' is present, must not specify x/a",
        'webhooks[0].rules[5].resources: Invalid value: []string{"*/*", "a"}: '
        "if '*/*' is present, must not specify other resources",
    ]


def test_policies_and_timeout() -> None:
    assert validate(hook(failurePolicy="other", matchPolicy="Fuzzy", timeoutSeconds=31), hook(timeoutSeconds=0)) == [
        'webhooks[0].failurePolicy: Unsupported value: "other": supported values: "Fail", "Ignore"',
        'webhooks[0].matchPolicy: Unsupported value: "Fuzzy": supported values: "Equivalent", "Exact"',
        "webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds",
        "webhooks[1].timeoutSeconds: Invalid value: 0: the timeout value must be between 1 and 30 seconds",
        'webhooks[1].name: Duplicate value: "webhook.example.com"',
    ]
    assert validate(hook(timeoutSeconds=1), hook(name="b.example.com", timeoutSeconds=30)) == []
    # reinvocationPolicy belongs to mutating webhooks only
    assert validate(hook(reinvocationPolicy="Sometimes")) == []
    mutating = config(hook(reinvocationPolicy="Sometimes", sideEffects=None), kind="MutatingWebhookConfiguration")
    assert errors(validate_mutating_webhook_configuration(mutating)) == [
        "webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun",
        'webhooks[0].reinvocationPolicy: Unsupported value: "Sometimes": supported values: "IfNeeded", "Never"',
    ]


def test_selectors() -> None:
    selector = {"matchExpressions": [{"key": "a", "operator": "In", "values": ["bad value"]}]}
    assert validate(hook(namespaceSelector=selector, objectSelector={"matchLabels": {"a b": "c"}})) == [
        f'webhooks[0].namespaceSelector.matchExpressions[0].values[0]: Invalid value: "bad value": {LABEL_VALUE}',
        f'webhooks[0].objectSelector.matchLabels: Invalid value: "a b": {QUALIFIED_NAME}',
    ]
    assert validate(hook(objectSelector={"matchExpressions": [{"key": "a", "operator": "Near"}]})) == [
        'webhooks[0].objectSelector.matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator'
    ]


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://example.com", []),
        ("https://127.0.0.1:8443/a/b", []),
        ("https://[::1]:8443/", []),
        (
            "",
            [
                "Invalid value: \"\": 'https' is the only allowed URL scheme" + FORM,
                'Invalid value: "": host must be specified' + FORM,
            ],
        ),
        ("http://example.com", ["Invalid value: \"http\": 'https' is the only allowed URL scheme" + FORM]),
        ("https:///fancy/webhook", ['Invalid value: "": host must be specified' + FORM]),
        ("https://example.com/#bookmark", ['Invalid value: "bookmark": fragments are not permitted in the URL']),
        (
            "https://example.com?arg=value",
            ['Invalid value: "arg=value": query parameters are not permitted in the URL'],
        ),
        (
            "https://harry.potter@example.com/",
            ['Invalid value: "harry.potter": user information is not permitted in the URL'],
        ),
        ("https://u:p%40ss@example.com", ['Invalid value: "u:p%40ss": user information is not permitted in the URL']),
        (
            "arg#backwards=thisis?html.index/port:host//:https",
            [
                "Invalid value: \"\": 'https' is the only allowed URL scheme" + FORM,
                'Invalid value: "": host must be specified' + FORM,
                'Invalid value: "backwards=thisis?html.index/port:host//:https": fragments are not permitted in the URL',
            ],
        ),
        ("::", ['Required value: url must be a valid URL: parse "::": missing protocol scheme' + FORM]),
        (
            "https://example.com:port",
            [
                'Required value: url must be a valid URL: parse "https://example.com:port": invalid port ":port" after host'
                + FORM
            ],
        ),
        (
            "https://exa mple.com",
            [
                'Required value: url must be a valid URL: parse "https://exa mple.com": invalid character " " in host name'
                + FORM
            ],
        ),
        (
            "https://example.com/%zz",
            [
                'Required value: url must be a valid URL: parse "https://example.com/%zz": invalid URL escape "%zz"'
                + FORM
            ],
        ),
        (
            "a:b:c/d",
            [
                "Invalid value: \"a\": 'https' is the only allowed URL scheme" + FORM,
                'Invalid value: "": host must be specified' + FORM,
            ],
        ),
        (
            "1a:b",
            [
                'Required value: url must be a valid URL: parse "1a:b": first path segment in URL cannot contain colon'
                + FORM
            ],
        ),
    ],
)
def test_client_config_url(url: str, expected: list[str]) -> None:
    assert validate(hook(clientConfig={"url": url})) == [f"webhooks[0].clientConfig.url: {e}" for e in expected]


def test_go_url_parse() -> None:
    url, problem = parse_go_url("HTTPS://user@Example.com:8443/p?q#f")
    assert problem == "" and url is not None
    assert (url.scheme, url.host, url.user, url.raw_query, url.fragment) == (
        "https",
        "Example.com:8443",
        "user",
        "q",
        "f",
    )
    assert (
        parse_go_url("https://e.com/\x7f")[1]
        == 'parse "https://e.com/\\x7f": net/url: invalid control character in URL'
    )
    assert parse_go_url("https://[::1")[1] == "parse \"https://[::1\": missing ']' in host"
    assert parse_go_url("https://a b@e.com")[1] == 'parse "https://a b@e.com": net/url: invalid userinfo'


def test_client_config_service() -> None:
    both = {"url": "https://example.com", "service": {"namespace": "ns", "name": "n", "port": 443}}
    svc = [
        {"namespace": "ns", "name": "n", "path": "foo/", "port": 443},
        {"namespace": "ns", "name": "n", "path": "//", "port": 443},
        {"namespace": "ns", "name": "n", "path": "/foo//bar/", "port": 443},
        {"namespace": "ns", "name": "n", "path": "/apis/foo.bar/v1alpha1/--bad", "port": 443},
        {"namespace": "ns", "name": "n", "path": "https://apis/foo.bar", "port": 0},
        {"namespace": "ns", "name": "n", "port": 65536},
    ]
    hooks = [hook(clientConfig=both)] + [
        hook(name=f"h{i}.example.com", clientConfig={"service": s}) for i, s in enumerate(svc)
    ]
    assert validate(*hooks) == [
        "webhooks[0].clientConfig: Required value: exactly one of url or service is required",
        "webhooks[1].clientConfig.service.path: Invalid value: \"foo/\": must start with a '/'",
        'webhooks[2].clientConfig.service.path: Invalid value: "//": segment[0] may not be empty',
        'webhooks[3].clientConfig.service.path: Invalid value: "/foo//bar/": segment[1] may not be empty',
        f'webhooks[4].clientConfig.service.path: Invalid value: "/apis/foo.bar/v1alpha1/--bad": segment[3]: '
        f"{DNS1123_SUBDOMAIN}",
        "webhooks[5].clientConfig.service.port: Invalid value: 0: port is not valid: "
        "must be between 1 and 65535, inclusive",
        "webhooks[5].clientConfig.service.path: Invalid value: \"https://apis/foo.bar\": must start with a '/'",
        'webhooks[5].clientConfig.service.path: Invalid value: "https://apis/foo.bar": segment[0]: '
        f"{DNS1123_SUBDOMAIN}",
        'webhooks[5].clientConfig.service.path: Invalid value: "https://apis/foo.bar": segment[1] may not be empty',
        "webhooks[6].clientConfig.service.port: Invalid value: 65536: port is not valid: "
        "must be between 1 and 65535, inclusive",
    ]


def test_client_config_service_name_and_namespace_are_reported_swapped() -> None:
    # upstream passes the service's name where ValidateWebhookService expects the namespace (kubernetes#141353)
    assert validate(hook(clientConfig={"service": {"name": "svc", "port": 443}})) == [
        "webhooks[0].clientConfig.service.name: Required value"
    ]
    assert validate(hook(clientConfig={"service": {"namespace": "ns", "port": 443}})) == [
        "webhooks[0].clientConfig.service.namespace: Required value"
    ]
    assert validate(hook(clientConfig={"service": {}})) == [
        "webhooks[0].clientConfig.service.name: Required value",
        "webhooks[0].clientConfig.service.namespace: Required value",
    ]


def test_admission_review_versions() -> None:
    assert validate(hook(admissionReviewVersions=["v1beta1", "invalid-version"])) == []
    assert validate(
        hook(admissionReviewVersions=["v2", "0v", "v2"]), hook(name="b.example.com", admissionReviewVersions=None)
    ) == [
        f'webhooks[0].admissionReviewVersions[1]: Invalid value: "0v": {DNS1035_LABEL}',
        'webhooks[0].admissionReviewVersions[2]: Invalid value: "v2": duplicate version',
        'webhooks[0].admissionReviewVersions: Invalid value: []string{"v2", "0v", "v2"}: '
        "must include at least one of v1, v1beta1",
        "webhooks[1].admissionReviewVersions: Required value: must specify one of v1, v1beta1",
    ]


def test_admission_review_versions_come_after_the_webhook_and_before_its_duplicate_name() -> None:
    assert validate(hook(), hook(admissionReviewVersions=[], timeoutSeconds=99)) == [
        "webhooks[1].timeoutSeconds: Invalid value: 99: the timeout value must be between 1 and 30 seconds",
        "webhooks[1].admissionReviewVersions: Required value: must specify one of v1, v1beta1",
        'webhooks[1].name: Duplicate value: "webhook.example.com"',
    ]


def test_match_conditions() -> None:
    conditions = [
        {"expression": "true"},
        {"name": "-hello", "expression": "true"},
        {"name": "c", "expression": "   "},
        {"name": "c", "expression": "object.x in [1, 2, "},
        {"name": "six", "expression": "6"},
        {"name": "dyn", "expression": "object.spec.enabled"},
        {"name": "undeclared", "expression": "test() == true"},
    ]
    assert validate(hook(matchConditions=conditions)) == [
        "webhooks[0].matchConditions[0].name: Required value",
        f'webhooks[0].matchConditions[1].name: Invalid value: "-hello": {QUALIFIED_NAME}',
        "webhooks[0].matchConditions[2].expression: Required value",
        'webhooks[0].matchConditions[3].expression: Invalid value: "object.x in [1, 2,": compilation failed: '
        "ERROR: <input>:1:19: Syntax error: missing ']' at '<EOF>'\n | object.x in [1, 2,\n | ..................^",
        'webhooks[0].matchConditions[3].name: Duplicate value: "c"',
        'webhooks[0].matchConditions[4].expression: Invalid value: "6": must evaluate to bool but got int',
        'webhooks[0].matchConditions[5].expression: Invalid value: "object.spec.enabled": must evaluate to bool but '
        "got dyn",
        'webhooks[0].matchConditions[6].expression: Invalid value: "test() == true": compilation failed: '
        "ERROR: <input>:1:5: undeclared reference to 'test' (in container '')\n | test() == true\n | ....^",
    ]


def test_match_conditions_see_the_admission_variables() -> None:
    good = [
        "object.metadata.name == 'x'",
        "oldObject == null || has(oldObject.metadata)",
        "request.dryRun",
        "request.userInfo.username.startsWith('system:') && 'admins' in request.userInfo.groups",
        "request.resource.group == 'apps' && request.namespace != ''",
        "namespaceObject.metadata.labels['env'] == 'prod'",
        "authorizer.group('apps').resource('deployments').namespace('x').check('create').allowed()",
        "authorizer.requestResource.check('update').reason() == ''",
        "authorizer.serviceAccount('ns', 'sa').path('/healthz').check('get').errored()",
    ]
    conditions = [{"name": f"c{i}", "expression": e} for i, e in enumerate(good)]
    assert validate(hook(matchConditions=conditions)) == []
    bad = [{"name": "params", "expression": "params.x == 1"}, {"name": "field", "expression": "request.foo == 1"}]
    assert validate(hook(matchConditions=bad)) == [
        'webhooks[0].matchConditions[0].expression: Invalid value: "params.x == 1": compilation failed: '
        "ERROR: <input>:1:7: undeclared reference to 'params.x' (in container '')\n | params.x == 1\n | ......^",
        'webhooks[0].matchConditions[1].expression: Invalid value: "request.foo == 1": compilation failed: '
        "ERROR: <input>:1:8: undefined field 'foo'\n | request.foo == 1\n | .......^",
    ]


def test_at_most_64_match_conditions() -> None:
    conditions = [{"name": f"c{i}", "expression": "true"} for i in range(65)]
    assert validate(hook(matchConditions=conditions)) == [
        "webhooks[0].matchConditions: Too many: 65: must have at most 64 items"
    ]
    assert validate(hook(matchConditions=conditions[:64])) == []


# --- update ---


def update(new: list[dict[str, Any]], old: list[dict[str, Any]]) -> list[str]:
    return errors(validate_validating_webhook_configuration_update(config(*new), config(*old)))


def test_update_keeps_side_effects_lenient_only_if_the_old_object_was() -> None:
    unknown = hook(sideEffects="Unknown")
    assert update([unknown], [unknown]) == []
    assert update([hook(sideEffects="Some", name="b.example.com")], [unknown]) == []
    assert update([hook(sideEffects="Bogus")], [unknown]) == [
        'webhooks[0].sideEffects: Unsupported value: "Bogus": supported values: "None", "NoneOnDryRun", "Some", '
        '"Unknown"'
    ]
    assert update([hook(sideEffects=None)], [unknown]) == [
        "webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun, Some, Unknown"
    ]
    assert update([unknown], [hook()]) == [
        'webhooks[0].sideEffects: Unsupported value: "Unknown": supported values: "None", "NoneOnDryRun"'
    ]


def test_update_admission_review_versions() -> None:
    assert (
        update(
            [hook(admissionReviewVersions=["invalid-v1", "invalid-v2"])], [hook(admissionReviewVersions=["invalid-v0"])]
        )
        == []
    )
    assert update(
        [hook(admissionReviewVersions=["invalid-v1"])], [hook(admissionReviewVersions=["v1beta1", "invalid-v1"])]
    ) == [
        'webhooks[0].admissionReviewVersions: Invalid value: []string{"invalid-v1"}: must include at least one of v1, v1beta1'
    ]
    assert update([hook(admissionReviewVersions=["invalid-v1"])], [hook(admissionReviewVersions=None)]) == [
        'webhooks[0].admissionReviewVersions: Invalid value: []string{"invalid-v1"}: must include at least one of v1, v1beta1'
    ]


def test_update_unique_names() -> None:
    assert update([hook(), hook()], [hook()]) == ['webhooks[1].name: Duplicate value: "webhook.example.com"']
    assert update([hook(), hook()], [hook(), hook()]) == []


def test_update_selectors_with_invalid_label_values() -> None:
    bad = {"matchExpressions": [{"key": "a", "operator": "In", "values": ["bad value"]}]}
    worse = {"matchExpressions": [{"key": "a", "operator": "In", "values": ["also bad"]}]}
    assert update([hook(namespaceSelector=worse)], [hook(objectSelector=bad)]) == []
    assert update([hook(namespaceSelector=worse)], [hook()]) == [
        f'webhooks[0].namespaceSelector.matchExpressions[0].values[0]: Invalid value: "also bad": {LABEL_VALUE}'
    ]
    # only label values are let through; a bad key is still refused
    bad_key = {"matchExpressions": [{"key": "a b", "operator": "Exists"}]}
    assert update([hook(objectSelector=bad_key)], [hook(objectSelector=bad)]) == [
        f'webhooks[0].objectSelector.matchExpressions[0].key: Invalid value: "a b": {QUALIFIED_NAME}'
    ]


def test_update_compiles_match_conditions_only_when_they_changed() -> None:
    stored = hook(matchConditions=[{"name": "checkStorage", "expression": "test() == true"}])
    assert update([hook(**{**stored, "timeoutSeconds": 5})], [stored]) == []
    changed = [hook(matchConditions=[{"name": "checkStorage", "expression": "test() == true"}])]
    assert update(changed, [hook(matchConditions=[{"name": "checkStorage", "expression": "true"}])]) == [
        'webhooks[0].matchConditions[0].expression: Invalid value: "test() == true": compilation failed: '
        "ERROR: <input>:1:5: undeclared reference to 'test' (in container '')\n | test() == true\n | ....^"
    ]
    # a webhook added or removed counts as a change
    assert update([stored, hook(name="b.example.com")], [stored]) != []


def test_mutating_update() -> None:
    old = config(hook(sideEffects="Some", reinvocationPolicy="Never"), kind="MutatingWebhookConfiguration")
    new = copy.deepcopy(old)
    new["webhooks"][0]["reinvocationPolicy"] = "Always"
    assert errors(validate_mutating_webhook_configuration_update(new, old)) == [
        'webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"'
    ]


# --- the tables ---


def test_tables_leave_an_update_to_the_update_validator() -> None:
    for kind in ("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"):
        assert set(VALIDATORS) >= {("v1", kind)} and set(UPDATE_VALIDATORS) >= {("v1", kind)}
        assert ("v1", kind) in UPDATE_REPLACES_OBJECT_VALIDATION
    bad = config(hook(sideEffects="Unknown"))
    unknown = ['webhooks[0].sideEffects: Unsupported value: "Unknown": supported values: "None", "NoneOnDryRun"']
    assert errors(VALIDATORS[("v1", "ValidatingWebhookConfiguration")](bad)) == unknown
    stored = copy.deepcopy(bad)
    stored["metadata"]["resourceVersion"] = "42"
    # the create validator is the create validator, whatever the object carries
    assert errors(VALIDATORS[("v1", "ValidatingWebhookConfiguration")](stored)) == unknown
    # what the registry runs: validate() on create; on update validate_on_update(new) + validate_update(new, old),
    # where the update validator replaces the create one (the metadata is still checked)
    spec = next(r for r in RESOURCES if r.kind == "ValidatingWebhookConfiguration")
    strategy = RESTStrategy(spec, build_scheme())
    assert errors(strategy.validate(bad)) == unknown
    assert strategy.validate_on_update(stored) + strategy.validate_update(stored, stored) == []
    assert errors(strategy.validate_update(stored, config(hook()))) == unknown
    nameless = copy.deepcopy(stored)
    nameless["metadata"]["name"] = ""
    assert errors(strategy.validate_on_update(nameless)) == [
        "metadata.name: Required value: name or generateName is required"
    ]

"""Validation of admission webhook configurations as users meet it: kubectl and API clients get
kube-apiserver's 422 Invalid with its messages on create and on update, and valid configurations
(made the usual way) are accepted."""

from __future__ import annotations

import copy
import uuid
from typing import Any

import pytest
import yaml
from e2e_helpers import invalid_status

GROUP = "admissionregistration.k8s.io"
VWC_PATH = f"/apis/{GROUP}/v1/validatingwebhookconfigurations"
MWC_PATH = f"/apis/{GROUP}/v1/mutatingwebhookconfigurations"


def _webhook(**changes: Any) -> dict[str, Any]:
    # a made-up group: the configuration must not catch requests of other tests
    out: dict[str, Any] = {
        "name": "check.example.com",
        "clientConfig": {"service": {"namespace": "default", "name": "hook", "path": "/validate"}},
        "rules": [
            {
                "operations": ["CREATE", "UPDATE"],
                "apiGroups": ["nothing.example.com"],
                "apiVersions": ["v1"],
                "resources": ["widgets"],
            }
        ],
        "failurePolicy": "Ignore",
        "sideEffects": "None",
        "admissionReviewVersions": ["v1"],
    }
    out.update(changes)
    return out


def _config(kind: str, name: str, *hooks: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": f"{GROUP}/v1", "kind": kind, "metadata": {"name": name}, "webhooks": list(hooks)}


@pytest.fixture
def name(server):
    """A configuration name of the test's own, deleted at the end (they are cluster-scoped)."""
    value = f"cfg-{uuid.uuid4().hex[:8]}"
    yield value
    for path in (VWC_PATH, MWC_PATH):
        server.request("DELETE", f"{path}/{value}")


def _invalid(r, kind: str, name: str) -> dict[str, Any]:
    status = invalid_status(r)
    assert status["details"] == {**status["details"], "name": name, "group": GROUP, "kind": kind}
    return status


BOGUS_CAUSES = [
    {
        "reason": "FieldValueInvalid",
        "message": 'Invalid value: "nodots": should be a domain with at least three segments separated by dots',
        "field": "webhooks[0].name",
    },
    {
        "reason": "FieldValueNotSupported",
        "message": 'Unsupported value: "Bogus": supported values: "None", "NoneOnDryRun"',
        "field": "webhooks[0].sideEffects",
    },
    {
        "reason": "FieldValueRequired",
        "message": "Required value: exactly one of url or service is required",
        "field": "webhooks[0].clientConfig",
    },
    {
        "reason": "FieldValueRequired",
        "message": "Required value: must specify one of v1, v1beta1",
        "field": "webhooks[0].admissionReviewVersions",
    },
]


def test_bogus_validating_webhook_is_refused(server, name) -> None:
    bogus = _webhook(name="nodots", clientConfig={}, sideEffects="Bogus", admissionReviewVersions=[])
    body = _config("ValidatingWebhookConfiguration", name, bogus)
    r = server.request("POST", VWC_PATH, json=body)
    status = _invalid(r, "ValidatingWebhookConfiguration", name)
    assert status["message"] == (
        f'ValidatingWebhookConfiguration.{GROUP} "{name}" is invalid: ['
        'webhooks[0].name: Invalid value: "nodots": should be a domain with at least three segments separated by '
        'dots, webhooks[0].sideEffects: Unsupported value: "Bogus": supported values: "None", "NoneOnDryRun", '
        "webhooks[0].clientConfig: Required value: exactly one of url or service is required, "
        "webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1]"
    )
    assert status["details"]["causes"] == BOGUS_CAUSES
    res = server.kubectl("create", "-f", "-", input=yaml.safe_dump(body), check=False)
    assert res.returncode != 0
    assert f'The ValidatingWebhookConfiguration "{name}" is invalid:' in res.stderr
    assert (
        '* webhooks[0].sideEffects: Unsupported value: "Bogus": supported values: "None", "NoneOnDryRun"' in res.stderr
    )
    assert server.request("GET", f"{VWC_PATH}/{name}").status_code == 404


def test_bad_mutating_webhook_is_refused(server, name) -> None:
    hook = _webhook(
        reinvocationPolicy="Sometimes",
        timeoutSeconds=31,
        clientConfig={"url": "http://user@example.com/hook?x=1"},
        rules=[{"operations": ["PATCH"], "apiGroups": ["*", "apps"], "apiVersions": ["v1"], "resources": ["*/*", "a"]}],
    )
    r = server.request("POST", MWC_PATH, json=_config("MutatingWebhookConfiguration", name, hook))
    status = _invalid(r, "MutatingWebhookConfiguration", name)
    assert [f"{c['field']}: {c['message']}" for c in status["details"]["causes"]] == [
        'webhooks[0].rules[0].operations[0]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", '
        '"DELETE", "UPDATE"',
        'webhooks[0].rules[0].apiGroups: Invalid value: []string{"*", "apps"}: if \'*\' is present, must not specify '
        "other API groups",
        'webhooks[0].rules[0].resources: Invalid value: []string{"*/*", "a"}: if \'*/*\' is present, must not specify '
        "other resources",
        "webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds",
        'webhooks[0].reinvocationPolicy: Unsupported value: "Sometimes": supported values: "IfNeeded", "Never"',
        "webhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired "
        "format: https://host[/path]",
        'webhooks[0].clientConfig.url: Invalid value: "user": user information is not permitted in the URL',
        'webhooks[0].clientConfig.url: Invalid value: "x=1": query parameters are not permitted in the URL',
    ]


def test_match_condition_that_does_not_compile(server, name) -> None:
    hook = _webhook(
        matchConditions=[{"name": "bad", "expression": "object.x in [1, 2,"}, {"name": "n", "expression": "6"}]
    )
    r = server.request("POST", VWC_PATH, json=_config("ValidatingWebhookConfiguration", name, hook))
    status = _invalid(r, "ValidatingWebhookConfiguration", name)
    assert status["details"]["causes"] == [
        {
            "reason": "FieldValueInvalid",
            "message": 'Invalid value: "object.x in [1, 2,": compilation failed: ERROR: <input>:1:19: Syntax error: '
            "missing ']' at '<EOF>'\n | object.x in [1, 2,\n | ..................^",
            "field": "webhooks[0].matchConditions[0].expression",
        },
        {
            "reason": "FieldValueInvalid",
            "message": 'Invalid value: "6": must evaluate to bool but got int',
            "field": "webhooks[0].matchConditions[1].expression",
        },
    ]


def test_valid_configurations_are_accepted_and_updates_validated(server, name) -> None:
    conditions = [
        {"name": "not-system", "expression": "!request.userInfo.username.startsWith('system:')"},
        {"name": "can-list", "expression": "authorizer.group('').resource('pods').check('list').allowed()"},
    ]
    body = _config("ValidatingWebhookConfiguration", name, _webhook(matchConditions=conditions))
    server.kubectl("apply", "-f", "-", input=yaml.safe_dump(body))
    stored = server.request("GET", f"{VWC_PATH}/{name}").json()
    hook = stored["webhooks"][0]
    assert hook["clientConfig"]["service"]["port"] == 443 and hook["timeoutSeconds"] == 10

    # an update that keeps to the rules goes through
    patch = '[{"op": "replace", "path": "/webhooks/0/timeoutSeconds", "value": 5}]'
    server.kubectl("patch", "validatingwebhookconfiguration", name, "--type=json", "-p", patch)

    # an update is held to create's rules when the stored object kept to them: one error each, not two
    changed = copy.deepcopy(server.request("GET", f"{VWC_PATH}/{name}").json())
    changed["webhooks"][0]["sideEffects"] = "Unknown"
    changed["webhooks"].append(copy.deepcopy(changed["webhooks"][0]))
    r = server.request("PUT", f"{VWC_PATH}/{name}", json=changed)
    status = _invalid(r, "ValidatingWebhookConfiguration", name)
    assert [f"{c['field']}: {c['message']}" for c in status["details"]["causes"]] == [
        'webhooks[0].sideEffects: Unsupported value: "Unknown": supported values: "None", "NoneOnDryRun"',
        'webhooks[1].sideEffects: Unsupported value: "Unknown": supported values: "None", "NoneOnDryRun"',
        'webhooks[1].name: Duplicate value: "check.example.com"',
    ]
    patch = '[{"op": "replace", "path": "/webhooks/0/clientConfig/service/path", "value": "/a//b"}]'
    res = server.kubectl("patch", "validatingwebhookconfiguration", name, "--type=json", "-p", patch, check=False)
    assert res.returncode != 0
    assert (
        f'The ValidatingWebhookConfiguration "{name}" is invalid: webhooks[0].clientConfig.service.path: '
        'Invalid value: "/a//b": segment[1] may not be empty' in res.stderr
    )
    assert server.request("GET", f"{VWC_PATH}/{name}").json()["webhooks"][0]["timeoutSeconds"] == 5


def test_mutating_configuration_is_accepted(server, name) -> None:
    hook = _webhook(clientConfig={"url": "https://hooks.example.com:8443/mutate"}, reinvocationPolicy="IfNeeded")
    res = server.kubectl("create", "-f", "-", input=yaml.safe_dump(_config("MutatingWebhookConfiguration", name, hook)))
    # the server says that it does not call webhooks yet (kube gives no such warning: it calls them)
    assert res.stderr.strip() == (
        f'Warning: this server does not call admission webhooks yet: MutatingWebhookConfiguration "{name}" is '
        "stored but has no effect"
    )
    got = yaml.safe_load(server.kubectl("get", "mutatingwebhookconfiguration", name, "-o", "yaml").stdout)
    assert got["webhooks"][0]["reinvocationPolicy"] == "IfNeeded"
    # dry-run create of a bad one is refused as well
    bad = _config("MutatingWebhookConfiguration", f"{name}-x", _webhook(sideEffects="Some"))
    r = server.request("POST", f"{MWC_PATH}?dryRun=All", json=bad)
    status = _invalid(r, "MutatingWebhookConfiguration", f"{name}-x")
    assert status["details"]["causes"][0]["field"] == "webhooks[0].sideEffects"

"""APIService validation as users meet it: kubectl and raw requests get kube-apiserver's 422 Invalid with
kube-aggregator's messages, and a well-formed APIService is accepted. (The local APIServices of the built-in
groups, which the server writes itself, are in test_apiservice_autoregistration.py.)"""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
import yaml
from e2e_helpers import invalid_status

PATH = "/apis/apiregistration.k8s.io/v1/apiservices"
DNS1035_ERR = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', "
    "regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)


def api_service(group: str, version: str = "v1alpha1", **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "group": group,
        "version": version,
        "groupPriorityMinimum": 100,
        "versionPriority": 10,
        "service": {"namespace": "kube-system", "name": "e2e-extension"},
    }
    body.update(spec)
    return {
        "apiVersion": "apiregistration.k8s.io/v1",
        "kind": "APIService",
        "metadata": {"name": f"{version}.{group}"},
        "spec": body,
    }


@pytest.fixture
def group(server) -> str:
    """A group of the test's own on the shared server; its APIServices are removed afterwards."""
    name = f"e2e-{uuid.uuid4().hex[:8]}.example.com"
    yield name
    for item in server.request("GET", PATH).json()["items"]:
        if item["spec"].get("group") == name:
            server.request("DELETE", f"{PATH}/{item['metadata']['name']}")


def test_bogus_api_service_refused(server) -> None:
    bogus = api_service("x", "Y Z", groupPriorityMinimum=-5)
    bogus["metadata"]["name"] = "bogus"
    res = server.kubectl("create", "-f", "-", input=yaml.safe_dump(bogus), check=False)
    assert res.returncode != 0, res.stdout
    assert 'The APIService "bogus" is invalid: ' in res.stderr
    assert 'metadata.name: Invalid value: "bogus": must be `spec.version+"."+spec.group`: "Y Z.x"' in res.stderr
    assert "spec.groupPriorityMinimum: Invalid value: -5: must be positive and less than 20000" in res.stderr

    status = invalid_status(server.request("POST", PATH, json=bogus))
    assert status["details"] == {
        "name": "bogus",
        "group": "apiregistration.k8s.io",
        "kind": "APIService",
        "causes": [
            {
                "reason": "FieldValueInvalid",
                "message": 'Invalid value: "bogus": must be `spec.version+"."+spec.group`: "Y Z.x"',
                "field": "metadata.name",
            },
            {"reason": "FieldValueInvalid", "message": f'Invalid value: "Y Z": {DNS1035_ERR}', "field": "spec.version"},
            {
                "reason": "FieldValueInvalid",
                "message": "Invalid value: -5: must be positive and less than 20000",
                "field": "spec.groupPriorityMinimum",
            },
        ],
    }
    assert server.request("GET", f"{PATH}/bogus").status_code == 404


def test_service_rules(server, group) -> None:
    bad = api_service(
        group,
        service={"namespace": "kube-system", "name": "", "port": 70000},
        insecureSkipTLSVerify=True,
        caBundle="UEVN",
    )
    status = invalid_status(server.request("POST", PATH, json=bad))
    assert status["message"] == (
        f'APIService.apiregistration.k8s.io "v1alpha1.{group}" is invalid: ['
        "spec.service.name: Required value, "
        "spec.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive, "
        "spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present]"
    )
    local = api_service(group, service=None, caBundle="UEVN")
    status = invalid_status(server.request("POST", PATH, json=local))
    assert status["message"] == (
        f'APIService.apiregistration.k8s.io "v1alpha1.{group}" is invalid: '
        'spec.caBundle: Invalid value: "3 bytes": local APIServices may not have a caBundle'
    )


def test_valid_api_service_accepted_and_update_validated(server, group) -> None:
    good = api_service(group)
    name = good["metadata"]["name"]
    server.kubectl("apply", "-f", "-", input=yaml.safe_dump(good))
    got = json.loads(server.kubectl("get", "apiservice", name, "-o", "json").stdout)
    assert got["spec"]["group"] == group and got["spec"]["versionPriority"] == 10

    # kubectl apply of an out-of-range priority: refused, the stored object unchanged
    changed = json.loads(json.dumps(good))
    changed["spec"]["versionPriority"] = 1001
    res = server.kubectl("apply", "-f", "-", input=yaml.safe_dump(changed), check=False)
    assert res.returncode != 0, res.stdout
    assert (
        f'The APIService "{name}" is invalid: spec.versionPriority: Invalid value: 1001: '
        "must be positive and less than 1000" in res.stderr
    )

    # PUT that changes the version (the name no longer fits)
    current = server.request("GET", f"{PATH}/{name}").json()
    current["spec"]["version"] = "v2"
    status = invalid_status(server.request("PUT", f"{PATH}/{name}", json=current))
    assert status["message"] == (
        f'APIService.apiregistration.k8s.io "{name}" is invalid: metadata.name: Invalid value: "{name}": '
        f'must be `spec.version+"."+spec.group`: "v2.{group}"'
    )

    # the status subresource: a condition status other than True, False or Unknown
    current = server.request("GET", f"{PATH}/{name}").json()
    current["status"] = {"conditions": [{"type": "Available", "status": "Yes", "reason": "Testing"}]}
    status = invalid_status(server.request("PUT", f"{PATH}/{name}/status", json=current))
    assert status["details"]["causes"] == [
        {
            "reason": "FieldValueNotSupported",
            "message": 'Unsupported value: "Yes": supported values: "True", "False", "Unknown"',
            "field": "status.conditions[0].status",
        }
    ]
    current["status"]["conditions"][0]["status"] = "False"
    r = server.request("PUT", f"{PATH}/{name}/status", json=current)
    assert r.status_code == 200, r.text

    # a valid change goes through
    server.kubectl("patch", "apiservice", name, "--type=merge", "-p", '{"spec":{"versionPriority":20}}')
    got = json.loads(server.kubectl("get", "apiservice", name, "-o", "json").stdout)
    assert got["spec"]["versionPriority"] == 20

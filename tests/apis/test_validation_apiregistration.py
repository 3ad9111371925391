"""apiregistration.k8s.io/v1 APIService validation: kube-apiserver 1.33's (kube-aggregator's) messages."""

from __future__ import annotations

import base64
from typing import Any

from validation_groups_helpers import errors, with_changes

from kube_apiserver.apis import GROUP_PRIORITY
from kube_apiserver.apis.apiregistration.resources import RESOURCES
from kube_apiserver.apis.apiregistration.validation import required_name, validate_api_service
from kube_apiserver.apis.scheme import build_scheme
from kube_apiserver.registry.strategy import RESTStrategy

DNS1035_ERR = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', "
    "regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)
DNS1123_SUBDOMAIN_ERR = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)


def api_service(group: str = "metrics.k8s.io", version: str = "v1beta1", **spec: Any) -> dict[str, Any]:
    """A remote APIService as users write it (port left to the v1 default, 443)."""
    body: dict[str, Any] = {
        "group": group,
        "version": version,
        "groupPriorityMinimum": 100,
        "versionPriority": 100,
        "service": {"namespace": "kube-system", "name": "metrics-server"},
    }
    body.update(spec)
    return {
        "apiVersion": "apiregistration.k8s.io/v1",
        "kind": "APIService",
        "metadata": {"name": f"{version}.{group}"},
        "spec": body,
    }


def strategy() -> RESTStrategy:
    return RESTStrategy(RESOURCES[0], build_scheme())


def test_valid() -> None:
    assert validate_api_service(api_service()) == []
    assert validate_api_service(api_service(service={"namespace": "ns", "name": "svc", "port": 8443})) == []
    assert validate_api_service(api_service(caBundle=base64.b64encode(b"PEM").decode())) == []
    assert validate_api_service(api_service(insecureSkipTLSVerify=True)) == []
    assert validate_api_service(api_service(groupPriorityMinimum=20000, versionPriority=1000)) == []
    assert validate_api_service(api_service(groupPriorityMinimum=1, versionPriority=1)) == []


def test_builtin_local_api_services_validate() -> None:
    """What upstream's autoregister controller writes for each built-in group version: local (no
    service), named version.group, "v1." for the core group, which is not a DNS subdomain."""
    s = strategy()
    for (group, version), (group_priority, version_priority) in GROUP_PRIORITY.items():
        obj = {
            "apiVersion": "apiregistration.k8s.io/v1",
            "kind": "APIService",
            "metadata": {
                "name": f"{version}.{group}",
                "labels": {"kube-aggregator.kubernetes.io/automanaged": "onstart"},
            },
            "spec": {
                "group": group,
                "version": version,
                "groupPriorityMinimum": group_priority,
                "versionPriority": version_priority,
            },
        }
        assert s.validate(obj) == [], obj["metadata"]["name"]
    assert required_name({"version": "v1"}) == "v1."


def test_bogus() -> None:
    obj = api_service("x", "Y Z", groupPriorityMinimum=-5)
    obj["metadata"]["name"] = "bogus"
    assert errors(strategy().validate(obj)) == [
        'metadata.name: Invalid value: "bogus": must be `spec.version+"."+spec.group`: "Y Z.x"',
        f'spec.version: Invalid value: "Y Z": {DNS1035_ERR}',
        "spec.groupPriorityMinimum: Invalid value: -5: must be positive and less than 20000",
    ]


def test_name() -> None:
    s = strategy()
    wrong = with_changes(api_service(), metadata__name="v1.metrics.k8s.io")
    assert errors(s.validate(wrong)) == [
        'metadata.name: Invalid value: "v1.metrics.k8s.io": must be `spec.version+"."+spec.group`: '
        '"v1beta1.metrics.k8s.io"'
    ]
    # a name that is not a path segment gets those errors alone, once
    slashed = with_changes(api_service(), metadata__name="v1/x%y")
    assert errors(s.validate(slashed)) == [
        """metadata.name: Invalid value: "v1/x%y": may not contain '/'""",
        """metadata.name: Invalid value: "v1/x%y": may not contain '%'""",
    ]
    assert errors(s.validate(with_changes(api_service(), metadata__name=".."))) == [
        """metadata.name: Invalid value: "..": may not be '..'"""
    ]
    assert errors(s.validate(with_changes(api_service(), metadata__name=None))) == [
        "metadata.name: Required value: name or generateName is required"
    ]
    # upper case is not refused by the name (only by spec.group): no DNS-subdomain name check
    upper = api_service("Metrics.io", "v1")
    assert errors(s.validate(upper)) == [f'spec.group: Invalid value: "Metrics.io": {DNS1123_SUBDOMAIN_ERR}']
    # upstream runs the same name function on generateName
    generated = with_changes(api_service(), metadata__generateName="v1beta1.metrics-")
    assert errors(validate_api_service(generated)) == [
        'metadata.generateName: Invalid value: "v1beta1.metrics-": must be `spec.version+"."+spec.group`: '
        '"v1beta1.metrics.k8s.io"'
    ]


def test_group_and_version() -> None:
    core = api_service("", "v1")
    assert core["metadata"]["name"] == "v1."
    assert validate_api_service(core) == []
    assert errors(validate_api_service(api_service("", "v2"))) == [
        "spec.group: Required value: only v1 may have an empty group and it better be legacy kube"
    ]
    missing = with_changes(api_service(), spec__group=None, spec__version=None, metadata__name=".")
    assert errors(validate_api_service(missing)) == [
        "spec.group: Required value: only v1 may have an empty group and it better be legacy kube",
        f'spec.version: Invalid value: "": {DNS1035_ERR}',
    ]
    long_version = "v" + "1" * 63
    assert errors(validate_api_service(api_service(version=long_version))) == [
        f'spec.version: Invalid value: "{long_version}": must be no more than 63 characters'
    ]
    assert errors(validate_api_service(api_service(group="bad_group"))) == [
        f'spec.group: Invalid value: "bad_group": {DNS1123_SUBDOMAIN_ERR}'
    ]


def test_priorities() -> None:
    assert errors(validate_api_service(api_service(groupPriorityMinimum=20001, versionPriority=0))) == [
        "spec.groupPriorityMinimum: Invalid value: 20001: must be positive and less than 20000",
        "spec.versionPriority: Invalid value: 0: must be positive and less than 1000",
    ]
    assert errors(validate_api_service(api_service(versionPriority=1001))) == [
        "spec.versionPriority: Invalid value: 1001: must be positive and less than 1000"
    ]
    # int32 fields without omitempty: missing is Go's zero
    missing = with_changes(api_service(), spec__groupPriorityMinimum=None, spec__versionPriority=None)
    assert errors(validate_api_service(missing)) == [
        "spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000",
        "spec.versionPriority: Invalid value: 0: must be positive and less than 1000",
    ]


def test_local_api_service() -> None:
    local = with_changes(api_service(), spec__service=None)
    assert validate_api_service(local) == []
    bundle = base64.b64encode(b"0123456789").decode()
    bad = with_changes(local, spec__caBundle=bundle, spec__insecureSkipTLSVerify=True)
    assert errors(validate_api_service(bad)) == [
        'spec.caBundle: Invalid value: "10 bytes": local APIServices may not have a caBundle',
        "spec.insecureSkipTLSVerify: Invalid value: true: local APIServices may not have insecureSkipTLSVerify",
    ]
    # an explicit null service is local as well
    local_null = with_changes(api_service(), spec__insecureSkipTLSVerify=True)
    local_null["spec"]["service"] = None
    assert errors(validate_api_service(local_null)) == [
        "spec.insecureSkipTLSVerify: Invalid value: true: local APIServices may not have insecureSkipTLSVerify"
    ]
    assert validate_api_service(with_changes(local, spec__insecureSkipTLSVerify=False, spec__caBundle="")) == []


def test_service() -> None:
    empty = api_service(service={})
    assert errors(validate_api_service(empty)) == [
        "spec.service.namespace: Required value",
        "spec.service.name: Required value",
    ]
    for port in (0, -1, 65536):
        assert errors(validate_api_service(api_service(service={"namespace": "a", "name": "b", "port": port}))) == [
            f"spec.service.port: Invalid value: {port}: port is not valid: must be between 1 and 65535, inclusive"
        ]
    assert validate_api_service(api_service(service={"namespace": "a", "name": "b", "port": 65535})) == []
    both = api_service(insecureSkipTLSVerify=True, caBundle=base64.b64encode(b"PEM").decode())
    assert errors(validate_api_service(both)) == [
        "spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present"
    ]


def test_status_conditions() -> None:
    obj = api_service()
    obj["status"] = {
        "conditions": [
            {"type": "Available", "status": "True"},
            {"type": "Available", "status": "Maybe"},
            {"type": "Available"},
        ]
    }
    assert errors(validate_api_service(obj)) == [
        'status.conditions[1].status: Unsupported value: "Maybe": supported values: "True", "False", "Unknown"',
        'status.conditions[2].status: Unsupported value: "": supported values: "True", "False", "Unknown"',
    ]


def test_update() -> None:
    """ValidateAPIServiceUpdate: the metadata update rules and the whole new object."""
    s = strategy()
    old = api_service()
    old["metadata"].update(uid="1", resourceVersion="5", creationTimestamp="2024-01-01T00:00:00Z")
    new = with_changes(old, spec__groupPriorityMinimum=0)
    assert errors(s.validate(new) + s.validate_update(new, old)) == [
        "spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000"
    ]
    renamed = with_changes(old, spec__version="v2")
    assert errors(s.validate(renamed) + s.validate_update(renamed, old)) == [
        'metadata.name: Invalid value: "v1beta1.metrics.k8s.io": must be `spec.version+"."+spec.group`: '
        '"v2.metrics.k8s.io"'
    ]
    assert s.validate_update(with_changes(old, spec__versionPriority=5), old) == []

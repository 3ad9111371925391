"""spec.conversion validation and defaults, and the storedVersions upkeep of the CRD strategy."""

from __future__ import annotations

import base64
from typing import Any

from kube_apiserver.apiextensions.conversion.validation import (
    add_storage_version,
    set_defaults_conversion,
    validate_ca_bundle,
    validate_conversion_on_create,
    validate_conversion_on_update,
    validate_custom_resource_conversion,
    validate_webhook_service,
    validate_webhook_url,
)

ESTABLISHED = {"conditions": [{"type": "Established", "status": "True"}]}


def texts(causes) -> list[str]:
    return [f"{c.field}: {c.message}" for c in causes]


def webhook(cc: dict[str, Any], versions: list[Any] | None = None) -> dict[str, Any]:
    return {"strategy": "Webhook", "webhook": {"clientConfig": cc, "conversionReviewVersions": versions or ["v1"]}}


def check(conversion: dict[str, Any], **kw: Any) -> list[str]:
    opts = {"require_recognized_version": True, "allow_invalid_ca_bundle": True, **kw}
    return texts(validate_custom_resource_conversion({"conversion": conversion}, **opts))


def test_defaults():
    spec: dict[str, Any] = {}
    set_defaults_conversion(spec)
    assert spec == {"conversion": {"strategy": "None"}}
    spec = {"conversion": webhook({"service": {"name": "s", "namespace": "n"}})}
    set_defaults_conversion(spec)
    assert spec["conversion"]["webhook"]["clientConfig"]["service"] == {"name": "s", "namespace": "n", "port": 443}


def test_strategy():
    assert check({"strategy": "None"}) == []
    assert check({}) == ["spec.conversion.strategy: Required value"]
    assert check({"strategy": "Magic"}) == [
        'spec.conversion.strategy: Unsupported value: "Magic": supported values: "None", "Webhook"'
    ]
    preserve = validate_custom_resource_conversion(
        {"conversion": webhook({"url": "https://h"}), "preserveUnknownFields": True},
        require_recognized_version=True,
        allow_invalid_ca_bundle=True,
    )
    assert texts(preserve) == [
        'spec.conversion.strategy: Invalid value: "Webhook": must be None if spec.preserveUnknownFields is true'
    ]


def test_webhook_needs_one_client_config_and_review_versions():
    assert check({"strategy": "Webhook"}) == [
        "spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook",
        "spec.conversion.conversionReviewVersions: Required value",
    ]
    both = {"url": "https://h", "service": {"name": "s", "namespace": "n", "port": 443}}
    assert check(webhook(both)) == [
        "spec.conversion.webhookClientConfig: Required value: exactly one of url or service is required"
    ]
    assert check(webhook({"url": "https://h"}, ["v1", "v1", "v1beta1", "V2"])) == [
        'spec.conversion.conversionReviewVersions[1]: Invalid value: "v1": duplicate version',
        'spec.conversion.conversionReviewVersions[3]: Invalid value: "V2": a DNS-1035 label must consist of lower '
        "case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric "
        "character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    ]
    assert check(webhook({"url": "https://h"}, ["v2"])) == [
        'spec.conversion.conversionReviewVersions: Invalid value: []string{"v2"}: must include at least one of v1, v1beta1'
    ]
    assert check(webhook({"url": "https://h"}, ["v2"]), require_recognized_version=False) == []


def test_none_strategy_forbids_webhook_fields():
    conversion = {
        "strategy": "None",
        "webhook": {"clientConfig": {"url": "https://h"}, "conversionReviewVersions": ["v1"]},
    }
    assert check(conversion) == [
        "spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook",
        "spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook",
    ]


def test_webhook_url():
    p = "u"
    assert texts(validate_webhook_url(p, "https://example.com:8443/convert", True)) == []
    assert texts(validate_webhook_url(p, "http://a:b@h/x?q=1#f", True)) == [
        "u: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
        'u: Invalid value: "a:b": user information is not permitted in the URL',
        'u: Invalid value: "f": fragments are not permitted in the URL',
        'u: Invalid value: "q=1": query parameters are not permitted in the URL',
    ]
    assert texts(validate_webhook_url(p, "https:///path", True)) == [
        'u: Invalid value: "": host must be provided; desired format: https://host[/path]'
    ]
    assert texts(validate_webhook_url(p, ":8443", True)) == [
        'u: Required value: url must be a valid URL: parse ":8443": missing protocol scheme; '
        "desired format: https://host[/path]"
    ]
    assert texts(validate_webhook_url(p, "127.0.0.1:8443/convert", True)) == [
        'u: Required value: url must be a valid URL: parse "127.0.0.1:8443/convert": first path segment in URL '
        "cannot contain colon; desired format: https://host[/path]"
    ]


def test_webhook_service():
    assert texts(validate_webhook_service("s", {"name": "a", "namespace": "b", "port": 443, "path": "/x/y"})) == []
    assert texts(validate_webhook_service("s", {"port": 70000, "path": "//"})) == [
        "s.name: Required value: service name is required",
        "s.namespace: Required value: service namespace is required",
        "s.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive",
        's.path: Invalid value: "//": segment[0] may not be empty',
    ]
    # as Go does, the first character is dropped before the segments are checked, slash or not
    assert texts(validate_webhook_service("s", {"name": "a", "namespace": "b", "port": 1, "path": "x//Y/"})) == [
        "s.path: Invalid value: \"x//Y/\": must start with a '/'",
        's.path: Invalid value: "x//Y/": segment[0] may not be empty',
        's.path: Invalid value: "x//Y/": segment[1] may not be empty',
        's.path: Invalid value: "x//Y/": segment[2]: a lowercase RFC 1123 subdomain must consist of lower case '
        "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
        "'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ]


def test_ca_bundle():
    assert texts(validate_ca_bundle("c", b"foo")) == [
        "c: Invalid value: []byte{0x66, 0x6f, 0x6f}: unable to load root certificates: unable to parse bytes as PEM block"
    ]
    key_only = b"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"
    assert texts(validate_ca_bundle("c", key_only))[0].endswith(
        "unable to load root certificates: no valid certificate authority data seen"
    )


def crd(conversion: dict[str, Any], *, status: dict[str, Any] | None = None, rv: str = "") -> dict[str, Any]:
    return {
        "metadata": {"name": "crontabs.stable.example.com", "resourceVersion": rv},
        "spec": {
            "versions": [{"name": "v1", "storage": False}, {"name": "v2", "storage": True}],
            "conversion": conversion,
        },
        "status": status or {},
    }


def test_invalid_ca_bundle_allowed_on_create_and_until_established():
    bad = webhook({"url": "https://h", "caBundle": base64.b64encode(b"foo").decode()})
    good = webhook({"url": "https://h"})
    assert validate_conversion_on_create(crd(bad)) == []
    assert validate_conversion_on_update(crd(bad, rv="2"), crd(good, rv="1")) == []
    established = crd(good, status=ESTABLISHED, rv="1")
    assert texts(validate_conversion_on_update(crd(bad, rv="2"), established)) == [
        "spec.conversion.webhookClientConfig.caBundle: Invalid value: []byte{0x66, 0x6f, 0x6f}: "
        "unable to load root certificates: unable to parse bytes as PEM block"
    ]
    # the old one was invalid already: an invalid one may replace it
    old_bad = crd(webhook({"url": "https://old", "caBundle": base64.b64encode(b"bar").decode()}), status=ESTABLISHED)
    assert validate_conversion_on_update(crd(bad, rv="2"), old_bad) == []


def test_update_rules():
    old = crd(webhook({"url": "https://h"}, ["v9"]), rv="1")
    # the stored CRD had no known review version: an update may keep it so
    assert validate_conversion_on_update(crd(webhook({"url": "https://h2"}, ["v9"]), rv="2"), old) == []
    # a status update (the spec is the old one) is not checked
    invalid = crd({"strategy": "Webhook"}, rv="1")
    assert validate_conversion_on_update(invalid, invalid) == []
    assert texts(validate_conversion_on_update(invalid, crd({"strategy": "None"}, rv="1")))[0] == (
        "spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook"
    )


def test_storage_version_joins_stored_versions():
    obj = crd({"strategy": "None"})
    add_storage_version(obj)
    assert obj["status"]["storedVersions"] == ["v2"]
    obj["spec"]["versions"] = [{"name": "v1", "storage": True}, {"name": "v2", "storage": False}]
    add_storage_version(obj)
    assert obj["status"]["storedVersions"] == ["v2", "v1"]
    add_storage_version(obj)
    assert obj["status"]["storedVersions"] == ["v2", "v1"]
    none = {"spec": {"versions": [{"name": "v1", "storage": False}]}, "status": {}}
    add_storage_version(none)
    assert "storedVersions" not in none["status"]

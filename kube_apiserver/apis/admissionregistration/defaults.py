"""admissionregistration.k8s.io/v1 defaults (pkg/apis/admissionregistration/v1/defaults.go and the
generated SetObjectDefaults_*). In v1, sideEffects and admissionReviewVersions are required, not
defaulted, and a binding's paramRef has no default parameterNotFoundAction."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.core.defaults.fields import child, default, items

DEFAULT_TIMEOUT_SECONDS = 10
DEFAULT_SERVICE_PORT = 443


def _set_defaults_webhook(webhook: dict[str, Any]) -> None:
    default(webhook, "failurePolicy", "Fail")
    default(webhook, "matchPolicy", "Equivalent")
    default(webhook, "namespaceSelector", {})
    default(webhook, "objectSelector", {})
    default(webhook, "timeoutSeconds", DEFAULT_TIMEOUT_SECONDS)
    service = child(child(webhook, "clientConfig"), "service")
    if service is not None:
        default(service, "port", DEFAULT_SERVICE_PORT)
    for rule in items(webhook, "rules"):
        set_defaults_rule(rule)


def set_defaults_rule(rule: dict[str, Any]) -> None:
    default(rule, "scope", "*")


def set_defaults_match_resources(match: dict[str, Any]) -> None:
    default(match, "matchPolicy", "Equivalent")
    default(match, "namespaceSelector", {})
    default(match, "objectSelector", {})
    for key in ("resourceRules", "excludeResourceRules"):
        for rule in items(match, key):
            set_defaults_rule(rule)


def set_object_defaults_validating_webhook_configuration(obj: dict[str, Any]) -> None:
    for webhook in items(obj, "webhooks"):
        _set_defaults_webhook(webhook)


def set_object_defaults_mutating_webhook_configuration(obj: dict[str, Any]) -> None:
    for webhook in items(obj, "webhooks"):
        _set_defaults_webhook(webhook)
        default(webhook, "reinvocationPolicy", "Never")


def set_object_defaults_validating_admission_policy(obj: dict[str, Any]) -> None:
    spec = child(obj, "spec", create=True)
    if spec is None:
        return
    default(spec, "failurePolicy", "Fail")
    match = child(spec, "matchConstraints")
    if match is not None:
        set_defaults_match_resources(match)


def set_object_defaults_validating_admission_policy_binding(obj: dict[str, Any]) -> None:
    match = child(child(obj, "spec"), "matchResources")
    if match is not None:
        set_defaults_match_resources(match)


DEFAULTERS = {
    ("v1", "ValidatingWebhookConfiguration"): set_object_defaults_validating_webhook_configuration,
    ("v1", "MutatingWebhookConfiguration"): set_object_defaults_mutating_webhook_configuration,
    ("v1", "ValidatingAdmissionPolicy"): set_object_defaults_validating_admission_policy,
    ("v1", "ValidatingAdmissionPolicyBinding"): set_object_defaults_validating_admission_policy_binding,
}

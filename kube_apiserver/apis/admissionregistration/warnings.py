"""Warnings for the admission configuration objects. kube-apiserver gives none; this server stores these objects
and validates them as kube does but does not call webhooks or evaluate policies yet, so a client that writes
one is told so (a Warning header, which kubectl prints) rather than left to believe its webhook or policy is
in force: an operator's tests that rely on one would otherwise pass without it."""

from __future__ import annotations

from typing import Any

_NOT_CALLED = 'this server does not call admission webhooks yet: {kind} "{name}" is stored but has no effect'
_NOT_EVALUATED = 'this server does not evaluate admission policies yet: {kind} "{name}" is stored but has no effect'


def _warner(text: str) -> Any:
    def warn(new: dict[str, Any], old: dict[str, Any] | None) -> list[str]:
        name = (new.get("metadata") or {}).get("name") or ""
        return [text.format(kind=new.get("kind", ""), name=name)]

    return warn


WARNERS = {
    ("v1", "ValidatingWebhookConfiguration"): _warner(_NOT_CALLED),
    ("v1", "MutatingWebhookConfiguration"): _warner(_NOT_CALLED),
    ("v1", "ValidatingAdmissionPolicy"): _warner(_NOT_EVALUATED),
    ("v1", "ValidatingAdmissionPolicyBinding"): _warner(_NOT_EVALUATED),
}

"""ABAC (pkg/auth/authorizer/abac): --authorization-policy-file, one JSON policy per line.

Lines are abac.authorization.kubernetes.io/v1beta1 Policy objects, or the unversioned legacy form (a bare
{"user": ..., "group": ..., "readonly": ..., "resource": ..., "namespace": ...}) that kube migrates with the
v0 conversion. Blank lines and lines starting with # are skipped. A policy allows a request when its subject,
verb and then resource (or non-resource path) match; otherwise the authorizer has no opinion, "No policy
matched."."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import orjson

from kube_apiserver.authentication.user import ALL_AUTHENTICATED, UserInfo
from kube_apiserver.authorization.authorizer import ALLOW, NO_OPINION, Attributes
from kube_apiserver.runtime.strategicpatch.gojson import json_kind

log = logging.getLogger(__name__)
GROUP_VERSION = "abac.authorization.kubernetes.io/v1beta1"
LEGACY_GROUP_VERSION = "abac.authorization.kubernetes.io/v0"
_SPEC_FIELDS = {
    "user": str,
    "group": str,
    "readonly": bool,
    "apiGroup": str,
    "resource": str,
    "namespace": str,
    "nonResourcePath": str,
}


class PolicyLoadError(ValueError):
    """policyLoadError: names the file, the line number and the line."""


@dataclass(frozen=True, slots=True)
class Policy:
    """abac.PolicySpec (the internal form both file versions convert to)."""

    user: str = ""
    group: str = ""
    readonly: bool = False
    api_group: str = ""
    resource: str = ""
    namespace: str = ""
    non_resource_path: str = ""


def _typed(obj: dict[str, Any], where: str) -> dict[str, Any]:
    """The spec fields with their JSON types checked (a strict decode, as the codec's)."""
    out: dict[str, Any] = {}
    for key, value in obj.items():
        kind = _SPEC_FIELDS.get(key)
        if kind is None or value is None:
            continue
        if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
            expected = "bool" if kind is bool else "string"
            raise ValueError(
                f"json: cannot unmarshal {json_kind(value)} into Go struct field {where}{key} of type {expected}"
            )
        out[key] = value
    return out


def _from_v1beta1(spec: dict[str, Any]) -> Policy:
    user, group = spec.get("user", ""), spec.get("group", "")
    # In v1beta1 a "*" user or group stands for every authenticated subject.
    if user == "*" or group == "*":
        user, group = "", ALL_AUTHENTICATED
    return Policy(
        user,
        group,
        spec.get("readonly", False),
        spec.get("apiGroup", ""),
        spec.get("resource", ""),
        spec.get("namespace", ""),
        spec.get("nonResourcePath", ""),
    )


def _from_v0(obj: dict[str, Any]) -> Policy:
    """Convert_v0_Policy_To_abac_Policy: the legacy form's blanks are wildcards."""
    user, group = obj.get("user", ""), obj.get("group", "")
    namespace, resource = obj.get("namespace", ""), obj.get("resource", "")
    if not user and not group:
        group = ALL_AUTHENTICATED
    if user == "*" or group == "*":
        user, group = "", ALL_AUTHENTICATED
    return Policy(
        user,
        group,
        obj.get("readonly", False),
        "*",  # every v0 rule applies to every API group
        resource or "*",
        namespace or "*",
        "*" if not namespace and not resource else "",
    )


def parse_line(data: bytes) -> tuple[Policy, bool]:
    """(policy, whether the line was in the unversioned legacy form). Raises ValueError."""
    obj = orjson.loads(data)
    if not isinstance(obj, dict):
        raise ValueError("json: cannot unmarshal " + type(obj).__name__ + " into Go value of type abac.Policy")
    api_version, kind = obj.get("apiVersion", ""), obj.get("kind", "")
    if not api_version or not kind:
        return _from_v0(_typed(obj, "Policy.")), True
    if api_version == LEGACY_GROUP_VERSION and kind == "Policy":
        return _from_v0(_typed(obj, "Policy.")), False
    if api_version != GROUP_VERSION or kind != "Policy":
        raise ValueError(f'no kind "{kind}" is registered for version "{api_version}" in scheme')
    spec = obj.get("spec")
    if spec is not None and not isinstance(spec, dict):
        raise ValueError("spec: expected object")
    return _from_v1beta1(_typed(spec or {}, "Policy.spec.")), False


def load_policy_file(path: str) -> list[Policy]:
    """NewFromFile. Raises PolicyLoadError."""
    try:
        with open(path, "rb") as f:
            lines = f.read().split(b"\n")
    except OSError as e:
        raise PolicyLoadError(f"error reading policy file {path}: open {path}: {e.strerror.lower()}") from None
    policies: list[Policy] = []
    unversioned = 0
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip(b"\r")
        stripped = line.strip()
        if not stripped or stripped.startswith(b"#"):
            continue
        try:
            policy, legacy = parse_line(line)
        except (ValueError, orjson.JSONDecodeError) as e:
            text = line.decode("utf-8", "replace")
            raise PolicyLoadError(f"error reading policy file {path}, line {number}: {text}: {e}") from None
        unversioned += legacy
        policies.append(policy)
    if unversioned:
        log.warning(
            "Policy file %s contained unversioned rules. See docs/admin/authorization.md#abac-mode for ABAC file "
            "format details.",
            path,
        )
    return policies


def subject_matches(p: Policy, user: UserInfo) -> bool:
    matched = False
    if p.user:
        if p.user == "*":
            matched = True
        elif p.user != user.name:
            return False
        else:
            matched = True
    if p.group:
        if p.group == "*":
            matched = True
        elif p.group not in user.groups:
            return False
        else:
            matched = True
    return matched


def verb_matches(p: Policy, a: Attributes) -> bool:
    # every policy allows read-only requests; a readonly policy allows nothing else
    return a.is_read_only() or not p.readonly


def resource_matches(p: Policy, a: Attributes) -> bool:
    return (
        a.is_resource_request
        and p.namespace in ("*", a.namespace)
        and p.resource in ("*", a.resource)
        and p.api_group in ("*", a.api_group)
    )


def non_resource_matches(p: Policy, a: Attributes) -> bool:
    if a.is_resource_request:
        return False
    path = p.non_resource_path
    if path == "*" or path == a.path:
        return True
    return path.endswith("*") and a.path.startswith(path.rstrip("*"))


def matches(p: Policy, a: Attributes) -> bool:
    return subject_matches(p, a.user) and verb_matches(p, a) and (resource_matches(p, a) or non_resource_matches(p, a))


class ABACAuthorizer:
    def __init__(self, policies: list[Policy]) -> None:
        self.policies = policies

    @classmethod
    def from_file(cls, path: str) -> ABACAuthorizer:
        return cls(load_policy_file(path))

    def authorize(self, attrs: Attributes) -> tuple[str, str]:
        for p in self.policies:
            if matches(p, attrs):
                return ALLOW, ""
        return NO_OPINION, "No policy matched."

"""Matching a request against a FlowSchema (pkg/util/flowcontrol/rule.go), and its flow.

FlowSchemas are API objects (dicts) a user may have written with odd shapes: the controller compiles
each one once into a CompiledFlowSchema of plain tuples, so that matching a request costs a few tuple
and string comparisons and never meets a wrong type.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from kube_apiserver.authentication.user import UserInfo
from kube_apiserver.endpoints.request_info import RequestInfo

SA_PREFIX = "system:serviceaccount:"
_ALL = "*"


@dataclass(frozen=True, slots=True)
class Subject:
    kind: str  # User, Group, ServiceAccount
    name: str
    namespace: str = ""

    def matches(self, user: UserInfo) -> bool:
        if self.kind == "User":
            return self.name == _ALL or self.name == user.name
        if self.kind == "Group":
            return self.name == _ALL or self.name in user.groups
        if self.kind == "ServiceAccount":
            if self.name == _ALL:
                # system:serviceaccount:<namespace>:<anything>
                prefix = f"{SA_PREFIX}{self.namespace}:"
                return user.name.startswith(prefix)
            return user.name == f"{SA_PREFIX}{self.namespace}:{self.name}"
        return False


@dataclass(frozen=True, slots=True)
class ResourceRule:
    verbs: tuple[str, ...]
    api_groups: tuple[str, ...]
    resources: tuple[str, ...]
    cluster_scope: bool
    namespaces: tuple[str, ...]

    def matches(self, info: RequestInfo) -> bool:
        if not _contains(info.verb, self.verbs):
            return False
        resource = f"{info.resource}/{info.subresource}" if info.subresource else info.resource
        if not _contains(resource, self.resources):
            return False
        if not _contains(info.api_group, self.api_groups):
            return False
        if not info.namespace:
            return self.cluster_scope
        return _contains(info.namespace, self.namespaces)


@dataclass(frozen=True, slots=True)
class NonResourceRule:
    verbs: tuple[str, ...]
    urls: tuple[str, ...]

    def matches(self, info: RequestInfo) -> bool:
        if not _contains(info.verb, self.verbs):
            return False
        path = info.path
        for rule in self.urls:
            if rule == _ALL or rule == path:
                return True
            # "/apis/*" covers /apis/...; a rule without the star covers what lies below it too
            prefix = rule[:-1] if rule.endswith("*") else rule
            if not prefix.endswith("/"):
                prefix += "/"
            if path.startswith(prefix):
                return True
        return False


@dataclass(frozen=True, slots=True)
class PolicyRules:
    subjects: tuple[Subject, ...]
    resource_rules: tuple[ResourceRule, ...]
    non_resource_rules: tuple[NonResourceRule, ...]

    def matches(self, user: UserInfo, info: RequestInfo) -> bool:
        for subject in self.subjects:
            if subject.matches(user):
                break
        else:
            return False
        for rule in self.resource_rules if info.is_resource_request else self.non_resource_rules:
            if rule.matches(info):
                return True
        return False


@dataclass(frozen=True, slots=True)
class CompiledFlowSchema:
    """What matching and dispatching need of a FlowSchema object."""

    name: str
    uid: str
    uid_bytes: bytes  # for the X-Kubernetes-PF-FlowSchema-UID response header
    priority_level: str
    matching_precedence: int
    distinguisher: str  # "", ByUser, ByNamespace
    rules: tuple[PolicyRules, ...]
    obj: dict[str, Any]  # the object as served, for status and the debug dumps

    def matches(self, user: UserInfo, info: RequestInfo) -> bool:
        for rule in self.rules:
            if rule.matches(user, info):
                return True
        return False


def _contains(x: str, values: tuple[str, ...], wildcard: str = _ALL) -> bool:
    """x is in values, or values is the wildcard alone (validation keeps a wildcard alone)."""
    if len(values) == 1 and values[0] == wildcard:
        return True
    return x in values


# --- compiling FlowSchema objects ---


def _strs(value: Any) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _subject(raw: Any) -> Subject | None:
    raw = _dict(raw)
    kind = raw.get("kind")
    if kind == "User":
        return Subject("User", _str(_dict(raw.get("user")).get("name"))) if isinstance(raw.get("user"), dict) else None
    if kind == "Group":
        return (
            Subject("Group", _str(_dict(raw.get("group")).get("name"))) if isinstance(raw.get("group"), dict) else None
        )
    if kind == "ServiceAccount":
        sa = raw.get("serviceAccount")
        if not isinstance(sa, dict):
            return None
        return Subject("ServiceAccount", _str(sa.get("name")), _str(sa.get("namespace")))
    return None


def compile_flow_schema(obj: dict[str, Any]) -> CompiledFlowSchema:
    meta = _dict(obj.get("metadata"))
    spec = _dict(obj.get("spec"))
    rules = []
    for raw in map(_dict, _list(spec.get("rules"))):
        subjects = tuple(s for s in map(_subject, _list(raw.get("subjects"))) if s is not None)
        resource_rules = tuple(
            ResourceRule(
                _strs(r.get("verbs")),
                _strs(r.get("apiGroups")),
                _strs(r.get("resources")),
                r.get("clusterScope") is True,
                _strs(r.get("namespaces")),
            )
            for r in map(_dict, _list(raw.get("resourceRules")))
        )
        non_resource_rules = tuple(
            NonResourceRule(_strs(r.get("verbs")), _strs(r.get("nonResourceURLs")))
            for r in map(_dict, _list(raw.get("nonResourceRules")))
        )
        rules.append(PolicyRules(subjects, resource_rules, non_resource_rules))
    precedence = spec.get("matchingPrecedence")
    method = _dict(spec.get("distinguisherMethod")).get("type")
    return CompiledFlowSchema(
        name=_str(meta.get("name")),
        uid=_str(meta.get("uid")),
        uid_bytes=_str(meta.get("uid")).encode("latin-1", "replace"),
        priority_level=_str(_dict(spec.get("priorityLevelConfiguration")).get("name")),
        matching_precedence=precedence if isinstance(precedence, int) and not isinstance(precedence, bool) else 1000,
        distinguisher=method if method in ("ByUser", "ByNamespace") else "",
        rules=tuple(rules),
        obj=obj,
    )


def sort_key(fs: CompiledFlowSchema) -> tuple[int, str]:
    """FlowSchemaSequence order: increasing matchingPrecedence, then name."""
    return (fs.matching_precedence, fs.name)


# --- flows ---


def compute_flow_distinguisher(user: UserInfo, info: RequestInfo, method: str) -> str:
    if method == "ByUser":
        return user.name
    if method == "ByNamespace":
        return info.namespace
    return ""


@lru_cache(maxsize=4096)
def hash_flow_id(fs_name: str, distinguisher: str) -> int:
    """The flow's hash, the entropy shuffle sharding deals from: the first 8 bytes, little-endian, of
    sha256(schema name, NUL, distinguisher), as upstream, so a flow gets the same hand as in kube."""
    digest = hashlib.sha256(f"{fs_name}\x00{distinguisher}".encode()).digest()
    return int.from_bytes(digest[:8], "little")

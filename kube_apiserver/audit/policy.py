"""The audit policy (audit.k8s.io/v1 Policy): loading as policy/reader.go does, validation as
apis/audit/validation does, and the rule evaluation of policy/checker.go (first matching rule wins)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

import orjson
import yaml

from kube_apiserver.runtime.errors import GoRepr, StatusCause, field_invalid, field_not_supported, field_required
from kube_apiserver.runtime.labels import go_quote
from kube_apiserver.runtime.meta import is_dns1123_subdomain
from kube_apiserver.runtime.strategicpatch.gojson import json_kind

log = logging.getLogger("kube_apiserver.audit")

LEVEL_NONE, LEVEL_METADATA, LEVEL_REQUEST, LEVEL_REQUEST_RESPONSE = "None", "Metadata", "Request", "RequestResponse"
LEVELS = (LEVEL_NONE, LEVEL_METADATA, LEVEL_REQUEST, LEVEL_REQUEST_RESPONSE)
# Level.Less: the order of the levels above.
LEVEL_ORDER = {level: i for i, level in enumerate(LEVELS)}

STAGE_REQUEST_RECEIVED = "RequestReceived"
STAGE_RESPONSE_STARTED = "ResponseStarted"
STAGE_RESPONSE_COMPLETE = "ResponseComplete"
STAGE_PANIC = "Panic"
STAGES = (STAGE_REQUEST_RECEIVED, STAGE_RESPONSE_STARTED, STAGE_RESPONSE_COMPLETE, STAGE_PANIC)

GROUP_VERSION = "audit.k8s.io/v1"
# apiGroupVersions of reader.go in 1.33: v1alpha1 and v1beta1 are gone from the audit scheme.
_SCHEME_VERSIONS = frozenset({GROUP_VERSION})
_POLICY_FIELDS = frozenset({"apiVersion", "kind", "metadata", "rules", "omitStages", "omitManagedFields"})
_RULE_FIELDS = frozenset(
    {"level", "users", "userGroups", "verbs", "resources", "namespaces", "nonResourceURLs", "omitStages"}
    | {"omitManagedFields"}
)
_GROUP_RESOURCES_FIELDS = frozenset({"group", "resources", "resourceNames"})


class PolicyError(ValueError):
    """The policy file cannot be used; the message is kube's (the caller adds "loading audit policy file: ")."""


@dataclass(frozen=True)
class GroupResources:
    group: str = ""
    resources: tuple[str, ...] = ()
    resource_names: tuple[str, ...] = ()


@dataclass(frozen=True)
class PolicyRule:
    level: str
    users: tuple[str, ...] = ()
    user_groups: tuple[str, ...] = ()
    verbs: tuple[str, ...] = ()
    resources: tuple[GroupResources, ...] = ()
    namespaces: tuple[str, ...] = ()
    non_resource_urls: tuple[str, ...] = ()
    omit_stages: tuple[str, ...] = ()
    omit_managed_fields: bool | None = None


@dataclass(frozen=True)
class Policy:
    rules: tuple[PolicyRule, ...]
    omit_stages: tuple[str, ...] = ()
    omit_managed_fields: bool = False


@dataclass(frozen=True)
class RequestAuditConfig:
    """What the policy decided for one request (auditinternal.RequestAuditConfig)."""

    level: str
    omit_stages: frozenset[str] = field(default_factory=frozenset)
    omit_managed_fields: bool = False


# -- loading ------------------------------------------------------------------------------------------------------


class _DecodeError(Exception):
    pass


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _DecodeError(f"json: cannot unmarshal {json_kind(value)} into Go struct field {where} of type []string")
    return tuple(value)


def _decode_rule(raw: Any, unknown: list[str], i: int) -> PolicyRule:
    where = "Policy.rules"
    if not isinstance(raw, dict):
        raise _DecodeError(
            f"json: cannot unmarshal {json_kind(raw)} into Go struct field {where} of type v1.PolicyRule"
        )
    unknown.extend(f'unknown field "rules[{i}].{k}"' for k in raw if k not in _RULE_FIELDS)
    level = raw.get("level") or ""
    if not isinstance(level, str):
        raise _DecodeError(
            f"json: cannot unmarshal {json_kind(level)} into Go struct field {where}.level of type v1.Level"
        )
    resources = []
    raw_resources = raw.get("resources") or []
    if not isinstance(raw_resources, list):
        raise _DecodeError(
            f"json: cannot unmarshal {json_kind(raw_resources)} into Go struct field {where}.resources of type []v1.GroupResources"
        )
    for j, gr in enumerate(raw_resources):
        if not isinstance(gr, dict):
            raise _DecodeError(
                f"json: cannot unmarshal {json_kind(gr)} into Go struct field {where}.resources of type v1.GroupResources"
            )
        unknown.extend(f'unknown field "rules[{i}].resources[{j}].{k}"' for k in gr if k not in _GROUP_RESOURCES_FIELDS)
        group = gr.get("group") or ""
        if not isinstance(group, str):
            raise _DecodeError(
                f"json: cannot unmarshal {json_kind(group)} into Go struct field {where}.resources.group of type string"
            )
        resources.append(
            GroupResources(
                group,
                _strings(gr.get("resources"), f"{where}.resources.resources"),
                _strings(gr.get("resourceNames"), f"{where}.resources.resourceNames"),
            )
        )
    omit_managed = raw.get("omitManagedFields")
    if omit_managed is not None and not isinstance(omit_managed, bool):
        raise _DecodeError(
            f"json: cannot unmarshal {json_kind(omit_managed)} into Go struct field {where}.omitManagedFields of type bool"
        )
    return PolicyRule(
        level=level,
        users=_strings(raw.get("users"), f"{where}.users"),
        user_groups=_strings(raw.get("userGroups"), f"{where}.userGroups"),
        verbs=_strings(raw.get("verbs"), f"{where}.verbs"),
        resources=tuple(resources),
        namespaces=_strings(raw.get("namespaces"), f"{where}.namespaces"),
        non_resource_urls=_strings(raw.get("nonResourceURLs"), f"{where}.nonResourceURLs"),
        omit_stages=_strings(raw.get("omitStages"), f"{where}.omitStages"),
        omit_managed_fields=omit_managed,
    )


def load_policy_from_bytes(data: bytes) -> Policy:
    """LoadPolicyFromBytes: decode (strict first; unknown fields only warn), check the group version, validate,
    and refuse a policy without rules. Raises PolicyError."""
    try:
        doc = yaml.load(data, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(e, "problem", None) or str(e)
        raise PolicyError(f"failed decoding: error converting YAML to JSON: yaml: {where}{problem}") from None
    if not isinstance(doc, dict) or not doc.get("kind"):
        shown = orjson.dumps(doc).decode() if isinstance(doc, dict) else (data.decode("utf-8", "replace").strip())
        raise PolicyError(f"failed decoding: Object 'Kind' is missing in '{shown}'")
    api_version, kind = doc.get("apiVersion"), doc.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        raise PolicyError("failed decoding: apiVersion and kind must be strings")
    if kind != "Policy" or api_version not in _SCHEME_VERSIONS:
        # audit's scheme.go (the line of its NewScheme call) names the scheme in this message
        raise PolicyError(
            f'failed decoding: no kind "{kind}" is registered for version "{api_version}" in scheme '
            '"k8s.io/apiserver/pkg/audit/scheme.go:31"'
        )
    unknown = [f'unknown field "{k}"' for k in doc if k not in _POLICY_FIELDS]
    try:
        raw_rules = doc.get("rules") or []
        if not isinstance(raw_rules, list):
            raise _DecodeError(
                f"json: cannot unmarshal {json_kind(raw_rules)} into Go struct field Policy.rules of type []v1.PolicyRule"
            )
        rules = tuple(_decode_rule(r, unknown, i) for i, r in enumerate(raw_rules))
        omit_stages = _strings(doc.get("omitStages"), "Policy.omitStages")
        omit_managed = doc.get("omitManagedFields", False)
        if not isinstance(omit_managed, bool):
            raise _DecodeError(
                f"json: cannot unmarshal {json_kind(omit_managed)} into Go struct field Policy.omitManagedFields of type bool"
            )
    except _DecodeError as e:
        raise PolicyError(f"failed decoding: {e}") from None
    if unknown:
        log.warning(
            "Audit policy contains errors, falling back to lenient decoding: strict decoding error: %s",
            ", ".join(unknown),
        )
    policy = Policy(rules, omit_stages, omit_managed)
    causes = validate_policy(policy)
    if causes:
        messages = [f"{c.field}: {c.message}" for c in causes]
        raise PolicyError(messages[0] if len(messages) == 1 else "[" + ", ".join(messages) + "]")
    if not rules:
        raise PolicyError("loaded illegal policy with 0 rules")
    return policy


def load_policy_from_file(path: str) -> Policy:
    """LoadPolicyFromFile. Raises PolicyError."""
    if not path:
        raise PolicyError("file path not specified")
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise PolicyError(f'failed to read file path "{path}": open {path}: {_errno_text(e)}') from None
    try:
        return load_policy_from_bytes(data)
    except PolicyError as e:
        raise PolicyError(f"{e}: from file {path}") from None


def _errno_text(e: OSError) -> str:
    # Go's syscall error strings are the lower-case strerror texts
    return (e.strerror or str(e)).lower()


# -- validation ---------------------------------------------------------------------------------------------------


def validate_policy(policy: Policy) -> list[StatusCause]:
    causes = _validate_omit_stages(policy.omit_stages, "omitStages")
    for i, rule in enumerate(policy.rules):
        causes.extend(_validate_policy_rule(rule, f"rules[{i}]"))
    return causes


def _validate_policy_rule(rule: PolicyRule, path: str) -> list[StatusCause]:
    causes: list[StatusCause] = []
    if not rule.level:
        causes.append(field_required(f"{path}.level"))
    elif rule.level not in LEVELS:
        causes.append(field_not_supported(f"{path}.level", rule.level, list(LEVELS)))
    for i, url in enumerate(rule.non_resource_urls):
        if url == "*":
            continue
        if not url.startswith("/"):
            causes.append(
                field_invalid(
                    f"{path}.nonResourceURLs[{i}]", url, "non-resource URL rules must begin with a '/' character"
                )
            )
        if url and "*" in url[:-1]:
            causes.append(
                field_invalid(
                    f"{path}.nonResourceURLs[{i}]",
                    url,
                    "non-resource URL wildcards '*' must be the final character of the rule",
                )
            )
    for gr in rule.resources:
        if gr.group:
            msgs = is_dns1123_subdomain(gr.group)
            if msgs:
                causes.append(field_invalid(f"{path}.resources.group", gr.group, ",".join(msgs)))
        if gr.resource_names and not gr.resources:
            causes.append(
                field_invalid(
                    f"{path}.resources.resourceNames",
                    _go_strings(gr.resource_names),
                    "using resourceNames requires at least one resource",
                )
            )
    causes.extend(_validate_omit_stages(rule.omit_stages, f"{path}.omitStages"))
    if rule.non_resource_urls and (rule.resources or rule.namespaces):
        causes.append(
            field_invalid(
                f"{path}.nonResourceURLs",
                _go_strings(rule.non_resource_urls),
                "rules cannot apply to both regular resources and non-resource URLs",
            )
        )
    return causes


def _go_strings(values: tuple[str, ...]) -> GoRepr:
    """A []string bad value as field.Invalid prints it (%#v)."""
    return GoRepr("[]string{" + ", ".join(go_quote(v) for v in values) + "}")


def _validate_omit_stages(stages: tuple[str, ...], path: str) -> list[StatusCause]:
    return [
        field_invalid(f"{path}[{i}]", stage, "allowed stages are " + ",".join(STAGES))
        for i, stage in enumerate(stages)
        if stage not in STAGES
    ]


# -- evaluation ---------------------------------------------------------------------------------------------------


class PolicyRuleEvaluator:
    """NewPolicyRuleEvaluator: each rule omits the union of its own and the policy's stages."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self._configs = tuple(
            RequestAuditConfig(
                rule.level,
                frozenset(policy.omit_stages) | frozenset(rule.omit_stages),
                policy.omit_managed_fields if rule.omit_managed_fields is None else rule.omit_managed_fields,
            )
            for rule in policy.rules
        )
        self._default = RequestAuditConfig(LEVEL_NONE, frozenset(policy.omit_stages), policy.omit_managed_fields)
        self._pairs = tuple(zip(policy.rules, self._configs, strict=True))

    def evaluate_policy_rule(self, attrs: Any) -> RequestAuditConfig:
        """attrs: an authorizer.Attributes (its user may be None: a failed authentication)."""
        return self.evaluate(attrs.user, attrs)

    def evaluate(self, user: Any, attrs: Any) -> RequestAuditConfig:
        """The same with the user apart: attrs may be the RequestInfo (it has the attributes' other names)."""
        for rule, config in self._pairs:
            if rule_matches(rule, user, attrs):
                return config
        return self._default


def rule_matches(rule: PolicyRule, user: Any, attrs: Any) -> bool:
    if rule.users and (user is None or user.name not in rule.users):
        return False
    if rule.user_groups and (user is None or not any(g in rule.user_groups for g in user.groups)):
        return False
    if rule.verbs and attrs.verb not in rule.verbs:
        return False
    if rule.namespaces or rule.resources:
        return _rule_matches_resource(rule, attrs)
    if rule.non_resource_urls:
        return _rule_matches_non_resource(rule, attrs)
    return True


def _rule_matches_non_resource(rule: PolicyRule, attrs: Any) -> bool:
    if attrs.is_resource_request:
        return False
    return any(path_matches(attrs.path, spec) for spec in rule.non_resource_urls)


def path_matches(path: str, spec: str) -> bool:
    if spec == "*" or spec == path:
        return True
    return spec.endswith("*") and path.startswith(spec.rstrip("*"))


def _rule_matches_resource(rule: PolicyRule, attrs: Any) -> bool:
    if not attrs.is_resource_request:
        return False
    if rule.namespaces and attrs.namespace not in rule.namespaces:  # "" stands for cluster-scoped resources
        return False
    if not rule.resources:
        return True
    resource, subresource = attrs.resource, attrs.subresource
    combined = f"{resource}/{subresource}" if subresource else resource
    for gr in rule.resources:
        if gr.group != attrs.api_group:
            continue
        if not gr.resources:
            return True
        if gr.resource_names and attrs.name not in gr.resource_names:
            continue
        for res in gr.resources:
            if res == combined or res == "*":
                return True
            if subresource and res.startswith("*/") and subresource == res[2:]:
                return True
            if res.endswith("/*") and resource == res[:-2]:
                return True
    return False

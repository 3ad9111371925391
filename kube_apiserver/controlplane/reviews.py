"""Virtual create-only resources. SelfSubjectReview answers from the request's own user; the access
reviews (SelfSubjectAccessReview, SubjectAccessReview, LocalSubjectAccessReview) ask the configured
authorizer about the user they name; SelfSubjectRulesReview lists the RBAC rules of the requesting user.
TokenReview still answers 405."""

from __future__ import annotations

from typing import Any

import orjson

from kube_apiserver.apis.validation_util import gorepr
from kube_apiserver.authentication.user import UserInfo
from kube_apiserver.authorization.authorizer import ALLOW, DENY, Attributes, authorize
from kube_apiserver.endpoints.handlers.scope import RequestScope, decode_object
from kube_apiserver.endpoints.installer import Handler
from kube_apiserver.endpoints.request import send_bytes
from kube_apiserver.registry.resource_spec import ResourceSpec
from kube_apiserver.runtime import errors
from kube_apiserver.runtime.errors import StatusCause


async def self_subject_review(scope: RequestScope) -> None:
    obj = await decode_object(scope)
    obj.setdefault("metadata", {})["creationTimestamp"] = None
    obj["status"] = {"userInfo": scope.req.scope["k8s.user"].to_api()}
    await send_bytes(scope.req.send, 201, orjson.dumps(obj))


def _attributes(user: UserInfo, spec: dict[str, Any]) -> Attributes:
    ra = spec.get("resourceAttributes")
    if isinstance(ra, dict):
        return Attributes(
            user,
            str(ra.get("verb", "")),
            True,
            namespace=str(ra.get("namespace", "")),
            api_group=str(ra.get("group", "")),
            api_version=str(ra.get("version", "")),
            resource=str(ra.get("resource", "")),
            subresource=str(ra.get("subresource", "")),
            name=str(ra.get("name", "")),
        )
    na = spec.get("nonResourceAttributes") if isinstance(spec.get("nonResourceAttributes"), dict) else {}
    return Attributes(user, str(na.get("verb", "")), False, path=str(na.get("path", "")))


def _non_resource_attributes(na: Any) -> Any:
    """%#v of the *NonResourceAttributes a field error names (the pointer dereferenced, fields in Go order)."""
    na = na if isinstance(na, dict) else {}
    return gorepr.struct(
        "authorization.NonResourceAttributes", [("Path", na.get("path", "")), ("Verb", na.get("verb", ""))]
    )


def _meta_causes(obj: dict[str, Any], except_namespace: bool = False) -> list[StatusCause]:
    """ValidateSubjectAccessReview and its kin: the review's metadata must be empty (managedFields aside; a
    LocalSubjectAccessReview's namespace aside)."""
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    ignored = ("managedFields", "namespace") if except_namespace else ("managedFields",)
    if not any(v not in (None, "", {}, []) for k, v in meta.items() if k not in ignored):
        return []
    detail = "must be empty except for namespace" if except_namespace else "must be empty"
    return [errors.field_invalid("metadata", gorepr.approx("v1.ObjectMeta", meta), detail)]


def _spec_causes(spec: dict[str, Any], subject: bool) -> list[StatusCause]:
    """ValidateSubjectAccessReviewSpec / ValidateSelfSubjectAccessReviewSpec."""
    causes = []
    ra, na = spec.get("resourceAttributes"), spec.get("nonResourceAttributes")
    if ra and na:
        causes.append(
            errors.field_invalid(
                "spec.nonResourceAttributes",
                _non_resource_attributes(na),
                "cannot be specified in combination with resourceAttributes",
            )
        )
    if not ra and not na:
        # the nil *NonResourceAttributes, which ErrorBody prints as the string "null"
        causes.append(
            errors.field_invalid(
                "spec.resourceAttributes",
                "null",
                "exactly one of nonResourceAttributes or resourceAttributes must be specified",
            )
        )
    if subject and not spec.get("user") and not spec.get("groups"):
        causes.append(
            errors.field_invalid("spec.user", spec.get("user", ""), "at least one of user or group must be specified")
        )
    return causes


async def _answer_access_review(scope: RequestScope, user: UserInfo, obj: dict[str, Any], spec: dict[str, Any]) -> None:
    authorizer = scope.req.scope.get("k8s.authorizer")
    decision, reason, error = await authorize(authorizer, _attributes(user, spec)) if authorizer else (ALLOW, "", "")
    obj.setdefault("metadata", {})["creationTimestamp"] = None
    obj["status"] = {"allowed": decision == ALLOW}
    if decision == DENY:
        obj["status"]["denied"] = True
    if reason:
        obj["status"]["reason"] = reason
    if error:
        obj["status"]["evaluationError"] = error
    await send_bytes(scope.req.send, 201, orjson.dumps(obj))


def _spec_of(obj: dict[str, Any]) -> dict[str, Any]:
    spec = obj.get("spec")
    return spec if isinstance(spec, dict) else {}


async def self_subject_access_review(scope: RequestScope) -> None:
    obj = await decode_object(scope)
    spec = _spec_of(obj)
    causes = _spec_causes(spec, subject=False) + _meta_causes(obj)
    if causes:
        raise errors.new_invalid("authorization.k8s.io", "SelfSubjectAccessReview", "", causes)
    await _answer_access_review(scope, scope.req.scope["k8s.user"], obj, spec)


def _user_from_spec(spec: dict[str, Any]) -> UserInfo:
    groups = spec.get("groups") if isinstance(spec.get("groups"), list) else []
    extra = spec.get("extra") if isinstance(spec.get("extra"), dict) else {}
    return UserInfo(
        str(spec.get("user") or ""),
        str(spec.get("uid") or ""),
        tuple(str(g) for g in groups),
        {str(k): tuple(str(x) for x in v) for k, v in extra.items() if isinstance(v, list)},
    )


async def subject_access_review(scope: RequestScope) -> None:
    obj = await decode_object(scope)
    spec = _spec_of(obj)
    causes = _spec_causes(spec, subject=True) + _meta_causes(obj)
    if causes:
        raise errors.new_invalid("authorization.k8s.io", "SubjectAccessReview", "", causes)
    await _answer_access_review(scope, _user_from_spec(spec), obj, spec)


async def local_subject_access_review(scope: RequestScope) -> None:
    obj = await decode_object(scope)
    spec = _spec_of(obj)
    ns = scope.info.namespace
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    if meta.get("namespace") and meta["namespace"] != ns:  # the create handler's check of a namespaced object
        raise errors.new_bad_request(
            "the namespace of the provided object does not match the namespace sent on the request"
        )
    causes = _spec_causes(spec, subject=True) + _meta_causes(obj, except_namespace=True)
    ra = spec.get("resourceAttributes")
    if isinstance(ra, dict) and ra.get("namespace", "") != ns:
        causes.append(
            errors.field_invalid(
                "spec.resourceAttributes.namespace", ra.get("namespace", ""), "must match metadata.namespace"
            )
        )
    if spec.get("nonResourceAttributes"):
        causes.append(
            errors.field_invalid(
                "spec.nonResourceAttributes",
                _non_resource_attributes(spec["nonResourceAttributes"]),
                "disallowed on this kind of request",
            )
        )
    if causes:
        raise errors.new_invalid("authorization.k8s.io", "LocalSubjectAccessReview", "", causes)
    obj.setdefault("metadata", {})["namespace"] = ns
    await _answer_access_review(scope, _user_from_spec(spec), obj, spec)


async def self_subject_rules_review(scope: RequestScope) -> None:
    """The rules the RBAC rule resolver finds for the user in spec.namespace (RBAC is the only mode here
    that can list rules: with others the answer is incomplete, as kube's)."""
    obj = await decode_object(scope)
    spec = _spec_of(obj)
    namespace = str(spec.get("namespace") or "")
    if not namespace:
        raise errors.new_bad_request("no namespace on request")
    user = scope.req.scope["k8s.user"]
    resolver = RULE_RESOLVER.get("rbac")
    resource_rules: list[dict[str, Any]] = []
    non_resource_rules: list[dict[str, Any]] = []
    status: dict[str, Any] = {
        "resourceRules": resource_rules,
        "nonResourceRules": non_resource_rules,
        "incomplete": resolver is None,
    }
    if resolver is not None:
        rules, errs = resolver.rules_for(user, namespace)
        for rule in rules:
            if rule["nonResourceURLs"]:
                non_resource_rules.append(
                    {"verbs": list(rule["verbs"]), "nonResourceURLs": list(rule["nonResourceURLs"])}
                )
            else:
                item = {
                    "verbs": list(rule["verbs"]),
                    "apiGroups": list(rule["apiGroups"]),
                    "resources": list(rule["resources"]),
                }
                if rule["resourceNames"]:
                    item["resourceNames"] = list(rule["resourceNames"])
                resource_rules.append(item)
        if errs:
            # RBAC's RulesFor reports its resolution errors but never an incomplete list
            status["evaluationError"] = errs[0] if len(errs) == 1 else "[" + ", ".join(errs) + "]"
    # a review of its own, as the REST builds it: the request's spec is not echoed
    answer = {
        "kind": obj.get("kind", "SelfSubjectRulesReview"),
        "apiVersion": obj.get("apiVersion", "authorization.k8s.io/v1"),
        "metadata": {"creationTimestamp": None},
        "spec": {},
        "status": status,
    }
    await send_bytes(scope.req.send, 201, orjson.dumps(answer))


# The RBAC rule resolver, set by the server chain when it installs RBAC (SelfSubjectRulesReview reads it).
RULE_RESOLVER: dict[str, Any] = {}


def handlers_for(spec: ResourceSpec) -> dict[tuple[str, str], Handler]:
    if spec.resource == "selfsubjectreviews":
        return {("", "create"): self_subject_review}
    if spec.resource == "selfsubjectaccessreviews":
        return {("", "create"): self_subject_access_review}
    if spec.resource == "subjectaccessreviews":
        return {("", "create"): subject_access_review}
    if spec.resource == "localsubjectaccessreviews":
        return {("", "create"): local_subject_access_review}
    if spec.resource == "selfsubjectrulesreviews":
        return {("", "create"): self_subject_rules_review}
    return {}

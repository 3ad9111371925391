"""Virtual create-only resources. SelfSubjectReview and SelfSubjectAccessReview answer from the
request's own user and the configured authorizer; the others (TokenReview, SubjectAccessReview, ...)
arrive with the security issue and answer 405 until then."""

from __future__ import annotations

from typing import Any

import orjson

from kube_apiserver.authorization.authorizer import ALLOW, Attributes
from kube_apiserver.endpoints.handlers.scope import RequestScope, decode_object
from kube_apiserver.endpoints.installer import Handler
from kube_apiserver.endpoints.request import send_bytes
from kube_apiserver.registry.resource_spec import ResourceSpec


def _user_info(scope: RequestScope) -> dict[str, Any]:
    user = scope.req.scope["k8s.user"]
    info: dict[str, Any] = {"username": user.name}
    if user.uid:
        info["uid"] = user.uid
    if user.groups:
        info["groups"] = list(user.groups)
    if user.extra:
        info["extra"] = {k: list(v) for k, v in user.extra.items()}
    return info


async def self_subject_review(scope: RequestScope) -> None:
    obj = await decode_object(scope)
    obj.setdefault("metadata", {})["creationTimestamp"] = None
    obj["status"] = {"userInfo": _user_info(scope)}
    await send_bytes(scope.req.send, 201, orjson.dumps(obj))


async def self_subject_access_review(scope: RequestScope) -> None:
    obj = await decode_object(scope)
    spec = obj.get("spec") or {}
    ra = spec.get("resourceAttributes")
    na = spec.get("nonResourceAttributes")
    user = scope.req.scope["k8s.user"]
    authorizer = scope.req.scope.get("k8s.authorizer")
    if ra:
        attrs = Attributes(
            user,
            ra.get("verb", ""),
            True,
            namespace=ra.get("namespace", ""),
            api_group=ra.get("group", ""),
            api_version=ra.get("version", ""),
            resource=ra.get("resource", ""),
            subresource=ra.get("subresource", ""),
            name=ra.get("name", ""),
        )
    else:
        attrs = Attributes(user, (na or {}).get("verb", ""), False, path=(na or {}).get("path", ""))
    decision, reason = authorizer.authorize(attrs) if authorizer else (ALLOW, "")
    obj.setdefault("metadata", {})["creationTimestamp"] = None
    obj["status"] = {"allowed": decision == ALLOW}
    if reason:
        obj["status"]["reason"] = reason
    await send_bytes(scope.req.send, 201, orjson.dumps(obj))


def handlers_for(spec: ResourceSpec) -> dict[tuple[str, str], Handler]:
    if spec.resource == "selfsubjectreviews":
        return {("", "create"): self_subject_review}
    if spec.resource == "selfsubjectaccessreviews":
        return {("", "create"): self_subject_access_review}
    return {}

"""WithAuthorization: ask the authorizer union about the request; 403 Forbidden with kube-apiserver's message
when nobody allowed it, 500 when an authorizer failed (a webhook that could not be reached) and nobody allowed
it. The union answers synchronously unless a member does I/O: only then is there an await here."""

from __future__ import annotations

from typing import Any

from kube_apiserver.audit import context as audit
from kube_apiserver.authentication.user import set_request_user
from kube_apiserver.authorization.authorizer import ALLOW, Attributes
from kube_apiserver.authorization.rbac.escalation import REQUESTER
from kube_apiserver.endpoints.request import send_bytes, send_status_error
from kube_apiserver.runtime.errors import StatusError

ASGIApp = Any
_SELECTOR_VERBS = frozenset({"list", "watch", "deletecollection"})
_HTML_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})


def forbidden_message(attrs: Attributes, reason: str) -> str:
    """responsewriters.ForbiddenStatusError's message."""
    user = attrs.user.name
    if not attrs.is_resource_request:
        msg = f'forbidden: User "{user}" cannot {attrs.verb} path "{attrs.path}"'
    else:
        resource = attrs.resource + (f"/{attrs.subresource}" if attrs.subresource else "")
        where = f'in the namespace "{attrs.namespace}"' if attrs.namespace else "at the cluster scope"
        # errors.NewForbidden names the group resource, without the subresource
        qualified = f"{attrs.resource}.{attrs.api_group}" if attrs.api_group else attrs.resource
        subject = f'{qualified} "{attrs.name}"' if attrs.name else qualified
        msg = f'{subject} is forbidden: User "{user}" cannot {attrs.verb} resource "{resource}" in API group "{attrs.api_group}" {where}'
    return f"{msg}: {reason}" if reason else msg


def request_attributes(scope: dict[str, Any]) -> Attributes:
    """GetAuthorizerAttributes: the user and request info on the scope, and the selectors of a list."""
    info = scope["k8s.request_info"]
    attrs = Attributes(
        scope["k8s.user"],
        info.verb,
        info.is_resource_request,
        info.path,
        info.namespace,
        info.api_group,
        info.api_version,
        info.resource,
        info.subresource,
        info.name,
    )
    if info.verb in _SELECTOR_VERBS and info.is_resource_request:
        req = scope["k8s.request"]
        attrs.field_selector = req.param("fieldSelector")
        attrs.label_selector = req.param("labelSelector")
    return attrs


async def send_internal_error(scope: dict[str, Any], send: Any, error: str) -> None:
    """responsewriters.InternalError: a plain-text 500, not a Status."""
    uri = scope.get("raw_path") or scope.get("path", "").encode()
    qs = scope.get("query_string") or b""
    target = uri.decode("latin-1") + ("?" + qs.decode("latin-1") if qs else "")
    text = f'Internal Server Error: "{target}": {error}'.translate(_HTML_ESCAPES) + "\n"
    await send_bytes(
        send,
        500,
        text.encode(),
        content_type="text/plain; charset=utf-8",
        extra_headers=[(b"x-content-type-options", b"nosniff")],
    )


def with_authorization(app: ASGIApp, authorizer: Any) -> ASGIApp:
    synchronous = getattr(authorizer, "synchronous", True)

    async def handler(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await app(scope, receive, send)
        scope["k8s.authorizer"] = authorizer
        attrs = request_attributes(scope)
        if synchronous:
            decision, reason = authorizer.authorize(attrs)
            error = ""
        else:
            decision, reason, error = await authorizer.authorize_async(attrs)
        if decision != ALLOW:
            if error:
                audit.add_audit_annotations(scope, audit.REASON_ANNOTATION_KEY, audit.REASON_ERROR)
                await send_internal_error(scope, send, error)
                return
            audit.add_audit_annotations(
                scope, audit.DECISION_ANNOTATION_KEY, audit.DECISION_FORBID, audit.REASON_ANNOTATION_KEY, reason
            )
            info = scope["k8s.request_info"]
            err = StatusError(
                403, "Forbidden", forbidden_message(attrs, reason), info.name, info.api_group, info.resource
            )
            await send_status_error(send, err)
            return
        audit.add_audit_annotations(
            scope, audit.DECISION_ANNOTATION_KEY, audit.DECISION_ALLOW, audit.REASON_ANNOTATION_KEY, reason
        )
        REQUESTER.set((attrs.user, authorizer))  # for the escalation checks of RBAC writes
        set_request_user(attrs.user)
        await app(scope, receive, send)

    return handler

"""WithAuthorization: 403 Forbidden with kube-apiserver's message when no authorizer allows."""

from __future__ import annotations

from typing import Any

from kube_apiserver.authorization.authorizer import ALLOW, Attributes, Authorizer
from kube_apiserver.authorization.rbac.escalation import REQUESTER
from kube_apiserver.endpoints.request import send_status_error
from kube_apiserver.runtime.errors import StatusError

ASGIApp = Any


def forbidden_message(attrs: Attributes, reason: str) -> str:
    user = attrs.user.name
    if not attrs.is_resource_request:
        msg = f'forbidden: User "{user}" cannot {attrs.verb} path "{attrs.path}"'
    else:
        resource = attrs.resource + (f"/{attrs.subresource}" if attrs.subresource else "")
        where = f'in the namespace "{attrs.namespace}"' if attrs.namespace else "at the cluster scope"
        subject = f'{resource} "{attrs.name}"' if attrs.name else resource
        if attrs.api_group:
            subject = subject.replace(resource, f"{resource}.{attrs.api_group}", 1)
        msg = f'{subject} is forbidden: User "{user}" cannot {attrs.verb} resource "{resource}" in API group "{attrs.api_group}" {where}'
    return f"{msg}: {reason}" if reason else msg


def with_authorization(app: ASGIApp, authorizer: Authorizer) -> ASGIApp:
    async def handler(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await app(scope, receive, send)
        info = scope["k8s.request_info"]
        scope["k8s.authorizer"] = authorizer
        attrs = Attributes(
            user=scope["k8s.user"],
            verb=info.verb,
            is_resource_request=info.is_resource_request,
            path=info.path,
            namespace=info.namespace,
            api_group=info.api_group,
            api_version=info.api_version,
            resource=info.resource,
            subresource=info.subresource,
            name=info.name,
        )
        decision, reason = authorizer.authorize(attrs)
        if decision != ALLOW:
            err = StatusError(
                403, "Forbidden", forbidden_message(attrs, reason), info.name, info.api_group, info.resource
            )
            await send_status_error(send, err)
            return
        REQUESTER.set((attrs.user, authorizer))  # for the escalation checks of RBAC writes
        await app(scope, receive, send)

    return handler

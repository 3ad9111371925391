"""WithImpersonation: Impersonate-User / -Group / -Uid / -Extra-*, each authorized with verb impersonate."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from kube_apiserver.authentication.user import ALL_AUTHENTICATED, UserInfo
from kube_apiserver.authorization.authorizer import ALLOW, Attributes, Authorizer
from kube_apiserver.endpoints.request import send_status_error
from kube_apiserver.runtime.errors import StatusError, new_bad_request

ASGIApp = Any


def with_impersonation(app: ASGIApp, authorizer: Authorizer) -> ASGIApp:
    async def handler(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await app(scope, receive, send)
        users, groups, uids, extra = [], [], [], {}
        for k, v in scope.get("headers", ()):
            if k == b"impersonate-user":
                users.append(v.decode("latin-1"))
            elif k == b"impersonate-group":
                groups.append(v.decode("latin-1"))
            elif k == b"impersonate-uid":
                uids.append(v.decode("latin-1"))
            elif k.startswith(b"impersonate-extra-"):
                extra.setdefault(unquote(k[len(b"impersonate-extra-") :].decode("latin-1")), []).append(
                    v.decode("latin-1")
                )
        if not (users or groups or uids or extra):
            return await app(scope, receive, send)
        if not users:
            await send_status_error(
                send, new_bad_request("requested impersonation without a user: " + ", ".join(groups))
            )
            return
        requester: UserInfo = scope["k8s.user"]
        checks = (
            [("users", users[0], "")]
            + [("groups", g, "") for g in groups]
            + [("uids", u, "authentication.k8s.io") for u in uids]
        )
        for resource, name, group in checks:
            attrs = Attributes(requester, "impersonate", True, api_group=group, resource=resource, name=name)
            decision, _ = authorizer.authorize(attrs)
            if decision != ALLOW:
                msg = f'{resource} "{name}" is forbidden: User "{requester.name}" cannot impersonate resource "{resource}" in API group "{group}" at the cluster scope'
                await send_status_error(send, StatusError(403, "Forbidden", msg, name, group, resource))
                return
        impersonated_groups = tuple(groups)
        if users[0] != "system:anonymous" and ALL_AUTHENTICATED not in impersonated_groups:
            impersonated_groups = (*impersonated_groups, ALL_AUTHENTICATED)
        scope["k8s.user"] = UserInfo(
            users[0], uids[0] if uids else "", impersonated_groups, {k: tuple(v) for k, v in extra.items()}
        )
        await app(scope, receive, send)

    return handler

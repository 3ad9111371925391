"""WithAuthentication: the user goes on the scope; failure is 401 Unauthorized."""

from __future__ import annotations

from typing import Any

from kube_apiserver.authentication.request import AuthenticationFailed, RequestAuthenticator
from kube_apiserver.endpoints.request import send_status_error
from kube_apiserver.runtime.errors import new_unauthorized

ASGIApp = Any


def with_authentication(app: ASGIApp, authenticator: RequestAuthenticator) -> ASGIApp:
    async def handler(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await app(scope, receive, send)
        authorization = next((v.decode("latin-1") for k, v in scope.get("headers", ()) if k == b"authorization"), "")
        try:
            scope["k8s.user"] = await authenticator.authenticate(scope, authorization)
        except AuthenticationFailed:
            await send_status_error(send, new_unauthorized())
            return
        await app(scope, receive, send)

    return handler

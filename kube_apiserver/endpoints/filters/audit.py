"""WithAudit (the hook point): every response carries an Audit-Id, as kube-apiserver's do.
Audit policy, backends and events come with the security issue."""

from __future__ import annotations

import uuid
from typing import Any

ASGIApp = Any


def with_audit(app: ASGIApp) -> ASGIApp:
    async def handler(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await app(scope, receive, send)
        audit_id = (
            next((v for k, v in scope.get("headers", ()) if k == b"audit-id"), None) or str(uuid.uuid4()).encode()
        )
        scope["k8s.audit_id"] = audit_id

        async def audit_send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), (b"audit-id", audit_id)]}
            await send(message)

        await app(scope, receive, audit_send)

    return handler

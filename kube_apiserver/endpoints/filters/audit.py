"""WithAudit (the hook point): every response carries an Audit-Id, as kube-apiserver's do.
Audit policy, backends and events come with the security issue."""

from __future__ import annotations

import uuid
from typing import Any

from kube_apiserver.server.filters.recovery import response_state

ASGIApp = Any


def with_audit(app: ASGIApp) -> ASGIApp:
    async def handler(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await app(scope, receive, send)
        audit_id = (
            next((v for k, v in scope.get("headers", ()) if k == b"audit-id"), None) or str(uuid.uuid4()).encode()
        )
        scope["k8s.audit_id"] = audit_id
        response_state(scope).headers.append((b"audit-id", audit_id))
        await app(scope, receive, send)

    return handler

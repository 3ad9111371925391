"""WithPanicRecovery: an unexpected exception becomes a 500 Status, never a traceback on the wire;
a StatusError raised anywhere below becomes its Status."""

from __future__ import annotations

import logging
from typing import Any

from kube_apiserver.endpoints.request import send_status_error
from kube_apiserver.runtime.errors import StatusError, new_internal_error

log = logging.getLogger("kube_apiserver.panic")
ASGIApp = Any


def with_panic_recovery(app: ASGIApp) -> ASGIApp:
    async def handler(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await app(scope, receive, send)
        started = False

        async def tracking_send(message: dict[str, Any]) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await app(scope, receive, tracking_send)
        except StatusError as e:
            if not started:
                await send_status_error(tracking_send, e)
        except OSError:
            pass  # the client went away
        except Exception as e:  # noqa: BLE001
            log.exception("unhandled error serving %s %s", scope.get("method"), scope.get("path"))
            if not started:
                await send_status_error(tracking_send, new_internal_error(type(e).__name__))

    return handler

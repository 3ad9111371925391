"""WithPanicRecovery: an unexpected exception becomes a 500 Status, never a traceback on the wire;
a StatusError raised anywhere below becomes its Status.

It is the outermost filter, so it also wraps `send` once for the whole chain: ResponseState records
whether and with which code the response started, and adds the headers other filters asked for
(Audit-Id, CORS). Filters read and extend that state instead of each wrapping `send` again.
"""

from __future__ import annotations

import logging
from typing import Any

from kube_apiserver.endpoints.request import send_status_error
from kube_apiserver.runtime.errors import StatusError, new_internal_error

log = logging.getLogger("kube_apiserver.panic")
ASGIApp = Any


class ResponseState:
    __slots__ = ("started", "status", "headers")

    def __init__(self) -> None:
        self.started = False
        self.status = 0
        self.headers: list[tuple[bytes, bytes]] = []


def response_state(scope: dict[str, Any]) -> ResponseState:
    return scope["k8s.response"]


_NO_CACHE = (b"cache-control", b"no-cache, private")


def with_panic_recovery(app: ASGIApp) -> ASGIApp:
    async def handler(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await app(scope, receive, send)
        own = len(scope)  # the server's keys; what the chain adds comes after them (dicts keep order)
        state = ResponseState()
        scope["k8s.response"] = state

        async def state_send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                state.started = True
                state.status = message["status"]
                headers = [*message.get("headers", ()), *state.headers]
                # WithCacheControl: every response is behind authentication, so not for shared caches,
                # unless its handler said otherwise (OpenAPI, aggregated discovery)
                if not any(name == b"cache-control" for name, _ in headers):
                    headers.append(_NO_CACHE)
                message["headers"] = headers
            await send(message)

        try:
            await app(scope, receive, state_send)
        except StatusError as e:
            if not state.started:
                await send_status_error(state_send, e)
        except OSError:
            pass  # the client went away
        except Exception as e:  # noqa: BLE001
            log.exception("unhandled error serving %s %s", scope.get("method"), scope.get("path"))
            if not state.started:
                await send_status_error(state_send, new_internal_error(type(e).__name__))
        finally:
            _release(scope, own)

    return handler


def _release(scope: dict[str, Any], own: int) -> None:
    """Drop what the chain put in the scope once the request is over. The Request and the scope refer to
    each other, and through the scope that cycle held everything else of the request (its info, user,
    response state, closures): only the cyclic collector could free them. Tens of objects per request
    were left to it, and collecting them was a sixth of the event loop's time under a create load.
    Only the keys after the server's own `own` are looked at: scanning them all cost ~2.5 us a request."""
    for key in list(scope)[own:]:
        if key[:4] == "k8s.":
            del scope[key]

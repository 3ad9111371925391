"""WithPriorityAndFairness (k8s.io/apiserver/pkg/server/filters/priority-and-fairness.go).

Each request is classified by the FlowSchemas (it needs the user: the filter sits after authentication
and impersonation), then admitted by its priority level: at once, after waiting in its queue, or not at
all. A rejected request gets 429 with a Retry-After and kube's plain-text message. Every classified
response carries the UIDs of its FlowSchema and priority level (not their names, which are the
operator's business).

A WATCH holds a seat only while it initializes: the seat is freed when the response starts, and the
stream itself occupies none. Other long-running requests (exec, attach, port-forward, proxy, logs)
bypass the filter.

A request waits at most a quarter of its deadline (?timeout= or --request-timeout; a WATCH has none:
--request-timeout), and never more than a minute.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from kube_apiserver.endpoints.request import send_bytes
from kube_apiserver.server.filters.recovery import response_state
from kube_apiserver.server.filters.timeout import parse_go_duration
from kube_apiserver.server.flowcontrol import metrics
from kube_apiserver.server.flowcontrol.apf_filter import PriorityAndFairness
from kube_apiserver.server.flowcontrol.queueset import WAITING
from kube_apiserver.server.metrics import WATERMARK, record_dropped_request

_READ_ONLY_VERBS = frozenset({"get", "list", "watch"})  # nonMutatingRequestVerbs

ASGIApp = Any

HEADER_FLOW_SCHEMA_UID = b"x-kubernetes-pf-flowschema-uid"
HEADER_PRIORITY_LEVEL_UID = b"x-kubernetes-pf-prioritylevel-uid"
TOO_MANY_REQUESTS = b"Too many requests, please try again later.\n"
_LONG_RUNNING_SUBRESOURCES = frozenset({"proxy", "attach", "exec", "log", "portforward"})
MAX_WAIT = 60.0


def _long_running_non_watch(info: Any) -> bool:
    return info.is_resource_request and (info.verb == "proxy" or info.subresource in _LONG_RUNNING_SUBRESOURCES)


def request_wait_limit(scope: dict[str, Any], request_timeout: float, watch: bool) -> float:
    """getRequestWaitContext: a quarter of the request's deadline, at most a minute."""
    deadline = request_timeout
    req = scope.get("k8s.request")
    if not watch and req is not None:
        raw = req.param("timeout")
        if raw:
            try:
                value = parse_go_duration(raw)
            except ValueError:
                value = 0.0
            if 0 < value < deadline:
                deadline = value
    return min(deadline / 4, MAX_WAIT)


async def _too_many_requests(send: Any, retry_after: int) -> None:
    headers = [(b"x-content-type-options", b"nosniff"), (b"retry-after", str(retry_after).encode())]
    await send_bytes(send, 429, TOO_MANY_REQUESTS, "text/plain; charset=utf-8", headers)


def with_priority_and_fairness(app: ASGIApp, apf: PriorityAndFairness, request_timeout: float) -> ASGIApp:
    controller = apf.controller
    dropped = apf.dropped
    estimator = apf.estimator

    dispatched = metrics.DISPATCHED
    rejected = metrics.REJECTED

    async def reject(scope: dict[str, Any], send: Any, pl_name: str, fs_name: str, reason: str) -> None:
        key = (pl_name, fs_name, reason)
        rejected[key] = rejected.get(key, 0) + 1
        dropped.record_dropped_request(pl_name)
        record_dropped_request(scope)
        await _too_many_requests(send, dropped.retry_after(pl_name))

    async def handler(scope: dict[str, Any], receive: Any, send: Any) -> None:
        info = scope.get("k8s.request_info")
        user = scope.get("k8s.user")
        if scope["type"] != "http" or info is None or user is None:
            return await app(scope, receive, send)
        watch = info.verb == "watch"
        if not watch and _long_running_non_watch(info):
            return await app(scope, receive, send)

        fs, pl, flow, hash_value = controller.classify(user, info)
        headers = response_state(scope).headers
        headers.append((HEADER_PRIORITY_LEVEL_UID, pl.uid_bytes))
        headers.append((HEADER_FLOW_SCHEMA_UID, fs.uid_bytes))
        qs = pl.queues
        assert qs is not None
        seats = estimator.seats(info, pl.max_seats) if info.verb == "list" else 1
        req, reason = qs.start_request(seats, hash_value, fs.name, flow)
        if req is None:
            controller.note_idle(pl)
            return await reject(scope, send, pl.name, fs.name, reason)
        if req.state == WAITING:
            started = time.monotonic()
            try:
                executed = await qs.wait(req, request_wait_limit(scope, request_timeout, watch))
            except asyncio.CancelledError:
                gave_up = (pl.name, fs.name, "cancelled")
                rejected[gave_up] = rejected.get(gave_up, 0) + 1
                controller.note_idle(pl)
                raise
            metrics.observe_wait(pl.name, fs.name, executed, time.monotonic() - started)
            if not executed:
                controller.note_idle(pl)
                return await reject(scope, send, pl.name, fs.name, "time-out")
        key = (pl.name, fs.name)
        dispatched[key] = dispatched.get(key, 0) + 1
        # (a watch executes only until its response starts: it is not counted as in flight)
        kind = "" if watch else "readOnly" if info.verb in _READ_ONLY_VERBS else "mutating"
        if kind:
            WATERMARK.started(kind)
        try:
            if watch:
                # the seat is for the watch's initialization: free it once the response starts. Handlers
                # write through the request's send, made before this filter ran: wrap that one.
                request = scope.get("k8s.request")
                inner = request.send if request is not None else send

                async def watch_send(message: dict[str, Any]) -> None:
                    if message["type"] == "http.response.start":
                        qs.finish_request(req)
                        controller.note_idle(pl)
                    await inner(message)

                if request is not None:
                    request.send = watch_send
                await app(scope, receive, watch_send)
            else:
                await app(scope, receive, send)
        finally:
            if kind:
                WATERMARK.finished(kind)
            qs.finish_request(req)  # no-op if already finished
            if pl.quiescing:
                controller.note_idle(pl)

    return handler

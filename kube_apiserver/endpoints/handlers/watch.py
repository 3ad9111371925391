"""WATCH (handlers/watch.go): a chunked stream of JSON events, one per line.

Each event's frame is encoded once per representation and shared by every watcher that asks for
that representation (the cacher's CacheEvent.frames), so 500 watchers cost one encode per event.
"""

from __future__ import annotations

import asyncio
import random
import time
from functools import cache
from typing import Any

import orjson

from kube_apiserver.endpoints import negotiation
from kube_apiserver.endpoints.handlers.list import parse_resource_version, selection, validate_list_options
from kube_apiserver.endpoints.handlers.scope import RequestScope, include_object
from kube_apiserver.endpoints.request import StreamWriter
from kube_apiserver.endpoints.table import partial_object_metadata, to_table
from kube_apiserver.runtime import errors
from kube_apiserver.runtime.protobuf.decode import go_zero_json
from kube_apiserver.runtime.protobuf.schema import UnknownMessageError, message_for_kind
from kube_apiserver.storage.cacher.cacher import DELETED, WATCHER_QUEUE_LIMIT, CacheEvent

# kube-apiserver: --min-request-timeout (1800 s); a watch without timeoutSeconds lasts a random
# time between it and twice it, so that clients reconnect at spread-out times.
MIN_REQUEST_TIMEOUT = 1800.0
# How often an idle watcher that allows bookmarks is told the current resourceVersion.
BOOKMARK_INTERVAL = 60.0
# A watch that ends at its timeout gets a bookmark this long before the end.
PRE_TIMEOUT_BOOKMARK = 2.0
INITIAL_EVENTS_END = "k8s.io/initial-events-end"


class WatchServer:
    def __init__(self, scope: RequestScope, shutdown: asyncio.Event | None) -> None:
        self.scope = scope
        self.shutdown = shutdown
        self.out = negotiation.negotiate(scope.req.header("accept"), table=True, pom=True, stream=True)
        self.include = include_object(scope) if self.out.form == "table" else "Metadata"
        self.table_headers_sent = False
        self.frame_key: Any = (self.out.form, self.out.version, self.include)

    def frame(self, ev: CacheEvent, etype: str | None = None) -> bytes:
        etype = etype or ev.type
        if self.out.form == "table" and not self.table_headers_sent:
            self.table_headers_sent = True
            return self._encode(ev, etype, headers=True)
        key = (etype, self.frame_key)
        frame = ev.frames.get(key)
        if frame is None:
            frame = self._encode(ev, etype, headers=self.out.form != "table")
            ev.frames[key] = frame
        return frame

    def _encode(self, ev: CacheEvent, etype: str, headers: bool) -> bytes:
        form = self.out.form
        if form == "json":
            return b'{"type":"' + etype.encode() + b'","object":' + ev.object.raw + b"}\n"
        obj = ev.object.obj
        if form == "table":
            meta = {"resourceVersion": str(ev.revision)}
            payload: Any = to_table(
                self.scope.spec, [obj], list_meta=meta, include=self.include, version=self.out.version, headers=headers
            )
        elif form == "pom":
            payload = partial_object_metadata(obj, self.out.version)
        else:
            payload = obj
        return orjson.dumps({"type": etype, "object": payload}) + b"\n"

    def bookmark(self, revision: int, initial_end: bool = False) -> bytes:
        """The cacher's bookmark: an empty object of the kind with the resourceVersion set. A built-in kind's
        is its Go struct's zero as encoding/json writes it (a Pod's carries "spec":{"containers":null}); a
        custom resource's is an Unstructured, whose map encoding/json writes with its keys sorted."""
        spec = self.scope.spec
        annotations = {"annotations": {INITIAL_EVENTS_END: "true"}} if initial_end else {}
        obj: dict[str, Any]
        if spec.custom:
            meta = {**annotations, "resourceVersion": str(revision)}
            obj = {"apiVersion": spec.group_version, "kind": spec.kind, "metadata": meta}
        else:
            obj = {"kind": spec.kind, "apiVersion": spec.group_version, **_zero_object(spec.group_version, spec.kind)}
            obj["metadata"] = {"resourceVersion": str(revision), "creationTimestamp": None, **annotations}
        return orjson.dumps({"type": "BOOKMARK", "object": obj}) + b"\n"


@cache
def _zero_object(api_version: str, kind: str) -> dict[str, Any]:
    """A built-in kind's Go zero value as JSON (without kind and apiVersion), made once per kind."""
    try:
        name = message_for_kind(api_version, kind).name
    except UnknownMessageError:
        return {}
    return go_zero_json(name)


async def watch_resource(scope: RequestScope, shutdown: asyncio.Event | None = None) -> None:
    req = scope.req
    rv_text = req.param("resourceVersion")
    rv = parse_resource_version(rv_text)
    bookmarks = req.flag("allowWatchBookmarks")
    initial_param = "sendInitialEvents" in req.query  # a *bool upstream: given or not, then true or false
    send_initial = req.flag("sendInitialEvents")
    validate_list_options(req, watch=True)
    if initial_param:
        if send_initial and not bookmarks:
            raise errors.new_invalid(
                "meta.k8s.io",
                "ListOptions",
                "",
                [
                    errors.field_forbidden(
                        "allowWatchBookmarks", "sendInitialEvents requires setting allowWatchBookmarks to true"
                    )
                ],
            )
    timeout_seconds = req.int64("timeoutSeconds")
    if timeout_seconds:  # a negative one ends the watch at once, as its timer would in kube
        timeout = float(max(timeout_seconds, 0))
    else:  # none or 0
        timeout = MIN_REQUEST_TIMEOUT * (1 + random.random())
    predicate = selection(scope)
    cacher = scope.store.storage
    # The current state first, as ADDED events: for rv "" or "0" unless sendInitialEvents=false says
    # otherwise, and always for sendInitialEvents=true (KEP-3157).
    from_state = send_initial or (rv_text in ("", "0") and not initial_param)
    if rv_text == "":
        await cacher.wait_fresh()
    server = WatchServer(scope, shutdown)  # negotiates first: a 406 comes before the stream starts
    send = req.send
    try:
        if rv and send_initial:
            # only a watch that starts with the state waits for the cache to reach its resourceVersion
            # (waitUntilWatchCacheFreshAndForceAllEvents); any other gets the events after it, when they come
            await scope.store.wait_until(rv)
        if not from_state and not rv:  # sendInitialEvents=false from "" or "0": start at the current revision
            rv = cacher.revision
        watcher, initial = await scope.store.watch(scope.namespace, None if from_state else rv, predicate)
    except errors.StatusError as e:
        if e.code not in (410, 504):
            raise
        # kube answers a too-old resourceVersion, or one the cache did not reach in time, inside the stream,
        # as an ERROR event (the cacher's errWatcher)
        headers = [(b"content-type", server.out.content_type.encode())]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        body = orjson.dumps({"type": "ERROR", "object": e.status()}) + b"\n"
        await send({"type": "http.response.body", "body": body, "more_body": False})
        return
    try:
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", server.out.content_type.encode()),
                ],
            }
        )
        chunks = [server.frame(ev) for ev in initial]
        if send_initial:
            chunks.append(server.bookmark(cacher.revision, initial_end=True))
        if chunks:
            await send({"type": "http.response.body", "body": b"".join(chunks), "more_body": True})
        await _stream(server, watcher, send, req.receive, timeout, bookmarks, shutdown, req.stream_writer())
    finally:
        watcher.stop()


class _Delivery:
    """The watcher's sink once the stream has started: each event's frame is queued here during the cacher's
    dispatch, and all frames queued in one turn of the event loop go out as one chunk straight through the
    connection's StreamWriter. No task wakes per event: with hundreds of watches on a resource, the wakeup,
    timer and ASGI send chain of each delivery cost more than its TLS write. The stream's task sends only
    what the writer refuses (a client that is not reading: its send waits for the connection to drain),
    bookmarks, and the end."""

    __slots__ = (
        "server",
        "watcher",
        "writer",
        "loop",
        "frames",
        "scheduled",
        "task_sending",
        "closed",
        "wake",
    )

    def __init__(self, server: WatchServer, watcher: Any, writer: StreamWriter | None) -> None:
        self.server = server
        self.watcher = watcher
        self.writer = writer
        self.loop = asyncio.get_running_loop()
        self.frames: list[bytes] = []
        self.scheduled = False
        self.task_sending = False  # the task's send is in flight: frames queued meanwhile must follow it
        self.closed = False
        self.wake = asyncio.Event()

    def offer(self, ev: CacheEvent | None) -> None:
        if ev is None:
            self.closed = True
            self.wake.set()
            return
        self.frames.append(self.server.frame(ev))
        if len(self.frames) >= WATCHER_QUEUE_LIMIT:
            self.watcher.overflowed = True
            self.watcher.stop()
        elif not self.scheduled:
            self.scheduled = True
            self.loop.call_soon(self.flush)

    def flush(self) -> None:
        self.scheduled = False
        if not self.frames or self.task_sending:
            return
        writer = self.writer
        if writer is not None and writer.write(b"".join(self.frames)):
            self.frames = []
        else:
            self.wake.set()

    async def send_pending(self, send: Any) -> None:
        while self.frames:
            body = b"".join(self.frames)
            self.frames = []
            self.task_sending = True
            try:
                await send({"type": "http.response.body", "body": body, "more_body": True})
            finally:
                self.task_sending = False


def next_bookmark_time(now: float, deadline: float) -> float | None:
    """When a watcher that allows bookmarks gets its next one (cacheWatcher.nextBookmarkTime): a minute on,
    or PRE_TIMEOUT_BOOKMARK before the watch ends if that comes first, so a client resumes from a fresh
    resourceVersion; None when even that moment has passed."""
    at = min(now + BOOKMARK_INTERVAL, deadline - PRE_TIMEOUT_BOOKMARK)
    return at if at >= now else None


async def _stream(
    server: WatchServer,
    watcher: Any,
    send: Any,
    receive: Any,
    timeout: float,
    bookmarks: bool,
    shutdown: asyncio.Event | None,
    writer: StreamWriter | None,
) -> None:
    deadline = time.monotonic() + timeout
    cacher = watcher.cacher

    async def on_disconnect() -> None:
        while True:
            msg = await receive()
            if msg["type"] == "http.disconnect":
                watcher.stop()
                return

    async def on_shutdown() -> None:
        assert shutdown is not None
        await shutdown.wait()
        watcher.stop()

    helpers = [asyncio.create_task(on_disconnect())]
    if shutdown is not None:
        helpers.append(asyncio.create_task(on_shutdown()))
    delivery = _Delivery(server, watcher, writer)
    watcher.attach(delivery.offer)
    try:
        next_bookmark = next_bookmark_time(time.monotonic(), deadline) if bookmarks else None
        while not delivery.closed:
            now = time.monotonic()
            if now >= deadline:
                break
            wait = deadline - now
            if next_bookmark is not None:
                wait = min(wait, max(next_bookmark - now, 0.01))
            if not delivery.wake.is_set():
                try:
                    await asyncio.wait_for(delivery.wake.wait(), wait)
                except TimeoutError:
                    now = time.monotonic()
                    if next_bookmark is not None and next_bookmark <= now < deadline:
                        # after every event already queued: a bookmark promises nothing older follows; none
                        # while the cache is short of the resourceVersion the watch started from
                        await delivery.send_pending(send)
                        if cacher.revision < watcher.min_revision:
                            next_bookmark = next_bookmark_time(time.monotonic(), deadline)
                            continue
                        await send(
                            {"type": "http.response.body", "body": server.bookmark(cacher.revision), "more_body": True}
                        )
                        next_bookmark = next_bookmark_time(time.monotonic(), deadline)
                    continue
            delivery.wake.clear()
            await delivery.send_pending(send)  # what the writer refused
        await delivery.send_pending(send)
        delivery.task_sending = True  # nothing more goes out directly: the end follows
        if watcher.overflowed:
            gone = errors.new_gone("too old resource version: watcher fell behind")
            body = orjson.dumps({"type": "ERROR", "object": gone.status()}) + b"\n"
            await send({"type": "http.response.body", "body": body, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})
    except OSError:
        pass
    finally:
        for t in helpers:
            t.cancel()


__all__ = ["watch_resource", "DELETED"]

"""audit.Backend and the wrappers kube builds around the log and webhook backends: union, ignore-errors
(blocking mode), buffered (batch mode, plugin/pkg/audit/buffered) and truncate (plugin/pkg/audit/truncate).

An event is the dict of AuditContext.snapshot() (no TypeMeta); backends never mutate it.
process_events is called on the event loop and must not wait on I/O other than a local file: anything slower
(the webhook) runs behind a BufferedBackend, in its own threads.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from dataclasses import dataclass
from typing import Any, Protocol

import orjson

log = logging.getLogger("kube_apiserver.audit")

Event = dict[str, Any]
TRUNCATED_ANNOTATION_KEY = "audit.k8s.io/truncated"


class Backend(Protocol):
    def process_events(self, events: list[Event]) -> bool:
        """Hand over events; False when they could not be stored (only a blocking-strict backend reports it)."""
        ...

    def run(self) -> None:
        """Start background work (threads); called once before serving."""
        ...

    def shutdown(self) -> None:
        """Flush what is buffered and stop; may block (call it off the event loop)."""
        ...


def handle_plugin_error(plugin: str, err: object, events: list[Event]) -> None:
    """audit.HandlePluginError: the events are lost; say so in the server log, one line per event."""
    log.error("Error in audit plugin '%s' affecting %d audit events: %s", plugin, len(events), err)
    for ev in events:
        log.error(
            "Impacted audit event: auditID=%s stage=%s verb=%s uri=%s",
            ev.get("auditID"),
            ev.get("stage"),
            ev.get("verb"),
            ev.get("requestURI"),
        )


class Union:
    def __init__(self, backends: list[Backend]) -> None:
        self.backends = backends

    def process_events(self, events: list[Event]) -> bool:
        ok = True
        for b in self.backends:
            ok = b.process_events(events) and ok
        return ok

    def run(self) -> None:
        for b in self.backends:
            b.run()

    def shutdown(self) -> None:
        for b in self.backends:
            b.shutdown()


class IgnoreErrors:
    """--audit-*-mode=blocking: the request waits for the write but never fails because of it."""

    def __init__(self, delegate: Backend) -> None:
        self.delegate = delegate

    def process_events(self, events: list[Event]) -> bool:
        self.delegate.process_events(events)
        return True

    def run(self) -> None:
        self.delegate.run()

    def shutdown(self) -> None:
        self.delegate.shutdown()


@dataclass
class BatchConfig:
    buffer_size: int = 10000
    max_batch_size: int = 400
    max_batch_wait: float = 30.0
    throttle_enable: bool = True
    throttle_qps: float = 10.0
    throttle_burst: int = 15
    # Send each batch from a sender thread of its own, so that a slow delegate does not hold up batching.
    async_delegate: bool = True


class _TokenBucket:
    """flowcontrol.NewTokenBucketRateLimiter: Accept() waits for a token."""

    def __init__(self, qps: float, burst: int) -> None:
        self.qps = qps
        self.burst = max(1, burst)
        self.tokens = float(self.burst)
        self.last = time.monotonic()

    def accept(self) -> None:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.qps)
        self.last = now
        if self.tokens < 1:
            time.sleep((1 - self.tokens) / self.qps)
            self.tokens = 1.0
            self.last = time.monotonic()
        self.tokens -= 1


_STOP: Any = object()
_SENDERS = 4


class BufferedBackend:
    """--audit-*-mode=batch: events go into a bounded buffer (a full buffer drops them, the request never
    waits); a thread collects batches of up to max_batch_size, waiting at most max_batch_wait after the first
    event, throttles them and hands them to the delegate."""

    def __init__(self, delegate: Backend, config: BatchConfig, plugin: str) -> None:
        self.delegate = delegate
        self.config = config
        self.plugin = plugin
        self._buffer: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._batches: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._stopped = False
        self._limiter = _TokenBucket(config.throttle_qps, config.throttle_burst) if config.throttle_enable else None

    def process_events(self, events: list[Event]) -> bool:
        for i, ev in enumerate(events):
            if self._stopped or self._buffer.qsize() >= self.config.buffer_size:
                handle_plugin_error(self.plugin, "audit buffer queue blocked", events[i:])
                return True
            self._buffer.put(ev)
        return True

    def run(self) -> None:
        names = [f"audit-{self.plugin}-batcher"]
        targets = [self._collect_loop]
        if self.config.async_delegate:
            names += [f"audit-{self.plugin}-sender-{i}" for i in range(_SENDERS)]
            targets += [self._send_loop] * _SENDERS
        for name, target in zip(names, targets, strict=True):
            t = threading.Thread(target=target, name=name, daemon=True)
            t.start()
            self._threads.append(t)
        self.delegate.run()

    def shutdown(self, timeout: float = 5.0) -> None:
        """Send what is buffered (kube waits for in-flight batches; a dead webhook is given `timeout`)."""
        if self._stopped:
            return
        self._stopped = True
        self._buffer.put(_STOP)
        deadline = time.monotonic() + timeout
        if self._threads:
            self._threads[0].join(max(0.0, deadline - time.monotonic()))
            for _ in self._threads[1:]:
                self._batches.put(_STOP)
            for t in self._threads[1:]:
                t.join(max(0.0, deadline - time.monotonic()))
        self.delegate.shutdown()

    def _collect(self) -> tuple[list[Event], bool]:
        first = self._buffer.get()
        if first is _STOP:
            return [], True
        batch = [first]
        deadline = time.monotonic() + self.config.max_batch_wait
        while len(batch) < self.config.max_batch_size:
            remaining = deadline - time.monotonic()
            try:
                ev = self._buffer.get(timeout=remaining) if remaining > 0 else self._buffer.get_nowait()
            except queue.Empty:
                break
            if ev is _STOP:
                return batch, True
            batch.append(ev)
        return batch, False

    def _collect_loop(self) -> None:
        stop = False
        while not stop:
            batch, stop = self._collect()
            if not batch:
                continue
            if self._limiter is not None and not stop:
                self._limiter.accept()
            if self.config.async_delegate:
                self._batches.put(batch)
            else:
                self._deliver(batch)

    def _send_loop(self) -> None:
        while (batch := self._batches.get()) is not _STOP:
            self._deliver(batch)

    def _deliver(self, batch: list[Event]) -> None:
        try:
            self.delegate.process_events(batch)
        except Exception as e:  # noqa: BLE001 - a broken batch must not stop the sender
            handle_plugin_error(self.plugin, e, batch)


@dataclass
class TruncateConfig:
    max_batch_size: int = 10 * 1024 * 1024
    max_event_size: int = 100 * 1024


class TruncateBackend:
    """--audit-*-truncate-enabled: an event over max_event_size loses its request and response objects (and is
    annotated audit.k8s.io/truncated=true), or is dropped if still too large; batches are split at
    max_batch_size bytes."""

    def __init__(self, delegate: Backend, config: TruncateConfig, plugin: str) -> None:
        self.delegate = delegate
        self.config = config
        self.plugin = plugin

    def process_events(self, events: list[Event]) -> bool:
        ok = True
        batch: list[Event] = []
        batch_size = 0
        impacted: list[Event] = []
        for ev in events:
            size = len(orjson.dumps(ev))
            if size > self.config.max_event_size and ev.get("level") in ("Request", "RequestResponse"):
                ev = truncate(ev)
                size = len(orjson.dumps(ev))
            if size > self.config.max_event_size:
                impacted.append(ev)
                continue
            if batch and batch_size + size > self.config.max_batch_size:
                ok = self.delegate.process_events(batch) and ok
                batch, batch_size = [], 0
            batch.append(ev)
            batch_size += size
        if batch:
            ok = self.delegate.process_events(batch) and ok
        if impacted:
            handle_plugin_error(f"truncate<{self.plugin}>", "event is too large even after truncating", impacted)
        return ok

    def run(self) -> None:
        self.delegate.run()

    def shutdown(self) -> None:
        self.delegate.shutdown()


def truncate(ev: Event) -> Event:
    out = {k: v for k, v in ev.items() if k not in ("requestObject", "responseObject")}
    annotations = dict(out.get("annotations") or {})
    annotations[TRUNCATED_ANNOTATION_KEY] = "true"
    out["annotations"] = {k: annotations[k] for k in sorted(annotations)}
    return out

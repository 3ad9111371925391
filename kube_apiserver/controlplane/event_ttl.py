"""--event-ttl: events expire that long after their last write.

kube-apiserver gives every event it writes an etcd lease of --event-ttl (the events registry's TTLFunc), so
etcd removes an event that long after its last create or update, and watchers see it deleted. SQLite has no
leases: the expirer looks for events whose last write (the latest managedFields time, else the creation)
is older than the TTL and deletes them, on the condition that they have not been written since it looked.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from kube_apiserver.registry.store import DeleteOptions, Store
from kube_apiserver.runtime import errors
from kube_apiserver.runtime.meta import parse_rfc3339
from kube_apiserver.storage.interface import Preconditions

log = logging.getLogger(__name__)


def last_write(event: dict[str, Any]) -> float:
    """When the event was last written, as far as the object tells."""
    meta = event.get("metadata") or {}
    times = [e.get("time") for e in meta.get("managedFields") or [] if isinstance(e, dict) and e.get("time")]
    times.append(meta.get("creationTimestamp"))
    return max((parse_rfc3339(t) for t in times if isinstance(t, str)), default=time.time())


class EventExpirer:
    def __init__(self, events: Store, ttl: float) -> None:
        self.events = events
        self.ttl = ttl
        # often enough that an event outlives its TTL by a small part of it
        self.period = min(60.0, max(1.0, ttl / 10))

    async def run(self) -> None:
        while True:
            await asyncio.sleep(self.period)
            try:
                await self.expire(time.time())
            except errors.StatusError as e:
                log.warning("event expiry: %s", e)

    async def expire(self, now: float) -> int:
        """Deletes the events past their TTL; how many went."""
        gone = 0
        for item in list(self.events.storage.objects.values()):
            if now - last_write(item.obj) < self.ttl:
                continue
            meta = item.obj.get("metadata") or {}
            options = DeleteOptions(preconditions=Preconditions(resource_version=meta.get("resourceVersion")))
            try:
                await self.events.delete(meta.get("namespace", ""), meta.get("name", ""), options)
                gone += 1
            except errors.StatusError as e:
                if e.code not in (404, 409):  # gone meanwhile, or written again (a new lease)
                    raise
        return gone

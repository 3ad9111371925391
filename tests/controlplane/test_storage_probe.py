"""The storage health probe behind /healthz/etcd and /readyz/etcd-readiness."""

from __future__ import annotations

import asyncio

from kube_apiserver.controlplane.instance import informer_sync_check, storage_probe


class _Storage:
    def __init__(self, behaviour: str) -> None:
        self.behaviour = behaviour

    async def current_revision(self) -> int:
        if self.behaviour == "hang":
            await asyncio.sleep(3600)
        if self.behaviour == "fail":
            raise OSError("database is locked")
        return 7


def test_storage_probe_answers_ok_fails_and_times_out():
    async def run() -> list[str | None]:
        return [await storage_probe(_Storage(b), 0.05)() for b in ("ok", "fail", "hang")]

    assert asyncio.run(run()) == [None, "database is locked", "the storage did not answer within 0.05s"]


def test_informer_sync_names_the_caches_not_synced():
    class Cache:
        def __init__(self, synced: bool) -> None:
            self.synced = synced

    caches = {"pods": Cache(True), "configmaps": Cache(False), "leases.coordination.k8s.io": Cache(False)}
    check = informer_sync_check(lambda: caches)
    assert asyncio.run(check()) == "2 informers not started yet: ['configmaps', 'leases.coordination.k8s.io']"
    for cache in caches.values():
        cache.synced = True
    assert asyncio.run(check()) is None

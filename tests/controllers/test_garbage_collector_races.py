"""The garbage collector judges a dependent on the object as storage has it, not as its watch cache last showed
it, and deletes it on condition that it was not written since (attemptToDeleteItem, deleteObject): a dependent
adopted by a live owner meanwhile stays. Driven on the real SQLite storage and watch caches, with the
collector's node made stale by hand (the race is otherwise a matter of timing)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from kube_apiserver.apis.core.resources import RESOURCES as CORE
from kube_apiserver.apis.scheme import build_scheme
from kube_apiserver.controllers.garbagecollector import GarbageCollector, Node, OwnerRef
from kube_apiserver.registry.store import DeleteOptions, Store, key_root
from kube_apiserver.registry.strategy import RESTStrategy
from kube_apiserver.runtime import errors
from kube_apiserver.storage.cacher.cacher import Cacher
from kube_apiserver.storage.sqlite.store import SQLiteStorage

SPEC = next(s for s in CORE if s.resource == "configmaps")


def run(tmp_path: Any, body: Callable[[Store, GarbageCollector], Awaitable[None]]) -> None:
    async def main() -> None:
        sqlite = SQLiteStorage(str(tmp_path / "state.db"))
        await sqlite.start()
        cacher = Cacher(sqlite, key_root(SPEC))
        await cacher.start()
        try:
            store = Store(SPEC, cacher, RESTStrategy(SPEC, build_scheme()))
            collector = GarbageCollector(lambda group, version, kind: store if kind == "ConfigMap" else None)
            await asyncio.wait_for(body(store, collector), 30)
        finally:
            await cacher.close()
            await sqlite.close()

    asyncio.run(main())


def configmap(name: str, *owners: dict[str, Any]) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if owners:
        meta["ownerReferences"] = [
            {"apiVersion": "v1", "kind": "ConfigMap", "name": o["metadata"]["name"], "uid": o["metadata"]["uid"]}
            for o in owners
        ]
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta}


def node_of(obj: dict[str, Any], owners: tuple[OwnerRef, ...]) -> Node:
    meta = obj["metadata"]
    return Node("", "ConfigMap", meta["namespace"], meta["name"], meta["uid"], owners, False, frozenset(), 0)


def ref_to(owner: dict[str, Any]) -> OwnerRef:
    return OwnerRef("", "v1", "ConfigMap", owner["metadata"]["name"], owner["metadata"]["uid"], False)


async def exists(store: Store, name: str) -> bool:
    try:
        await store.get("ns", name)
    except errors.StatusError as e:
        assert e.code == 404
        return False
    return True


def test_a_dependent_adopted_since_the_cache_showed_it_stays(tmp_path):
    async def body(store: Store, collector: GarbageCollector) -> None:
        old_owner = (await store.create("ns", configmap("old-owner"))).obj
        dependent = (await store.create("ns", configmap("dependent", old_owner))).obj
        stale = node_of(dependent, (ref_to(old_owner),))  # what the collector saw
        new_owner = (await store.create("ns", configmap("new-owner"))).obj
        adopted = {**dependent, "metadata": {**dependent["metadata"]}}
        adopted["metadata"]["ownerReferences"] = configmap("x", new_owner)["metadata"]["ownerReferences"]
        await store.update("ns", "dependent", adopted)
        await store.delete("ns", "old-owner", DeleteOptions())
        await collector._attempt_to_delete(stale, store)
        assert await exists(store, "dependent")

    run(tmp_path, body)


def test_a_dependent_whose_owners_are_gone_is_deleted(tmp_path):
    async def body(store: Store, collector: GarbageCollector) -> None:
        owner = (await store.create("ns", configmap("owner"))).obj
        dependent = (await store.create("ns", configmap("dependent", owner))).obj
        await store.delete("ns", "owner", DeleteOptions())
        await collector._attempt_to_delete(node_of(dependent, (ref_to(owner),)), store)
        assert not await exists(store, "dependent")

    run(tmp_path, body)


def test_a_write_that_keeps_the_owners_does_not_save_the_dependent(tmp_path):
    """deleteObject: a conflict on the resourceVersion is retried on the uid alone when the owners are still
    those the dependent was judged by."""

    async def body(store: Store, collector: GarbageCollector) -> None:
        owner = (await store.create("ns", configmap("owner"))).obj
        dependent = (await store.create("ns", configmap("dependent", owner))).obj
        node = node_of(dependent, (ref_to(owner),))
        await store.delete("ns", "owner", DeleteOptions())
        stale_rv = dependent["metadata"]["resourceVersion"]
        relabeled = {**dependent, "metadata": {**dependent["metadata"], "labels": {"a": "b"}}}
        await store.update("ns", "dependent", relabeled)
        await collector._delete(store, node, "Background", stale_rv)
        assert not await exists(store, "dependent")

    run(tmp_path, body)

"""The garbage collector (pkg/controller/garbagecollector): dependents go with their owners.

An object's metadata.ownerReferences name its owners. Once none of them exists any more (each deleted, or
recreated under a new uid), the object is deleted too; an object with some owners still there only loses
the references to the ones that are gone. A delete can ask otherwise (deletion_finalizers.py):
  - Orphan: the owner keeps the "orphan" finalizer until every dependent has lost its reference to it;
  - Foreground: the owner keeps "foregroundDeletion" until every dependent that blocks it
    (blockOwnerDeletion: true) is gone; its other dependents are deleted too, without holding it.

What it knows of the objects it learns as upstream's graph builder does, from a watch on every resource:
here a watcher on each watch cache (the built-in ones from the start, a custom resource's while its CRD is
served), so it sees every server's writes, not only this one's. It keeps only the objects that have owners
or wait for it (a "node" each) and, per owner uid, the uids of its dependents: objects that own nothing and
are owned by nothing cost it nothing. An owner is looked up when needed, first in its watch cache and, when
not there under the uid referenced, by a consistent read (the cache of the owner's kind may not have caught
up with the dependent's), as upstream confirms an absent owner with a live GET before deleting.

Left out: upstream's unblocking of circular blockOwnerDeletion chains, and its events
(OwnerRefInvalidNamespace). A reference whose kind, or version of it, is not served (an uninstalled CRD, a
removed beta version) keeps the dependent
until something about it changes, as upstream keeps retrying such an item.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from kube_apiserver.controllers.workqueue import WorkQueue
from kube_apiserver.registry.deletion_finalizers import (
    FINALIZER_DELETE_DEPENDENTS,
    FINALIZER_ORPHAN_DEPENDENTS,
    GC_FINALIZERS,
)
from kube_apiserver.registry.store import DeleteOptions, Store
from kube_apiserver.runtime import errors
from kube_apiserver.storage.cacher.cacher import DELETED, CacheEvent, Cacher
from kube_apiserver.storage.interface import Preconditions

log = logging.getLogger(__name__)

_NO_FINALIZERS: frozenset[str] = frozenset()

# The Store that serves a kind: (group, version, kind) → Store, or None when that version of the kind is not
# served; version "" for any served version (an object's own kind, which its storage version names).
Resolve = Callable[[str, str, str], "Store | None"]


class OwnerRef(NamedTuple):
    group: str
    version: str
    kind: str
    name: str
    uid: str
    block: bool  # blockOwnerDeletion


@dataclass(slots=True)
class Node:
    """An object the collector keeps an eye on: it has owners, or a garbage collector finalizer."""

    group: str
    kind: str
    namespace: str
    name: str
    uid: str
    owners: tuple[OwnerRef, ...]
    deleting: bool  # deletionTimestamp set
    finalizers: frozenset[str]  # the collector's own (orphan, foregroundDeletion) among its finalizers
    source: int  # id() of the watch cache it was seen in


def _group_version(api_version: str) -> tuple[str, str]:
    group, _, version = api_version.rpartition("/")
    return group, version


def _group(api_version: str) -> str:
    return _group_version(api_version)[0]


def _owner_refs(meta: dict[str, Any]) -> tuple[OwnerRef, ...]:
    refs = meta.get("ownerReferences")
    if not isinstance(refs, list):
        return ()
    out = []
    for r in refs:
        if isinstance(r, dict) and r.get("uid"):
            api_version = str(r.get("apiVersion") or "")
            block = r.get("blockOwnerDeletion") is True
            group, version = _group_version(api_version)
            out.append(OwnerRef(group, version, str(r.get("kind") or ""), str(r.get("name") or ""), r["uid"], block))
    return tuple(out)


def _drop_owner_refs(uid: str, owner_uids: set[str]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A patch taking the references to owner_uids off the object (none if it is not the one with uid)."""

    def patch(obj: dict[str, Any]) -> dict[str, Any]:
        meta = obj.get("metadata") or {}
        refs = meta.get("ownerReferences")
        if meta.get("uid") != uid or not isinstance(refs, list):
            return obj
        kept = [r for r in refs if not (isinstance(r, dict) and r.get("uid") in owner_uids)]
        if len(kept) != len(refs):
            if kept:
                meta["ownerReferences"] = kept
            else:
                del meta["ownerReferences"]
        return obj

    return patch


def _drop_finalizer(uid: str, finalizer: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def patch(obj: dict[str, Any]) -> dict[str, Any]:
        meta = obj.get("metadata") or {}
        finalizers = meta.get("finalizers")
        if meta.get("uid") == uid and isinstance(finalizers, list) and finalizer in finalizers:
            meta["finalizers"] = [f for f in finalizers if f != finalizer]
            if not meta["finalizers"]:
                del meta["finalizers"]  # as upstream's merge patch of a nil list leaves it
        return obj

    return patch


class GarbageCollector:
    def __init__(self, resolve: Resolve) -> None:
        self.resolve = resolve
        self.nodes: dict[str, Node] = {}
        self.dependents: dict[str, set[str]] = {}  # owner uid → the uids of the nodes that reference it
        self.queue: WorkQueue[str] = WorkQueue("garbage collector", self._sync, log)
        self.tracked: dict[int, Cacher] = {}
        self.started = False

    # --- what it watches ---

    async def start(self) -> None:
        self.started = True
        self.queue.start()
        for cacher in list(self.tracked.values()):
            await self._watch(cacher)

    def track(self, cacher: Cacher) -> None:
        """Follow the objects of this watch cache (from start(), if not started yet)."""
        if id(cacher) in self.tracked:
            return
        self.tracked[id(cacher)] = cacher
        if self.started:
            asyncio.get_running_loop().create_task(self._watch(cacher))

    def untrack(self, cacher: Cacher) -> None:
        """Forget a watch cache that goes (a CRD no longer served) and the nodes seen in it."""
        if self.tracked.pop(id(cacher), None) is not None:
            for uid in [uid for uid, n in self.nodes.items() if n.source == id(cacher)]:
                self._removed(uid)

    async def _watch(self, cacher: Cacher) -> None:
        if self.tracked.get(id(cacher)) is not cacher:
            return
        try:
            watcher, initial = await cacher.start_watch(cacher.prefix, None)
        except Exception as e:  # noqa: BLE001 - e.g. a cache that failed to fill: try again later
            log.warning("garbage collector: watching %s: %s", cacher.prefix, e)
            asyncio.get_running_loop().call_later(5.0, self._rewatch, cacher)
            return
        source = id(cacher)
        seen = set()
        for ev in initial:
            self._observe(ev, source)
            seen.add((ev.object.obj.get("metadata") or {}).get("uid"))
        # after a relist of the cache: what it no longer holds was deleted meanwhile
        for uid in [uid for uid, n in self.nodes.items() if n.source == source and uid not in seen]:
            self._removed(uid)

        def sink(ev: CacheEvent | None) -> None:
            if ev is None:  # the cache relisted (or stopped): watch it anew
                self._rewatch(cacher)
            else:
                self._observe(ev, source)

        watcher.attach(sink)

    def _rewatch(self, cacher: Cacher) -> None:
        if self.tracked.get(id(cacher)) is cacher:
            asyncio.get_running_loop().create_task(self._watch(cacher))

    # --- the graph ---

    def _observe(self, ev: CacheEvent, source: int) -> None:
        obj = ev.object.obj
        meta = obj.get("metadata") or {}
        uid = meta.get("uid")
        if not uid:
            return
        if ev.type == DELETED:
            self._removed(uid)
            return
        # every write of every resource comes here: the common object, owning and owned by nothing, costs
        # two lookups
        owners = _owner_refs(meta) if "ownerReferences" in meta else ()
        deleting = bool(meta.get("deletionTimestamp"))
        finalizers = _NO_FINALIZERS
        if (owners or deleting) and meta.get("finalizers"):
            finalizers = frozenset(f for f in meta["finalizers"] if f in GC_FINALIZERS)
        old = self.nodes.get(uid)
        if not owners and not (deleting and finalizers):
            if old is not None:
                self._unlink(old)
                del self.nodes[uid]
                self._unblocked(old.owners)
            return
        api_version = str(obj.get("apiVersion") or "")
        node = Node(
            _group(api_version),
            str(obj.get("kind") or ""),
            meta.get("namespace") or "",
            meta.get("name") or "",
            uid,
            owners,
            deleting,
            finalizers,
            source,
        )
        self.nodes[uid] = node
        if old is None or old.owners != owners:
            if old is not None:
                self._unlink(old)
                # an owner deleting its dependents in the foreground may no longer be blocked by this one
                # (addUnblockedOwnersToDeleteQueue): a reference dropped, or blockOwnerDeletion turned off
                self._unblocked(tuple(r for r in old.owners if r not in owners))
            for ref in owners:
                self.dependents.setdefault(ref.uid, set()).add(uid)
            self.queue.add(uid)  # are its owners there?
        if deleting and finalizers and (old is None or not old.deleting or old.finalizers != finalizers):
            self.queue.add(uid)
            if FINALIZER_DELETE_DEPENDENTS in finalizers:
                for dep in self.dependents.get(uid, ()):
                    self.queue.add(dep)  # each to be deleted: its owner waits for its dependents

    def _unlink(self, node: Node) -> None:
        for ref in node.owners:
            deps = self.dependents.get(ref.uid)
            if deps is not None:
                deps.discard(node.uid)
                if not deps:
                    del self.dependents[ref.uid]

    def _unblocked(self, refs: tuple[OwnerRef, ...]) -> None:
        """Queue the owners among refs that delete their dependents in the foreground: one dependent fewer may
        block them."""
        for ref in refs:
            owner = self.nodes.get(ref.uid)
            if owner is not None and owner.deleting and FINALIZER_DELETE_DEPENDENTS in owner.finalizers:
                self.queue.add(ref.uid)

    def _removed(self, uid: str) -> None:
        node = self.nodes.pop(uid, None)
        if node is not None:
            self._unlink(node)
            self._unblocked(node.owners)
        for dep in self.dependents.get(uid, ()):
            self.queue.add(dep)  # an owner of theirs is gone

    # --- the work ---

    async def _sync(self, uid: str) -> None:
        node = self.nodes.get(uid)
        if node is None:
            return
        store = self.resolve(node.group, "", node.kind)
        if store is None:
            return
        if node.deleting:
            if FINALIZER_ORPHAN_DEPENDENTS in node.finalizers:
                await self._orphan_dependents(node, store)
            elif FINALIZER_DELETE_DEPENDENTS in node.finalizers:
                await self._process_deleting_dependents(node, store)
            return
        if node.owners:
            await self._attempt_to_delete(node, store)

    async def _patch(self, store: Store, node: Node, fn: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
        try:
            await store.patch(node.namespace, node.name, fn)
        except errors.StatusError as e:
            if e.code != 404:
                raise

    async def _delete(self, store: Store, node: Node, policy: str, resource_version: str = "") -> None:
        options = DeleteOptions(
            propagation_policy=policy,
            preconditions=Preconditions(uid=node.uid, resource_version=resource_version or None),
        )
        try:
            await store.delete(node.namespace, node.name, options)
        except errors.StatusError as e:
            if e.code not in (404, 409):  # gone already, or another object of that name now
                raise
            if e.code == 409 and resource_version:
                # deleteObject: written since it was judged; if its owners are still those it was judged by,
                # it goes on its uid alone, else it is judged again
                await self._delete_if_owners_unchanged(store, node, policy)

    async def _delete_if_owners_unchanged(self, store: Store, node: Node, policy: str) -> None:
        latest = await self._latest(store, node)
        if latest is None:
            return
        if _owner_refs(latest.get("metadata") or {}) == node.owners:
            await self._delete(store, node, policy)
        else:
            self.queue.add(node.uid)

    async def _latest(self, store: Store, node: Node) -> dict[str, Any] | None:
        """The object as storage has it now (a consistent read), if it is still the one with the node's uid."""
        try:
            latest = (await store.get(node.namespace, node.name)).obj
        except errors.StatusError as e:
            if e.code in (400, 404):
                return None
            raise
        return latest if (latest.get("metadata") or {}).get("uid") == node.uid else None

    async def _orphan_dependents(self, owner: Node, store: Store) -> None:
        """orphanDependents: every dependent loses its reference to the owner, then the owner its finalizer."""
        for dep_uid in list(self.dependents.get(owner.uid, ())):
            dep = self.nodes.get(dep_uid)
            dep_store = self.resolve(dep.group, "", dep.kind) if dep is not None else None
            if dep is not None and dep_store is not None:
                await self._patch(dep_store, dep, _drop_owner_refs(dep.uid, {owner.uid}))
        await self._patch(store, owner, _drop_finalizer(owner.uid, FINALIZER_ORPHAN_DEPENDENTS))

    async def _process_deleting_dependents(self, owner: Node, store: Store) -> None:
        """processDeletingDependentsItem: the finalizer goes once no dependent blocks the owner any more."""
        blocking = []
        for dep_uid in self.dependents.get(owner.uid, ()):
            dep = self.nodes.get(dep_uid)
            if dep is not None and any(r.uid == owner.uid and r.block for r in dep.owners):
                blocking.append(dep)
        if not blocking:
            await self._patch(store, owner, _drop_finalizer(owner.uid, FINALIZER_DELETE_DEPENDENTS))
            return
        for dep in blocking:
            if not dep.deleting:
                self.queue.add(dep.uid)

    async def _owner_state(self, node: Node, ref: OwnerRef) -> str | None:
        """The owner as the reference sees it: "solid", "dangling" (absent, or another object under that
        name) or "waiting" (being deleted in the foreground); None when the reference cannot be resolved
        (kind not served, or a namespaced owner of a cluster-scoped object, which upstream never collects)."""
        # as upstream's REST mapping of the reference: a version that is not served does not resolve
        store = self.resolve(ref.group, ref.version, ref.kind)
        if store is None or (store.spec.namespaced and not node.namespace):
            return None
        namespace = node.namespace if store.spec.namespaced else ""
        try:
            owner = store.storage.get_cached(store.key(namespace, ref.name))
            if owner is None or (owner.obj.get("metadata") or {}).get("uid") != ref.uid:
                owner = await store.get(namespace, ref.name)  # consistent: the cache may lag the dependent's
        except errors.StatusError as e:
            if e.code in (400, 404):
                return "dangling"
            raise
        meta = owner.obj.get("metadata") or {}
        if meta.get("uid") != ref.uid:
            return "dangling"
        if meta.get("deletionTimestamp") and FINALIZER_DELETE_DEPENDENTS in (meta.get("finalizers") or ()):
            return "waiting"
        return "solid"

    async def _attempt_to_delete(self, node: Node, store: Store) -> None:
        """attemptToDeleteItem: delete the object when none of its owners remains, else drop the references
        to the ones that are gone (or are deleting their dependents in the foreground). Judged on the object
        as storage has it now, not as the cache last showed it, and deleted on condition that it has not
        been written since (its resourceVersion): an object adopted meanwhile stays."""
        latest = await self._latest(store, node)
        if latest is None:
            return
        meta = latest.get("metadata") or {}
        owners = _owner_refs(meta)
        if owners != node.owners:
            return  # its watch event is on its way, and queues it again
        states: dict[str, list[OwnerRef]] = {"solid": [], "dangling": [], "waiting": []}
        for ref in node.owners:
            state = await self._owner_state(node, ref)
            if state is None:
                return
            states[state].append(ref)
        if states["solid"]:
            gone = {r.uid for r in states["dangling"] + states["waiting"]}
            if gone:
                await self._patch(store, node, _drop_owner_refs(node.uid, gone))
            return
        if states["waiting"] and self.dependents.get(node.uid):
            policy = "Foreground"  # its own dependents first, so the owner waiting for it waits for them too
        elif FINALIZER_ORPHAN_DEPENDENTS in node.finalizers:
            policy = "Orphan"
        elif FINALIZER_DELETE_DEPENDENTS in node.finalizers:
            policy = "Foreground"
        else:
            policy = "Background"
        await self._delete(store, node, policy, str(meta.get("resourceVersion") or ""))

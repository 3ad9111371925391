"""The SQLite writer's group commit: operations sent while a transaction is held up are committed
together, and a batch that touches one key several times (create, delete, create again, update) leaves
the same state, history and revisions as the operations one by one would."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest
from storage_helpers import PREFIX, Backend, WatchRecorder, key, raw_rv, run, thing

from kube_apiserver.storage.errors import KeyExistsError, KeyNotFoundError, ResourceVersionConflictError
from kube_apiserver.storage.interface import ADDED, DELETED, MODIFIED


def test_one_batch_with_many_writes_to_one_key(tmp_path):
    backend = Backend("sqlite", str(tmp_path / "state.db"))

    async def body(s):
        base = await s.create(key("x"), thing("x"))
        r0 = base.revision
        # Hold SQLite's write lock from another connection: the writer's next BEGIN IMMEDIATE waits
        # (busy_timeout), and everything sent meanwhile is committed in the transaction after it.
        blocker = sqlite3.connect(backend.path, isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")
        transactions = s.transactions
        first = asyncio.ensure_future(s._submit("create", key("first"), thing("first")))
        await asyncio.sleep(0.05)  # the writer has read "first" and waits for the lock
        ops = [
            s._submit("create", key("a"), thing("a", v="1")),  # r0 + 2
            s._submit("create", key("x"), thing("x")),  # exists: fails, takes no revision
            s._submit("delete", key("a"), thing("a", v="1"), r0 + 2),  # r0 + 3
            s._submit("update", key("a"), thing("a", v="stale"), r0 + 2),  # conflict: a is gone
            s._submit("create", key("a"), thing("a", v="2")),  # r0 + 4
            s._submit("update", key("a"), thing("a", v="3"), r0 + 4),  # r0 + 5
            s._submit("update", key("x"), thing("x", v="9"), r0 + 1),  # conflict: x is at r0
            s._submit("delete", key("gone"), thing("gone"), 1),  # not found
        ]
        tasks = [asyncio.ensure_future(op) for op in ops]
        await asyncio.sleep(0.05)
        blocker.execute("COMMIT")
        blocker.close()
        assert (await first).revision == r0 + 1
        results = await asyncio.gather(*tasks, return_exceptions=True)
        assert isinstance(results[1], KeyExistsError)
        assert isinstance(results[3], KeyNotFoundError)  # the update's key was deleted earlier in the batch
        assert isinstance(results[6], ResourceVersionConflictError)
        assert isinstance(results[7], KeyNotFoundError)
        done = (results[0], results[2], results[4], results[5])
        assert [(r.revision, raw_rv(r.raw)) for r in done] == [(r0 + i, str(r0 + i)) for i in (2, 3, 4, 5)]
        assert await s.current_revision() == r0 + 5
        assert s.transactions == transactions + 2  # "first", then the rest together

        async def check(store):
            got = await store.get(key("a"))
            assert got.obj["data"] == {"v": "3"} and raw_rv(got.raw) == str(r0 + 5)
            assert got.revision == r0 + 5
            x = await store.get(key("x"))
            assert x.revision == r0 and x.obj["data"] == {}
            assert await store.count(PREFIX) == 3  # x, first, a
            w = WatchRecorder(store.watch(PREFIX, r0))
            events = await w.wait_events(5)
            assert [(e.type, e.key, e.revision) for e in events] == [
                (ADDED, key("first"), r0 + 1),
                (ADDED, key("a"), r0 + 2),
                (DELETED, key("a"), r0 + 3),
                (ADDED, key("a"), r0 + 4),
                (MODIFIED, key("a"), r0 + 5),
            ]
            w._task.cancel()

        await check(s)
        await backend.close()
        await check(await backend.open())  # the same after a reopen (the key index is rebuilt from kv)

    run(backend, body)


@pytest.mark.parametrize("n", [1, 127, 128, 129, 300])
def test_batches_larger_than_one_statement(tmp_path, n):
    """Batches are written with multi-row statements of up to 128 rows: sizes around that edge."""
    backend = Backend("sqlite", str(tmp_path / "state.db"))

    async def body(s):
        blocker = sqlite3.connect(backend.path, isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")
        gate = asyncio.ensure_future(s.create(key("gate"), thing("gate")))
        await asyncio.sleep(0.05)
        made = [asyncio.ensure_future(s.create(key(f"o{i:04}"), thing(f"o{i:04}", i=str(i)))) for i in range(n)]
        await asyncio.sleep(0.05)
        blocker.execute("COMMIT")
        blocker.close()
        await gate
        await asyncio.gather(*made)
        dels = [asyncio.ensure_future(s.delete(key(f"o{i:04}"))) for i in range(0, n, 2)]
        await asyncio.gather(*dels)
        await backend.close()
        s = await backend.open()
        assert await s.count(PREFIX) == 1 + n - len(dels)
        got = await s.get(key(f"o{n - 1:04}")) if (n - 1) % 2 else None
        if got is not None:
            assert got.obj["data"] == {"i": str(n - 1)}

    run(backend, body)

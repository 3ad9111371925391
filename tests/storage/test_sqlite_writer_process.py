"""The SQLite writer process: what happens when it dies, the data dir's lock it holds, and a watch that
starts behind the committed revision."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3

import pytest
from storage_helpers import PREFIX, Backend, key, run, thing

from kube_apiserver.storage.cacher.cacher import Cacher
from kube_apiserver.storage.errors import UnavailableError
from kube_apiserver.storage.interface import ADDED
from kube_apiserver.storage.sqlite.store import SQLiteStorage


def test_writer_killed_under_load_answers_each_write_by_what_was_committed(tmp_path):
    """kill -9 of the writer while many creates are in flight: each create either succeeds (and is in
    the database and in the watch) or fails with UnavailableError (and is nowhere); writes after it
    succeed on a new writer, and the revision counter stays gapless."""
    backend = Backend("sqlite", str(tmp_path / "state.db"))

    async def body(s: SQLiteStorage) -> None:
        base = (await s.create(key("base"), thing("base"))).revision
        events = []

        async def watch() -> None:
            async for batch in s.watch(PREFIX, base):
                events.extend(batch.events)

        watcher = asyncio.ensure_future(watch())
        first_writer = s._writer
        assert first_writer is not None

        async def creates(w: int) -> list[object]:
            out: list[object] = []
            for i in range(30):  # one after the other: the writer sees many transactions
                try:
                    out.append(await s.create(key(f"w{w:02}-{i:02}"), thing(f"w{w:02}-{i:02}")))
                except UnavailableError as e:
                    out.append(e)
            return out

        tasks = [asyncio.ensure_future(creates(w)) for w in range(32)]
        while s.transactions < 10:
            await asyncio.sleep(0.001)
        os.kill(first_writer.proc.pid, signal.SIGKILL)
        results = [r for rs in await asyncio.gather(*tasks) for r in rs]
        ok = {r.key: r.revision for r in results if not isinstance(r, Exception)}
        failed = [r for r in results if isinstance(r, Exception)]
        # usually some fail (those in the transaction the kill cut short); none may, if the kill fell
        # between two transactions with nothing sent: then the next message found the pipe closed
        assert ok and len(ok) + len(failed) == 32 * 30
        assert s._writer is not None and s._writer is not first_writer
        after = await s.create(key("after"), thing("after"))
        await asyncio.sleep(0.05)
        watcher.cancel()

        conn = sqlite3.connect(backend.path)
        stored = dict(conn.execute("SELECT key, mod_rev FROM kv WHERE key != ?", (key("base"),)).fetchall())
        conn.close()
        assert stored == {**ok, key("after"): after.revision}
        assert sorted(ok.values()) == list(range(base + 1, base + 1 + len(ok)))  # no gap, none twice
        assert after.revision == base + len(ok) + 1
        assert [(e.type, e.key, e.revision) for e in events] == [
            (ADDED, k, r) for k, r in sorted([*ok.items(), (key("after"), after.revision)], key=lambda kv: kv[1])
        ]

    run(backend, body)


def test_a_second_store_on_the_same_database_is_refused(tmp_path):
    path = str(tmp_path / "state.db")

    async def body() -> None:
        first = SQLiteStorage(path)
        await first.start()
        try:
            second = SQLiteStorage(path, lock_timeout=0.3)
            with pytest.raises(UnavailableError, match="in use by another kube-apiserver"):
                await second.start()
            await first.create(key("a"), thing("a"))  # the first is unaffected
        finally:
            await first.close()
        third = SQLiteStorage(path, lock_timeout=0.3)  # the lock went with the first's writer
        await third.start()
        try:
            assert (await third.get(key("a"))).obj["metadata"]["name"] == "a"
        finally:
            await third.close()

    asyncio.run(body())


def test_a_new_watch_cache_is_fresh_while_other_resources_are_written(tmp_path):
    """A cache started while writes under other prefixes are committed reaches the current revision:
    a watch from an older revision is told the revision its catch-up read ends at, even when nothing
    under its prefix changed, so a consistent read does not wait for an event that never comes."""
    backend = Backend("sqlite", str(tmp_path / "state.db"))

    async def body(s: SQLiteStorage) -> None:
        await s.create(key("a"), thing("a"))
        for i in range(20):
            other = asyncio.ensure_future(s.create(f"/registry/others/default/o{i}", thing(f"o{i}")))
            cacher = Cacher(s, PREFIX)
            await cacher.start()
            await other
            got = await asyncio.wait_for(cacher.get(key("a")), 2)  # waits until fresh
            assert got.obj["metadata"]["name"] == "a"
            assert cacher.revision == await s.current_revision()
            await cacher.stop()

    run(backend, body)

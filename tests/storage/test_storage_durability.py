"""Durability: state, history and the revision counter survive close + reopen; acknowledged writes survive kill -9."""

from __future__ import annotations

import fcntl
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time

import pytest
from storage_helpers import PREFIX, WatchRecorder, key, raw_rv, run, thing

from kube_apiserver.storage.errors import ExpiredError, KeyNotFoundError
from kube_apiserver.storage.interface import ADDED, DELETED, MODIFIED, ListOptions


def set_data(**data):
    def update(o):
        o["data"] = dict(data)
        return o

    return update


def test_reopen_keeps_state_and_revision(backend):
    async def body(s):
        a = await s.create(key("a"), thing("a", v="1"))
        u = await s.guaranteed_update(key("a"), set_data(v="2"))
        b = await s.create(key("b"), thing("b"))
        d = await s.delete(key("b"))
        last = await s.current_revision()
        assert last == d.revision

        await backend.close()
        s = await backend.open()

        assert await s.current_revision() == last
        got = await s.get(key("a"))
        assert got.revision == u.revision and got.obj["data"] == {"v": "2"}
        assert raw_rv(got.raw) == str(u.revision)
        with pytest.raises(KeyNotFoundError):
            await s.get(key("b"))
        assert await s.count(PREFIX) == 1
        # history survives: a snapshot and a watch from before the reopen
        old = await s.get_list(PREFIX, ListOptions(revision=b.revision))
        assert [(i.key, i.revision) for i in old.items] == [(key("a"), u.revision), (key("b"), b.revision)]
        # (a reopened watch cache starts its window at the reopen, so ask the storage underneath)
        w = WatchRecorder(backend.sqlite.watch(PREFIX, a.revision))
        wnow = WatchRecorder(s.watch(PREFIX, last))
        events = await w.wait_events(3)
        assert [(e.type, e.revision) for e in events] == [
            (MODIFIED, u.revision),
            (ADDED, b.revision),
            (DELETED, d.revision),
        ]
        # the counter continues
        c = await s.create(key("c"), thing("c"))
        assert c.revision == last + 1
        events = await w.wait_events(4)
        assert events[3].revision == c.revision
        assert [(e.type, e.revision) for e in await wnow.wait_events(1)] == [(ADDED, c.revision)]
        await w.stop()
        await wnow.stop()

    run(backend, body)


def test_reopen_keeps_compaction(backend):
    async def body(s):
        a = await s.create(key("a"), thing("a"))
        await s.guaranteed_update(key("a"), set_data(v="x"))
        cur = await s.current_revision()
        await backend.compact(cur)
        await backend.close()
        backend.kind = "sqlite"  # a fresh cacher would start its window at the reopen; ask the storage itself
        s = await backend.open()
        with pytest.raises(ExpiredError):
            await s.get_list(PREFIX, ListOptions(revision=a.revision))
        w = WatchRecorder(s.watch(PREFIX, a.revision))
        assert isinstance(await w.wait_error(), ExpiredError)
        assert (await s.get(key("a"))).revision == cur

    run(backend, body)


def test_acknowledged_writes_survive_kill_9(tmp_path):
    db = str(tmp_path / "state.db")
    script = os.path.join(os.path.dirname(__file__), "kill_writer.py")
    proc = subprocess.Popen([sys.executable, script, db, "64"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines: list[bytes] = []

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 20
        while not lines and time.monotonic() < deadline:
            time.sleep(0.01)
        assert lines and lines[0].startswith(b"ready"), proc.stderr.read() if proc.poll() is not None else lines
        time.sleep(1.0)
        # only a few acknowledgements in: the writers must be busy when the kill lands
        assert len(lines) > 50, f"the writer was too slow: {len(lines)} lines"
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        reader.join(10)
    # The writer process outlives the killed server until it has committed what it had read (never
    # less than what was acknowledged); it holds the data dir's lock until then.
    with open(db + ".lock", "rb") as lock:
        deadline = time.monotonic() + 20
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                assert time.monotonic() < deadline, "the orphaned writer did not exit"
                time.sleep(0.01)
    acked: dict[str, int] = {}
    for line in lines[1:]:
        if not line.endswith(b"\n"):
            continue  # a line cut by the kill was never fully acknowledged
        k, rev = line.decode().split()
        acked[k] = int(rev)
    assert acked
    print(f"{len(acked)} acknowledged creates before kill -9")

    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    stored = dict(conn.execute("SELECT key, mod_rev FROM kv").fetchall())
    (meta_rev,) = conn.execute("SELECT value FROM meta WHERE name = 'rev'").fetchone()
    conn.close()
    missing = sorted(set(acked) - set(stored))
    assert not missing, f"{len(missing)} of {len(acked)} acknowledged keys lost, e.g. {missing[:5]}"
    assert all(stored[k] == rev for k, rev in acked.items())
    assert meta_rev >= max(acked.values())
    assert meta_rev == max(stored.values())

    # and a store reopened on it continues the revision counter
    import asyncio

    from kube_apiserver.storage.sqlite.store import SQLiteStorage

    async def reopen() -> None:
        s = SQLiteStorage(db)
        await s.start()
        try:
            assert await s.current_revision() == meta_rev
            assert await s.count(PREFIX) == len(stored)
            r = await s.create(key("after-crash"), thing("after-crash"))
            assert r.revision == meta_rev + 1
        finally:
            await s.close()

    asyncio.run(reopen())

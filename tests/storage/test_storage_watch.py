"""Conformance: watch (storage/testing RunTestWatch*), for every implementation of storage.Interface."""

from __future__ import annotations

import asyncio

import pytest
from storage_helpers import PREFIX, WatchRecorder, key, raw_rv, run, thing

from kube_apiserver.storage.errors import ExpiredError
from kube_apiserver.storage.interface import ADDED, DELETED, MODIFIED


def set_data(**data):
    def update(o):
        o["data"] = dict(data)
        return o

    return update


def test_watch_events_in_order_with_types(backend):
    async def body(s):
        r0 = await s.current_revision()
        w = WatchRecorder(s.watch(PREFIX, r0))
        a = await s.create(key("a"), thing("a", v="1"))
        u = await s.guaranteed_update(key("a"), set_data(v="2"))
        b = await s.create(key("b"), thing("b"))
        d = await s.delete(key("a"))
        events = await w.wait_events(4)
        assert [(e.type, e.key, e.revision) for e in events] == [
            (ADDED, key("a"), a.revision),
            (MODIFIED, key("a"), u.revision),
            (ADDED, key("b"), b.revision),
            (DELETED, key("a"), d.revision),
        ]
        for e in events:
            assert e.object.revision == e.revision
            assert raw_rv(e.object.raw) == str(e.revision)
            assert e.object.key == e.key
        assert events[1].object.obj["data"] == {"v": "2"}
        assert events[3].object.obj["data"] == {"v": "2"}  # DELETED carries the last state
        await asyncio.sleep(0.05)
        assert len(w.events) == 4
        await w.stop()

    run(backend, body)


def test_watch_starts_strictly_after_revision(backend):
    async def body(s):
        a = await s.create(key("a"), thing("a"))
        b = await s.create(key("b"), thing("b"))
        w = WatchRecorder(s.watch(PREFIX, a.revision))
        events = await w.wait_events(1)
        assert [(e.type, e.key, e.revision) for e in events] == [(ADDED, key("b"), b.revision)]
        c = await s.create(key("c"), thing("c"))
        events = await w.wait_events(2)
        assert [e.revision for e in events] == [b.revision, c.revision]
        await w.stop()

    run(backend, body)


def test_watch_catch_up_from_history(backend):
    async def body(s):
        start = await s.current_revision()
        a = await s.create(key("a"), thing("a", v="1"))
        u = await s.guaranteed_update(key("a"), set_data(v="2"))
        d = await s.delete(key("a"))
        w = WatchRecorder(s.watch(PREFIX, start))
        events = await w.wait_events(3)
        assert [(e.type, e.revision) for e in events] == [
            (ADDED, a.revision),
            (MODIFIED, u.revision),
            (DELETED, d.revision),
        ]
        assert [e.object.obj["data"]["v"] for e in events] == ["1", "2", "2"]
        assert [raw_rv(e.object.raw) for e in events] == [str(a.revision), str(u.revision), str(d.revision)]
        # and then live
        b = await s.create(key("b"), thing("b"))
        events = await w.wait_events(4)
        assert (events[3].type, events[3].revision) == (ADDED, b.revision)
        await w.stop()

    run(backend, body)


def test_watch_catch_up_while_writing_has_no_gap_or_duplicate(backend):
    """The hand-over from history to live events, with writes committing all the time."""

    async def body(s):
        first = [await s.create(key(f"pre{i:02}"), thing(f"pre{i:02}")) for i in range(20)]
        since = first[9].revision

        async def writer():
            out = []
            for i in range(150):
                out.append(await s.create(key(f"w{i:03}"), thing(f"w{i:03}")))
            return out

        wt = asyncio.create_task(writer())
        await asyncio.sleep(0.01)
        w = WatchRecorder(s.watch(PREFIX, since))
        written = await wt
        final = written[-1].revision
        events = await w.wait_revision(final, timeout=10)
        assert [e.revision for e in events] == list(range(since + 1, final + 1))
        assert all(e.type == ADDED for e in events)
        await w.stop()

    run(backend, body)


def test_watch_expired_after_compaction(backend):
    async def body(s):
        a = await s.create(key("a"), thing("a"))
        for i in range(5):
            await s.guaranteed_update(key("a"), set_data(v=str(i)))
        cur = await s.current_revision()
        await backend.compact(cur)
        w = WatchRecorder(s.watch(PREFIX, a.revision))
        err = await w.wait_error()
        assert isinstance(err, ExpiredError)
        # from the compacted revision on, watching works
        w2 = WatchRecorder(s.watch(PREFIX, cur))
        u = await s.guaranteed_update(key("a"), set_data(v="after"))
        events = await w2.wait_events(1)
        assert [(e.type, e.revision) for e in events] == [(MODIFIED, u.revision)]
        await w2.stop()

    run(backend, body)


def test_watch_prefix_filtering(backend):
    async def body(s):
        r0 = await s.current_revision()
        wa = WatchRecorder(s.watch(f"{PREFIX}a/", r0))
        wab = WatchRecorder(s.watch(f"{PREFIX}ab/", r0))
        wall = WatchRecorder(s.watch(PREFIX, r0))
        x = await s.create(key("x", ns="a"), thing("x"))
        y = await s.create(key("y", ns="ab"), thing("y"))
        z = await s.create(key("z", ns="b"), thing("z"))
        await s.create("/registry/thingsx/default/q", thing("q"))
        last = await s.create(key("last", ns="a"), thing("last"))
        assert [e.revision for e in await wall.wait_events(4)] == [x.revision, y.revision, z.revision, last.revision]
        assert [e.key for e in await wa.wait_events(2)] == [x.key, last.key]
        assert [e.key for e in await wab.wait_events(1)] == [y.key]
        await asyncio.sleep(0.05)
        assert len(wa.events) == 2 and len(wab.events) == 1 and len(wall.events) == 4
        for w in (wa, wab, wall):
            await w.stop()

    run(backend, body)


def test_many_watchers_see_every_event(backend):
    async def body(s):
        r0 = await s.current_revision()
        ws = [WatchRecorder(s.watch(PREFIX, r0)) for _ in range(20)]
        done = await asyncio.gather(*(s.create(key(f"k{i:02}"), thing(f"k{i:02}")) for i in range(50)))
        want = sorted(r.revision for r in done)
        for w in ws:
            events = await w.wait_events(50)
            assert [e.revision for e in events] == want
            await w.stop()

    run(backend, body)


def test_watch_ends_when_stopped(backend):
    async def body(s):
        w = WatchRecorder(s.watch(PREFIX, await s.current_revision()))
        await s.create(key("a"), thing("a"))
        await w.wait_events(1)
        await w.stop()
        await s.create(key("b"), thing("b"))  # nobody left to deliver to; must not fail

    run(backend, body)


@pytest.mark.parametrize("n", [1, 3])
def test_watch_from_the_current_revision_sees_only_new_writes(backend, n):
    async def body(s):
        for i in range(n):
            await s.create(key(f"old{i}"), thing(f"old{i}"))
        w = WatchRecorder(s.watch(PREFIX, await s.current_revision()))
        new = await s.create(key("new"), thing("new"))
        events = await w.wait_events(1)
        assert [(e.key, e.revision) for e in events] == [(key("new"), new.revision)]
        await w.stop()

    run(backend, body)

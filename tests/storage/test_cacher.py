"""The watch cache beyond the interface: watchers with predicates, the history window, freshness, memory reads."""

from __future__ import annotations

import asyncio

import orjson
import pytest
from storage_helpers import PREFIX, Backend, key, raw_rv, run, thing

from kube_apiserver.storage.errors import ExpiredError, TooLargeResourceVersionError
from kube_apiserver.storage.interface import ADDED, DELETED, MODIFIED, ListOptions


def set_labels(**labels):
    def update(o):
        o["metadata"]["labels"] = dict(labels)
        return o

    return update


def selected(o):
    return o["metadata"].get("labels", {}).get("app") == "web"


async def drain(watcher, n, timeout=5.0):
    out = []
    for _ in range(n):
        ev = await asyncio.wait_for(watcher.queue.get(), timeout)
        assert ev is not None, f"watcher closed after {out}"
        out.append(ev)
    return out


async def quiet(watcher, wait=0.05):
    await asyncio.sleep(wait)
    return watcher.queue.qsize() == 0


@pytest.fixture
def cacher_backend(tmp_path):
    return Backend("cacher", str(tmp_path / "state.db"))


def test_predicate_transitions(cacher_backend):
    async def body(c):
        r0 = await c.current_revision()
        w, initial = await c.start_watch(PREFIX, r0, predicate=selected)
        assert initial == []
        a = await c.create(key("a"), thing("a", labels={"app": "web"}))
        await c.create(key("b"), thing("b", labels={"app": "db"}))  # never selected: not seen
        m = await c.guaranteed_update(key("a"), lambda o: {**o, "data": {"v": "1"}})
        left = await c.guaranteed_update(key("a"), set_labels(app="db"))
        await c.guaranteed_update(key("a"), lambda o: {**o, "data": {"v": "2"}})  # outside: not seen
        entered = await c.guaranteed_update(key("b"), set_labels(app="web"))
        d = await c.delete(key("b"))
        events = await drain(w, 5)
        assert [(e.type, e.key, e.revision) for e in events] == [
            (ADDED, key("a"), a.revision),
            (MODIFIED, key("a"), m.revision),
            (DELETED, key("a"), left.revision),
            (ADDED, key("b"), entered.revision),
            (DELETED, key("b"), d.revision),
        ]
        assert await quiet(w)
        w.stop()

    run(cacher_backend, body)


def test_predicate_leave_carries_the_previous_state(cacher_backend):
    """cache_watcher.go convertToWatchEvent, case !curObjPasses && oldObjPasses: "return a delete event with the
    previous object content, but with the event's resource version" - so a selector watcher never receives an
    object that does not match its selector."""

    async def body(c):
        await c.create(key("a"), thing("a", labels={"app": "web"}))
        w, _ = await c.start_watch(PREFIX, await c.current_revision(), predicate=selected)
        left = await c.guaranteed_update(key("a"), set_labels(app="db"))
        (ev,) = await drain(w, 1)
        assert ev.type == DELETED and ev.revision == left.revision
        assert selected(ev.object.obj), ev.object.obj["metadata"]["labels"]
        assert orjson.loads(ev.object.raw)["metadata"]["labels"] == {"app": "web"}
        assert raw_rv(ev.object.raw) == str(left.revision)
        w.stop()

    run(cacher_backend, body)


def test_start_watch_without_revision_sends_current_state(cacher_backend):
    async def body(c):
        a = await c.create(key("a"), thing("a", labels={"app": "web"}))
        await c.create(key("b"), thing("b", labels={"app": "db"}))
        cc = await c.create(key("c"), thing("c", labels={"app": "web"}))
        w, initial = await c.start_watch(PREFIX, None, predicate=selected)
        assert [(e.type, e.key, e.revision) for e in initial] == [
            (ADDED, key("a"), a.revision),
            (ADDED, key("c"), cc.revision),
        ]
        d = await c.create(key("d"), thing("d", labels={"app": "web"}))
        (ev,) = await drain(w, 1)
        assert (ev.type, ev.revision) == (ADDED, d.revision)
        w.stop()

    run(cacher_backend, body)


def test_start_watch_replays_the_window_through_the_predicate(cacher_backend):
    async def body(c):
        r0 = await c.current_revision()
        await c.create(key("a"), thing("a", labels={"app": "db"}))
        en = await c.guaranteed_update(key("a"), set_labels(app="web"))
        await c.create(key("b"), thing("b", labels={"app": "db"}))
        w, initial = await c.start_watch(PREFIX, r0, predicate=selected)
        assert [(e.type, e.revision) for e in initial] == [(ADDED, en.revision)]  # entered the selection
        assert await quiet(w)
        w.stop()

    run(cacher_backend, body)


def test_history_window_too_old(tmp_path):
    backend = Backend("cacher", str(tmp_path / "state.db"), history_size=5)

    async def body(c):
        r0 = await c.current_revision()
        revs = [(await c.create(key(f"k{i}"), thing(f"k{i}"))).revision for i in range(10)]
        # the window holds the last 5 events: a resume from before them is too old
        for rv in (r0, revs[0], revs[3]):
            with pytest.raises(ExpiredError, match="too old resource version"):
                await c.start_watch(PREFIX, rv)
        # the storage.Interface form says the same when iterated
        with pytest.raises(ExpiredError):
            async for _ in c.watch(PREFIX, revs[0]):
                pass
        # from the window's first revision on, the events after it are replayed
        w, initial = await c.start_watch(PREFIX, revs[4])
        assert [e.revision for e in initial] == revs[5:]
        w.stop()
        w, initial = await c.start_watch(PREFIX, revs[7])
        assert [e.revision for e in initial] == revs[8:]
        w.stop()
        # the storage itself still has the history (not compacted)
        assert len((await c.storage.get_list(PREFIX, ListOptions(revision=revs[0]))).items) == 1

    run(backend, body)


def test_wait_until_timeout_raises_too_large(cacher_backend):
    async def body(c):
        cur = await c.current_revision()
        await c.wait_until(cur, timeout=0.1)  # reached: returns at once
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        with pytest.raises(TooLargeResourceVersionError, match="Too large resource version"):
            await c.wait_until(cur + 100, timeout=0.2)
        assert 0.15 < loop.time() - t0 < 2.0
        # a revision reached while waiting releases the waiter
        waiter = asyncio.ensure_future(c.wait_until(cur + 1, timeout=5))
        await asyncio.sleep(0.01)
        assert not waiter.done()
        await c.create(key("a"), thing("a"))
        await asyncio.wait_for(waiter, 5)

    run(cacher_backend, body)


def test_start_watch_at_future_revision_gets_what_follows_it(cacher_backend):
    """A watch from a revision not reached yet starts at once (no wait, no error) and gets only the events
    after that revision (cacheWatcher.process)."""

    async def body(c):
        cur = await c.current_revision()
        watcher, initial = await asyncio.wait_for(c.start_watch(PREFIX, cur + 2), 1)
        assert initial == [] and watcher in c.watchers
        for name in ("a", "b", "c", "d"):
            await c.create(key(name), thing(name))
        await asyncio.sleep(0.05)
        got = []
        while not watcher.queue.empty():
            got.append(watcher.queue.get_nowait())
        assert [(e.type, e.key) for e in got] == [("ADDED", key("c")), ("ADDED", key("d"))]
        assert all(e.revision > cur + 2 for e in got)
        watcher.stop()

    run(cacher_backend, body)


def test_list_cached_reads_from_memory(cacher_backend):
    async def body(c):
        for i in range(5):
            await c.create(key(f"k{i}"), thing(f"k{i}", labels={"app": "web" if i % 2 else "db"}))
        await c.create(key("x", ns="other"), thing("x"))
        await c.wait_fresh()

        async def no_storage_reads(*a, **kw):
            raise AssertionError("read from the storage")

        c.storage.get_list = no_storage_reads
        c.storage.get = no_storage_reads
        res = c.list_cached(f"{PREFIX}default/", ListOptions())
        assert [i.key for i in res.items] == [key(f"k{i}") for i in range(5)]
        assert res.revision == await c.current_revision()
        # the cached StoredObjects themselves: encoded once, shared with every reader
        assert all(i is c.objects[i.key] for i in res.items)
        assert all(raw_rv(i.raw) == str(i.revision) for i in res.items)
        res = c.list_cached(PREFIX, ListOptions(predicate=selected, limit=1))
        assert [i.key for i in res.items] == [key("k1")] and res.more and res.next_key == key("k3")
        # get_list and get at the latest revision are served from memory too
        res = await c.get_list(PREFIX, ListOptions())
        assert len(res.items) == 6
        assert (await c.get(key("k2"))).key == key("k2")
        res = await c.get_list(PREFIX, ListOptions(revision=res.revision))
        assert len(res.items) == 6

    run(cacher_backend, body)


def test_reads_wait_for_writes_made_behind_the_cache(cacher_backend):
    """Consistent reads: a write made on the storage directly is visible through the cache right after."""

    async def body(c):
        for i in range(20):
            r = await c.storage.create(key(f"k{i}"), thing(f"k{i}"))
            assert (await c.get(key(f"k{i}"))).revision == r.revision
            res = await c.get_list(PREFIX, ListOptions())
            assert res.revision >= r.revision and len(res.items) == i + 1

    run(cacher_backend, body)


def test_events_share_the_stored_bytes(cacher_backend):
    async def body(c):
        w1, _ = await c.start_watch(PREFIX, await c.current_revision())
        w2, _ = await c.start_watch(PREFIX, await c.current_revision())
        await c.create(key("a"), thing("a"))
        (e1,) = await drain(w1, 1)
        (e2,) = await drain(w2, 1)
        assert e1.object is e2.object is c.objects[key("a")]
        w1.stop()
        w2.stop()
        assert not c.watchers

    run(cacher_backend, body)


def test_list_cached_agrees_with_the_storage_after_mixed_writes(cacher_backend):
    """The cache keeps its objects in key order beside the keys (a list is a slice): after creates,
    updates and deletes in namespaces whose names share a prefix ("a", "a-b", "a0", "ab"), every list,
    whole or in pages, has the keys, bytes and continuation that the storage itself gives."""
    import random

    rnd = random.Random(7)
    namespaces = ["a", "a-b", "a0", "ab"]

    async def body(c):
        live: set[tuple[str, str]] = set()
        for step in range(300):
            ns, name = rnd.choice(namespaces), f"n{rnd.randrange(25):02}"
            k = key(name, ns=ns)
            if (ns, name) not in live:
                await c.create(k, thing(name, labels={"step": str(step)}))
                live.add((ns, name))
            elif rnd.random() < 0.5:
                await c.delete(k)
                live.discard((ns, name))
            else:

                def bump(cur, step=step):
                    return {**cur, "data": {"step": step}}

                await c.guaranteed_update(k, bump)
        await c.wait_fresh()
        assert [o.key for o in c.ordered] == sorted(c.objects)
        assert all(o is c.objects[o.key] for o in c.ordered)
        for prefix in [PREFIX, *(f"{PREFIX}{ns}/" for ns in namespaces)]:
            want = await c.storage.get_list(prefix, ListOptions())
            got = c.list_cached(prefix, ListOptions())
            assert [(i.key, i.raw) for i in got.items] == [(i.key, i.raw) for i in want.items]
            assert got.items and all(i.key.startswith(prefix) for i in got.items)
            assert await c.count(prefix) == await c.storage.count(prefix) == len(want.items)
            for limit in (1, 7):
                pages, opts = [], ListOptions(limit=limit)
                while True:
                    page = c.list_cached(prefix, opts)
                    stored = await c.storage.get_list(prefix, ListOptions(limit=limit, start_key=opts.start_key))
                    assert [i.key for i in page.items] == [i.key for i in stored.items]
                    assert (page.more, page.next_key) == (stored.more, stored.next_key)
                    pages.extend(i.key for i in page.items)
                    if not page.more:
                        break
                    assert page.remaining == len(want.items) - len(pages)
                    opts = ListOptions(limit=limit, start_key=page.next_key)
                assert pages == [i.key for i in want.items]

    run(cacher_backend, body)


def test_attached_sink_gets_the_queued_events_first_then_the_stop(cacher_backend):
    """A watch handler attaches its sink once its stream has started: what the cacher queued before goes to the
    sink first, later events go to it as they are dispatched (nothing more in the queue), and stop hands it None."""

    async def body(c):
        r0 = await c.current_revision()
        w, _ = await c.start_watch(PREFIX, r0)
        a = await c.create(key("a"), thing("a"))
        await asyncio.sleep(0.05)  # dispatched into the queue
        got: list = []
        w.attach(got.append)
        b = await c.create(key("b"), thing("b"))
        for _ in range(100):
            if len(got) == 2:
                break
            await asyncio.sleep(0.01)
        assert [(e.type, e.key, e.revision) for e in got] == [
            (ADDED, key("a"), a.revision),
            (ADDED, key("b"), b.revision),
        ]
        assert w.queue.qsize() == 0
        w.stop()
        assert got[-1] is None and len(got) == 3

    run(cacher_backend, body)


def test_joined_runs_follow_the_cache_and_leave_with_it(cacher_backend, monkeypatch):
    """A list's joined runs (joined_runs.py) are told of every change the cache follows, and a stopped
    cache gives back what its runs held to the process-wide budget."""
    from operator import attrgetter

    from kube_apiserver.storage.cacher import joined_runs

    monkeypatch.setattr(joined_runs._Budget, "held", 0)
    # boundaries are keys whose hash (random per process) falls on a multiple of the spacing: with 400 objects
    # and the usual 64 KiB pieces, about 1 run in 100 has fewer than two and keeps no run; 8 KiB pieces give
    # ~50 boundaries, so the test does not depend on the hash seed
    monkeypatch.setattr(joined_runs, "PIECE_BYTES", 8 * 1024)
    raw = attrgetter("raw")

    async def body(c):
        for i in range(400):
            await c.create(key(f"k{i:03}"), thing(f"k{i:03}", v="x" * 1000))
        await c.wait_fresh()

        def listed() -> bytes:
            res = c.list_cached(PREFIX, ListOptions())
            assert res.joined_runs is not None  # consecutive objects of the cache, as it holds them
            return b"".join(res.joined_runs(raw, b",").pieces(res.items))

        def expected() -> bytes:
            return b"".join(b"," + o.raw for o in c.list_cached(PREFIX, ListOptions(predicate=lambda o: True)).items)

        assert listed() == expected()
        runs = c.joined_runs(raw, b",")
        kept = list({id(r): r for r in runs._run_of.values()}.values())
        assert kept and joined_runs._Budget.held == sum(len(r.data) for r in kept)
        # an object of a kept run is updated, another one deleted: both runs go
        updated, deleted = kept[0].items[-1], kept[-1].items[0]
        await c.guaranteed_update(updated.key, set_labels(app="web"))
        await c.delete(deleted.key)
        await c.wait_fresh()
        assert joined_runs._Budget.held == sum(len(r.data) for r in kept[1:-1])
        assert listed() == expected()
        # a list picked by a predicate is not made of the cache's runs
        assert c.list_cached(PREFIX, ListOptions(predicate=selected)).joined_runs is None
        await c.stop()
        assert joined_runs._Budget.held == 0

    run(cacher_backend, body)

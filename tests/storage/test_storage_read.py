"""Conformance: create, get, get_list, count, current_revision (storage/testing RunTestCreate, RunTestGet,
RunTestList, RunTestCount), for every implementation of storage.Interface."""

from __future__ import annotations

import asyncio
import random

import orjson
import pytest
from storage_helpers import PREFIX, key, raw_rv, run, thing

from kube_apiserver.storage.errors import (
    ExpiredError,
    KeyExistsError,
    KeyNotFoundError,
    TooLargeResourceVersionError,
)
from kube_apiserver.storage.interface import ListOptions


def test_create_assigns_revision(backend):
    async def body(s):
        r0 = await s.current_revision()
        a = await s.create(key("a"), thing("a", x="1"))
        assert a.revision > r0
        assert a.key == key("a")
        assert raw_rv(a.raw) == str(a.revision)
        assert a.obj["metadata"]["resourceVersion"] == str(a.revision)
        assert orjson.loads(a.raw) == a.obj
        assert a.obj["data"] == {"x": "1"}
        assert await s.current_revision() == a.revision

        b = await s.create(key("b"), thing("b"))
        assert b.revision > a.revision

        got = await s.get(key("a"))
        assert got.revision == a.revision
        assert raw_rv(got.raw) == str(a.revision)
        assert got.obj == a.obj

    run(backend, body)


def test_create_replaces_a_given_resource_version(backend):
    async def body(s):
        obj = thing("a")
        obj["metadata"]["resourceVersion"] = "12345"
        a = await s.create(key("a"), obj)
        assert raw_rv(a.raw) == str(a.revision) != "12345"

    run(backend, body)


def test_create_existing_key(backend):
    async def body(s):
        a = await s.create(key("a"), thing("a", v="first"))
        with pytest.raises(KeyExistsError):
            await s.create(key("a"), thing("a", v="second"))
        assert await s.current_revision() == a.revision  # a failed write takes no revision
        got = await s.get(key("a"))
        assert got.obj["data"] == {"v": "first"}
        assert got.revision == a.revision

    run(backend, body)


def test_concurrent_creates_of_one_key_exactly_one_wins(backend):
    async def body(s):
        r0 = await s.current_revision()
        results = await asyncio.gather(
            *(s.create(key("a"), thing("a", n=str(i))) for i in range(20)), return_exceptions=True
        )
        ok = [r for r in results if not isinstance(r, BaseException)]
        errors = [r for r in results if isinstance(r, BaseException)]
        assert len(ok) == 1
        assert all(isinstance(e, KeyExistsError) for e in errors) and len(errors) == 19
        assert ok[0].revision == r0 + 1 == await s.current_revision()

    run(backend, body)


def test_concurrent_creates_get_distinct_contiguous_revisions(backend):
    async def body(s):
        r0 = await s.current_revision()
        results = await asyncio.gather(*(s.create(key(f"k{i:03}"), thing(f"k{i:03}")) for i in range(100)))
        revs = sorted(r.revision for r in results)
        assert revs == list(range(r0 + 1, r0 + 101))
        assert await s.current_revision() == r0 + 100
        for r in results:
            assert raw_rv(r.raw) == str(r.revision)
            assert (await s.get(r.key)).revision == r.revision

    run(backend, body)


def test_get_missing(backend):
    async def body(s):
        with pytest.raises(KeyNotFoundError):
            await s.get(key("nope"))
        await s.create(key("a"), thing("a"))
        await s.delete(key("a"))
        with pytest.raises(KeyNotFoundError):
            await s.get(key("a"))

    run(backend, body)


def test_list_in_key_order(backend):
    async def body(s):
        names = [f"n{i:02}" for i in range(30)]
        shuffled = names[:]
        random.Random(7).shuffle(shuffled)
        for n in shuffled:
            await s.create(key(n), thing(n))
        res = await s.get_list(PREFIX, ListOptions())
        assert [i.key for i in res.items] == [key(n) for n in names]
        assert res.revision == await s.current_revision()
        assert not res.more
        for item in res.items:
            assert raw_rv(item.raw) == str(item.revision)
            assert item.obj == orjson.loads(item.raw)

    run(backend, body)


def test_list_empty(backend):
    async def body(s):
        res = await s.get_list(PREFIX, ListOptions())
        assert res.items == [] and not res.more
        assert res.revision == await s.current_revision()

    run(backend, body)


def test_list_prefix_isolation(backend):
    async def body(s):
        await s.create(key("x", ns="a"), thing("x"))
        await s.create(key("y", ns="a"), thing("y"))
        await s.create(key("x", ns="ab"), thing("x"))  # "a/" must not match "ab/"
        await s.create(key("x", ns="b"), thing("x"))
        await s.create("/registry/thingsx/default/z", thing("z"))  # a sibling resource
        res = await s.get_list(f"{PREFIX}a/", ListOptions())
        assert [i.key for i in res.items] == [key("x", ns="a"), key("y", ns="a")]
        res = await s.get_list(f"{PREFIX}ab/", ListOptions())
        assert [i.key for i in res.items] == [key("x", ns="ab")]
        res = await s.get_list(PREFIX, ListOptions())
        assert len(res.items) == 4
        assert all(i.key.startswith(PREFIX) for i in res.items)
        assert await s.count(f"{PREFIX}a/") == 2
        assert await s.count(PREFIX) == 4

    run(backend, body)


def test_list_limit_and_continue(backend):
    async def body(s):
        names = [f"n{i:02}" for i in range(10)]
        for n in names:
            await s.create(key(n), thing(n))
        got: list[str] = []
        start = ""
        pages = 0
        snapshot = 0
        while True:
            res = await s.get_list(PREFIX, ListOptions(start_key=start, limit=3, revision=snapshot))
            snapshot = snapshot or res.revision
            assert res.revision == snapshot
            pages += 1
            got += [i.key for i in res.items]
            if not res.more:
                break
            assert len(res.items) == 3
            assert res.next_key == key(names[len(got)])
            assert res.remaining == len(names) - len(got)  # counted when nothing is filtered out
            start = res.next_key
        assert got == [key(n) for n in names]
        assert pages == 4

        exact = await s.get_list(PREFIX, ListOptions(limit=10))
        assert len(exact.items) == 10 and not exact.more

    run(backend, body)


def test_list_continue_reads_the_first_pages_snapshot(backend):
    """Continuation pages are read at the first page's revision, as kube's continue token does."""

    async def body(s):
        for n in ["a", "b", "c", "d"]:
            await s.create(key(n), thing(n, v="old"))
        first = await s.get_list(PREFIX, ListOptions(limit=2))
        assert [i.key for i in first.items] == [key("a"), key("b")] and first.more

        await s.guaranteed_update(key("c"), lambda o: {**o, "data": {"v": "new"}})
        await s.create(key("e"), thing("e"))
        await s.delete(key("d"))

        rest = await s.get_list(PREFIX, ListOptions(start_key=first.next_key, limit=2, revision=first.revision))
        assert [i.key for i in rest.items] == [key("c"), key("d")]
        assert rest.items[0].obj["data"] == {"v": "old"}
        assert not rest.more
        assert rest.revision == first.revision

    run(backend, body)


def test_list_predicate(backend):
    async def body(s):
        for i in range(10):
            await s.create(key(f"n{i}"), thing(f"n{i}", labels={"parity": "even" if i % 2 == 0 else "odd"}))

        def even(o):
            return o["metadata"]["labels"].get("parity") == "even"

        res = await s.get_list(PREFIX, ListOptions(predicate=even))
        assert [i.key for i in res.items] == [key(f"n{i}") for i in range(0, 10, 2)]

        # limit counts matching objects; next_key is the next matching key
        res = await s.get_list(PREFIX, ListOptions(predicate=even, limit=2))
        assert [i.key for i in res.items] == [key("n0"), key("n2")]
        assert res.more and res.next_key == key("n4")
        assert res.remaining == 0  # not counted under a predicate
        res = await s.get_list(
            PREFIX, ListOptions(predicate=even, limit=2, start_key=res.next_key, revision=res.revision)
        )
        assert [i.key for i in res.items] == [key("n4"), key("n6")]
        res = await s.get_list(
            PREFIX, ListOptions(predicate=even, limit=2, start_key=res.next_key, revision=res.revision)
        )
        assert [i.key for i in res.items] == [key("n8")] and not res.more

        none = await s.get_list(PREFIX, ListOptions(predicate=lambda o: False, limit=1))
        assert none.items == [] and not none.more

    run(backend, body)


def test_list_snapshot_at_older_revision(backend):
    async def body(s):
        a1 = await s.create(key("a"), thing("a", v="1"))
        a2 = await s.guaranteed_update(key("a"), lambda o: {**o, "data": {"v": "2"}})
        b1 = await s.create(key("b"), thing("b"))
        d = await s.delete(key("a"))
        c1 = await s.create(key("c"), thing("c"))

        def state(res):
            return [(i.key, i.obj["data"].get("v"), i.revision, raw_rv(i.raw)) for i in res.items]

        at = await s.get_list(PREFIX, ListOptions(revision=a1.revision))
        assert at.revision == a1.revision
        assert state(at) == [(key("a"), "1", a1.revision, str(a1.revision))]
        at = await s.get_list(PREFIX, ListOptions(revision=a2.revision))
        assert state(at) == [(key("a"), "2", a2.revision, str(a2.revision))]
        at = await s.get_list(PREFIX, ListOptions(revision=b1.revision))
        assert [i.key for i in at.items] == [key("a"), key("b")]
        at = await s.get_list(PREFIX, ListOptions(revision=d.revision))
        assert [i.key for i in at.items] == [key("b")]
        at = await s.get_list(PREFIX, ListOptions(revision=c1.revision))
        assert [i.key for i in at.items] == [key("b"), key("c")]
        latest = await s.get_list(PREFIX, ListOptions())
        assert state(latest) == state(at)

    run(backend, body)


def test_list_expired_after_compaction(backend):
    async def body(s):
        a1 = await s.create(key("a"), thing("a", v="1"))
        a2 = await s.guaranteed_update(key("a"), lambda o: {**o, "data": {"v": "2"}})
        b1 = await s.create(key("b"), thing("b"))
        gone = await s.create(key("gone"), thing("gone"))
        await s.delete(key("gone"))
        c1 = await s.create(key("c"), thing("c"))
        await backend.compact(c1.revision - 1)
        for rev in (a1.revision, a2.revision, b1.revision, gone.revision):
            with pytest.raises(ExpiredError):
                await s.get_list(PREFIX, ListOptions(revision=rev))
        # at and after the compacted revision every snapshot is whole, including keys last written before it
        at = await s.get_list(PREFIX, ListOptions(revision=c1.revision - 1))
        assert [(i.key, i.revision) for i in at.items] == [(key("a"), a2.revision), (key("b"), b1.revision)]
        at = await s.get_list(PREFIX, ListOptions(revision=c1.revision))
        assert [i.key for i in at.items] == [key("a"), key("b"), key("c")]
        assert at.items[0].obj["data"] == {"v": "2"}
        assert len((await s.get_list(PREFIX, ListOptions())).items) == 3

    run(backend, body)


def test_list_at_future_revision_is_refused(backend):
    """A snapshot "at exactly this revision" cannot exist for a revision not yet written. SQLite answers with
    today's state and result.revision = the future revision; a client that then watches from it silently
    loses every event up to that revision."""

    async def body(s):
        a = await s.create(key("a"), thing("a"))
        with pytest.raises(TooLargeResourceVersionError):
            await s.get_list(PREFIX, ListOptions(revision=a.revision + 10))

    run(backend, body)


def test_count(backend):
    async def body(s):
        assert await s.count(PREFIX) == 0
        for i in range(5):
            await s.create(key(f"n{i}"), thing(f"n{i}"))
        await s.create(key("x", ns="other"), thing("x"))
        assert await s.count(PREFIX) == 6
        assert await s.count(f"{PREFIX}default/") == 5
        assert await s.count(f"{PREFIX}other/") == 1
        assert await s.count(f"{PREFIX}none/") == 0
        await s.delete(key("n0"))
        assert await s.count(f"{PREFIX}default/") == 4

    run(backend, body)


def test_current_revision_monotonic(backend):
    async def body(s):
        seen = [await s.current_revision()]

        async def check(grew: bool) -> None:
            rev = await s.current_revision()
            assert rev > seen[-1] if grew else rev == seen[-1]
            seen.append(rev)

        a = await s.create(key("a"), thing("a"))
        await check(True)
        assert seen[-1] == a.revision
        with pytest.raises(KeyExistsError):
            await s.create(key("a"), thing("a"))
        await check(False)
        u = await s.guaranteed_update(key("a"), lambda o: {**o, "data": {"v": "x"}})
        await check(True)
        assert seen[-1] == u.revision
        await s.guaranteed_update(key("a"), lambda o: o)  # no-op
        await check(False)
        await s.get_list(PREFIX, ListOptions())
        await check(False)
        d = await s.delete(key("a"))
        await check(True)
        assert seen[-1] == d.revision
        with pytest.raises(KeyNotFoundError):
            await s.delete(key("a"))
        await check(False)

    run(backend, body)

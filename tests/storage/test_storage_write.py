"""Conformance: guaranteed_update and delete (storage/testing RunTestGuaranteedUpdate*, RunTestDelete*),
for every implementation of storage.Interface."""

from __future__ import annotations

import asyncio

import orjson
import pytest
from storage_helpers import PREFIX, key, raw_rv, run, thing

from kube_apiserver.storage.errors import InvalidObjError, KeyNotFoundError, StorageError
from kube_apiserver.storage.interface import ListOptions, Preconditions


def set_data(**data):
    def update(o):
        o["data"] = dict(data)
        return o

    return update


def test_update(backend):
    async def body(s):
        a = await s.create(key("a"), thing("a", v="1"))
        u = await s.guaranteed_update(key("a"), set_data(v="2"))
        assert u.revision > a.revision
        assert u.key == key("a")
        assert raw_rv(u.raw) == str(u.revision)
        assert u.obj["data"] == {"v": "2"}
        got = await s.get(key("a"))
        assert got.revision == u.revision and got.obj == u.obj
        assert await s.current_revision() == u.revision

    run(backend, body)


def test_update_gets_a_private_copy(backend):
    async def body(s):
        await s.create(key("a"), thing("a", v="1"))
        before = await s.get(key("a"))
        seen = []

        def mutate(o):
            seen.append(o)
            o["data"]["v"] = "2"
            return o

        await s.guaranteed_update(key("a"), mutate)
        assert before.obj["data"] == {"v": "1"}  # the stored state handed out earlier is untouched
        assert seen[0] is not before.obj

    run(backend, body)


def test_update_noop_writes_nothing(backend):
    async def body(s):
        a = await s.create(key("a"), thing("a", v="1"))
        calls = []

        def same(o):
            calls.append(o)
            return o

        r = await s.guaranteed_update(key("a"), same)
        assert calls, "try_update was not called"
        assert r.revision == a.revision
        assert raw_rv(r.raw) == str(a.revision)
        assert await s.current_revision() == a.revision
        # and nothing was written: a watch from before the no-op sees only the next real write
        w = s.watch(PREFIX, a.revision)
        it = w.__aiter__()
        nxt = asyncio.ensure_future(it.__anext__())
        u = await s.guaranteed_update(key("a"), set_data(v="2"))
        batch = await asyncio.wait_for(nxt, 5)
        while not batch.events:
            batch = await asyncio.wait_for(it.__anext__(), 5)
        assert [(e.type, e.revision) for e in batch.events] == [("MODIFIED", u.revision)]
        await w.aclose()

    run(backend, body)


def test_update_missing_key(backend):
    async def body(s):
        with pytest.raises(KeyNotFoundError):
            await s.guaranteed_update(key("a"), set_data(v="1"))
        assert await s.count(PREFIX) == 0

    run(backend, body)


def test_update_ignore_not_found_creates(backend):
    async def body(s):
        got = []

        def upd(o):
            got.append(o)
            return thing("a", v="made") if o is None else o

        r = await s.guaranteed_update(key("a"), upd, ignore_not_found=True)
        assert got == [None]
        assert r.obj["data"] == {"v": "made"}
        assert raw_rv(r.raw) == str(r.revision)
        assert (await s.get(key("a"))).revision == r.revision
        # and on an existing key it updates as usual
        r2 = await s.guaranteed_update(key("a"), set_data(v="again"), ignore_not_found=True)
        assert r2.revision > r.revision and r2.obj["data"] == {"v": "again"}

    run(backend, body)


def test_update_try_update_error_aborts(backend):
    async def body(s):
        a = await s.create(key("a"), thing("a", v="1"))

        class Refused(Exception):
            pass

        def refuse(o):
            raise Refused("no")

        with pytest.raises(Refused):
            await s.guaranteed_update(key("a"), refuse)
        assert (await s.get(key("a"))).revision == a.revision
        assert await s.current_revision() == a.revision

    run(backend, body)


def test_update_preconditions(backend):
    async def body(s):
        a = await s.create(key("a"), thing("a", v="1"))
        with pytest.raises(InvalidObjError, match="UID"):
            await s.guaranteed_update(key("a"), set_data(v="2"), preconditions=Preconditions(uid="other"))
        with pytest.raises(InvalidObjError, match="ResourceVersion"):
            await s.guaranteed_update(
                key("a"), set_data(v="2"), preconditions=Preconditions(resource_version=str(a.revision + 100))
            )
        assert (await s.get(key("a"))).revision == a.revision
        u = await s.guaranteed_update(
            key("a"), set_data(v="2"), preconditions=Preconditions(uid="uid-a", resource_version=str(a.revision))
        )
        assert u.obj["data"] == {"v": "2"}
        # the old resourceVersion no longer holds
        with pytest.raises(InvalidObjError):
            await s.guaranteed_update(
                key("a"), set_data(v="3"), preconditions=Preconditions(resource_version=str(a.revision))
            )

    run(backend, body)


def test_concurrent_updates_apply_exactly_once(backend):
    """50 concurrent increments of one counter: conflicts are retried, so every increment lands once."""

    async def body(s):
        a = await s.create(key("counter"), thing("counter", n="0"))

        def incr(o):
            o["data"]["n"] = str(int(o["data"]["n"]) + 1)
            return o

        results = await asyncio.gather(*(s.guaranteed_update(key("counter"), incr) for _ in range(50)))
        final = await s.get(key("counter"))
        assert final.obj["data"]["n"] == "50"
        assert final.revision == a.revision + 50 == await s.current_revision()
        # every caller got its own write: distinct revisions, counts 1..50
        assert sorted(r.revision for r in results) == list(range(a.revision + 1, a.revision + 51))
        assert sorted(int(r.obj["data"]["n"]) for r in results) == list(range(1, 51))

    run(backend, body)


def test_concurrent_updates_of_many_keys(backend):
    async def body(s):
        for i in range(10):
            await s.create(key(f"c{i}"), thing(f"c{i}", n="0"))

        def incr(o):
            o["data"]["n"] = str(int(o["data"]["n"]) + 1)
            return o

        await asyncio.gather(*(s.guaranteed_update(key(f"c{i % 10}"), incr) for i in range(200)))
        res = await s.get_list(PREFIX, ListOptions())
        assert [i.obj["data"]["n"] for i in res.items] == ["20"] * 10

    run(backend, body)


def test_delete_returns_last_state_with_deletion_revision(backend):
    async def body(s):
        await s.create(key("a"), thing("a", v="1"))
        u = await s.guaranteed_update(key("a"), set_data(v="last"))
        d = await s.delete(key("a"))
        assert d.revision > u.revision
        assert d.revision == await s.current_revision()
        assert raw_rv(d.raw) == str(d.revision)
        assert d.obj["data"] == {"v": "last"}
        assert d.obj["metadata"]["uid"] == "uid-a"
        with pytest.raises(KeyNotFoundError):
            await s.get(key("a"))
        assert await s.count(PREFIX) == 0
        # the key can be created again
        again = await s.create(key("a"), thing("a", v="new"))
        assert again.revision > d.revision

    run(backend, body)


def test_delete_missing(backend):
    async def body(s):
        with pytest.raises(KeyNotFoundError):
            await s.delete(key("a"))

    run(backend, body)


def test_delete_preconditions(backend):
    async def body(s):
        a = await s.create(key("a"), thing("a"))
        with pytest.raises(InvalidObjError, match="UID"):
            await s.delete(key("a"), preconditions=Preconditions(uid="someone-else"))
        with pytest.raises(InvalidObjError, match="ResourceVersion"):
            await s.delete(key("a"), preconditions=Preconditions(resource_version="999999"))
        assert (await s.get(key("a"))).revision == a.revision
        assert await s.current_revision() == a.revision
        d = await s.delete(key("a"), preconditions=Preconditions(uid="uid-a", resource_version=str(a.revision)))
        assert d.revision > a.revision

    run(backend, body)


def test_delete_validate_deletion(backend):
    async def body(s):
        a = await s.create(key("a"), thing("a", v="keep"))
        seen = []

        class Refused(Exception):
            pass

        def refuse(o):
            seen.append(o)
            raise Refused("has finalizers")

        with pytest.raises(Refused):
            await s.delete(key("a"), validate_deletion=refuse)
        assert seen and seen[0]["data"] == {"v": "keep"}
        assert (await s.get(key("a"))).revision == a.revision
        assert await s.current_revision() == a.revision

        d = await s.delete(key("a"), validate_deletion=lambda o: None)
        assert d.obj["data"] == {"v": "keep"}

    run(backend, body)


def test_delete_sees_latest_state(backend):
    """A delete racing with updates returns the state that was really deleted and validates that state."""

    async def body(s):
        await s.create(key("a"), thing("a", n="0"))

        def incr(o):
            o["data"]["n"] = str(int(o["data"]["n"]) + 1)
            return o

        validated = []
        ups = [asyncio.ensure_future(s.guaranteed_update(key("a"), incr)) for _ in range(10)]
        await asyncio.sleep(0)
        d = await s.delete(key("a"), validate_deletion=lambda o: validated.append(o["data"]["n"]))
        results = await asyncio.gather(*ups, return_exceptions=True)
        landed = [r for r in results if not isinstance(r, BaseException)]
        assert all(isinstance(r, KeyNotFoundError) for r in results if isinstance(r, BaseException))
        assert d.obj["data"]["n"] == str(len(landed))
        assert validated[-1] == d.obj["data"]["n"]

    run(backend, body)


def test_concurrent_deletes_exactly_one_wins(backend):
    async def body(s):
        await s.create(key("a"), thing("a"))
        results = await asyncio.gather(*(s.delete(key("a")) for _ in range(10)), return_exceptions=True)
        ok = [r for r in results if not isinstance(r, BaseException)]
        assert len(ok) == 1
        assert all(isinstance(r, KeyNotFoundError) for r in results if isinstance(r, BaseException))

    run(backend, body)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_unencodable_object_fails_alone(backend):
    """An object the backend cannot encode (here an int beyond 64 bits, which PyYAML produces from a YAML body)
    must fail that one write, and the store must keep working."""

    async def body(s):
        with pytest.raises((StorageError, TypeError, ValueError)):
            await asyncio.wait_for(s.create(key("big"), thing("big") | {"spec": {"n": 2**70}}), 3)
        ok = await asyncio.wait_for(s.create(key("next"), thing("next")), 3)
        assert ok.revision == await s.current_revision()

    run(backend, body)


def test_resource_version_takes_its_object_meta_place(backend):
    """The versioner writes metadata.resourceVersion where ObjectMeta has it, and keeps the metadata in
    ObjectMeta order, in the object and in its bytes (fields the server added last move to their place)."""

    async def body(s):
        obj = thing("a", v="1")
        obj["metadata"] = {"labels": {"x": "y"}, "name": "a", "uid": "u-1", "creationTimestamp": "t"}
        created = await s.create(key("a"), obj)
        order = ["name", "uid", "resourceVersion", "creationTimestamp", "labels"]
        assert list(created.obj["metadata"]) == order
        assert list(orjson.loads(created.raw)["metadata"]) == order

        def add_finalizer(o):
            o["metadata"]["finalizers"] = ["f"]
            o["metadata"]["generation"] = 2
            return o

        updated = await s.guaranteed_update(key("a"), add_finalizer)
        order = ["name", "uid", "resourceVersion", "generation", "creationTimestamp", "labels", "finalizers"]
        assert list(orjson.loads(updated.raw)["metadata"]) == order
        assert list((await s.get(key("a"))).obj["metadata"]) == order

    run(backend, body)

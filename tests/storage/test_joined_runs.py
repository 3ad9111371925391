"""The watch cache's joined runs: whatever happened to the objects between two lists, the pieces join to
exactly the items' encodings, and the runs kept hold only current objects within the budget."""

from __future__ import annotations

import random
from operator import attrgetter

import orjson
import pytest

from kube_apiserver.storage.cacher import joined_runs
from kube_apiserver.storage.cacher.joined_runs import JoinedRuns
from kube_apiserver.storage.interface import StoredObject

_TAIL = attrgetter("item_tail")


def _cm(i: int, version: int = 0, size: int = 1024) -> StoredObject:
    obj = {
        "kind": "ConfigMap",
        "apiVersion": "v1",
        "metadata": {"name": f"cm-{i:05}", "namespace": "ns", "resourceVersion": str(version)},
        "data": {"v": "x" * size},
    }
    return StoredObject(obj, orjson.dumps(obj), version, key=f"/registry/configmaps/ns/cm-{i:05}")


def _joined(runs: JoinedRuns, items: list[StoredObject]) -> bytes:
    pieces = runs.pieces(items)
    assert all(p.startswith(b",{") for p in pieces)
    return b"".join(pieces)


def _expected(items: list[StoredObject]) -> bytes:
    return b"".join(b",{" + i.item_tail for i in items)


def _held(runs: JoinedRuns) -> list[object]:
    return list({id(r): r for r in runs._run_of.values()}.values())


@pytest.fixture(autouse=True)
def _own_budget(monkeypatch):
    monkeypatch.setattr(joined_runs._Budget, "held", 0)


def test_second_list_is_the_runs_of_the_first():
    items = [_cm(i) for i in range(2000)]
    runs = JoinedRuns(_TAIL, b",{")
    first = runs.pieces(items)
    assert b"".join(first) == _expected(items)
    assert len(first) > 10  # in pieces of about PIECE_BYTES
    second = runs.pieces(items)
    kept = {id(r.data) for r in _held(runs)}
    # every piece but the stretches before the first boundary and after the last is a kept run, reused
    assert sum(id(p) in kept for p in second) >= len(second) - 2
    assert [p for p in second if id(p) in kept] == [p for p in first if id(p) in kept]
    # a list of part of the keys (one namespace, a page) meets the same runs
    part = runs.pieces(items[333:1500])
    assert b"".join(part) == _expected(items[333:1500])
    assert sum(id(p) in kept for p in part) >= len(part) - 2


def test_every_change_between_lists_is_seen():
    rnd = random.Random(7)
    items = [_cm(i) for i in range(0, 6000, 2)]
    runs = JoinedRuns(_TAIL, b",{")
    version = 0
    for _ in range(400):
        version += 1
        i = rnd.randrange(len(items))
        what = rnd.random()
        if what < 0.35:  # an update: a new object for the same key, as the cache gets it
            old = items[i]
            runs.forget(old)
            items[i] = _cm(int(old.key[-5:]), version, size=rnd.choice((10, 1024, 3000)))
        elif what < 0.6:
            runs.forget(items.pop(i))
        else:  # a create between two others (or after the last)
            n = rnd.randrange(6000) | 1
            if all(o.key != _cm(n).key for o in items):
                items.append(_cm(n, version))
                items.sort(key=attrgetter("key"))
        a = rnd.randrange(len(items))
        b = rnd.randrange(a, len(items) + 1)
        assert _joined(runs, items[a:b]) == _expected(items[a:b])
        assert _joined(runs, items) == _expected(items)
        # only current objects are held, and the budget counts exactly what is held
        current = {id(o) for o in items}
        held = _held(runs)
        assert all(id(o) in current for r in held for o in r.items)
        assert joined_runs._Budget.held == sum(len(r.data) for r in held)


def test_forget_and_clear_release_what_they_held():
    items = [_cm(i) for i in range(1000)]
    runs = JoinedRuns(_TAIL, b",{")
    runs.pieces(items)
    assert joined_runs._Budget.held > 0
    for item in items:  # everything deleted
        runs.forget(item)
    assert runs._run_of == {} and joined_runs._Budget.held == 0
    runs.pieces(items)
    runs.clear()
    assert runs._run_of == {} and joined_runs._Budget.held == 0


def test_past_the_budget_runs_are_made_for_the_request_only(monkeypatch):
    monkeypatch.setattr(joined_runs, "BUDGET_BYTES", 200_000)
    items = [_cm(i) for i in range(1000)]
    runs = JoinedRuns(_TAIL, b",{")
    assert _joined(runs, items) == _expected(items)
    assert 0 < joined_runs._Budget.held <= 200_000
    assert _joined(runs, items) == _expected(items)
    assert joined_runs._Budget.held <= 200_000


def test_custom_resource_encoding():
    items = [_cm(i) for i in range(500)]
    runs = JoinedRuns(attrgetter("raw"), b",")
    for _ in range(2):
        assert b"".join(runs.pieces(items)) == b"".join(b"," + i.raw for i in items)
    assert runs.pieces([]) == []

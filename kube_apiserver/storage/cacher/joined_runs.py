"""Runs of a watch cache's objects joined once as list items, reused by every list that covers them.

The watch cache keeps each object's bytes so that no list re-encodes an object; this keeps, in the same
spirit, the bytes of runs of neighbouring objects as they appear in a list body (each item after the
list's separator), so that a large list is written from a few hundred pieces instead of being joined from
thousands of items on every request. Joining 10,000 items touched each item and copied 14 MB per list,
about a quarter of the server's time for that list.

A run goes from a boundary object to the next one. Whether an object is a boundary depends on its key
alone (its hash, which is the same for the life of the process), so every list over a stretch of keys (all namespaces, one namespace, a page from
any start) cuts it at the same places and finds the same runs. An object's change drops the run that
holds it; an object inserted inside or just after a run is noticed when the run is next used, because a
run is used only where the list's items are the very objects it was made from, followed by the same
boundary key.

Only lists of the objects as the cache holds them have runs: a list in another version than the stored
one (custom resources, autoscaling/v1) or picked by a selector is joined for the request.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kube_apiserver.storage.interface import StoredObject

# About the size of one piece of a list body (endpoints/request.py writes large lists in such pieces).
PIECE_BYTES = 64 * 1024
_SAMPLE = 256  # items whose mean size sets how far apart boundaries are
# What all the joined runs of the process may hold: past it new runs are made for the request only.
BUDGET_BYTES = 128 * 2**20


class _Budget:
    held = 0


@dataclass(slots=True, eq=False)
class _Run:
    items: list[StoredObject]  # held, so that no object of the run is freed and its id() reused
    data: bytes  # separator + encoded(item), for each item
    next_key: str  # the key of the boundary object that followed the run when it was made


class JoinedRuns:
    """The joined runs of one watch cache for one item encoding (encoded(item) after separator)."""

    def __init__(self, encoded: Callable[[StoredObject], bytes], separator: bytes) -> None:
        self._encoded = encoded
        self._separator = separator
        self._run_of: dict[int, _Run] = {}  # id(object) -> the run that holds it, for every held object
        self._spacing = 0  # one key in about this many is a boundary

    def pieces(self, items: list[StoredObject]) -> list[bytes]:
        """separator + encoded(item) for each of items (consecutive objects of the cache, in key order),
        in pieces: the runs already made, and new ones made (and kept) for the rest."""
        n = len(items)
        if not n:
            return []
        if not self._spacing:  # from the mean size of the first items (once: boundaries must not move)
            sample = items[:_SAMPLE]
            size = sum(map(len, map(self._encoded, sample))) // len(sample) + len(self._separator)
            self._spacing = max(1, PIECE_BYTES // size)
        out: list[bytes] = []
        run_of = self._run_of
        p = 0
        while p < n:
            first = items[p]
            run = run_of.get(id(first))
            if run is not None and run.items[0] is first:
                q = p + len(run.items)
                # followed by the same boundary (an object inserted in the run shifts another one there;
                # one inserted right after it belongs in it) and made of the same objects (compared by
                # identity, so none is looked into; what forget was not told of is caught here)
                if q <= n and (q == n or items[q].key == run.next_key) and run.items == items[p:q]:
                    out.append(run.data)
                    p = q
                    continue
            spacing = self._spacing
            q = p + 1
            while q < n and hash(items[q].key) % spacing:  # str caches its hash: no key is hashed twice
                q += 1
            run_items = items[p:q]
            parts = list(map(self._encoded, run_items))
            parts.insert(0, b"")  # the separator before the run's first item
            data = self._separator.join(parts)
            out.append(data)
            if q < n and not hash(first.key) % spacing:  # boundary to boundary: the same in every list
                self._keep(_Run(run_items, data, items[q].key))
            p = q
        return out

    def _keep(self, run: _Run) -> None:
        run_of = self._run_of
        ids = list(map(id, run.items))
        # the runs this one replaces (made before an object was inserted in them)
        for old in set(filter(None, map(run_of.get, ids))):
            self._drop(old)
        if _Budget.held + len(run.data) > BUDGET_BYTES:
            return
        _Budget.held += len(run.data)
        run_of.update(dict.fromkeys(ids, run))

    def _drop(self, run: _Run) -> None:
        run_of = self._run_of
        for item in run.items:
            if run_of.get(id(item)) is run:
                del run_of[id(item)]
        _Budget.held -= len(run.data)

    def forget(self, obj: StoredObject) -> None:
        """obj changed or went away: drop the run that holds it."""
        run = self._run_of.get(id(obj))
        if run is not None:
            self._drop(run)

    def clear(self) -> None:
        for run in {id(r): r for r in self._run_of.values()}.values():
            _Budget.held -= len(run.data)
        self._run_of.clear()
        self._spacing = 0

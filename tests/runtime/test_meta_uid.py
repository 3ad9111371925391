"""new_uid: version-4 UUIDs in their canonical text, unique across the pool's refills and threads."""

from __future__ import annotations

import threading
import uuid

from kube_apiserver.runtime.meta import new_uid


def test_uids_are_canonical_version_4():
    for text in (new_uid() for _ in range(600)):  # more than two refills of the 256-UID pool
        parsed = uuid.UUID(text)
        assert parsed.version == 4 and parsed.variant == uuid.RFC_4122
        assert str(parsed) == text


def test_uids_are_unique_across_threads():
    out: list[list[str]] = [[] for _ in range(4)]

    def take(mine: list[str]) -> None:
        mine.extend(new_uid() for _ in range(5000))

    threads = [threading.Thread(target=take, args=(mine,)) for mine in out]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    every = [u for mine in out for u in mine]
    assert len(set(every)) == len(every) == 20000

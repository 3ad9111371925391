"""A data dir made with the earlier schema (kv WITHOUT ROWID) opens with every object and revision,
and its kv table is rebuilt as a rowid table once."""

from __future__ import annotations

import sqlite3

import orjson
from storage_helpers import PREFIX, Backend, key, raw_rv, run, thing

from kube_apiserver.storage.interface import ListOptions

_OLD_SCHEMA = """
CREATE TABLE kv (key TEXT PRIMARY KEY, value BLOB NOT NULL,
    create_rev INTEGER NOT NULL, mod_rev INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE history (rev INTEGER PRIMARY KEY, key TEXT NOT NULL, type INTEGER NOT NULL, value BLOB NOT NULL);
CREATE INDEX history_key_rev ON history(key, rev);
CREATE TABLE meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
"""


def _old_data_dir(path: str) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.executescript(_OLD_SCHEMA)
    for rev, name in ((1, "a"), (2, "b"), (3, "c")):
        obj = thing(name, v=str(rev))
        obj["metadata"]["resourceVersion"] = str(rev)
        raw = orjson.dumps(obj)
        conn.execute("INSERT INTO kv VALUES (?, ?, ?, ?)", (key(name), raw, rev, rev))
        conn.execute("INSERT INTO history VALUES (?, ?, 0, ?)", (rev, key(name), raw))
    conn.execute("INSERT INTO meta VALUES ('rev', 3)")
    conn.close()


def _kv_sql(path: str) -> str:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT sql FROM sqlite_master WHERE name = 'kv'").fetchone()[0]
    finally:
        conn.close()


def test_old_schema_is_migrated_with_its_data(tmp_path):
    path = str(tmp_path / "state.db")
    _old_data_dir(path)
    assert "WITHOUT ROWID" in _kv_sql(path)
    backend = Backend("sqlite", path)

    async def body(s):
        assert await s.current_revision() == 3
        got = await s.get(key("b"))
        assert got.revision == 2 and got.obj["data"] == {"v": "2"}
        listed = await s.get_list(PREFIX, ListOptions())
        assert [(i.key, i.revision) for i in listed.items] == [(key("a"), 1), (key("b"), 2), (key("c"), 3)]
        d = await s.create(key("d"), thing("d"))
        assert d.revision == 4 and raw_rv(d.raw) == "4"

    run(backend, body)
    assert "WITHOUT ROWID" not in _kv_sql(path)
    run(backend, _reopened)  # a second open finds nothing to migrate


async def _reopened(s):
    assert await s.current_revision() == 4
    assert (await s.get(key("d"))).revision == 4

"""Embedded storage on SQLite: etcd's model (one revision counter, MVCC history, compaction) in one file.

One writer thread owns the write connection. Writers from the event loop queue their operation and
await a future; the writer drains everything queued, applies it in one transaction and commits once
(group commit), so N concurrent writers pay for one fsync instead of N. A future resolves only after
COMMIT returned, so an acknowledged write survives kill -9 (and, with synchronous=FULL, power loss).

Tables:
  kv(key, value, create_rev, mod_rev)  the latest state, for fast reads
  history(rev, key, type, value)        every change, for snapshots and watch catch-up; compacted
  meta(name, value)                     'rev' (last revision) and 'compact' (oldest readable revision)
"""

from __future__ import annotations

import asyncio
import logging
import queue
import sqlite3
import threading
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import orjson

from kube_apiserver.storage.errors import (
    ExpiredError,
    InvalidObjError,
    KeyExistsError,
    KeyNotFoundError,
    ResourceVersionConflictError,
    StorageError,
    TooLargeResourceVersionError,
    UnavailableError,
)
from kube_apiserver.storage.interface import (
    ADDED,
    DELETED,
    MODIFIED,
    Event,
    ListOptions,
    ListResult,
    Preconditions,
    StoredObject,
    UpdateFunc,
    ValidateDeletion,
    WatchBatch,
    prefix_end,
)
from kube_apiserver.storage.value.transformer import IDENTITY, Transformer

log = logging.getLogger(__name__)

_TYPE_CREATE, _TYPE_UPDATE, _TYPE_DELETE = 0, 1, 2
_EVENT_TYPES = {_TYPE_CREATE: ADDED, _TYPE_UPDATE: MODIFIED, _TYPE_DELETE: DELETED}
_MAX_BATCH = 2000
# Rows per multi-row statement: 4 parameters each stays under SQLite's oldest limit of 999.
_ROWS_PER_STATEMENT = 128
_UPSERT_KV = (
    "INSERT INTO kv VALUES {} ON CONFLICT(key) DO UPDATE SET "
    "value = excluded.value, create_rev = excluded.create_rev, mod_rev = excluded.mod_rev",
    "(?, ?, ?, ?)",
)
_DELETE_KV = ("DELETE FROM kv WHERE key IN ({})", "?")
_INSERT_HISTORY = ("INSERT INTO history VALUES {}", "(?, ?, ?, ?)")

_KV_COLUMNS = "(key TEXT PRIMARY KEY, value BLOB NOT NULL, create_rev INTEGER NOT NULL, mod_rev INTEGER NOT NULL)"
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS kv {_KV_COLUMNS};
CREATE TABLE IF NOT EXISTS history (rev INTEGER PRIMARY KEY, key TEXT NOT NULL,
    type INTEGER NOT NULL, value BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS history_key_rev ON history(key, rev);
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
"""


@dataclass(slots=True)
class _Op:
    kind: str  # create, update, delete, compact
    key: str
    obj: dict[str, Any] | None
    expected_rev: int  # update/delete: the mod_rev the caller read; compact: the target revision
    future: asyncio.Future[Any]


class _Watcher:
    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.queue: asyncio.Queue[WatchBatch | None] = asyncio.Queue()
        self.closed = False


def _set_revision(obj: dict[str, Any], rev: int) -> None:
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        meta = obj["metadata"] = {}
    meta["resourceVersion"] = str(rev)


class SQLiteStorage:
    def __init__(
        self, path: str, *, synchronous: str = "FULL", transformer_for: Callable[[str], Transformer] | None = None
    ) -> None:
        self._path = path
        # the value transformer of each key (encryption at rest); values are plain in memory and in events
        self._transformer_for: Callable[[str], Transformer] = transformer_for or (lambda key: IDENTITY)
        self._synchronous = synchronous
        self._queue: queue.SimpleQueue[_Op | None] = queue.SimpleQueue()
        self._watchers: list[_Watcher] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._readers = ThreadPoolExecutor(max_workers=2, thread_name_prefix="sqlite-read")
        self._local = threading.local()
        self._rev = 0  # the writer's last committed revision
        self._delivered_rev = 0  # the last revision whose events reached the watchers (reads see up to here)
        self._keys: dict[str, tuple[int, int]] = {}  # writer thread only: key → (create_rev, mod_rev)
        self._compact_rev = 0
        self._closed = False

    # --- lifecycle ---

    def _connect(self) -> sqlite3.Connection:
        # The writer's multi-row statements come in one text per row count: room for all of them.
        conn = sqlite3.connect(self._path, isolation_level=None, check_same_thread=False, cached_statements=512)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(f"PRAGMA synchronous={self._synchronous}")
        conn.execute("PRAGMA busy_timeout=10000")
        return conn

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        conn = self._connect()
        conn.executescript(_SCHEMA)
        _migrate_kv_to_rowid(conn)
        rows = dict(conn.execute("SELECT name, value FROM meta").fetchall())
        self._rev = self._delivered_rev = int(rows.get("rev", 0))
        self._keys = {k: (c, m) for k, c, m in conn.execute("SELECT key, create_rev, mod_rev FROM kv")}
        self._compact_rev = int(rows.get("compact", 0))
        self._thread = threading.Thread(target=self._run_writer, args=(conn,), name="sqlite-writer", daemon=True)
        self._thread.start()

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._queue.put(None)
        if self._thread is not None:
            await asyncio.get_running_loop().run_in_executor(None, self._thread.join)
        for w in list(self._watchers):
            w.queue.put_nowait(None)
        self._readers.shutdown(wait=True)

    # --- the writer thread ---

    def _run_writer(self, conn: sqlite3.Connection) -> None:
        while True:
            op = self._queue.get()
            if op is None:
                break
            batch = [op]
            stop = False
            while len(batch) < _MAX_BATCH:
                try:
                    nxt = self._queue.get_nowait()
                except queue.Empty:
                    break
                if nxt is None:
                    stop = True
                    break
                batch.append(nxt)
            try:
                self._commit(conn, batch)
            except Exception as e:  # noqa: BLE001 - the writer thread must outlive any one batch
                log.exception("storage writer: batch failed")
                try:
                    conn.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
                err = UnavailableError("", f"storage write failed: {e}")
                assert self._loop is not None
                self._loop.call_soon_threadsafe(self._deliver, batch, [err] * len(batch), [], self._rev)
            if stop:
                break
        conn.close()

    def _commit(self, conn: sqlite3.Connection, batch: list[_Op]) -> None:
        # Everything a batch decides (preconditions, revisions, encoded values) is done first in Python;
        # then a few multi-row statements write it. Each statement releases and retakes the GIL around
        # sqlite3_step, and with the event loop busy every retake waits, so statements per batch, not
        # per operation, is what keeps the writer from stalling behind the request handlers.
        results: list[Any] = []
        events: list[Event] = []
        rev = self._rev
        compact_to = 0
        pending: dict[str, tuple[int, int] | None] = {}  # key index changes, kept only if COMMIT succeeds
        latest: dict[str, bytes] = {}  # key → the stored value of its last write in this batch
        history: list[tuple[int, str, int, bytes]] = []
        for op in batch:
            if op.kind == "compact":
                compact_to = max(compact_to, op.expected_rev)
                results.append(None)
                continue
            try:
                event, kind, stored = self._apply(op, rev + 1, pending)
            except StorageError as e:
                results.append(e)
                continue
            rev += 1
            history.append((rev, op.key, kind, stored))
            if kind != _TYPE_DELETE:
                latest[op.key] = stored
            events.append(event)
            results.append(event.object)
        try:
            conn.execute("BEGIN IMMEDIATE")
            upserts = [(k, latest[k], *entry) for k, entry in pending.items() if entry is not None]
            _write_rows(conn, _UPSERT_KV, upserts)
            deleted = [(k,) for k, entry in pending.items() if entry is None]
            _write_rows(conn, _DELETE_KV, deleted)
            _write_rows(conn, _INSERT_HISTORY, history)
            if compact_to > self._compact_rev:
                self._compact(conn, min(compact_to, rev))
            if rev != self._rev:
                conn.execute("INSERT OR REPLACE INTO meta VALUES ('rev', ?)", (rev,))
            conn.execute("COMMIT")
            for key, entry in pending.items():
                if entry is None:
                    self._keys.pop(key, None)
                else:
                    self._keys[key] = entry
        except sqlite3.Error as e:
            log.error("storage commit failed: %s", e)
            try:
                conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass
            err = UnavailableError("", f"storage commit failed: {e}")
            results = [err] * len(batch)
            events = []
            rev = self._rev
        self._rev = rev
        assert self._loop is not None
        self._loop.call_soon_threadsafe(self._deliver, batch, results, events, rev)

    def _apply(self, op: _Op, rev: int, pending: dict[str, tuple[int, int] | None]) -> tuple[Event, int, bytes]:
        """Check op against the key index, give it revision rev and encode it: the event, the history
        type and the value to store. pending records the key's new index entry."""
        row = pending[op.key] if op.key in pending else self._keys.get(op.key)
        obj = op.obj
        assert obj is not None
        if op.kind == "create":
            if row is not None:
                raise KeyExistsError(op.key)
            entry: tuple[int, int] | None = (rev, rev)
            kind = _TYPE_CREATE
        else:
            if row is None:
                raise KeyNotFoundError(op.key)
            if row[1] != op.expected_rev:
                raise ResourceVersionConflictError(op.key, revision=row[1])
            entry, kind = ((row[0], rev), _TYPE_UPDATE) if op.kind == "update" else (None, _TYPE_DELETE)
        _set_revision(obj, rev)
        raw = _encode(op.key, obj)
        stored = self._transformer_for(op.key).to_storage(raw, op.key)
        pending[op.key] = entry
        return Event(_EVENT_TYPES[kind], op.key, StoredObject(obj, raw, rev, op.key), rev), kind, stored

    def _compact(self, conn: sqlite3.Connection, target: int) -> None:
        # Like etcd: drop every version older than target except the newest one of each live key.
        conn.execute(
            "DELETE FROM history WHERE rev < ?1 AND (type = 2 OR rev NOT IN "
            "(SELECT MAX(rev) FROM history WHERE rev < ?1 GROUP BY key))",
            (target,),
        )
        conn.execute("INSERT OR REPLACE INTO meta VALUES ('compact', ?)", (target,))
        self._compact_rev = target

    def _deliver(self, batch: list[_Op], results: list[Any], events: list[Event], rev: int) -> None:
        # Watchers first, so that an event is queued to every watcher before its writer is answered.
        # Only watchers with events are woken; the others learn the revision when they ask
        # (request_progress), as etcd's watchers do.
        if events:
            for prefix, mine in _events_by_prefix(events, {w.prefix for w in self._watchers}).items():
                batch_of_prefix = WatchBatch(mine, mine[-1].revision)
                for w in self._watchers:
                    if w.prefix == prefix:
                        w.queue.put_nowait(batch_of_prefix)
        if rev > self._delivered_rev:
            self._delivered_rev = rev
        for op, result in zip(batch, results, strict=True):
            if op.future.done():
                continue
            if isinstance(result, BaseException):
                op.future.set_exception(result)
            else:
                op.future.set_result(result)

    async def _submit(self, kind: str, key: str, obj: dict[str, Any] | None, expected_rev: int = 0) -> Any:
        if self._closed:
            raise UnavailableError(key, "storage is closed")
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queue.put(_Op(kind, key, obj, expected_rev, fut))
        return await fut

    # --- reads (on reader threads: each has its own connection) ---

    def _reader(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._connect()
            self._local.conn = conn
        return conn

    async def _read(self, fn: Any, *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self._readers, fn, *args)

    def _get_sync(self, key: str) -> tuple[bytes, int] | None:
        row = self._reader().execute("SELECT value, mod_rev FROM kv WHERE key = ?", (key,)).fetchone()
        return None if row is None else (self._from_storage(row[0], key), row[1])

    def _from_storage(self, stored: bytes, key: str) -> bytes:
        return self._transformer_for(key).from_storage(stored, key)

    async def _stored_is_stale(self, key: str) -> bool:
        """Whether the stored value of key was written other than the transformer writes now (an earlier key
        or provider): an update that changes nothing still rewrites it then, as kube's GuaranteedUpdate does
        (that is how `kubectl replace` of every secret moves them to a new key). Read from the database, as
        the cache holds plain values; only for keys with a transformer."""
        transformer = self._transformer_for(key)
        if transformer is IDENTITY:
            return False

        def stored() -> bytes | None:
            row = self._reader().execute("SELECT value FROM kv WHERE key = ?", (key,)).fetchone()
            return None if row is None else row[0]

        value = await self._read(stored)
        return value is not None and transformer.is_stale(value)

    def _list_sync(self, prefix: str, opts: ListOptions) -> ListResult:
        conn = self._reader()
        start = max(prefix, opts.start_key)
        end = prefix_end(prefix)
        conn.execute("BEGIN")
        try:
            (cur_rev,) = conn.execute("SELECT COALESCE((SELECT value FROM meta WHERE name='rev'), 0)").fetchone()
            (compact,) = conn.execute("SELECT COALESCE((SELECT value FROM meta WHERE name='compact'), 0)").fetchone()
            if opts.revision:
                if opts.revision > cur_rev:
                    raise TooLargeResourceVersionError(
                        prefix, f"Too large resource version: {opts.revision}, current: {cur_rev}", cur_rev
                    )
                if opts.revision < compact:
                    raise ExpiredError(prefix, revision=compact)
                rows = conn.execute(
                    "SELECT h.key, h.value, h.rev FROM history h WHERE h.key >= ?1 AND h.key < ?2 AND h.type != 2 "
                    "AND h.rev = (SELECT MAX(rev) FROM history WHERE key = h.key AND rev <= ?3) ORDER BY h.key",
                    (start, end, opts.revision),
                )
                revision = opts.revision
            else:
                rows = conn.execute(
                    "SELECT key, value, mod_rev FROM kv WHERE key >= ? AND key < ? ORDER BY key", (start, end)
                )
                revision = cur_rev
            return _collect(rows, opts, revision, self._from_storage)
        finally:
            conn.execute("COMMIT")

    # --- the interface ---

    async def create(self, key: str, obj: dict[str, Any]) -> StoredObject:
        meta = obj.get("metadata")
        if isinstance(meta, dict):
            meta.pop("resourceVersion", None)
        return await self._submit("create", key, obj)

    async def get(self, key: str) -> StoredObject:
        row = await self._read(self._get_sync, key)
        if row is None:
            raise KeyNotFoundError(key)
        return StoredObject(orjson.loads(row[0]), row[0], row[1], key)

    async def get_list(self, prefix: str, opts: ListOptions) -> ListResult:
        return await self._read(self._list_sync, prefix, opts)

    async def guaranteed_update(
        self,
        key: str,
        try_update: UpdateFunc,
        *,
        ignore_not_found: bool = False,
        preconditions: Preconditions | None = None,
        current: StoredObject | None = None,
    ) -> StoredObject:
        while True:
            if current is None:
                try:
                    current = await self.get(key)
                except KeyNotFoundError:
                    if not ignore_not_found:
                        raise
            if current is None:
                new = try_update(None)
                try:
                    return await self.create(key, new)
                except KeyExistsError:
                    continue
            if preconditions is not None:
                preconditions.check(key, current.obj)
            new = try_update(orjson.loads(current.raw))
            if new == current.obj and not await self._stored_is_stale(key):
                return current
            try:
                return await self._submit("update", key, new, current.revision)
            except (ResourceVersionConflictError, KeyNotFoundError):
                current = None

    async def delete(
        self,
        key: str,
        *,
        preconditions: Preconditions | None = None,
        validate_deletion: ValidateDeletion | None = None,
        current: StoredObject | None = None,
    ) -> StoredObject:
        while True:
            if current is None:
                current = await self.get(key)
            if preconditions is not None:
                preconditions.check(key, current.obj)
            if validate_deletion is not None:
                validate_deletion(current.obj)
            try:
                return await self._submit("delete", key, orjson.loads(current.raw), current.revision)
            except ResourceVersionConflictError:
                current = None

    async def count(self, prefix: str) -> int:
        def run() -> int:
            q = "SELECT COUNT(*) FROM kv WHERE key >= ? AND key < ?"
            return int(self._reader().execute(q, (prefix, prefix_end(prefix))).fetchone()[0])

        return await self._read(run)

    async def current_revision(self) -> int:
        return self._delivered_rev

    def request_progress(self, prefix: str) -> None:
        """Tell the watchers of prefix the current revision (etcd's RequestProgress): a batch with no
        events, queued behind any events they have not consumed yet."""
        for w in self._watchers:
            if w.prefix == prefix:
                w.queue.put_nowait(WatchBatch([], self._delivered_rev))

    @property
    def compacted_revision(self) -> int:
        return self._compact_rev

    async def compact(self, revision: int) -> None:
        await self._submit("compact", "", None, revision)

    def watch(self, prefix: str, revision: int) -> AsyncIterator[WatchBatch]:
        return self._watch(prefix, revision)

    async def _watch(self, prefix: str, revision: int) -> AsyncIterator[WatchBatch]:
        watcher = _Watcher(prefix)
        self._watchers.append(watcher)  # first, so nothing committed from now on is missed
        try:
            last = revision
            if revision < self._rev:
                if revision < self._compact_rev:
                    raise ExpiredError(prefix, revision=self._compact_rev)
                catch_up = await self._read(self._history_sync, prefix, revision)
                if catch_up.events:
                    yield catch_up
                last = catch_up.revision
            while True:
                batch = await watcher.queue.get()
                if batch is None:
                    return
                if batch.revision <= last:
                    continue
                events = [e for e in batch.events if e.revision > last]
                last = batch.revision
                yield WatchBatch(events, batch.revision)
        finally:
            self._watchers.remove(watcher)

    def _history_sync(self, prefix: str, after: int) -> WatchBatch:
        conn = self._reader()
        conn.execute("BEGIN")
        try:
            (cur_rev,) = conn.execute("SELECT COALESCE((SELECT value FROM meta WHERE name='rev'), 0)").fetchone()
            rows = conn.execute(
                "SELECT rev, key, type, value FROM history WHERE rev > ? AND rev <= ? AND key >= ? AND key < ? "
                "ORDER BY rev",
                (after, cur_rev, prefix, prefix_end(prefix)),
            ).fetchall()
        finally:
            conn.execute("COMMIT")
        events = []
        for r, k, t, v in rows:
            raw = self._transformer_for(k).from_storage(v, k)  # history: staleness is the kv value's
            events.append(Event(_EVENT_TYPES[t], k, StoredObject(orjson.loads(raw), raw, r, k), r))
        return WatchBatch(events, cur_rev)


def _migrate_kv_to_rowid(conn: sqlite3.Connection) -> None:
    """Data dirs made before kv became a rowid table had it WITHOUT ROWID, which stores each ~1.5 KiB
    object in the key's b-tree and spills it to an overflow page: twice the writer's CPU per write
    (measured 88-103 against 42-49 us per row). Rebuilt once, in one transaction."""
    (sql,) = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'kv'").fetchone()
    if "WITHOUT ROWID" not in sql.upper():
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute(f"CREATE TABLE kv_rowid {_KV_COLUMNS}")
        conn.execute("INSERT INTO kv_rowid SELECT key, value, create_rev, mod_rev FROM kv ORDER BY key")
        conn.execute("DROP TABLE kv")
        conn.execute("ALTER TABLE kv_rowid RENAME TO kv")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _events_by_prefix(events: list[Event], prefixes: set[str]) -> dict[str, list[Event]]:
    """The events under each watched prefix, in order. There is a watcher per resource (each watch
    cache), so the prefixes ending in "/" are found by looking up each "/"-ended prefix of a key
    rather than by testing every prefix against every key."""
    slash_ended = {p for p in prefixes if p.endswith("/")}
    others = [p for p in prefixes if not p.endswith("/")]
    out: dict[str, list[Event]] = {}
    for e in events:
        key = e.key
        i = key.find("/")
        while i >= 0:
            head = key[: i + 1]
            if head in slash_ended:
                out.setdefault(head, []).append(e)
            i = key.find("/", i + 1)
        for p in others:
            if key.startswith(p):
                out.setdefault(p, []).append(e)
    return out


def _write_rows(conn: sqlite3.Connection, statement: tuple[str, str], rows: list[tuple[Any, ...]]) -> None:
    """Run statement (a template and its per-row placeholder) over rows, many rows per statement."""
    template, placeholder = statement
    for i in range(0, len(rows), _ROWS_PER_STATEMENT):
        chunk = rows[i : i + _ROWS_PER_STATEMENT]
        sql = template.format(", ".join([placeholder] * len(chunk)))
        conn.execute(sql, [value for row in chunk for value in row])


def _encode(key: str, obj: dict[str, Any]) -> bytes:
    try:
        return orjson.dumps(obj)
    except (TypeError, ValueError) as e:  # e.g. an integer beyond 64 bits from a YAML body
        raise InvalidObjError(key, f"cannot encode object: {e}") from None


def _collect(rows: Any, opts: ListOptions, revision: int, from_storage: Callable[[bytes, str], bytes]) -> ListResult:
    items: list[StoredObject] = []
    pred = opts.predicate
    limit = opts.limit
    for key, stored, rev in rows:
        raw = from_storage(stored, key)
        obj = orjson.loads(raw)
        if pred is not None and not pred(obj):
            continue
        if limit and len(items) == limit:
            return ListResult(items, revision, more=True, next_key=key)
        items.append(StoredObject(obj, raw, rev, key))
    return ListResult(items, revision)


__all__ = ["SQLiteStorage", "Preconditions"]

"""Embedded storage on SQLite: etcd's model (one revision counter, MVCC history, compaction) in one file.

Writes are decided here, on the event loop, in the order they are submitted: the key index says whether a
create collides or an update's resourceVersion is stale, the next revision is assigned and the object is
encoded. The rows then go to the writer process (writer.py), which commits whatever has arrived in one
transaction (group commit: N concurrent writers pay for one fsync) and reports the last message it
committed. Only then are the watchers told and the callers answered, so an acknowledged write survives
kill -9 (and, with synchronous=FULL, power loss).

The writer is a process, not a thread, because a thread shares the GIL with the event loop: it retook it
around every SQLite call and waited for the loop each time, so a batch took four times its work.

Tables:
  kv(key, value, create_rev, mod_rev)  the latest state, for fast reads
  history(rev, key, type, value)        every change, for snapshots and watch catch-up; compacted
  meta(name, value)                     'rev' (last revision) and 'compact' (oldest readable revision)
"""

from __future__ import annotations

import asyncio
import collections
import fcntl
import logging
import os
import pickle
import sqlite3
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import orjson

from kube_apiserver.runtime import meta as metautil
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
from kube_apiserver.storage.sqlite import writer as writer_process
from kube_apiserver.storage.value.transformer import IDENTITY, Transformer

log = logging.getLogger(__name__)

_TYPE_CREATE, _TYPE_UPDATE, _TYPE_DELETE = (
    writer_process.TYPE_CREATE,
    writer_process.TYPE_UPDATE,
    writer_process.TYPE_DELETE,
)
_EVENT_TYPES = {_TYPE_CREATE: ADDED, _TYPE_UPDATE: MODIFIED, _TYPE_DELETE: DELETED}
_HEADER = writer_process.HEADER
_ACK = writer_process.ACK
_PIPE_SIZE = 1 << 20  # room for many messages while the writer is in a transaction
# How long a new writer waits for the data dir's lock: an orphan writer of a killed server finishes its
# last transaction in milliseconds; longer than this, another live server holds the data dir.
LOCK_TIMEOUT = 10.0

_KV_COLUMNS = "(key TEXT PRIMARY KEY, value BLOB NOT NULL, create_rev INTEGER NOT NULL, mod_rev INTEGER NOT NULL)"
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS kv {_KV_COLUMNS};
CREATE TABLE IF NOT EXISTS history (rev INTEGER PRIMARY KEY, key TEXT NOT NULL,
    type INTEGER NOT NULL, value BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS history_key_rev ON history(key, rev);
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
"""


@dataclass(slots=True)
class _Pending:
    """A write sent to the writer process, answered once the writer reports its message committed."""

    future: asyncio.Future[Any]
    event: Event | None  # None for a compaction
    compact_to: int = 0


class _Watcher:
    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.queue: asyncio.Queue[WatchBatch | None] = asyncio.Queue()
        self.closed = False


def _set_revision(obj: dict[str, Any], rev: int) -> None:
    """The versioner: the revision becomes metadata.resourceVersion, and the metadata is kept in ObjectMeta
    order (server-set fields such as uid and resourceVersion were added after the client's)."""
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        meta = obj["metadata"] = {}
    meta["resourceVersion"] = str(rev)
    obj["metadata"] = metautil.object_meta_ordered(meta)


class WriterProcess:
    """The writer process and the two pipe ends the event loop uses."""

    def __init__(self, proc: subprocess.Popen[bytes], to_writer: int, from_writer: int) -> None:
        self.proc = proc
        self.to_writer = to_writer
        self.from_writer = from_writer
        self.out = bytearray()  # message bytes the pipe did not take yet
        self.acks = bytearray()  # a partial acknowledgement
        self.dead = False
        self.adopted = False  # a SQLiteStorage runs it
        self.is_ready = False  # it holds the lock and reads messages
        self.path = ""

    @classmethod
    def spawn(cls, path: str, synchronous: str = "FULL", lock_timeout: float = LOCK_TIMEOUT) -> WriterProcess:
        """Start the process; ready() waits until it holds the lock (the server does other startup
        work meanwhile)."""
        to_r, to_w = os.pipe()
        from_r, from_w = os.pipe()
        try:
            fcntl.fcntl(to_w, fcntl.F_SETPIPE_SZ, _PIPE_SIZE)
        except OSError:
            pass  # a smaller pipe only means more partial writes
        try:
            # -S: the writer needs only the standard library, and starts faster without site-packages
            proc = subprocess.Popen(
                [sys.executable, "-S", writer_process.__file__, path, synchronous, str(lock_timeout)],
                stdin=to_r,
                stdout=from_w,
                close_fds=True,
            )
        finally:
            os.close(to_r)
            os.close(from_w)
        w = cls(proc, to_w, from_r)
        w.path = path
        return w

    async def ready(self) -> None:
        """Wait until the writer holds the data dir's lock (at once if it already did)."""
        if self.is_ready:
            return
        loop = asyncio.get_running_loop()
        ready = await loop.run_in_executor(None, os.read, self.from_writer, 1)
        if ready != b"R":
            self.dead = True
            os.close(self.to_writer)
            os.close(self.from_writer)
            code = await loop.run_in_executor(None, self.proc.wait)
            path = self.path
            if code == writer_process.EXIT_LOCKED:
                raise UnavailableError("", f"{path} is in use by another kube-apiserver: its lock {path}.lock is held")
            raise UnavailableError("", f"the storage writer for {path} did not start (exit code {code})")
        os.set_blocking(self.to_writer, False)
        os.set_blocking(self.from_writer, False)
        self.is_ready = True

    def abandon(self) -> None:
        """Close the pipes of a writer no storage took (the server exits during startup)."""
        if not self.adopted and not self.dead:
            self.dead = True
            os.close(self.to_writer)
            os.close(self.from_writer)

    @classmethod
    async def start(cls, path: str, synchronous: str, lock_timeout: float) -> WriterProcess:
        w = cls.spawn(path, synchronous, lock_timeout)
        await w.ready()
        return w


def spawn_writer(path: str) -> WriterProcess:
    """Start the writer of the database at path early; hand it to SQLiteStorage(writer=...)."""
    return WriterProcess.spawn(path)


class SQLiteStorage:
    def __init__(
        self,
        path: str,
        *,
        synchronous: str = "FULL",
        transformer_for: Callable[[str], Transformer] | None = None,
        lock_timeout: float = LOCK_TIMEOUT,
        writer: WriterProcess | None = None,
    ) -> None:
        self._path = path
        self._spawned = writer  # started early by spawn_writer(path), with the default synchronous
        # the value transformer of each key (encryption at rest); values are plain in memory and in events
        self._transformer_for: Callable[[str], Transformer] = transformer_for or (lambda key: IDENTITY)
        self._synchronous = synchronous
        self._lock_timeout = lock_timeout
        self._watchers: list[_Watcher] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._writer: WriterProcess | None = None
        self._readers = ThreadPoolExecutor(max_workers=2, thread_name_prefix="sqlite-read")
        self._local = threading.local()
        self._rev = 0  # the last revision given to a write (committed or on its way to the writer)
        self._delivered_rev = 0  # the last committed revision whose events reached the watchers
        # key → (create_rev, mod_rev) after every write submitted so far, committed or not
        self._keys: dict[str, tuple[int, int]] = {}
        self._compact_rev = 0
        self._compact_sent = 0
        self._seq = 0  # messages sent to the writer
        self._outbox: list[tuple[int, str, int, int, bytes]] = []  # rows of the next message
        self._outbox_pending: list[_Pending] = []
        self._outbox_compact = 0
        self._flush_scheduled = False
        self._in_flight: collections.deque[tuple[int, list[_Pending]]] = collections.deque()
        self._recovering: asyncio.Future[None] | None = None
        self.transactions = 0  # transactions the writer reported (each covers one or more messages)
        self._closed = False

    # --- lifecycle ---

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self._path, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(f"PRAGMA synchronous={self._synchronous}")
        conn.execute("PRAGMA busy_timeout=10000")
        return conn

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        # The writer first: it holds the data dir's lock, so nothing else writes once it is running and
        # the state read below stays true.
        spawned, self._spawned = self._spawned, None
        if spawned is not None:
            spawned.adopted = True
            await spawned.ready()
            self._writer = spawned
        else:
            self._writer = await WriterProcess.start(self._path, self._synchronous, self._lock_timeout)
        self._watch_writer()
        conn = self._connect()
        try:
            conn.executescript(_SCHEMA)
            _migrate_kv_to_rowid(conn)
            self._load_state(conn)
        finally:
            conn.close()

    def _load_state(self, conn: sqlite3.Connection) -> None:
        rows = dict(conn.execute("SELECT name, value FROM meta").fetchall())
        self._rev = self._delivered_rev = int(rows.get("rev", 0))
        self._compact_rev = self._compact_sent = int(rows.get("compact", 0))
        self._keys = {k: (c, m) for k, c, m in conn.execute("SELECT key, create_rev, mod_rev FROM kv")}

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._recovering is not None:
            await asyncio.shield(self._recovering)
        w = self._writer
        if w is not None and not w.dead:
            self._flush()
            # what was sent is committed and answered before the writer goes: wait for its acks
            deadline = asyncio.get_running_loop().time() + 30
            while self._in_flight and not w.dead and asyncio.get_running_loop().time() < deadline:
                await asyncio.sleep(0.002)
            self._stop_writer(w)
            await asyncio.get_running_loop().run_in_executor(None, w.proc.wait)
        self._fail_all(UnavailableError("", "storage is closed"))
        for watcher in list(self._watchers):
            watcher.queue.put_nowait(None)
        self._readers.shutdown(wait=True)

    # --- the writer process ---

    async def _start_writer(self) -> None:
        self._writer = await WriterProcess.start(self._path, self._synchronous, self._lock_timeout)
        self._watch_writer()

    def _watch_writer(self) -> None:
        w = self._writer
        assert w is not None and self._loop is not None
        self._loop.add_reader(w.from_writer, self._on_acks, w)

    def _stop_writer(self, w: WriterProcess) -> None:
        if w.dead:
            return
        w.dead = True
        assert self._loop is not None
        self._loop.remove_reader(w.from_writer)
        if w.out:
            self._loop.remove_writer(w.to_writer)
        os.close(w.to_writer)  # EOF: the writer commits what it has whole and exits
        os.close(w.from_writer)

    def _flush(self) -> None:
        """Send the rows decided since the last message as one message. While a message is in flight the
        writer is in a transaction and could not read another before it ends, so rows wait for its
        acknowledgement and go together: one write and one wake-up of the writer per transaction."""
        self._flush_scheduled = False
        if not self._outbox_pending or self._in_flight:
            return
        w = self._writer
        rows, pending, compact = self._outbox, self._outbox_pending, self._outbox_compact
        self._outbox, self._outbox_pending, self._outbox_compact = [], [], 0
        self._seq += 1
        self._in_flight.append((self._seq, pending))
        if w is None or w.dead:
            return  # recovery answers it
        payload = pickle.dumps((self._seq, rows, compact), protocol=pickle.HIGHEST_PROTOCOL)
        data = _HEADER.pack(len(payload)) + payload
        if w.out:
            w.out += data
            return
        try:
            n = os.write(w.to_writer, data)
        except BlockingIOError:
            n = 0
        except OSError as e:  # the writer is gone (EPIPE): its acks reader sees EOF and recovers
            log.error("storage writer: cannot send: %s", e)
            self._writer_failed(w)
            return
        if n < len(data):
            w.out += memoryview(data)[n:]
            assert self._loop is not None
            self._loop.add_writer(w.to_writer, self._send_rest, w)

    def _send_rest(self, w: WriterProcess) -> None:
        try:
            n = os.write(w.to_writer, w.out)
        except BlockingIOError:
            return
        except OSError as e:
            log.error("storage writer: cannot send: %s", e)
            self._writer_failed(w)
            return
        del w.out[:n]
        if not w.out:
            assert self._loop is not None
            self._loop.remove_writer(w.to_writer)

    def _on_acks(self, w: WriterProcess) -> None:
        try:
            data = os.read(w.from_writer, 65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._writer_failed(w)
            return
        w.acks += data
        n = len(w.acks) // _ACK.size
        if not n:
            return
        self.transactions += n
        (seq,) = _ACK.unpack_from(w.acks, (n - 1) * _ACK.size)
        del w.acks[: n * _ACK.size]
        self._committed(seq)

    def _committed(self, seq: int) -> None:
        """Messages up to seq are committed: tell the watchers, then answer the writers."""
        done: list[_Pending] = []
        while self._in_flight and self._in_flight[0][0] <= seq:
            done.extend(self._in_flight.popleft()[1])
        self._flush()  # what waited for this transaction to end
        self._deliver(done)

    def _deliver(self, done: list[_Pending]) -> None:
        # Watchers first, so that an event is queued to every watcher before its writer is answered.
        # Only watchers with events are woken; the others learn the revision when they ask
        # (request_progress), as etcd's watchers do.
        events = [p.event for p in done if p.event is not None]
        if events:
            for prefix, mine in _events_by_prefix(events, {w.prefix for w in self._watchers}).items():
                batch_of_prefix = WatchBatch(mine, mine[-1].revision)
                for w in self._watchers:
                    if w.prefix == prefix:
                        w.queue.put_nowait(batch_of_prefix)
            if events[-1].revision > self._delivered_rev:
                self._delivered_rev = events[-1].revision
        for p in done:
            if p.compact_to > self._compact_rev:
                self._compact_rev = p.compact_to
            if not p.future.done():
                p.future.set_result(None if p.event is None else p.event.object)

    def _writer_failed(self, w: WriterProcess) -> None:
        if w.dead or w is not self._writer:
            return
        self._stop_writer(w)
        if self._recovering is None and not self._closed:
            assert self._loop is not None
            self._recovering = self._loop.create_future()
            self._loop.create_task(self._recover(w))

    async def _recover(self, w: WriterProcess) -> None:
        """The writer died (killed, or a SQLite error it rolled back): what it committed is in the database,
        so the writes up to the database's revision are answered as done and the rest fail; the key index
        is read back from the database and a new writer takes over."""
        loop = asyncio.get_running_loop()
        code = await loop.run_in_executor(None, w.proc.wait)
        log.error("storage writer exited (code %s); recovering from the database", code)
        self._writer = None
        try:
            conn = self._connect()
            try:
                rows = dict(conn.execute("SELECT name, value FROM meta").fetchall())
                committed = int(rows.get("rev", 0))
                done: list[_Pending] = []
                failed: list[_Pending] = []
                while self._in_flight:
                    for p in self._in_flight.popleft()[1]:
                        ok = p.event.revision <= committed if p.event is not None else True
                        (done if ok else failed).append(p)
                self._deliver(done)
                self._fail(failed, UnavailableError("", f"storage write failed: the writer exited (code {code})"))
                self._fail_all(UnavailableError("", "storage write failed: the writer exited"))
                self._load_state(conn)
            finally:
                conn.close()
            if not self._closed:
                await self._start_writer()
        except (sqlite3.Error, OSError, StorageError) as e:
            log.error("storage: recovery failed: %s", e)
        finally:
            fut, self._recovering = self._recovering, None
            if fut is not None:
                fut.set_result(None)

    async def _restart_writer(self, key: str) -> None:
        assert self._loop is not None
        self._recovering = self._loop.create_future()
        try:
            await self._start_writer()
        except (OSError, StorageError) as e:
            raise UnavailableError(key, f"storage writer is not running: {e}") from None
        finally:
            fut, self._recovering = self._recovering, None
            fut.set_result(None)

    def _fail(self, pending: list[_Pending], err: Exception) -> None:
        for p in pending:
            if not p.future.done():
                p.future.set_exception(err)

    def _fail_all(self, err: Exception) -> None:
        """Fail every write not yet answered (the outbox's and the in-flight messages')."""
        pending = self._outbox_pending
        self._outbox, self._outbox_pending, self._outbox_compact = [], [], 0
        while self._in_flight:
            pending.extend(self._in_flight.popleft()[1])
        self._fail(pending, err)

    def _apply(self, kind: str, key: str, obj: dict[str, Any], expected_rev: int) -> tuple[Event, tuple[Any, ...]]:
        """Check a write against the key index, give it the next revision and encode it: its event and the
        row for the writer. The key index moves at once, so the next write is checked against this one."""
        row = self._keys.get(key)
        rev = self._rev + 1
        if kind == "create":
            if row is not None:
                raise KeyExistsError(key)
            entry: tuple[int, int] | None = (rev, rev)
            type_ = _TYPE_CREATE
        else:
            if row is None:
                raise KeyNotFoundError(key)
            if row[1] != expected_rev:
                raise ResourceVersionConflictError(key, revision=row[1])
            entry, type_ = ((row[0], rev), _TYPE_UPDATE) if kind == "update" else (None, _TYPE_DELETE)
        _set_revision(obj, rev)
        raw = _encode(key, obj)
        stored = self._transformer_for(key).to_storage(raw, key)
        self._rev = rev
        if entry is None:
            del self._keys[key]
        else:
            self._keys[key] = entry
        event = Event(_EVENT_TYPES[type_], key, StoredObject(obj, raw, rev, key), rev)
        return event, (rev, key, type_, entry[0] if entry is not None else row[0], stored)  # type: ignore[index]

    async def _submit(self, kind: str, key: str, obj: dict[str, Any] | None, expected_rev: int = 0) -> Any:
        if self._closed:
            raise UnavailableError(key, "storage is closed")
        while self._recovering is not None:
            await asyncio.shield(self._recovering)
        # the loop start() saw rather than get_running_loop(): a getpid() system call per write on Python 3.11
        loop = self._loop or asyncio.get_running_loop()
        if self._writer is None:  # its last start failed: try again, one start for all who wait
            await self._restart_writer(key)
        fut: asyncio.Future[Any] = loop.create_future()
        if kind == "compact":
            target = min(expected_rev, self._rev)
            if target > self._compact_sent:
                self._compact_sent = self._outbox_compact = target
            self._outbox_pending.append(_Pending(fut, None, target))
        else:
            assert obj is not None
            event, row = self._apply(kind, key, obj, expected_rev)
            self._outbox.append(row)
            self._outbox_pending.append(_Pending(fut, event))
        if not self._flush_scheduled and not self._in_flight:
            self._flush_scheduled = True
            loop.call_soon(self._flush)
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
                if catch_up.events or catch_up.revision > revision:
                    # even with no events under prefix: the watcher learns the revision it is at, and a
                    # progress request that came during the catch-up (skipped below) is answered
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
            # what is left is counted only when nothing is filtered out (etcd3's GetList: Count - limit)
            remaining = 1 + sum(1 for _ in rows) if pred is None else 0
            return ListResult(items, revision, more=True, next_key=key, remaining=remaining)
        items.append(StoredObject(obj, raw, rev, key))
    return ListResult(items, revision)


__all__ = ["SQLiteStorage", "Preconditions"]

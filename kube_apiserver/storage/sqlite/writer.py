"""The SQLite writer process: commits the rows the API server sends it, many messages per transaction.

Started by SQLiteStorage as `python -S writer.py DB SYNCHRONOUS LOCK_TIMEOUT` (stdlib only, so it starts in a
few milliseconds and shares nothing with the server's interpreter). It runs in its own process because a
writer thread in the server retook the GIL around every SQLite call and waited for the event loop each time:
a group commit of a dozen creates took 4.5 ms of wall time for 1 ms of work, and every request waited for it.

Protocol, all little-endian:
  stdin   messages: u32 length, then a pickle of (seq, rows, compact_to); rows are
          (rev, key, type, create_rev, value) in revision order, type 0 create, 1 update, 2 delete
  stdout  b"R" once the data dir's lock is held (or EOF if it cannot be); then per transaction the u64 seq
          of the last message it committed, written only after COMMIT returned
The server decides everything (preconditions, revisions, encoding); this process only writes. It holds an
exclusive flock on DB.lock for its whole life, so a second server on the same data dir, or a new writer
while an orphan of a killed server still finishes its last transaction, waits instead of interleaving.
On a SQLite error it rolls back and exits: the server learns the committed revision from the database.
At EOF it commits what it has read whole and exits.
"""

from __future__ import annotations

import fcntl
import os
import pickle
import signal
import sqlite3
import struct
import sys
import time
from typing import Any

# The protocol, shared with store.py: message length prefix, acknowledgement, history row types.
HEADER = struct.Struct("<I")
ACK = struct.Struct("<Q")
TYPE_CREATE, TYPE_UPDATE, TYPE_DELETE = 0, 1, 2
EXIT_LOCKED = 3  # another process holds the data dir's lock
# Rows per multi-row statement: 4 parameters each stays under SQLite's oldest limit of 999.
_ROWS_PER_STATEMENT = 128
_UPSERT_KV = (
    "INSERT INTO kv VALUES {} ON CONFLICT(key) DO UPDATE SET "
    "value = excluded.value, create_rev = excluded.create_rev, mod_rev = excluded.mod_rev",
    "(?, ?, ?, ?)",
)
_DELETE_KV = ("DELETE FROM kv WHERE key IN ({})", "?")
_INSERT_HISTORY = ("INSERT INTO history VALUES {}", "(?, ?, ?, ?)")


def _write_rows(conn: sqlite3.Connection, statement: tuple[str, str], rows: list[tuple[Any, ...]]) -> None:
    """Run statement (a template and its per-row placeholder) over rows, many rows per statement."""
    template, placeholder = statement
    for i in range(0, len(rows), _ROWS_PER_STATEMENT):
        chunk = rows[i : i + _ROWS_PER_STATEMENT]
        sql = template.format(", ".join([placeholder] * len(chunk)))
        conn.execute(sql, [value for row in chunk for value in row])


def commit(conn: sqlite3.Connection, messages: list[tuple[int, list[tuple[Any, ...]], int]]) -> None:
    """Write the messages' rows in one transaction: every row to history, each key's last state to kv."""
    latest: dict[str, tuple[Any, ...] | None] = {}  # key → its kv row after this transaction, None if deleted
    history: list[tuple[int, str, int, bytes]] = []
    rev = 0
    compact_to = 0
    for _seq, rows, compact in messages:
        for rev, key, kind, create_rev, value in rows:
            history.append((rev, key, kind, value))
            latest[key] = None if kind == TYPE_DELETE else (key, value, create_rev, rev)
        compact_to = max(compact_to, compact)
    conn.execute("BEGIN IMMEDIATE")
    _write_rows(conn, _UPSERT_KV, [row for row in latest.values() if row is not None])
    _write_rows(conn, _DELETE_KV, [(key,) for key, row in latest.items() if row is None])
    _write_rows(conn, _INSERT_HISTORY, history)
    if compact_to:
        # Like etcd: drop every version older than the target except the newest one of each live key.
        conn.execute(
            "DELETE FROM history WHERE rev < ?1 AND (type = 2 OR rev NOT IN "
            "(SELECT MAX(rev) FROM history WHERE rev < ?1 GROUP BY key))",
            (compact_to,),
        )
        conn.execute("INSERT OR REPLACE INTO meta VALUES ('compact', ?)", (compact_to,))
    if rev:
        conn.execute("INSERT OR REPLACE INTO meta VALUES ('rev', ?)", (rev,))
    conn.execute("COMMIT")


def _lock(path: str, timeout: float) -> bool:
    fd = os.open(path + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True  # held until this process exits; the fd stays open
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.02)


def main(path: str, synchronous: str, lock_timeout: float) -> int:
    # The server drains on SIGTERM/SIGINT and then closes our stdin; a signal sent to the whole process
    # group must not end this process before the writes the server still sends.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if not _lock(path, lock_timeout):
        return EXIT_LOCKED
    conn = sqlite3.connect(path, isolation_level=None, cached_statements=512)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(f"PRAGMA synchronous={synchronous}")
    conn.execute("PRAGMA busy_timeout=10000")
    try:
        os.write(1, b"R")
    except BrokenPipeError:
        return 0  # the server exited during its startup (e.g. a bad flag) and left this writer unused
    buf = bytearray()
    eof = False
    while not eof:
        chunk = os.read(0, 1 << 20)
        if not chunk:
            eof = True
        buf += chunk
        messages = []
        pos = 0
        while len(buf) - pos >= HEADER.size:
            (size,) = HEADER.unpack_from(buf, pos)
            end = pos + HEADER.size + size
            if end > len(buf):
                break
            messages.append(pickle.loads(buf[pos + HEADER.size : end]))
            pos = end
        del buf[:pos]
        if not messages:
            continue
        try:
            commit(conn, messages)
        except sqlite3.Error as e:
            sys.stderr.write(f"storage writer: commit failed: {e}\n")
            try:
                conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass
            return 1
        try:
            os.write(1, ACK.pack(messages[-1][0]))
        except BrokenPipeError:
            eof = True  # the server is gone; what is committed stays committed
    conn.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], float(sys.argv[3])))

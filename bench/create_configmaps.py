"""Create throughput: 32 concurrent keep-alive HTTPS clients POSTing 1 KiB ConfigMaps for N seconds.

Ceiling, measured in the same run on the same filesystem: raw SQLite transactions per second at the
server's durability (stdlib sqlite3, WAL, synchronous=FULL, one ~1 KiB row insert per transaction,
one connection, back to back). The server commits in groups, so it may exceed that ceiling.
The client processes run at nice 10 (bench/_common.py http_load), so that on this 2-core machine the
load generator does not take the server's core while the server has requests to serve.
Targets: >= 40% of the ceiling, p99 <= 50 ms.

    python bench/create_configmaps.py [--seconds 10] [--clients 32] [--procs 2] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import tempfile
import time

from _common import CM_PATH, configmap, cpu_seconds, http_load, pct, start_server


def sqlite_ceiling(directory: str, seconds: float) -> float:
    path = os.path.join(directory, "ceiling.db")
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("CREATE TABLE kv (key TEXT PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID")
    value = json.dumps(configmap("x")).encode()
    n = 0
    t0 = time.monotonic()
    deadline = t0 + seconds
    while time.monotonic() < deadline:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO kv VALUES (?, ?)", (f"/registry/configmaps/default/cm-{n:08}", value))
        conn.execute("COMMIT")
        n += 1
    elapsed = time.monotonic() - t0
    conn.close()
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    return n / elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--procs", type=int, default=2, help="client processes (clients are split among them)")
    ap.add_argument("--quick", action="store_true", help="3 s of load, 1 s of ceiling")
    args = ap.parse_args()
    if args.quick:
        args.seconds = 3.0

    data_dir = tempfile.mkdtemp(prefix="bench-create-")
    # fsync speed drifts on a VM: measure the ceiling before and after the load and use the mean
    ceiling_s = 1.0 if args.quick else 2.0
    before = sqlite_ceiling(data_dir, ceiling_s)

    server = start_server(data_dir)
    try:
        certs = server.load_certs()
        threads = max(1, args.clients // args.procs)
        run_id = f"{time.time_ns() % 10**8:08}"

        def make(pi: int, ti: int, i: int):
            body = json.dumps(configmap(f"cm-{run_id}-{pi}-{ti}-{i}")).encode()
            return "POST", CM_PATH, body, 201

        # warm up (imports, caches, connection setup paths) then measure
        http_load(server.port, certs.client_context, make, procs=args.procs, threads=threads, duration=0.5)
        run_id = f"{time.time_ns() % 10**8:08}"
        cpu0 = cpu_seconds(server.pid)
        res = http_load(
            server.port, certs.client_context, make, procs=args.procs, threads=threads, duration=args.seconds
        )
        server_cpu = (cpu_seconds(server.pid) - cpu0) / res.elapsed
        server.stop()
        after = sqlite_ceiling(data_dir, ceiling_s)
    finally:
        server.stop()
        shutil.rmtree(data_dir, ignore_errors=True)
    ceiling = (before + after) / 2
    print(
        f"ceiling: raw SQLite (WAL, synchronous=FULL, 1 KiB insert per transaction): {ceiling:,.0f} tx/s "
        f"(before the load {before:,.0f}, after {after:,.0f})"
    )

    p50, p99 = pct(res.latencies, 50) * 1000, pct(res.latencies, 99) * 1000
    print(
        f"kube_apiserver: {res.rate:,.0f} creates/s with {args.procs * threads} clients over {res.elapsed:.1f} s "
        f"({res.count} creates, {res.errors} errors{': ' + res.first_error if res.errors else ''})"
    )
    print(f"server CPU: {server_cpu * 100:.0f}% of one core (the rest of the 2 cores went to the clients)")
    print(f"latency: p50 {p50:.1f} ms, p99 {p99:.1f} ms (target p99 <= 50 ms)")
    print(f"ratio: {res.rate / ceiling * 100:.1f}% of raw SQLite transactions/s (target >= 40%)")


if __name__ == "__main__":
    main()

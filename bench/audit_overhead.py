"""What auditing costs a request: two servers started alike, one with a Metadata audit policy for everything
(--audit-policy-file, --audit-log-path to a file, blocking mode: kube's defaults), one without auditing. Each
round loads both alternately with GETs of one ConfigMap and with creates of 1 KiB ConfigMaps over keep-alive
HTTPS connections. Every audited request writes two JSON lines (RequestReceived and ResponseComplete).
The ratio is audit on / audit off, by requests/s and by requests per server CPU-second (on 2 cores the
clients share the CPUs with the server, so the second is the steadier figure).

    python bench/audit_overhead.py [--seconds 3] [--rounds 3] [--clients 8] [--procs 2] [--level Metadata]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time

from _common import CM_PATH, JSON_HEADERS, configmap, connect, cpu_seconds, http_load, median, request, start_server


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=3.0, help="load per server, operation and round")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--procs", type=int, default=2)
    ap.add_argument("--level", default="Metadata", choices=["Metadata", "Request", "RequestResponse"])
    args = ap.parse_args()
    threads = max(1, args.clients // args.procs)

    work = tempfile.mkdtemp(prefix="bench-audit-")
    policy = os.path.join(work, "policy.yaml")
    with open(policy, "w") as f:
        f.write(f"apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: {args.level}\n")
    log = os.path.join(work, "audit.log")
    servers = {
        "off": start_server(),
        "on": start_server(args=(f"--audit-policy-file={policy}", f"--audit-log-path={log}")),
    }
    path = f"{CM_PATH}/bench-audit"
    run_id = f"{time.time_ns() % 10**8:08}"
    try:
        for server in servers.values():
            conn = connect(server.port, server.load_certs().client_context())
            status, _ = request(conn, "POST", CM_PATH, json.dumps(configmap("bench-audit")).encode(), JSON_HEADERS)
            assert status == 201, status
            conn.close()

        def get(pi: int, ti: int, i: int) -> tuple[str, str, bytes | None, int]:
            return "GET", path, None, 200

        results: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for rnd in range(args.rounds):
            for op in ("get", "create"):
                for mode, server in servers.items():

                    def create(pi: int, ti: int, i: int, tag: str = f"{mode}-{rnd}") -> tuple[str, str, bytes, int]:
                        body = json.dumps(configmap(f"a-{run_id}-{tag}-{pi}-{ti}-{i}")).encode()
                        return "POST", CM_PATH, body, 201

                    make = get if op == "get" else create
                    ctx = server.load_certs().client_context
                    if op == "get":
                        http_load(server.port, ctx, make, procs=args.procs, threads=threads, duration=0.3)
                    cpu0 = cpu_seconds(server.pid)
                    res = http_load(server.port, ctx, make, procs=args.procs, threads=threads, duration=args.seconds)
                    cpu = (cpu_seconds(server.pid) - cpu0) / res.elapsed
                    assert not res.errors, res.first_error
                    results.setdefault((op, mode), []).append((res.rate, res.rate / cpu if cpu else 0.0))
                    print(f"round {rnd + 1} {op:6} audit {mode:3}: {res.summary()}; server CPU {cpu * 100:.0f}%")
        lines = sum(1 for _ in open(log, "rb"))
    finally:
        for server in servers.values():
            server.stop()
        shutil.rmtree(work, ignore_errors=True)

    print(f"\naudit policy: one rule, level {args.level}; {lines:,} audit lines written by the audited server")
    for op in ("get", "create"):
        on, off = results[(op, "on")], results[(op, "off")]
        rate = median([r for r, _ in on]) / median([r for r, _ in off])
        per_cpu = median([c for _, c in on]) / median([c for _, c in off])
        print(
            f"{op}: audited {median([r for r, _ in on]):,.0f} req/s vs {median([r for r, _ in off]):,.0f} without: "
            f"ratio {rate * 100:.1f}% by requests/s, {per_cpu * 100:.1f}% per server CPU-second"
        )


if __name__ == "__main__":
    main()

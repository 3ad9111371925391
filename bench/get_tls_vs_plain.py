"""GET one ConfigMap over TLS with a client certificate, against the same GET over plain HTTP, same run, same
data, same clients (issue target: TLS >= 60% of plain). The plain run is the same server command with TLS left
out of the listener (bench/_plain_server.py), authenticated by a static token of system:masters.

    python bench/get_tls_vs_plain.py [--seconds 5] [--clients 16] [--procs 2] [--quick]
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile

from _common import (
    CM_PATH,
    JSON_HEADERS,
    TOKEN,
    configmap,
    connect,
    cpu_seconds,
    http_load,
    request,
    start_plain_server,
    start_server,
    stop_process,
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=5.0, help="load per server")
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--procs", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="2 s per server")
    args = ap.parse_args()
    if args.quick:
        args.seconds = 2.0
    threads = max(1, args.clients // args.procs)
    path = f"{CM_PATH}/bench-get"

    def make(pi: int, ti: int, i: int):
        return "GET", path, None, 200

    data_dir = tempfile.mkdtemp(prefix="bench-tls-plain-")
    server = start_server(data_dir)
    plain = None
    try:
        certs = server.load_certs()
        conn = connect(server.port, certs.client_context())
        status, _ = request(conn, "POST", CM_PATH, json.dumps(configmap("bench-get")).encode(), JSON_HEADERS)
        assert status == 201, status
        conn.close()
        http_load(server.port, certs.client_context, make, procs=args.procs, threads=threads, duration=0.5)
        cpu0 = cpu_seconds(server.pid)
        tls = http_load(
            server.port, certs.client_context, make, procs=args.procs, threads=threads, duration=args.seconds
        )
        tls_cpu = (cpu_seconds(server.pid) - cpu0) / tls.elapsed
        server.stop()

        plain, port = start_plain_server(data_dir)
        headers = {**JSON_HEADERS, "Authorization": f"Bearer {TOKEN}"}
        http_load(port, lambda: None, make, procs=args.procs, threads=threads, duration=0.5, headers=headers)
        cpu0 = cpu_seconds(plain.pid)
        res = http_load(
            port, lambda: None, make, procs=args.procs, threads=threads, duration=args.seconds, headers=headers
        )
        plain_cpu = (cpu_seconds(plain.pid) - cpu0) / res.elapsed
    finally:
        if plain is not None:
            stop_process(plain)
        server.stop()
        shutil.rmtree(data_dir, ignore_errors=True)

    print(f"{args.procs * threads} keep-alive connections from {args.procs} processes")
    print(f"plain HTTP, bearer token: {res.summary()}; server CPU {plain_cpu * 100:.0f}%")
    print(f"TLS, client certificate:  {tls.summary()}; server CPU {tls_cpu * 100:.0f}%")
    print(f"ratio: TLS {tls.rate / res.rate * 100:.1f}% of plain requests/s (target >= 60%)")
    eff = (tls.rate / tls_cpu) / (res.rate / plain_cpu)
    print(f"per server CPU-second: TLS {eff * 100:.1f}% of plain")


if __name__ == "__main__":
    main()

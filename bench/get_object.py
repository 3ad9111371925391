"""GET one ConfigMap over keep-alive HTTPS connections, against a ceiling measured in the same run:
a bare uvicorn + httptools + uvloop ASGI app serving the very same response bytes over the same TLS
setup (the server's certificate and key, client certificates checked against the same CA), hit by the
same client processes. Target: >= 30% of the ceiling's requests/s.

    python bench/get_object.py [--seconds 5] [--clients 16] [--procs 2] [--quick]
"""

from __future__ import annotations

import argparse
import json

from _common import (
    CM_PATH,
    JSON_HEADERS,
    bare_server,
    configmap,
    connect,
    cpu_seconds,
    http_load,
    request,
    start_server,
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

    server = start_server()
    try:
        certs = server.load_certs()
        conn = connect(server.port, certs.client_context())
        status, _ = request(conn, "POST", CM_PATH, json.dumps(configmap("bench-get")).encode(), JSON_HEADERS)
        assert status == 201, status
        path = f"{CM_PATH}/bench-get"
        status, body = request(conn, "GET", path, None, JSON_HEADERS)
        assert status == 200, status
        conn.close()

        def make(pi: int, ti: int, i: int):
            return "GET", path, None, 200

        # the ceiling: same bytes, same TLS, same clients
        with bare_server(server.data_dir, body) as bare:
            http_load(bare.port, certs.client_context, make, procs=args.procs, threads=threads, duration=0.5)
            cpu0 = cpu_seconds(bare.proc.pid)
            ceiling = http_load(
                bare.port, certs.client_context, make, procs=args.procs, threads=threads, duration=args.seconds
            )
            bare_cpu = (cpu_seconds(bare.proc.pid) - cpu0) / ceiling.elapsed

        http_load(server.port, certs.client_context, make, procs=args.procs, threads=threads, duration=0.5)
        cpu0 = cpu_seconds(server.pid)
        res = http_load(
            server.port, certs.client_context, make, procs=args.procs, threads=threads, duration=args.seconds
        )
        server_cpu = (cpu_seconds(server.pid) - cpu0) / res.elapsed
    finally:
        server.stop()

    print(f"response: {len(body)} bytes; {args.procs * threads} keep-alive connections from {args.procs} processes")
    print(f"ceiling: bare uvicorn+httptools, same bytes and TLS: {ceiling.summary()}; server CPU {bare_cpu * 100:.0f}%")
    print(
        f"kube_apiserver GET configmap: {res.summary()}; server CPU {server_cpu * 100:.0f}%"
        f"{' first error ' + res.first_error if res.errors else ''}"
    )
    print(f"ratio: {res.rate / ceiling.rate * 100:.1f}% of the bare server's requests/s (target >= 30%)")
    # On 2 cores the clients share the CPUs with the server: when the bare server idles part of the time the
    # client was its bottleneck, so also compare requests per second of server CPU (the client drops out).
    eff = (res.rate / server_cpu) / (ceiling.rate / bare_cpu)
    print(
        f"per server CPU-second: {res.rate / server_cpu:,.0f} vs {ceiling.rate / bare_cpu:,.0f} requests: "
        f"{eff * 100:.1f}% of the bare server"
    )


if __name__ == "__main__":
    main()

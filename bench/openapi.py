"""GET /openapi/v2 and /openapi/v3/apis/apps/v1 over keep-alive HTTPS, one request at a time, against a
ceiling measured in the same run: a bare uvicorn + httptools + uvloop ASGI app serving the very same bytes
over the same TLS setup. The documents are built on the first request and served from memory afterwards.
Target: <= 5 ms per request (p50) after the first, for each document.

    python bench/openapi.py [--seconds 5] [--quick]
"""

from __future__ import annotations

import argparse
import time

from _common import LoadResult, bare_server, connect, http_load, pct, request, start_server

DOCUMENTS = ("/openapi/v2", "/openapi/v3/apis/apps/v1")


def sequential(port: int, ctx_factory, path: str, seconds: float) -> LoadResult:  # noqa: ANN001
    """One connection, requests back to back: the time of one request is its latency."""

    def make(pi: int, ti: int, i: int):
        return "GET", path, None, 200

    http_load(port, ctx_factory, make, procs=1, threads=1, duration=0.3)  # warm the connection path
    return http_load(port, ctx_factory, make, procs=1, threads=1, duration=seconds)


def bare_result(data_dir: str, body: bytes, ctx_factory, seconds: float) -> LoadResult:  # noqa: ANN001
    with bare_server(data_dir, body) as bare:
        return sequential(bare.port, ctx_factory, "/any", seconds)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=5.0, help="load per document and server")
    ap.add_argument("--quick", action="store_true", help="1 s per document and server")
    args = ap.parse_args()
    if args.quick:
        args.seconds = 1.0

    server = start_server()
    rows = []
    try:
        certs = server.load_certs()
        for path in DOCUMENTS:
            conn = connect(server.port, certs.client_context())
            t0 = time.perf_counter()
            status, body = request(conn, "GET", path, None, {"Accept": "application/json"})
            first = time.perf_counter() - t0
            conn.close()
            assert status == 200, (path, status, body[:300])
            res = sequential(server.port, certs.client_context, path, args.seconds)
            ceiling = bare_result(server.data_dir, body, certs.client_context, args.seconds)
            rows.append((path, len(body), first, res, ceiling))
    finally:
        server.stop()

    for path, size, first, res, ceiling in rows:
        p50, p99 = pct(res.latencies, 50) * 1000, pct(res.latencies, 99) * 1000
        b50, b99 = pct(ceiling.latencies, 50) * 1000, pct(ceiling.latencies, 99) * 1000
        print(f"{path}: {size:,} bytes; first request (builds the document) {first * 1000:.0f} ms")
        print(f"  ceiling (bare uvicorn+httptools, same bytes and TLS): p50 {b50:.2f} ms, p99 {b99:.2f} ms")
        print(
            f"  kube_apiserver: p50 {p50:.2f} ms, p99 {p99:.2f} ms ({res.count} requests, {res.errors} errors"
            f"{', first error ' + res.first_error if res.errors else ''})"
        )
        verdict = "ok" if p50 <= 5.0 else "OVER"
        print(f"  ratio: {b50 / p50 * 100:.0f}% of the bare server's speed (p50); target p50 <= 5 ms: {verdict}")


if __name__ == "__main__":
    main()

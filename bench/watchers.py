"""Watch fan-out: 500 watchers on the ConfigMaps of one namespace while a writer creates 200 ConfigMaps/s for
~10 s. Every event must reach every watcher; the figure of merit is the p99 latency from commit to the
watcher (target <= 100 ms).

Latency, approximately: the writer records for each object the time it sent the create (also carried in the
annotation bench.example.com/sent) and the time the 201 came back; each watcher records when the event's bytes
arrived. The commit happens between send and ack, so per delivery
    receive - send  >= commit-to-send (an upper bound: it also counts the create's own path up to the commit)
    receive - ack   <= commit-to-send (roughly a lower bound; negative when the event beats the 201)
Both include the client's own delay in reading (4 asyncio processes sharing 2 cores with the server), so the
true server-side figure is lower still. The ceiling for comparison is the create latency itself (send -> ack).

    python bench/watchers.py [--watchers 500] [--procs 4] [--rate 200] [--seconds 10] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import ssl
import threading
import time
from array import array
from typing import Any

from _common import CM_PATH, FORK, HOST, JSON_HEADERS, connect, cpu_seconds, pct, request, rss_mib, start_server

NAME = re.compile(rb'"name":"bw-(\d{7})"')
WATCH_PATH = CM_PATH + "?watch=true&timeoutSeconds=900"


class WatchProtocol(asyncio.Protocol):
    """One watch stream: finds each event of ours by its object name and stamps its arrival."""

    def __init__(self, seqs: array, times: array, ready: asyncio.Future) -> None:
        self.seqs, self.times, self.ready = seqs, times, ready
        self.head = b""
        self.tail = b""
        self.count = 0
        self.closed = False

    def connection_made(self, transport: Any) -> None:
        transport.write(f"GET {WATCH_PATH} HTTP/1.1\r\nHost: {HOST}\r\nAccept: application/json\r\n\r\n".encode())

    def data_received(self, data: bytes) -> None:
        now = time.time()
        if not self.ready.done():
            self.head += data
            end = self.head.find(b"\r\n\r\n")
            if end < 0:
                return
            status = self.head[9:12]
            if status != b"200":
                self.ready.set_exception(RuntimeError(f"watch answered {self.head[:200]!r}"))
                return
            self.ready.set_result(None)
            data = self.head[end + 4 :]
            self.head = b""
        buf = self.tail + data
        last = 0
        for m in NAME.finditer(buf):
            self.seqs.append(int(m.group(1)))
            self.times.append(now)
            last = m.end()
        self.count = len(self.seqs)
        # keep the end of the buffer: a name cut in two by the TLS record boundary is completed next time
        self.tail = buf[max(last, len(buf) - 64) :]

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True


def watcher_process(port: int, ctx_factory: Any, n: int, pipe: Any) -> None:
    import uvloop

    async def main() -> None:
        loop = asyncio.get_running_loop()
        ctx: ssl.SSLContext = ctx_factory()
        protos: list[WatchProtocol] = []
        streams = [(array("I"), array("d")) for _ in range(n)]
        sem = asyncio.Semaphore(16)

        async def open_one(i: int) -> None:
            async with sem:
                ready = loop.create_future()
                seqs, times = streams[i]
                _, proto = await loop.create_connection(
                    lambda: WatchProtocol(seqs, times, ready), HOST, port, ssl=ctx, server_hostname=HOST
                )
                await asyncio.wait_for(ready, 30)
                protos.append(proto)

        await asyncio.gather(*(open_one(i) for i in range(n)))
        pipe.send("ready")
        expect, wait = await loop.run_in_executor(None, pipe.recv)
        deadline = loop.time() + wait
        while loop.time() < deadline and any(p.count < expect and not p.closed for p in protos):
            await asyncio.sleep(0.05)
        pipe.send(
            (
                [p.count for p in protos],
                sum(p.closed for p in protos),
                b"".join(s.tobytes() for s, _ in streams),
                b"".join(t.tobytes() for _, t in streams),
            )
        )

    uvloop.run(main())


def writer_process(
    port: int, ctx_factory: Any, rate: float, seconds: float, threads: int, size: int, pipe: Any
) -> None:
    ctx = ctx_factory()
    total = int(rate * seconds)
    sent = array("d", [0.0]) * total
    acked = array("d", [0.0]) * total
    errors: list[str] = []
    pad = "x" * size
    start = time.time() + 0.2

    def run(ti: int) -> None:
        conn = connect(port, ctx)
        for k in range(ti, total, threads):
            delay = start + k / rate - time.time()
            if delay > 0:
                time.sleep(delay)
            t = time.time()
            obj = {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": f"bw-{k:07}", "annotations": {"bench.example.com/sent": f"{t:.6f}"}},
                "data": {"payload": pad},
            }
            status, body = request(conn, "POST", CM_PATH, json.dumps(obj).encode(), JSON_HEADERS)
            acked[k] = time.time()
            sent[k] = t
            if status != 201:
                errors.append(f"{status}: {body[:200]!r}")
        conn.close()

    ts = [threading.Thread(target=run, args=(ti,)) for ti in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    pipe.send((sent.tobytes(), acked.tobytes(), errors, time.time() - start))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--watchers", type=int, default=500)
    ap.add_argument("--procs", type=int, default=4, help="watcher client processes")
    ap.add_argument("--rate", type=float, default=200.0, help="creates per second")
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--size", type=int, default=1024, help="bytes of data per ConfigMap")
    ap.add_argument("--drain", type=float, default=30.0, help="how long to wait for the last events after writes")
    ap.add_argument("--quick", action="store_true", help="100 watchers, 3 s")
    args = ap.parse_args()
    if args.quick:
        args.watchers, args.seconds, args.procs = 100, 3.0, 2

    server = start_server()
    procs = []
    try:
        certs = server.load_certs()
        per = [args.watchers // args.procs + (1 if i < args.watchers % args.procs else 0) for i in range(args.procs)]
        pipes = []
        t0 = time.monotonic()
        for n in per:
            a, b = FORK.Pipe()
            p = FORK.Process(target=watcher_process, args=(server.port, certs.client_context, n, b), daemon=True)
            p.start()
            procs.append(p)
            pipes.append(a)
        for a in pipes:
            msg = a.recv()
            assert msg == "ready", msg
        print(
            f"{args.watchers} watches open in {time.monotonic() - t0:.1f} s from {args.procs} processes; "
            f"server RSS {rss_mib(server.pid):.0f} MiB"
        )

        wa, wb = FORK.Pipe()
        cpu0 = cpu_seconds(server.pid)
        w = FORK.Process(
            target=writer_process,
            args=(server.port, certs.client_context, args.rate, args.seconds, 16, args.size, wb),
            daemon=True,
        )
        w.start()
        procs.append(w)
        sent_b, acked_b, errors, elapsed = wa.recv()
        server_cpu = (cpu_seconds(server.pid) - cpu0) / elapsed
        sent, acked = array("d"), array("d")
        sent.frombytes(sent_b)
        acked.frombytes(acked_b)
        total = len(sent)
        t_end = time.monotonic()
        for a in pipes:
            a.send((total, args.drain))
        counts, closed, lat_send, lat_ack = [], 0, array("d"), array("d")
        for a in pipes:
            c, cl, seq_b, times_b = a.recv()
            counts += c
            closed += cl
            seqs, times = array("I"), array("d")
            seqs.frombytes(seq_b)
            times.frombytes(times_b)
            for s, t in zip(seqs, times, strict=True):
                lat_send.append(t - sent[s])
                lat_ack.append(t - acked[s])
        drained = time.monotonic() - t_end
        rss = rss_mib(server.pid)
    finally:
        for p in procs:
            if p.is_alive():
                p.kill()
        server.stop()

    create_lat = [a - s for s, a in zip(sent, acked, strict=True)]
    complete = sum(1 for c in counts if c == total)
    print(
        f"writes: {total} creates in {elapsed:.1f} s ({total / elapsed:.0f}/s, target rate {args.rate:.0f}/s), "
        f"{len(errors)} errors{': ' + errors[0] if errors else ''}; create p50 {pct(create_lat, 50) * 1000:.1f} ms, "
        f"p99 {pct(create_lat, 99) * 1000:.1f} ms"
    )
    print(f"server CPU while writing: {server_cpu * 100:.0f}% of one core; RSS {rss:.0f} MiB")
    print(
        f"delivery: {complete}/{len(counts)} watchers got all {total} events (min {min(counts)}, "
        f"max {max(counts)}; {closed} streams closed by the server); {len(lat_send):,} deliveries "
        f"({len(lat_send) / (elapsed + drained):,.0f}/s); last ones {drained:.1f} s after the writes"
    )
    print(
        f"latency receive - send:  p50 {pct(lat_send, 50) * 1000:.1f} ms, p99 {pct(lat_send, 99) * 1000:.1f} ms, "
        f"max {max(lat_send, default=0) * 1000:.1f} ms   (>= commit-to-send)"
    )
    print(
        f"latency receive - ack:   p50 {pct(lat_ack, 50) * 1000:.1f} ms, p99 {pct(lat_ack, 99) * 1000:.1f} ms "
        f"  (<= commit-to-send, roughly)"
    )
    ok = complete == len(counts) and pct(lat_send, 99) <= 0.1
    print(
        f"verdict: every event to every watcher: {'yes' if complete == len(counts) else 'NO'}; "
        f"p99 commit-to-send <= 100 ms: {'yes' if ok else 'no (upper bound ' + format(pct(lat_send, 99) * 1000, '.0f') + ' ms)'}"
    )


if __name__ == "__main__":
    main()

"""Shared pieces of the benchmarks: start/stop the server, certificates, HTTPS load from client processes.

Every benchmark prints its result next to a ceiling measured in the same run on the same machine
(raw SQLite, a bare uvicorn server, orjson), so the ratio means something on any machine. The load
generators run in separate processes (forked before any thread starts), several threads each, every
thread on its own keep-alive HTTPS connection with the admin client certificate.
"""

from __future__ import annotations

import base64
import contextlib
import http.client
import json
import multiprocessing as mp
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOST = "127.0.0.1"
FORK = mp.get_context("fork")


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def process_tree(pid: int) -> list[int]:
    """pid and its descendants (the server and its SQLite writer process)."""
    out = [pid]
    for p in out:
        try:
            for tid in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{tid}/children") as f:
                    out.extend(int(c) for c in f.read().split())
        except OSError:
            continue  # exited meanwhile
    return out


def rss_mib(pid: int) -> float:
    """Resident memory of the process and its children, in MiB."""
    total = 0
    for p in process_tree(pid):
        try:
            with open(f"/proc/{p}/status") as f:
                total += next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
        except (OSError, StopIteration):
            continue
    return total / 1024


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process and its children (all their threads) so far."""
    total = 0
    for p in process_tree(pid):
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def pct(values: Any, p: float) -> float:
    """The p-th percentile (nearest rank) of values; 0 when empty."""
    vs = sorted(values)
    if not vs:
        return 0.0
    return vs[min(len(vs) - 1, max(0, round(p / 100 * len(vs)) - 1))]


def median(values: list[float]) -> float:
    return pct(values, 50)


@dataclass
class Certs:
    ca: str
    cert: str
    key: str
    server: str

    def client_context(self) -> ssl.SSLContext:
        ctx = ssl.create_default_context(cafile=self.ca)
        ctx.check_hostname = False  # the serving certificate names 127.0.0.1 too, but we only care about the CA
        ctx.load_cert_chain(self.cert, self.key)
        return ctx


def read_kubeconfig(path: str, outdir: str) -> Certs:
    """Write the CA and the admin client certificate of a kubeconfig to files (http.client wants files)."""
    with open(path) as f:
        cfg = yaml.safe_load(f)
    cluster = cfg["clusters"][0]["cluster"]
    user = cfg["users"][0]["user"]
    files = {}
    for name, data in (
        ("ca.crt", cluster["certificate-authority-data"]),
        ("client.crt", user["client-certificate-data"]),
        ("client.key", user["client-key-data"]),
    ):
        p = os.path.join(outdir, name)
        with open(p, "wb") as out:
            out.write(base64.b64decode(data))
        os.chmod(p, 0o600)
        files[name] = p
    return Certs(files["ca.crt"], files["client.crt"], files["client.key"], cluster["server"])


def readyz(port: int, timeout: float = 1.0, expect: bytes | None = b"ok") -> bool:
    """GET /readyz (anonymous, certificate not verified); True on 200 with body expect (None: any body)."""
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    try:
        conn = http.client.HTTPSConnection(HOST, port, context=ctx, timeout=timeout)
        conn.request("GET", "/readyz")
        resp = conn.getresponse()
        data = resp.read()
        ok = resp.status == 200 and (expect is None or data.strip() == expect)
        conn.close()
        return ok
    except OSError:
        return False


def plain_ready(port: int) -> bool:
    """GET /readyz over plain HTTP (anonymous); True on 200."""
    try:
        conn = connect(port, None, timeout=1)
        status, _ = request(conn, "GET", "/readyz", None, {})
        conn.close()
        return status == 200
    except OSError:
        return False


PLAIN_SERVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_plain_server.py")
TOKEN = "bench-plain-admin-token"  # a static token of system:masters: the plain server's admin


def start_plain_server(data_dir: str) -> tuple[subprocess.Popen[bytes], int]:
    """bench/_plain_server.py on data_dir (left by a stopped TLS server) and a free port, authenticated by the
    static token TOKEN (system:masters), for the plain-HTTP runs; returns once it answers /readyz."""
    token_file = os.path.join(data_dir, "tokens.csv")
    with open(token_file, "w") as f:
        f.write(f'{TOKEN},bench-admin,bench-admin-uid,"system:masters"\n')
    port = free_port()
    log_path = os.path.join(data_dir, "plain-server.log")
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [
                sys.executable,
                PLAIN_SERVER,
                "--data-dir",
                data_dir,
                "--secure-port",
                str(port),
                "--bind-address",
                "127.0.0.1",
                "--token-auth-file",
                token_file,
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 60
        while not plain_ready(port):
            if proc.poll() is not None or time.monotonic() > deadline:
                with open(log_path, "rb") as f:
                    tail = f.read()[-2000:].decode(errors="replace")
                raise RuntimeError(f"the plain server did not come up (exit {proc.poll()}): {tail}")
            time.sleep(0.05)
    except BaseException:
        stop_process(proc)
        raise
    return proc, port


def stop_process(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@dataclass
class Server:
    proc: subprocess.Popen[bytes]
    port: int
    data_dir: str
    started: float
    ready_after: float = 0.0
    certs: Certs | None = None
    _own_dir: bool = field(default=False, repr=False)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def wait_ready(self, timeout: float = 30.0, interval: float = 0.005) -> float:
        deadline = self.started + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}: {self.log_tail()}")
            if readyz(self.port):
                self.ready_after = time.monotonic() - self.started
                return self.ready_after
            time.sleep(interval)
        raise RuntimeError(f"server not ready after {timeout}s: {self.log_tail()}")

    def log_tail(self) -> str:
        with contextlib.suppress(OSError), open(os.path.join(self.data_dir, "server.log"), "rb") as f:
            return f.read()[-2000:].decode(errors="replace")
        return ""

    def load_certs(self) -> Certs:
        if self.certs is None:
            pki = tempfile.mkdtemp(prefix="bench-certs-")
            self.certs = read_kubeconfig(os.path.join(self.data_dir, "admin.kubeconfig"), pki)
            self.certs.server = os.path.join(self.data_dir, "pki")
        return self.certs

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self._own_dir:
            shutil.rmtree(self.data_dir, ignore_errors=True)
        if self.certs is not None:
            shutil.rmtree(os.path.dirname(self.certs.ca), ignore_errors=True)


def start_server(data_dir: str | None = None, args: tuple[str, ...] = (), wait: bool = True) -> Server:
    """`python -m kube_apiserver` on a free port and an empty data dir (a temporary one unless given)."""
    if threading.current_thread() is threading.main_thread():
        # a SIGTERM (e.g. from `timeout`) unwinds through the callers' finally blocks, which stop the server
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    own = data_dir is None
    if data_dir is None:
        data_dir = tempfile.mkdtemp(prefix="bench-apiserver-")
    port = free_port()
    log = open(os.path.join(data_dir, "server.log"), "wb")  # noqa: SIM115 - the child keeps it
    cmd = [
        sys.executable,
        "-m",
        "kube_apiserver",
        "--data-dir",
        data_dir,
        "--secure-port",
        str(port),
        "--bind-address",
        HOST,
        *args,
    ]
    started = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=REPO)
    log.close()
    server = Server(proc, port, data_dir, started, _own_dir=own)
    if wait:
        try:
            server.wait_ready()
            server.load_certs()
        except BaseException:
            server.stop()
            raise
    return server


BARE_SERVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_bare_server.py")
OPENSSL_FLOOR_SERVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_openssl_floor_server.py")


@dataclass
class BareServer:
    port: int
    proc: subprocess.Popen


@contextlib.contextmanager
def bare_server(data_dir: str, body: bytes, script: str = BARE_SERVER) -> Iterator[BareServer]:
    """The ceiling of the HTTP benches: bench/_bare_server.py answering every request with body, on a free
    port, over the same TLS as the server of data_dir (its certificate and key, client certificates checked
    against its CA). script=OPENSSL_FLOOR_SERVER: the same without uvicorn or an event loop."""
    pki = os.path.join(data_dir, "pki")
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        f.write(body)
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            script,
            str(port),
            os.path.join(pki, "apiserver.crt"),
            os.path.join(pki, "apiserver.key"),
            os.path.join(pki, "ca.crt"),
            f.name,
        ]
    )
    try:
        while not readyz(port, expect=None):
            if proc.poll() is not None:
                raise RuntimeError("bare server exited")
            time.sleep(0.01)
        yield BareServer(port, proc)
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait()
        os.remove(f.name)


_FRAMING_READ = 64  # a chunk's CRLF, the next one's size line and a few bytes of its data


class Conn:
    """A lean keep-alive HTTPS/1.1 client on a blocking socket. http.client parses headers with the email
    package, which costs more than some servers spend on the request; this one finds the status and the
    framing (content-length or chunked) and nothing else, so the client is less often the bottleneck."""

    def __init__(self, port: int, ctx: ssl.SSLContext | None, timeout: float = 60.0) -> None:
        raw = socket.create_connection((HOST, port), timeout=timeout)
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock = ctx.wrap_socket(raw, server_hostname=HOST) if ctx is not None else raw  # None: plain HTTP
        self.buf = bytearray()
        self.body_buf = bytearray()  # see request_sized

    def _fill(self, size: int = 262144) -> None:
        data = self.sock.recv(size)
        if not data:
            raise ConnectionError("connection closed by the server")
        self.buf += data

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
        reuse: bool = False,
    ) -> tuple[int, bytes]:
        head = f"{method} {path} HTTP/1.1\r\nHost: {HOST}\r\n"
        for k, v in (headers or {}).items():
            head += f"{k}: {v}\r\n"
        if body is not None:
            head += f"Content-Length: {len(body)}\r\n"
        self.sock.sendall(head.encode() + b"\r\n" + (body or b""))
        return self.read_response(reuse)

    def request_sized(
        self, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None
    ) -> tuple[int, int]:
        """request(), but a large body is read into a buffer this connection keeps and only its size is
        returned: every byte is still received and decrypted, without a fresh allocation of the body's size
        per response (on this VM faulting in 14 MB of new pages costs the client ~6 ms, more than the
        decryption)."""
        status, data = self.request(method, path, body, headers, reuse=True)
        return status, len(data)

    def read_response(self, reuse: bool = False) -> tuple[int, bytes]:
        while (end := self.buf.find(b"\r\n\r\n")) < 0:
            self._fill()
        head = bytes(self.buf[:end]).lower()
        del self.buf[: end + 4]
        status = int(head[9:12])
        i = head.find(b"\r\ncontent-length:")
        if i >= 0:
            j = head.find(b"\r\n", i + 2)
            n = int(head[i + 17 : j if j > 0 else None])
            if len(self.buf) >= n:
                body = bytes(self.buf[:n])
                del self.buf[:n]
                return status, body
            # a large body is read straight into its own buffer: no copies of what came before
            if reuse:
                if len(self.body_buf) < n:
                    self.body_buf = bytearray(n)
                out = self.body_buf
            else:
                out = bytearray(n)
            view = memoryview(out)
            got = len(self.buf)
            view[:got] = self.buf
            self.buf.clear()
            while got < n:
                k = self.sock.recv_into(view[got:])
                if not k:
                    raise ConnectionError("connection closed by the server")
                got += k
            return status, view[:n] if reuse else bytes(out)  # type: ignore[return-value]
        if b"transfer-encoding: chunked" not in head:
            raise ValueError(f"no framing in {head!r}")
        # chunked: each chunk's data is read straight into the body buffer, as a large body above, and the
        # framing between chunks in small reads (a large read would bring most of the next chunk's data
        # through self.buf, to be copied twice more)
        out = self.body_buf if reuse else bytearray()
        got = 0
        while True:
            while (j := self.buf.find(b"\r\n")) < 0:
                self._fill(_FRAMING_READ)
            size = int(bytes(self.buf[:j]).split(b";")[0], 16)
            del self.buf[: j + 2]
            if size:
                need = got + size
                if len(out) < need:
                    out.extend(bytes(max(need, 2 * len(out)) - len(out)))
                with memoryview(out) as view:
                    take = min(len(self.buf), size)
                    with memoryview(self.buf) as buffered:
                        view[got : got + take] = buffered[:take]
                    del self.buf[:take]
                    got += take
                    while got < need:
                        k = self.sock.recv_into(view[got:need])
                        if not k:
                            raise ConnectionError("connection closed by the server")
                        got += k
            while len(self.buf) < 2:  # the CRLF after the chunk's data (or after the last, empty chunk)
                self._fill(_FRAMING_READ)
            del self.buf[:2]
            if not size:
                return status, memoryview(out)[:got] if reuse else bytes(out[:got])  # type: ignore[return-value]

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()


def connect(port: int, ctx: ssl.SSLContext | None, timeout: float = 60.0) -> Conn:
    return Conn(port, ctx, timeout)


def request(
    conn: Conn, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None
) -> tuple[int, bytes]:
    return conn.request(method, path, body, headers)


def configmap(name: str, size: int = 1024, annotations: dict[str, str] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default"}
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": {"payload": "x" * size}}


JSON_HEADERS = {"Content-Type": "application/json", "Accept": "application/json"}
CM_PATH = "/api/v1/namespaces/default/configmaps"

# A request maker: (process index, thread index, sequence number) -> (method, path, body, expected status)
RequestMaker = Callable[[int, int, int], tuple[str, str, bytes | None, int]]


@dataclass
class LoadResult:
    count: int
    errors: int
    elapsed: float
    latencies: array  # seconds, one per request
    first_error: str = ""

    @property
    def rate(self) -> float:
        return self.count / self.elapsed if self.elapsed else 0.0

    def summary(self) -> str:
        return (
            f"{self.rate:,.0f} req/s, p50 {pct(self.latencies, 50) * 1000:.1f} ms, "
            f"p99 {pct(self.latencies, 99) * 1000:.1f} ms ({self.count} requests, {self.errors} errors)"
        )


def _load_worker(
    pi: int,
    threads: int,
    port: int,
    ctx_factory: Callable[[], ssl.SSLContext | None],
    make: RequestMaker,
    duration: float,
    barrier: Any,
    out: Any,
    headers: dict[str, str],
) -> None:
    # The load generator yields the CPU to the server it measures: on a 2-core machine the client processes
    # would otherwise take the server's core at times while it has requests to serve (measured: the server's
    # event loop busy 90-92% of the time under the create load, 95-99% with the clients at nice 10).
    os.nice(10)
    ctx = ctx_factory()
    results: list[tuple[int, int, float, float, array, str]] = []
    lock = threading.Lock()

    def run(ti: int) -> None:
        lat = array("d")
        errors = 0
        first_error = ""
        conn = connect(port, ctx)
        barrier.wait()
        start = time.monotonic()
        deadline = start + duration
        i = 0
        now = start
        while now < deadline:
            method, path, body, want = make(pi, ti, i)
            t0 = time.perf_counter()
            try:
                status, data = request(conn, method, path, body, headers)
            except (OSError, ValueError) as e:
                status, data = -1, str(e).encode()
                conn.close()
                try:
                    conn = connect(port, ctx)
                except OSError:  # the server is gone: report what we have
                    errors += 1
                    first_error = first_error or f"reconnect failed after: {e}"
                    break
            lat.append(time.perf_counter() - t0)
            if status != want:
                errors += 1
                first_error = first_error or f"{status}: {data[:300]!r}"
            i += 1
            now = time.monotonic()
        conn.close()
        with lock:
            results.append((i, errors, start, now, lat, first_error))

    ts = [threading.Thread(target=run, args=(ti,)) for ti in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    out.send(results)
    out.close()


def http_load(
    port: int,
    ctx_factory: Callable[[], ssl.SSLContext | None],
    make: RequestMaker,
    *,
    procs: int,
    threads: int,
    duration: float,
    headers: dict[str, str] | None = None,
) -> LoadResult:
    """procs client processes x threads keep-alive connections, each sending requests back to back for duration."""
    barrier = FORK.Barrier(procs * threads)
    pipes = []
    workers = []
    for pi in range(procs):
        recv, send = FORK.Pipe(duplex=False)
        p = FORK.Process(
            target=_load_worker,
            args=(pi, threads, port, ctx_factory, make, duration, barrier, send, headers or JSON_HEADERS),
            daemon=True,
        )
        p.start()
        send.close()
        pipes.append(recv)
        workers.append(p)
    total = LoadResult(0, 0, 0.0, array("d"))
    starts, ends = [], []
    for recv in pipes:
        for count, errors, start, end, lat, first_error in recv.recv():
            total.count += count
            total.errors += errors
            total.latencies.extend(lat)
            total.first_error = total.first_error or first_error
            starts.append(start)
            ends.append(end)
    for p in workers:
        p.join()
    total.elapsed = max(ends) - min(starts)
    return total


def create_objects(
    port: int,
    ctx_factory: Callable[[], ssl.SSLContext],
    n: int,
    *,
    procs: int = 2,
    threads: int = 16,
    size: int = 1024,
    prefix: str = "cm",
) -> int:
    """Create n ConfigMaps named {prefix}-{i:06} as fast as the server takes them; returns how many failed."""
    per_thread = -(-n // (procs * threads))
    barrier = FORK.Barrier(procs * threads)
    body_pad = "x" * size

    def worker(pi: int, out: Any) -> None:
        ctx = ctx_factory()
        failed = [0]

        def run(ti: int) -> None:
            conn = connect(port, ctx)
            barrier.wait()
            base = (pi * threads + ti) * per_thread
            for i in range(base, min(base + per_thread, n)):
                obj = {
                    "apiVersion": "v1",
                    "kind": "ConfigMap",
                    "metadata": {"name": f"{prefix}-{i:06}", "namespace": "default"},
                    "data": {"payload": body_pad},
                }
                status, _ = request(conn, "POST", CM_PATH, json.dumps(obj).encode(), JSON_HEADERS)
                if status != 201:
                    failed[0] += 1
            conn.close()

        ts = [threading.Thread(target=run, args=(ti,)) for ti in range(threads)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        out.send(failed[0])

    pipes, workers = [], []
    for pi in range(procs):
        recv, send = FORK.Pipe(duplex=False)
        p = FORK.Process(target=worker, args=(pi, send), daemon=True)
        p.start()
        send.close()
        pipes.append(recv)
        workers.append(p)
    failed = sum(r.recv() for r in pipes)
    for p in workers:
        p.join()
    return failed


def ratio_line(name: str, value: float, ceiling: float, target: str) -> str:
    return f"{name}: {value / ceiling * 100:.1f}% of the ceiling (target {target})"


def calls_per_second(fn: Callable[[], Any], seconds: float, batch: int = 100) -> float:
    """How many times fn runs per second on this core (after one warm-up call), in batches."""
    fn()
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(batch):
            fn()
        n += batch
    return n / (time.perf_counter() - start)


def print_profile(fn: Callable[[], Any], runs: int) -> None:
    """cProfile of fn run `runs` times, the 30 costliest functions by own time."""
    import cProfile
    import pstats

    prof = cProfile.Profile()
    prof.enable()
    for _ in range(runs):
        fn()
    prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(30)

"""Startup: `python -m kube_apiserver` on an empty data dir until /readyz says ok, and the idle RSS after that.

Targets: ready in <= 1.0 s (envtest's etcd + kube-apiserver take 2.0-2.6 s), idle RSS <= 120 MiB.
Floors measured in the same run: a bare `python -c pass`, and a bare uvicorn+httptools TLS app answering
"ok" (the same stack with nothing on it), started and polled the same way.

    python bench/startup.py [--runs 3] [--quick]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

from _common import free_port, median, readyz, rss_mib, start_server

BARE_SERVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_bare_server.py")


def bare_python() -> float:
    t0 = time.monotonic()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.monotonic() - t0


def bare_uvicorn(cert: str, key: str) -> tuple[float, float]:
    port = free_port()
    t0 = time.monotonic()
    proc = subprocess.Popen([sys.executable, BARE_SERVER, str(port), cert, key])
    try:
        while not readyz(port):
            if proc.poll() is not None:
                raise RuntimeError("bare uvicorn exited")
            time.sleep(0.005)
        ready = time.monotonic() - t0
        time.sleep(1.0)
        return ready, rss_mib(proc.pid)
    finally:
        proc.terminate()
        proc.wait()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--idle", type=float, default=2.0, help="seconds to wait after readiness before reading RSS")
    ap.add_argument("--quick", action="store_true", help="one run, short idle wait")
    args = ap.parse_args()
    if args.quick:
        args.runs, args.idle = 1, 0.5

    # `pip install .` byte-compiles the package, so a user's server starts from cached bytecode.
    # This checkout may run with PYTHONDONTWRITEBYTECODE (every start would compile all of it): one
    # start, not counted, fills a private cache that the measured starts read, as an installed copy's.
    pycache = tempfile.mkdtemp(prefix="bench-startup-pycache-")
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = pycache
    warm_dir = tempfile.mkdtemp(prefix="bench-startup-warm-")
    warm = start_server(warm_dir)  # fills the cache for the dependencies as well; not counted
    warm.stop()
    shutil.rmtree(warm_dir, ignore_errors=True)

    ready, rss = [], []
    certs_from = None
    for i in range(args.runs):
        data_dir = tempfile.mkdtemp(prefix="bench-startup-")
        server = start_server(data_dir, wait=False)
        try:
            t = server.wait_ready(interval=0.002)
            time.sleep(args.idle)
            r = rss_mib(server.pid)
            ready.append(t)
            rss.append(r)
            print(f"run {i + 1}: ready in {t:.3f} s, idle RSS {r:.1f} MiB")
            if certs_from is None:
                certs_from = tempfile.mkdtemp(prefix="bench-startup-pki-")
                for name in ("apiserver.crt", "apiserver.key"):
                    shutil.copy(os.path.join(data_dir, "pki", name), certs_from)
        finally:
            server.stop()
            shutil.rmtree(data_dir, ignore_errors=True)

    py = median([bare_python() for _ in range(3)])
    assert certs_from is not None
    bare = [
        bare_uvicorn(os.path.join(certs_from, "apiserver.crt"), os.path.join(certs_from, "apiserver.key"))
        for _ in range(min(args.runs, 3))
    ]
    shutil.rmtree(certs_from, ignore_errors=True)
    bare_ready = median([b[0] for b in bare])
    bare_rss = median([b[1] for b in bare])

    t, r = median(ready), median(rss)
    print()
    print(
        f"floor: python -c pass {py:.3f} s; bare uvicorn+httptools TLS app ready in {bare_ready:.3f} s, "
        f"idle RSS {bare_rss:.1f} MiB"
    )
    print(
        f"kube_apiserver (median of {len(ready)}): ready in {t:.3f} s (target <= 1.0 s, envtest 2.0-2.6 s), "
        f"{t / bare_ready:.1f}x the bare server; idle RSS {r:.1f} MiB (target <= 120 MiB), "
        f"{r / bare_rss:.1f}x the bare server"
    )
    print(
        f"verdict: startup {'OK' if t <= 1.0 else 'OVER'} ({t / 1.0 * 100:.0f}% of target), "
        f"RSS {'OK' if r <= 120 else 'OVER'} ({r / 120 * 100:.0f}% of target)"
    )


if __name__ == "__main__":
    main()

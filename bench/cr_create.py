"""Custom resource create throughput against ConfigMap create throughput, in the same run on the same server:
32 concurrent keep-alive HTTPS clients POSTing ~1 KiB objects for N seconds each, ConfigMaps and custom
resources of a CRD with a structural schema (defaults, an enum, a pattern, x-kubernetes-preserve-unknown-fields),
alternating twice so that drift (fsync speed, CPU boost) falls on both alike.
Target: custom resources >= 70% of ConfigMaps.

    python bench/cr_create.py [--seconds 5] [--clients 32] [--procs 2] [--quick] [--profile]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import tempfile
import time

from _common import CM_PATH, configmap, connect, cpu_seconds, http_load, pct, request, start_server

GROUP = "bench.example.com"
CR_PATH = f"/apis/{GROUP}/v1/namespaces/default/widgets"
CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": f"widgets.{GROUP}"},
    "spec": {
        "group": GROUP,
        "scope": "Namespaced",
        "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "shortNames": ["wdg"]},
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "subresources": {"status": {}},
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "properties": {
                            "spec": {
                                "type": "object",
                                "properties": {
                                    "payload": {"type": "string", "maxLength": 4096},
                                    "replicas": {"type": "integer", "minimum": 0, "default": 1},
                                    "color": {"type": "string", "enum": ["red", "blue"], "default": "red"},
                                    "image": {"type": "string", "pattern": "^[a-z0-9./:-]+$"},
                                    "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                                },
                            },
                            "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}},
                        },
                    }
                },
            }
        ],
    },
}


def widget(name: str, size: int = 1024) -> dict:
    return {
        "apiVersion": f"{GROUP}/v1",
        "kind": "Widget",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"payload": "x" * size, "image": "registry.example.com/app:1.0", "extra": {"a": 1}},
    }


def install_crd(port: int, ctx) -> float:  # noqa: ANN001
    """Create the CRD and wait until a custom resource is accepted; returns the seconds that took."""
    conn = connect(port, ctx)
    t0 = time.monotonic()
    status, body = request(
        conn, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json.dumps(CRD).encode()
    )
    if status != 201:
        raise RuntimeError(f"CRD create: {status} {body[:300]!r}")
    while True:
        status, body = request(conn, "POST", CR_PATH, json.dumps(widget("probe")).encode())
        if status == 201:
            break
        if time.monotonic() - t0 > 30:
            raise RuntimeError(f"custom resources not accepted after 30 s: {status} {body[:300]!r}")
        time.sleep(0.005)
    conn.close()
    return time.monotonic() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=5.0, help="per round and kind (two rounds each)")
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--procs", type=int, default=2, help="client processes (clients are split among them)")
    ap.add_argument("--quick", action="store_true", help="2 s per round")
    ap.add_argument("--profile", action="store_true", help="run the server under py-spy while custom resources load")
    args = ap.parse_args()
    if args.quick:
        args.seconds = 2.0

    data_dir = tempfile.mkdtemp(prefix="bench-cr-")
    server = start_server(data_dir)
    results: dict[str, list] = {"ConfigMap": [], "Widget": []}
    cpu: dict[str, float] = {"ConfigMap": 0.0, "Widget": 0.0}
    try:
        certs = server.load_certs()
        ready = install_crd(server.port, certs.client_context())
        threads = max(1, args.clients // args.procs)

        def maker(kind: str, run_id: str):
            def make(pi: int, ti: int, i: int):
                name = f"{kind.lower()}-{run_id}-{pi}-{ti}-{i}"
                if kind == "ConfigMap":
                    return "POST", CM_PATH, json.dumps(configmap(name)).encode(), 201
                return "POST", CR_PATH, json.dumps(widget(name)).encode(), 201

            return make

        for kind in results:  # warm up both paths
            http_load(
                server.port,
                certs.client_context,
                maker(kind, f"w{kind}"),
                procs=args.procs,
                threads=threads,
                duration=0.5,
            )
        for rnd in range(2):
            for kind in ("ConfigMap", "Widget") if rnd == 0 else ("Widget", "ConfigMap"):
                profiler = None
                if args.profile and kind == "Widget" and rnd == 0:
                    # collapsed stacks of the server while it creates custom resources (py-spy record -f raw)
                    profiler = subprocess.Popen(
                        ["py-spy", "record", "-f", "raw", "-o", "/tmp/cr_create.txt", "-p", str(server.pid)]
                        + ["-d", str(max(1, int(args.seconds)))],
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                    )
                cpu0 = cpu_seconds(server.pid)
                res = http_load(
                    server.port,
                    certs.client_context,
                    maker(kind, f"r{rnd}{time.time_ns() % 10**6}"),
                    procs=args.procs,
                    threads=threads,
                    duration=args.seconds,
                )
                cpu[kind] += cpu_seconds(server.pid) - cpu0
                results[kind].append(res)
                if profiler is not None:
                    profiler.wait()
                    print("py-spy: collapsed stacks of the custom resource round in /tmp/cr_create.txt")
    finally:
        server.stop()
        shutil.rmtree(data_dir, ignore_errors=True)

    rates = {}
    for kind, runs in results.items():
        count = sum(r.count for r in runs)
        elapsed = sum(r.elapsed for r in runs)
        errors = sum(r.errors for r in runs)
        lat = [x for r in runs for x in r.latencies]
        rates[kind] = count / elapsed
        first_error = next((r.first_error for r in runs if r.first_error), "")
        print(
            f"{kind:9}: {rates[kind]:,.0f} creates/s ({count} creates, {errors} errors{': ' + first_error if errors else ''}), "
            f"p50 {pct(lat, 50) * 1000:.1f} ms, p99 {pct(lat, 99) * 1000:.1f} ms, "
            f"server CPU {cpu[kind] / elapsed * 100:.0f}% of a core"
        )
    print(f"CRD created -> first custom resource accepted: {ready * 1000:.0f} ms")
    print(f"ratio: custom resources {rates['Widget'] / rates['ConfigMap'] * 100:.1f}% of ConfigMaps (target >= 70%)")


if __name__ == "__main__":
    main()

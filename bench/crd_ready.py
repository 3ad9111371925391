"""CRD created -> first custom resource accepted: how long a new CRD takes to serve, as an operator's
installer sees it (POST the CRD, then POST a custom resource until it is accepted, no sleeps longer than
5 ms), and the same up to Established=True and up to its kind in /openapi/v3 (kubectl explain).
Repeated for N fresh CRDs on one server, alongside a steady stream of ConfigMap creates
(--background client threads) so that the server is not idle.
Target: <= 1 s from the CRD's 201 to the first custom resource's 201 (p100 over the runs).

    python bench/crd_ready.py [--runs 20] [--background 4] [--quick]
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import threading
import time

from _common import CM_PATH, configmap, connect, median, pct, request, start_server

CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


def crd(group: str) -> dict:
    schema = {
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "properties": {"size": {"type": "integer", "default": 1}, "name": {"type": "string"}},
            }
        },
    }
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"gadgets.{group}"},
        "spec": {
            "group": group,
            "scope": "Namespaced",
            "names": {"plural": "gadgets", "kind": "Gadget"},
            "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": schema}}],
        },
    }


def one_run(conn, group: str) -> tuple[float, float, float]:  # noqa: ANN001
    """(seconds to the first CR accepted, to Established, to the kind in the v3 index) after the CRD's 201."""
    status, body = request(conn, "POST", CRDS, json.dumps(crd(group)).encode())
    if status != 201:
        raise RuntimeError(f"CRD create: {status} {body[:300]!r}")
    t0 = time.monotonic()
    cr = json.dumps(
        {"apiVersion": f"{group}/v1", "kind": "Gadget", "metadata": {"name": "first"}, "spec": {"name": "x"}}
    ).encode()
    accepted = established = published = 0.0
    while not (accepted and established and published):
        now = time.monotonic() - t0
        if now > 30:
            raise RuntimeError(f"{group}: not ready after 30 s (accepted {accepted}, established {established})")
        if not accepted:
            status, _ = request(conn, "POST", f"/apis/{group}/v1/namespaces/default/gadgets", cr)
            if status == 201:
                accepted = time.monotonic() - t0
        if not established:
            status, body = request(conn, "GET", f"{CRDS}/gadgets.{group}")
            conds = json.loads(body).get("status", {}).get("conditions") or [] if status == 200 else []
            if any(c.get("type") == "Established" and c.get("status") == "True" for c in conds):
                established = time.monotonic() - t0
        if not published:
            status, body = request(conn, "GET", "/openapi/v3")
            if status == 200 and f"apis/{group}/v1".encode() in body:
                published = time.monotonic() - t0
        if not (accepted and established and published):
            time.sleep(0.005)
    return accepted, established, published


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--background", type=int, default=4, help="clients creating ConfigMaps meanwhile (0: idle)")
    ap.add_argument("--quick", action="store_true", help="5 runs")
    args = ap.parse_args()
    if args.quick:
        args.runs = 5

    data_dir = tempfile.mkdtemp(prefix="bench-crd-ready-")
    server = start_server(data_dir)
    load: list[threading.Thread] = []
    try:
        certs = server.load_certs()
        stop = threading.Event()
        ctx = certs.client_context()

        def background(ti: int) -> None:
            c = connect(server.port, ctx)
            i = 0
            while not stop.is_set():
                request(c, "POST", CM_PATH, json.dumps(configmap(f"bg-{ti}-{i}")).encode())
                i += 1
            c.close()

        load = [threading.Thread(target=background, args=(ti,)) for ti in range(args.background)]
        for t in load:
            t.start()
        conn = connect(server.port, certs.client_context())
        results = [one_run(conn, f"r{i}-{time.time_ns() % 10**6}.example.com") for i in range(args.runs)]
        conn.close()
    finally:
        if load:
            stop.set()
            for t in load:
                t.join()
        server.stop()
        shutil.rmtree(data_dir, ignore_errors=True)

    for i, label in enumerate(("first custom resource accepted", "Established=True", "kind in /openapi/v3")):
        values = [r[i] * 1000 for r in results]
        print(
            f"CRD 201 -> {label}: median {median(values):.0f} ms, p90 {pct(values, 90):.0f} ms, "
            f"max {max(values):.0f} ms over {len(values)} CRDs"
        )
    worst = max(r[0] for r in results)
    print(
        f"target: first custom resource accepted <= 1000 ms: {'met' if worst <= 1.0 else 'NOT met'} "
        f"(worst {worst * 1000:.0f} ms, {args.background} background ConfigMap clients)"
    )


if __name__ == "__main__":
    main()

"""What API Priority and Fairness costs a request: GET one ConfigMap over keep-alive HTTPS connections
against two servers started alike, one with --enable-priority-and-fairness (the default) and one with
=false (the max-in-flight filter instead). Two users: the admin (client certificate, system:masters: the
exempt level) and a token user bound to the view ClusterRole (the global-default level: flow hashing,
shuffle sharding, a queue). Every round starts a fresh pair of servers, in alternating order; the ratio is
APF on / APF off, the median over rounds, by requests/s and by requests per server CPU-second (on 2 cores
the clients share the CPUs with the server, so the second is the steadier figure).

First, in process, the filter alone: the microseconds one pass through the priority-and-fairness filter
costs with the bootstrap configuration, against the max-in-flight filter, around a no-op handler.

    python bench/apf_overhead.py [--seconds 3] [--rounds 3] [--clients 8] [--procs 2] [--in-process-only]
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import ssl
import sys
import tempfile
from typing import Any

from _common import (
    CM_PATH,
    JSON_HEADERS,
    REPO,
    calls_per_second,
    configmap,
    connect,
    cpu_seconds,
    http_load,
    median,
    request,
    start_server,
)

TOKEN = "apf-bench-token"
RBAC_PATH = "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings"


def filter_costs(seconds: float) -> dict[str, float]:
    """Microseconds per request through each filter (a no-op handler behind it), in this process."""
    sys.path.insert(0, REPO)
    from kube_apiserver.apis.flowcontrol import bootstrap
    from kube_apiserver.authentication.user import UserInfo
    from kube_apiserver.endpoints.request_info import RequestInfo
    from kube_apiserver.server.filters.maxinflight import with_max_in_flight
    from kube_apiserver.server.filters.priority_and_fairness import with_priority_and_fairness
    from kube_apiserver.server.filters.recovery import ResponseState
    from kube_apiserver.server.flowcontrol.apf_filter import PriorityAndFairness

    apf = PriorityAndFairness(600, None, None)
    pls = bootstrap.mandatory_priority_levels() + bootstrap.suggested_priority_levels()
    fss = bootstrap.mandatory_flow_schemas() + bootstrap.suggested_flow_schemas()
    for i, obj in enumerate(pls + fss):
        obj["metadata"]["uid"] = f"{i:08d}-0000-4000-8000-000000000000"
    apf.controller.digest(pls, fss)

    async def noop(scope: Any, receive: Any, send: Any) -> None:
        pass

    info = RequestInfo(True, CM_PATH + "/x", "get", "api", "", "v1", "default", "configmaps", "", "x")
    admin = UserInfo("admin", groups=("system:masters", "system:authenticated"))
    user = UserInfo("bench-user", groups=("bench-group", "system:authenticated"))

    def cost(handler: Any, who: UserInfo) -> float:
        def one() -> None:
            scope = {"type": "http", "k8s.request_info": info, "k8s.user": who, "k8s.response": ResponseState()}
            coro = handler(scope, None, None)
            try:
                coro.send(None)  # nothing awaits for real: no loop round trip needed
            except StopIteration:
                pass

        return 1e6 / calls_per_second(one, seconds)

    base = cost(noop, admin)
    costs = {
        "max-in-flight": cost(with_max_in_flight(noop, 400, 200), admin) - base,
        "APF, exempt admin": cost(with_priority_and_fairness(noop, apf, 60.0), admin) - base,
        "APF, global-default user": cost(with_priority_and_fairness(noop, apf, 60.0), user) - base,
    }
    return costs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=3.0, help="load per server and round")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--procs", type=int, default=2)
    ap.add_argument("--in-process-only", action="store_true")
    args = ap.parse_args()
    threads = max(1, args.clients // args.procs)

    for name, us in filter_costs(min(args.seconds, 2.0)).items():
        print(f"in process, {name}: {us:.2f} us per request")
    if args.in_process_only:
        return

    tokens = tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False)  # noqa: SIM115 - removed below
    tokens.write(f"{TOKEN},bench-user,bench-uid,bench-group\n")
    tokens.close()
    modes = {
        "on": (f"--token-auth-file={tokens.name}",),
        "off": (f"--token-auth-file={tokens.name}", "--enable-priority-and-fairness=false"),
    }
    path = f"{CM_PATH}/bench-apf"

    def make(pi: int, ti: int, i: int) -> tuple[str, str, bytes | None, int]:
        return "GET", path, None, 200

    # (user, mode) -> per round (requests/s, requests per server CPU-second)
    results: dict[tuple[str, str], list[tuple[float, float]]] = {}
    try:
        for round_no in range(args.rounds):
            # fresh servers every round, started in turn: one process can be a few % faster than another
            # for reasons of its own (memory layout, hash seeds), which a single pair would read as APF's
            order = ["on", "off"] if round_no % 2 == 0 else ["off", "on"]
            servers = {mode: start_server(args=modes[mode]) for mode in order}
            try:
                for server in servers.values():
                    prepare(server, path)
                for user in ("admin", "token"):
                    for mode in order:
                        results.setdefault((user, mode), []).append(
                            measure(servers[mode], user, make, args.procs, threads, args.seconds)
                        )
            finally:
                for server in servers.values():
                    server.stop()
    finally:
        os.remove(tokens.name)

    print(f"GET {path}: {args.procs * threads} keep-alive connections, {args.rounds} rounds of {args.seconds:g} s")
    for user, level in (("admin", "exempt"), ("token", "global-default")):
        on, off = results[(user, "on")], results[(user, "off")]
        rate_ratio = median([a[0] / b[0] for a, b in zip(on, off, strict=True)])
        cpu_ratio = median([a[1] / b[1] for a, b in zip(on, off, strict=True)])
        print(
            f"{user} ({level}): APF on {median([r for r, _ in on]):,.0f} req/s "
            f"({median([e for _, e in on]):,.0f} per server CPU-s), off {median([r for r, _ in off]):,.0f} req/s "
            f"({median([e for _, e in off]):,.0f} per server CPU-s)"
        )
        print(f"  ratio on/off (median of rounds): {rate_ratio:.3f} by requests/s, {cpu_ratio:.3f} by server CPU")


def prepare(server: Any, path: str) -> None:
    """The ConfigMap to read, and the view role for the token user."""
    conn = connect(server.port, server.load_certs().client_context())
    status, _ = request(conn, "POST", CM_PATH, json.dumps(configmap(path.rsplit("/", 1)[1])).encode(), JSON_HEADERS)
    assert status == 201, status
    binding = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {"name": "apf-bench"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "bench-user"}],
    }
    status, _ = request(conn, "POST", RBAC_PATH, json.dumps(binding).encode(), JSON_HEADERS)
    assert status == 201, status
    conn.close()


def measure(server: Any, user: str, make: Any, procs: int, threads: int, seconds: float) -> tuple[float, float]:
    certs = server.load_certs()
    if user == "admin":
        factory = certs.client_context
    else:
        factory = functools.partial(token_context, certs.ca)
        # the load workers are forked per run and send JSON_HEADERS: the token goes there
        JSON_HEADERS["Authorization"] = f"Bearer {TOKEN}"
    try:
        http_load(server.port, factory, make, procs=procs, threads=threads, duration=0.3)
        cpu0 = cpu_seconds(server.pid)
        res = http_load(server.port, factory, make, procs=procs, threads=threads, duration=seconds)
        cpu = (cpu_seconds(server.pid) - cpu0) / res.elapsed
    finally:
        JSON_HEADERS.pop("Authorization", None)
    if res.errors:
        raise SystemExit(f"{user}: {res.errors} errors, first {res.first_error}")
    return res.rate, res.rate / cpu


def token_context(ca: str) -> ssl.SSLContext:
    ctx = ssl.create_default_context(cafile=ca)
    ctx.check_hostname = False
    return ctx


if __name__ == "__main__":
    main()

"""What API Priority and Fairness costs a request: GET one ConfigMap over keep-alive HTTPS connections
against two servers started alike, one with --enable-priority-and-fairness (the default) and one with
=false (the max-in-flight filter instead). Two users:
the admin (client certificate, system:masters: the exempt level) and a token user bound to the view
ClusterRole (the global-default level: flow hashing, shuffle sharding, a queue). The servers are measured alternately, several rounds;
the ratio is APF on / APF off, by requests/s and by requests per server CPU-second (on 2 cores the
clients share the CPUs with the server, so the second is the steadier figure).

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
    common = (f"--token-auth-file={tokens.name}",)
    servers = {
        "on": start_server(args=common),
        "off": start_server(args=(*common, "--enable-priority-and-fairness=false")),
    }
    path = f"{CM_PATH}/bench-apf"
    try:
        for server in servers.values():
            conn = connect(server.port, server.load_certs().client_context())
            status, _ = request(conn, "POST", CM_PATH, json.dumps(configmap("bench-apf")).encode(), JSON_HEADERS)
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

        def make(pi: int, ti: int, i: int) -> tuple[str, str, bytes | None, int]:
            return "GET", path, None, 200

        def token_context(ca: str) -> ssl.SSLContext:
            ctx = ssl.create_default_context(cafile=ca)
            ctx.check_hostname = False
            return ctx

        results: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for user in ("admin", "token"):
            # the load workers are forked per run and send JSON_HEADERS: the token goes there
            if user == "token":
                JSON_HEADERS["Authorization"] = f"Bearer {TOKEN}"
            for _ in range(args.rounds):
                for mode, server in servers.items():
                    certs = server.load_certs()
                    factory = certs.client_context if user == "admin" else functools.partial(token_context, certs.ca)
                    http_load(server.port, factory, make, procs=args.procs, threads=threads, duration=0.3)
                    cpu0 = cpu_seconds(server.pid)
                    res = http_load(
                        server.port, factory, make, procs=args.procs, threads=threads, duration=args.seconds
                    )
                    cpu = (cpu_seconds(server.pid) - cpu0) / res.elapsed
                    if res.errors:
                        raise SystemExit(f"{mode}/{user}: {res.errors} errors, first {res.first_error}")
                    results.setdefault((user, mode), []).append((res.rate, res.rate / cpu))
            JSON_HEADERS.pop("Authorization", None)
    finally:
        for server in servers.values():
            server.stop()
        os.remove(tokens.name)

    print(f"GET {path}: {args.procs * threads} keep-alive connections, {args.rounds} rounds of {args.seconds:g} s")
    for user, level in (("admin", "exempt"), ("token", "global-default")):
        on = results[(user, "on")]
        off = results[(user, "off")]
        rate_on, rate_off = median([r for r, _ in on]), median([r for r, _ in off])
        eff_on, eff_off = median([e for _, e in on]), median([e for _, e in off])
        print(
            f"{user} ({level}): APF on {rate_on:,.0f} req/s ({eff_on:,.0f} per server CPU-s), "
            f"off {rate_off:,.0f} req/s ({eff_off:,.0f} per server CPU-s)"
        )
        print(f"  ratio on/off: {rate_on / rate_off:.3f} by requests/s, {eff_on / eff_off:.3f} by server CPU")


if __name__ == "__main__":
    main()

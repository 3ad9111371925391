"""Decode + default + validate a 4 KiB Pod on one core, the path every create takes before storage:
JSON bytes → orjson → typed decoding against the 1.33 schema (unknown fields, types, canonical
quantities, fieldValidation) → the Scheme's defaulters → prepare_for_create → defaulting again, of what
prepare reset (the Store's create does: kube re-defaults what it decodes from storage) → the Pod strategy's
validation → its warnings. Target: >= 5,000 pods/s. The ceiling printed beside it is orjson.loads
of the same bytes, same run; the per-stage times come from a separate, instrumented run.

    python bench/decode_pod.py [--seconds 3] [--quick] [--profile]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import orjson

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from _common import calls_per_second, print_profile  # noqa: E402

from kube_apiserver.apis import builtin_resources  # noqa: E402
from kube_apiserver.apis.core.pod_strategy import PodStrategy  # noqa: E402
from kube_apiserver.apis.scheme import build_scheme  # noqa: E402
from kube_apiserver.runtime.schema.structural import decode_check, schema_for_kind  # noqa: E402
from kube_apiserver.runtime.serializer import may_have_duplicates  # noqa: E402


def pod_of_4kib() -> bytes:
    containers = []
    for i in range(3):
        containers.append(
            {
                "name": f"app-{i}",
                "image": f"registry.example.com/team/app-{i}:1.{i}.0",
                "args": ["--port=8080", "--log-level=info"],
                "ports": [{"name": "http", "containerPort": 8080 + i, "protocol": "TCP"}],
                "env": [{"name": f"SETTING_{j}", "value": f"value-{j}-" + "x" * 16} for j in range(6)],
                "resources": {
                    "requests": {"cpu": "100m", "memory": "128Mi"},
                    "limits": {"cpu": "1", "memory": "256Mi"},
                },
                "volumeMounts": [{"name": "data", "mountPath": "/data"}, {"name": "config", "mountPath": "/etc/app"}],
                "readinessProbe": {"httpGet": {"path": "/healthz", "port": 8080 + i}, "periodSeconds": 5},
            }
        )
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "bench-pod",
            "namespace": "default",
            "labels": {"app": "bench", "tier": "backend", "release": "stable"},
            "annotations": {"example.com/owner": "team-a", "example.com/description": "d" * 200},
        },
        "spec": {
            "containers": containers,
            "volumes": [{"name": "data", "emptyDir": {}}, {"name": "config", "configMap": {"name": "app-config"}}],
            "nodeSelector": {"kubernetes.io/os": "linux"},
            "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "backend", "effect": "NoSchedule"}],
        },
    }
    data = orjson.dumps(pod)
    while len(data) < 4096:
        pod["metadata"]["annotations"]["example.com/padding"] = "p" * (4096 - len(data) + 40)
        data = orjson.dumps(pod)
    return data


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--quick", action="store_true", help="1 s per measurement")
    ap.add_argument("--profile", action="store_true", help="cProfile the full path instead (top 30 by tottime)")
    args = ap.parse_args()
    seconds = 1.0 if args.quick else args.seconds

    data = pod_of_4kib()
    spec = next(s for s in builtin_resources() if s.group == "" and s.resource == "pods")
    strategy = PodStrategy(spec, build_scheme())
    node = schema_for_kind("", "v1", "Pod")
    assert node is not None

    def full() -> None:
        obj = orjson.loads(data)
        report = decode_check(obj, node)
        assert not report.type_error and not report.unknown
        may_have_duplicates(data, report.keys)
        strategy.default(obj)
        strategy.prepare_for_create(obj)
        strategy.default_status(obj)
        causes = strategy.validate(obj)
        assert not causes, causes
        strategy.warnings(obj, None)

    stage_names = ("decode", "default", "prepare+default", "validate", "warnings")

    def staged(totals: list[float]) -> None:
        clock = time.perf_counter
        t0 = clock()
        obj = orjson.loads(data)
        report = decode_check(obj, node)
        may_have_duplicates(data, report.keys)
        t1 = clock()
        strategy.default(obj)
        t2 = clock()
        strategy.prepare_for_create(obj)
        strategy.default_status(obj)
        t3 = clock()
        strategy.validate(obj)
        t4 = clock()
        strategy.warnings(obj, None)
        t5 = clock()
        for i, dt in enumerate((t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, 1)):
            totals[i] += dt  # the last slot counts the runs

    if args.profile:
        print_profile(full, 2000)
        return

    def ceiling() -> None:
        orjson.loads(data)

    def rate(fn) -> float:  # noqa: ANN001
        return calls_per_second(fn, seconds, 100)

    ours = rate(full)
    base = rate(ceiling)
    totals = [0.0] * (len(stage_names) + 1)
    rate(lambda: staged(totals))
    n_staged = totals[-1]
    print(f"pod body: {len(data)} bytes")
    print(
        "per stage (us): "
        + ", ".join(f"{k} {1e6 * t / n_staged:.0f}" for k, t in zip(stage_names, totals, strict=False))
    )
    print(f"decode+default+validate: {ours:,.0f} pods/s ({1e6 / ours:.0f} us each); target >= 5,000/s")
    print(f"ceiling orjson.loads:    {base:,.0f} pods/s; ratio {ours / base:.3f}")
    print("PASS" if ours >= 5000 else "MISS")


if __name__ == "__main__":
    main()

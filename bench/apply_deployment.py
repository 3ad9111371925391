"""Server-side apply of a Deployment on one core, the work a PATCH with application/apply-patch+yaml
does between storage and the write: the applied configuration (JSON, as kubectl sends it) → the
live object from the stored bytes → the field manager's apply (typed merge against the 1.33
schema, ownership and conflicts, pruning, managedFields) → typed decoding of the result → the
Deployment's defaulting, prepare_for_update and validation → orjson. Each apply changes the
image of one container, so every run updates managedFields. Target: >= 500 applies/s. The ceiling
printed beside it is an orjson round trip (loads + dumps) of the same Deployment, same run.

    python bench/apply_deployment.py [--seconds 3] [--quick] [--profile]
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

import orjson

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from _common import calls_per_second, print_profile  # noqa: E402

from kube_apiserver.apis import builtin_resources  # noqa: E402
from kube_apiserver.apis.scheme import build_scheme  # noqa: E402
from kube_apiserver.endpoints.handlers.apply import fresh_copy  # noqa: E402
from kube_apiserver.registry.fieldmanager import field_manager_for  # noqa: E402
from kube_apiserver.registry.fieldmanager.hook import ignore_managed_fields_timestamps  # noqa: E402
from kube_apiserver.registry.strategy import RESTStrategy  # noqa: E402
from kube_apiserver.runtime.schema.structural import decode_check, schema_for_kind  # noqa: E402


def _container(i: int, tag: str) -> dict[str, Any]:
    return {
        "name": f"app-{i}",
        "image": f"registry.example.com/team/app-{i}:{tag}",
        "args": ["--port=8080", "--log-level=info"],
        "ports": [{"name": "http", "containerPort": 8080 + i}],
        "env": [{"name": f"SETTING_{j}", "value": f"value-{j}"} for j in range(4)],
        "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"memory": "256Mi"}},
        "readinessProbe": {"httpGet": {"path": "/healthz", "port": 8080 + i}, "periodSeconds": 5},
    }


def applied_config(tag: str) -> bytes:
    """What `kubectl apply --server-side` sends for a two-container Deployment."""
    return orjson.dumps(
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web", "tier": "frontend"}},
            "spec": {
                "replicas": 3,
                "selector": {"matchLabels": {"app": "web"}},
                "template": {
                    "metadata": {"labels": {"app": "web", "tier": "frontend"}},
                    "spec": {"containers": [_container(0, tag), _container(1, "1.0")]},
                },
            },
        }
    )


class ApplyPath:
    """The steps of apply_patch_resource and the Store's patch, without HTTP and storage."""

    def __init__(self) -> None:
        spec = next(s for s in builtin_resources() if s.group == "apps" and s.resource == "deployments")
        self.strategy = RESTStrategy(spec, build_scheme())
        self.fm = field_manager_for("apps/v1", "Deployment", has_status=True)
        node = schema_for_kind("apps", "v1", "Deployment")
        assert node is not None
        self.node = node
        created = self.apply(None, applied_config("1.0"))
        meta = created["metadata"]
        meta.update(uid="3f1c7d2e-3b1a-4f8e-9d2c-5a6b7c8d9e0f", resourceVersion="100")
        meta["creationTimestamp"] = "2025-01-01T00:00:00Z"
        self.strategy.prepare_for_create(created)
        self.stored = orjson.dumps(created)

    def apply(self, live: dict[str, Any] | None, body: bytes) -> dict[str, Any]:
        patch = orjson.loads(body)
        obj = self.fm.apply(live, fresh_copy(patch), "kubectl", False)
        decode_check(obj, self.node)
        self.strategy.default(obj)
        return obj

    def update(self, body: bytes) -> bytes:
        old = orjson.loads(self.stored)
        new = self.apply(orjson.loads(self.stored), body)
        self.strategy.prepare_for_update(new, old)
        causes = self.strategy.validate(new) + self.strategy.validate_update(new, old)
        assert not causes, causes
        ignore_managed_fields_timestamps(new, old)
        return orjson.dumps(new)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--quick", action="store_true", help="1 s per measurement")
    ap.add_argument("--profile", action="store_true", help="cProfile the apply instead (top 30 by tottime)")
    args = ap.parse_args()
    seconds = 1.0 if args.quick else args.seconds

    path = ApplyPath()
    bodies = [applied_config("1.1"), applied_config("1.2")]
    out = orjson.loads(path.update(bodies[0]))
    entries = out["metadata"]["managedFields"]
    assert [e["manager"] for e in entries] == ["kubectl"], entries
    assert out["spec"]["template"]["spec"]["containers"][0]["image"].endswith(":1.1")
    counter = [0]

    def one() -> None:
        counter[0] += 1
        path.update(bodies[counter[0] & 1])

    if args.profile:
        print_profile(one, 1000)
        return

    def ceiling() -> None:
        orjson.dumps(orjson.loads(path.stored))

    def rate(fn) -> float:  # noqa: ANN001
        return calls_per_second(fn, seconds, 20)

    ours = rate(one)
    base = rate(ceiling)
    print(f"deployment: {len(path.stored)} bytes stored, applied config {len(bodies[0])} bytes")
    print(f"server-side apply: {ours:,.0f} applies/s ({1e6 / ours:.0f} us each); target >= 500/s")
    print(f"ceiling orjson round trip: {base:,.0f}/s; ratio {ours / base:.4f}")
    print("PASS" if ours >= 500 else "MISS")


if __name__ == "__main__":
    main()

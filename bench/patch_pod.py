"""Strategic merge patch of a 10 KiB Pod on one core, the work a PATCH does between storage and the
write: the stored bytes → orjson → the patch body → orjson → strategic merge patch against the Pod's
1.33 schema → orjson. The patch is what `kubectl apply` sends after editing a manifest: a label, an
image, an env var added to one container and removed from another, with the $setElementOrder lists
kubectl adds. Target: >= 2,000 patches/s. The ceiling printed beside it is an orjson round trip
(loads + dumps) of the same Pod, same run.

    python bench/patch_pod.py [--seconds 3] [--quick] [--profile]
"""

from __future__ import annotations

import argparse
import os
import sys

import orjson

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from _common import calls_per_second, print_profile  # noqa: E402

from kube_apiserver.runtime.strategicpatch import strategic_merge_patch  # noqa: E402


def _container(i: int) -> dict:
    return {
        "name": f"app-{i}",
        "image": f"registry.example.com/team/app-{i}:1.{i}.0",
        "args": ["--port=8080", "--log-level=info"],
        "ports": [{"name": "http", "containerPort": 8080 + i, "protocol": "TCP"}],
        "env": [{"name": f"SETTING_{j}", "value": f"value-{j}-" + "x" * 16} for j in range(8)],
        "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"cpu": "1", "memory": "256Mi"}},
        "volumeMounts": [{"name": "data", "mountPath": "/data"}, {"name": "config", "mountPath": "/etc/app"}],
        "readinessProbe": {
            "httpGet": {"path": "/healthz", "port": 8080 + i, "scheme": "HTTP"},
            "periodSeconds": 5,
            "timeoutSeconds": 1,
            "successThreshold": 1,
            "failureThreshold": 3,
        },
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
        "imagePullPolicy": "IfNotPresent",
    }


def pod_of_10kib() -> bytes:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "bench-pod",
            "namespace": "default",
            "uid": "6f1c7d2e-3b1a-4f8e-9d2c-5a6b7c8d9e0f",
            "resourceVersion": "12345",
            "creationTimestamp": "2025-01-01T00:00:00Z",
            "labels": {"app": "bench", "tier": "backend", "release": "stable"},
            "annotations": {"example.com/owner": "team-a", "example.com/description": "d" * 200},
        },
        "spec": {
            "containers": [_container(i) for i in range(4)],
            "volumes": [{"name": "data", "emptyDir": {}}, {"name": "config", "configMap": {"name": "app-config"}}],
            "nodeSelector": {"kubernetes.io/os": "linux"},
            "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "backend", "effect": "NoSchedule"}],
            "restartPolicy": "Always",
            "terminationGracePeriodSeconds": 30,
            "dnsPolicy": "ClusterFirst",
            "serviceAccountName": "default",
            "securityContext": {},
            "schedulerName": "default-scheduler",
        },
        "status": {"phase": "Pending", "qosClass": "Burstable"},
    }
    data = orjson.dumps(pod)
    while len(data) < 10 * 1024:
        pod["metadata"]["annotations"]["example.com/padding"] = "p" * (10 * 1024 - len(data) + 40)
        data = orjson.dumps(pod)
    return data


def apply_patch() -> bytes:
    """A three-way patch as kubectl apply computes it for an edited manifest."""
    names = [{"name": f"app-{i}"} for i in range(4)]
    env_1 = [{"name": f"SETTING_{j}"} for j in range(8)] + [{"name": "NEW_SETTING"}]
    env_2 = [{"name": f"SETTING_{j}"} for j in range(8) if j != 3]
    patch = {
        "metadata": {
            "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{...}" * 40},
            "labels": {"release": "canary", "track": "beta"},
        },
        "spec": {
            "$setElementOrder/containers": names,
            "containers": [
                {"$setElementOrder/env": env_1, "env": [{"name": "NEW_SETTING", "value": "on"}], "name": "app-1"},
                {
                    "$setElementOrder/env": env_2,
                    "env": [{"$patch": "delete", "name": "SETTING_3"}],
                    "image": "registry.example.com/team/app-2:1.3.0",
                    "name": "app-2",
                },
            ],
        },
    }
    return orjson.dumps(patch)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--quick", action="store_true", help="1 s per measurement")
    ap.add_argument("--profile", action="store_true", help="cProfile the patch instead (top 30 by tottime)")
    args = ap.parse_args()
    seconds = 1.0 if args.quick else args.seconds

    stored = pod_of_10kib()
    patch_body = apply_patch()

    def full() -> bytes:
        result = strategic_merge_patch(orjson.loads(stored), orjson.loads(patch_body), "", "v1", "Pod")
        return orjson.dumps(result)

    out = orjson.loads(full())
    app_2 = out["spec"]["containers"][2]
    assert app_2["image"].endswith(":1.3.0") and len(app_2["env"]) == 7, app_2
    assert out["spec"]["containers"][1]["env"][-1] == {"name": "NEW_SETTING", "value": "on"}
    assert out["metadata"]["labels"]["release"] == "canary"

    if args.profile:
        print_profile(full, 5000)
        return

    def ceiling() -> bytes:
        return orjson.dumps(orjson.loads(stored))

    def rate(fn) -> float:  # noqa: ANN001
        return calls_per_second(fn, seconds, 100)

    ours = rate(full)
    base = rate(ceiling)
    print(f"pod: {len(stored)} bytes, patch: {len(patch_body)} bytes")
    print(f"strategic merge patch: {ours:,.0f} patches/s ({1e6 / ours:.0f} us each); target >= 2,000/s")
    print(f"ceiling orjson round trip: {base:,.0f}/s; ratio {ours / base:.3f}")
    print("PASS" if ours >= 2000 else "MISS")


if __name__ == "__main__":
    main()

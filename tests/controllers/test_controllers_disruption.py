"""The disruption controller's arithmetic: scaled values, healthy pods and the evictions still awaited."""

from __future__ import annotations

import time

import pytest

from kube_apiserver.controllers.disruption import (
    DELETION_TIMEOUT,
    DisruptionController,
    _SyncError,
    count_healthy_pods,
    scaled_value,
)


def rfc3339(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def ready(name: str, ok: bool = True, deleting: bool = False) -> dict:
    meta: dict = {"name": name}
    if deleting:
        meta["deletionTimestamp"] = rfc3339(time.time())
    return {"metadata": meta, "status": {"conditions": [{"type": "Ready", "status": "True" if ok else "False"}]}}


def test_scaled_value_rounds_percentages_up():
    assert scaled_value(3, 10) == 3
    assert scaled_value("30%", 5) == 2
    assert scaled_value("50%", 5) == 3
    assert scaled_value("0%", 7) == 0
    assert scaled_value("100%", 0) == 0
    with pytest.raises(_SyncError, match="string is not a percentage"):
        scaled_value("3", 5)
    with pytest.raises(_SyncError, match='invalid value "x%"'):
        scaled_value("x%", 5)


def test_disrupted_pods_expire_and_skip_terminating():
    now = time.time()
    pods = [ready("fresh"), ready("old"), ready("gone", deleting=True), ready("other")]
    pdb = {
        "status": {
            "disruptedPods": {
                "fresh": rfc3339(now - 10),
                "old": rfc3339(now - DELETION_TIMEOUT - 10),
                "gone": rfc3339(now - 10),
                "absent": rfc3339(now - 10),
            }
        }
    }
    disrupted, recheck = DisruptionController.build_disrupted_pod_map(pods, pdb, now)
    assert list(disrupted) == ["fresh"]
    assert recheck is not None and abs(recheck - (now - 10 + DELETION_TIMEOUT)) < 1.5
    assert count_healthy_pods(pods, disrupted, now) == 2  # old and other: fresh is awaited, gone terminating


def test_healthy_means_ready():
    now = time.time()
    assert count_healthy_pods([ready("a"), ready("b", ok=False), {"metadata": {"name": "c"}}], {}, now) == 1

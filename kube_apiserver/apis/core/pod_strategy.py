"""Pod strategy: graceful deletion (a pod never scheduled, or finished, goes at once)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.registry.strategy import RESTStrategy

DEFAULT_GRACE_PERIOD = 30


class PodStrategy(RESTStrategy):
    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        obj["status"] = {"phase": "Pending", "qosClass": _qos_class(obj)}
        (obj.get("metadata") or {}).pop("generation", None)

    def check_graceful_delete(self, obj: dict[str, Any], grace_period: int | None) -> int | None:
        spec = obj.get("spec") or {}
        phase = (obj.get("status") or {}).get("phase")
        if not spec.get("nodeName") or phase in ("Succeeded", "Failed"):
            return None
        if grace_period is None:
            grace_period = spec.get("terminationGracePeriodSeconds", DEFAULT_GRACE_PERIOD)
        return grace_period or None


def _qos_class(pod: dict[str, Any]) -> str:
    """core/helper/qos.GetPodQOS, simplified to what requests and limits say."""
    spec = pod.get("spec") or {}
    containers = [*(spec.get("containers") or []), *(spec.get("initContainers") or [])]
    requests_any = limits_any = False
    guaranteed = bool(containers)
    for c in containers:
        res = (c or {}).get("resources") or {}
        req, lim = res.get("requests") or {}, res.get("limits") or {}
        requests_any |= bool(req)
        limits_any |= bool(lim)
        if not (lim.get("cpu") and lim.get("memory")) or any(req.get(k, lim[k]) != lim[k] for k in ("cpu", "memory")):
            guaranteed = False
    if not requests_any and not limits_any:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"

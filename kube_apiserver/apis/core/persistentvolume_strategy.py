"""PersistentVolume strategy (registry/core/persistentvolume): a new volume is Pending since now, and a
write through /status that changes the phase records when (status.lastPhaseTransitionTime, GA in 1.31)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.registry.strategy import RESTStrategy
from kube_apiserver.runtime import meta as metautil


class PersistentVolumeStrategy(RESTStrategy):
    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)  # the status reset
        obj["status"] = {"phase": "Pending", "lastPhaseTransitionTime": metautil.now_rfc3339()}

    def prepare_for_status_update(self, new: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
        out = super().prepare_for_status_update(new, old)
        status = out.get("status") if isinstance(out.get("status"), dict) else None
        old_status = old.get("status") if isinstance(old.get("status"), dict) else {}
        if status is None:
            return out
        given = status.get("lastPhaseTransitionTime")
        if status.get("phase") == old_status.get("phase"):
            if given is None and "lastPhaseTransitionTime" in old_status:
                # the phase stays: so does the time it was reached
                status["lastPhaseTransitionTime"] = old_status["lastPhaseTransitionTime"]
        elif given is None or given == old_status.get("lastPhaseTransitionTime"):
            # a new phase, and the client left the time alone: now
            status["lastPhaseTransitionTime"] = metautil.now_rfc3339()
        return out

"""Pod strategy: graceful deletion (a pod never scheduled, or finished, goes at once), the generation."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.core.validation import apparmor
from kube_apiserver.registry.strategy import RESTStrategy

DEFAULT_GRACE_PERIOD = 30


class PodStrategy(RESTStrategy):
    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        status: dict[str, Any] = {"phase": "Pending"}
        if (obj.get("spec") or {}).get("schedulingGates"):
            # applySchedulingGatedCondition: a gated pod says why it waits (kubectl shows SchedulingGated)
            status["conditions"] = [
                {
                    "type": "PodScheduled",
                    "status": "False",
                    "lastProbeTime": None,
                    "lastTransitionTime": None,
                    "reason": "SchedulingGated",
                    "message": "Scheduling is blocked due to non-empty scheduling gates",
                }
            ]
        status["qosClass"] = qos_class(obj)  # (PodStatus field order: phase, conditions, ..., qosClass)
        obj["status"] = status
        mutate_pod_affinity(obj)
        apparmor.sync_annotations_and_fields(obj)
        # metadata.generation is 1 (set by the base strategy) and moves with the spec: since 1.33, ungated
        # (KEP-5067), so controllers and the kubelet can tell which spec a status answers

    def check_graceful_delete(self, obj: dict[str, Any], grace_period: int | None) -> int | None:
        """CheckGracefulDelete: a pod always goes gracefully, after the period the options give, else its
        terminationGracePeriodSeconds; one never scheduled or already finished after 0 s (marked, then removed
        at once); a negative period is 1 s."""
        spec = obj.get("spec") or {}
        phase = (obj.get("status") or {}).get("phase")
        if grace_period is None:
            grace_period = spec.get("terminationGracePeriodSeconds", DEFAULT_GRACE_PERIOD)
        if not isinstance(grace_period, int) or not spec.get("nodeName") or phase in ("Succeeded", "Failed"):
            grace_period = 0
        return 1 if grace_period < 0 else grace_period


def mutate_pod_affinity(pod: dict[str, Any]) -> None:
    """mutatePodAffinity (MatchLabelKeysInPodAffinity, on in 1.33): each pod (anti-)affinity term's
    matchLabelKeys and mismatchLabelKeys become In / NotIn requirements on the pod's own label values, added
    to the term's labelSelector (a term without a selector matches nothing and is left alone)."""
    spec = pod.get("spec")
    affinity = spec.get("affinity") if isinstance(spec, dict) else None
    if not isinstance(affinity, dict):
        return
    labels = (pod.get("metadata") or {}).get("labels") or {}
    for kind in ("podAffinity", "podAntiAffinity"):
        section = affinity.get(kind)
        if not isinstance(section, dict):
            continue
        terms = [
            weighted.get("podAffinityTerm")
            for weighted in section.get("preferredDuringSchedulingIgnoredDuringExecution") or []
            if isinstance(weighted, dict)
        ]
        terms += list(section.get("requiredDuringSchedulingIgnoredDuringExecution") or [])
        for term in terms:
            if isinstance(term, dict):
                _apply_label_keys(term, labels)


def _apply_label_keys(term: dict[str, Any], labels: dict[str, Any]) -> None:
    selector = term.get("labelSelector")
    if not isinstance(selector, dict) or not (term.get("matchLabelKeys") or term.get("mismatchLabelKeys")):
        return
    added = []
    for field, operator in (("matchLabelKeys", "In"), ("mismatchLabelKeys", "NotIn")):
        for key in term.get(field) or []:
            if isinstance(key, str) and key in labels:
                added.append({"key": key, "operator": operator, "values": [labels[key]]})
    if added:
        selector["matchExpressions"] = [*(selector.get("matchExpressions") or []), *added]


def qos_class(pod: dict[str, Any]) -> str:
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

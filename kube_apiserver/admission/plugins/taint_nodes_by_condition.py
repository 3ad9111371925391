"""TaintNodesByCondition admission (plugin/pkg/admission/nodetaint): a new Node gets the
node.kubernetes.io/not-ready:NoSchedule taint, so nothing is scheduled to it before its kubelet reports
it ready (the node lifecycle controller then takes the taint away)."""

from __future__ import annotations

from typing import Any

NOT_READY_TAINT = {"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}


def admit(node: dict[str, Any], old: dict[str, Any] | None) -> None:
    """On create of a Node."""
    if old is not None:
        return
    spec = node.get("spec")
    if spec is None:
        spec = node["spec"] = {}
    if not isinstance(spec, dict):
        return
    taints = spec.get("taints")
    if taints is None:
        taints = []
    elif not isinstance(taints, list):
        return
    # Taint.MatchTaint: the same key and effect
    if not any(
        isinstance(t, dict) and t.get("key") == NOT_READY_TAINT["key"] and t.get("effect") == "NoSchedule"
        for t in taints
    ):
        spec["taints"] = taints + [dict(NOT_READY_TAINT)]

"""DefaultTolerationSeconds admission (plugin/pkg/admission/defaulttolerationseconds): a pod that does not
tolerate the not-ready and unreachable NoExecute taints gets tolerations of them for
--default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds (300 s each), so a
node's failure evicts it after that long rather than at once."""

from __future__ import annotations

from typing import Any

NOT_READY = "node.kubernetes.io/not-ready"
UNREACHABLE = "node.kubernetes.io/unreachable"
DEFAULT_SECONDS = 300


def _tolerates(tolerations: list[Any], key: str) -> bool:
    """Some toleration covers the NoExecute taint key (an empty key or effect matches any)."""
    return any(
        isinstance(t, dict) and t.get("key", "") in (key, "") and t.get("effect", "") in ("NoExecute", "")
        for t in tolerations
    )


class DefaultTolerationSeconds:
    def __init__(self, not_ready_seconds: int = DEFAULT_SECONDS, unreachable_seconds: int = DEFAULT_SECONDS) -> None:
        self.seconds = {NOT_READY: not_ready_seconds, UNREACHABLE: unreachable_seconds}

    def admit(self, pod: dict[str, Any], old: dict[str, Any] | None) -> None:
        """On create and update of a pod."""
        spec = pod.get("spec")
        if not isinstance(spec, dict):
            return
        tolerations = spec.get("tolerations")
        if tolerations is None:
            tolerations = []
        elif not isinstance(tolerations, list):
            return  # validation says what is wrong with it
        added = [
            {"key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": seconds}
            for key, seconds in self.seconds.items()
            if not _tolerates(tolerations, key)
        ]
        if added:
            spec["tolerations"] = tolerations + added

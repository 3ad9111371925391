"""scheduling.k8s.io/v1 defaults (pkg/apis/scheduling/v1/defaults.go)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.core.defaults.fields import default


def set_object_defaults_priority_class(obj: dict[str, Any]) -> None:
    default(obj, "preemptionPolicy", "PreemptLowerPriority")


DEFAULTERS = {
    ("v1", "PriorityClass"): set_object_defaults_priority_class,
}

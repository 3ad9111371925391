"""autoscaling/v1 and v2 HorizontalPodAutoscaler defaults (pkg/apis/autoscaling/v1 and v2 defaults.go)."""

from __future__ import annotations

import copy
from typing import Any

from kube_apiserver.apis.core.defaults.fields import child, default, spec_of

DEFAULT_CPU_UTILIZATION = 80

# The behavior HPAs had before it was configurable: scale up by 4 pods or 100% every 15s at once, scale
# down by 100% every 15s; no scale-down stabilization window of its own (the controller's flag applies).
_SCALE_UP_RULES: dict[str, Any] = {
    "stabilizationWindowSeconds": 0,
    "selectPolicy": "Max",
    "policies": [
        {"type": "Pods", "value": 4, "periodSeconds": 15},
        {"type": "Percent", "value": 100, "periodSeconds": 15},
    ],
}
_SCALE_DOWN_RULES: dict[str, Any] = {
    "selectPolicy": "Max",
    "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}],
}
_RULE_FIELDS = ("selectPolicy", "stabilizationWindowSeconds", "policies", "tolerance")


def set_object_defaults_hpa_v1(obj: dict[str, Any]) -> None:
    spec = spec_of(obj)
    if spec is None:
        return
    # The 80% CPU target of a v1 HPA without one is not a default but the conversion to v2
    # (apis/autoscaling/conversion.py).
    default(spec, "minReplicas", 1)


def set_object_defaults_hpa_v2(obj: dict[str, Any]) -> None:
    spec = spec_of(obj)
    if spec is None:
        return
    default(spec, "minReplicas", 1)
    if not spec.get("metrics"):
        spec["metrics"] = [
            {
                "type": "Resource",
                "resource": {
                    "name": "cpu",
                    "target": {"type": "Utilization", "averageUtilization": DEFAULT_CPU_UTILIZATION},
                },
            }
        ]
    behavior = child(spec, "behavior")
    if behavior is not None:
        behavior["scaleUp"] = generate_scaling_rules(behavior.get("scaleUp"), _SCALE_UP_RULES)
        behavior["scaleDown"] = generate_scaling_rules(behavior.get("scaleDown"), _SCALE_DOWN_RULES)


def generate_scaling_rules(rules: Any, defaults: dict[str, Any]) -> Any:
    """The default rules with every field the given rules set (non-null) taken from them."""
    out = copy.deepcopy(defaults)
    if rules is None:
        return out
    if not isinstance(rules, dict):
        return rules  # a type error the schema layer reports
    for key in _RULE_FIELDS:
        if rules.get(key) is not None:
            out[key] = rules[key]
    # fields this version does not know are kept for the schema layer to judge
    for key, value in rules.items():
        if key not in _RULE_FIELDS:
            out[key] = value
    return out


DEFAULTERS = {
    ("v1", "HorizontalPodAutoscaler"): set_object_defaults_hpa_v1,
    ("v2", "HorizontalPodAutoscaler"): set_object_defaults_hpa_v2,
}

"""flowcontrol.apiserver.k8s.io/v1 defaults (pkg/apis/flowcontrol/v1/defaults.go)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.core.defaults.fields import child, default, default_zero

FLOW_SCHEMA_DEFAULT_MATCHING_PRECEDENCE = 1000
DEFAULT_HAND_SIZE = 8
DEFAULT_QUEUES = 64
DEFAULT_QUEUE_LENGTH_LIMIT = 50
DEFAULT_NOMINAL_CONCURRENCY_SHARES = 30


def set_object_defaults_flow_schema(obj: dict[str, Any]) -> None:
    spec = child(obj, "spec", create=True)
    if spec is not None:
        default_zero(spec, "matchingPrecedence", FLOW_SCHEMA_DEFAULT_MATCHING_PRECEDENCE)


def set_object_defaults_priority_level_configuration(obj: dict[str, Any]) -> None:
    spec = child(obj, "spec")
    limited = child(spec, "limited")
    if limited is not None:
        # a pointer in v1: an explicit 0 (a "jail" level) is kept
        default(limited, "nominalConcurrencyShares", DEFAULT_NOMINAL_CONCURRENCY_SHARES)
        default(limited, "lendablePercent", 0)
        queuing = child(child(limited, "limitResponse"), "queuing")
        if queuing is not None:
            default_zero(queuing, "handSize", DEFAULT_HAND_SIZE)
            default_zero(queuing, "queues", DEFAULT_QUEUES)
            default_zero(queuing, "queueLengthLimit", DEFAULT_QUEUE_LENGTH_LIMIT)
    exempt = child(spec, "exempt")
    if exempt is not None:
        default(exempt, "nominalConcurrencyShares", 0)
        default(exempt, "lendablePercent", 0)


DEFAULTERS = {
    ("v1", "FlowSchema"): set_object_defaults_flow_schema,
    ("v1", "PriorityLevelConfiguration"): set_object_defaults_priority_level_configuration,
}

"""Printers for flowcontrol.apiserver.k8s.io/v1 (printers.go printFlowSchema, printPriorityLevelConfiguration)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.printing import AGE_COLUMN, NAME_COLUMN, age, col, d, dicts, get, name, num, text
from kube_apiserver.registry.resource_spec import TablePrinter


def flow_schema_row(obj: dict[str, Any], now: float) -> list[Any]:
    spec = d(obj.get("spec"))
    method = spec.get("distinguisherMethod")
    missing = "?"
    for cond in dicts(get(obj, "status", "conditions")):
        if cond.get("type") == "Dangling":
            missing = text(cond.get("status"))
            break
    return [
        name(obj),
        text(get(spec, "priorityLevelConfiguration", "name")),
        num(spec.get("matchingPrecedence")),
        text(method.get("type")) if isinstance(method, dict) else "<none>",
        age(obj, now),
        missing,
    ]


def flow_schema_precedence(obj: dict[str, Any]) -> tuple[int, str]:
    """FlowSchemaSequence: a list of flow schemas is printed in the order they are matched in, by
    matchingPrecedence and then name."""
    precedence = d(obj.get("spec")).get("matchingPrecedence")
    return (precedence if type(precedence) is int else 0, name(obj))


FLOW_SCHEMA_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col(
            "PriorityLevel",
            description="`name` is the name of the priority level configuration being referenced Required.",
        ),
        col(
            "MatchingPrecedence",
            description="`matchingPrecedence` is used to choose among the FlowSchemas that match a given request.",
        ),
        col(
            "DistinguisherMethod",
            description="`distinguisherMethod` defines how to compute the flow distinguisher for requests that match this schema.",
        ),
        AGE_COLUMN,
        col("MissingPL", description="references a broken or non-existent PriorityLevelConfiguration"),
    ),
    row=flow_schema_row,
    sort_key=flow_schema_precedence,
)

# flowcontrol/v1 defaulting for a Limited priority level and its queuing configuration
_DEFAULT_NOMINAL_SHARES = 30
_DEFAULT_QUEUES = 64
_DEFAULT_HAND_SIZE = 8
_DEFAULT_QUEUE_LENGTH_LIMIT = 50


def priority_level_row(obj: dict[str, Any], now: float) -> list[Any]:
    spec = d(obj.get("spec"))
    shares: Any = "<none>"
    queues: Any = "<none>"
    hand_size: Any = "<none>"
    queue_length: Any = "<none>"
    limited = spec.get("limited")
    if isinstance(limited, dict):
        shares = num(limited.get("nominalConcurrencyShares"), _DEFAULT_NOMINAL_SHARES)
        queuing = get(limited, "limitResponse", "queuing")
        if isinstance(queuing, dict):
            queues = num(queuing.get("queues"), _DEFAULT_QUEUES)
            hand_size = num(queuing.get("handSize"), _DEFAULT_HAND_SIZE)
            queue_length = num(queuing.get("queueLengthLimit"), _DEFAULT_QUEUE_LENGTH_LIMIT)
    return [name(obj), text(spec.get("type")), shares, queues, hand_size, queue_length, age(obj, now)]


PRIORITY_LEVEL_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col(
            "Type",
            description="`type` indicates whether this priority level is subject to limitation on request execution.",
        ),
        col(
            "NominalConcurrencyShares",
            description="`nominalConcurrencyShares` (NCS) contributes to the computation of the NominalConcurrencyLimit (NominalCL) of this level.",
        ),
        col("Queues", description="`queues` is the number of queues for this priority level."),
        col(
            "HandSize",
            description="`handSize` is a small positive number that configures the shuffle sharding of requests into queues.",
        ),
        col(
            "QueueLengthLimit",
            description="`queueLengthLimit` is the maximum number of requests allowed to be waiting in a given queue of this priority level at a time; excess requests are rejected.",
        ),
        AGE_COLUMN,
    ),
    row=priority_level_row,
)

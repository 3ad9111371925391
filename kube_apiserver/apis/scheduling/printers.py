"""The PriorityClass printer (printers.go printPriorityClass)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.printing import AGE_COLUMN, NAME_COLUMN, age, col, name, num, text
from kube_apiserver.registry.resource_spec import TablePrinter


def priority_class_row(obj: dict[str, Any], now: float) -> list[Any]:
    global_default = obj.get("globalDefault")
    return [
        name(obj),
        num(obj.get("value")),
        global_default if isinstance(global_default, bool) else False,
        age(obj, now),
        # SetDefaults_PriorityClass: preemptionPolicy defaults to PreemptLowerPriority
        text(obj.get("preemptionPolicy")) or "PreemptLowerPriority",
    ]


PRIORITY_CLASS_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col(
            "Value",
            "integer",
            "value represents the integer value of this priority class. This is the actual priority that pods "
            "receive when they have the name of this class in their pod spec.",
        ),
        col(
            "Global-Default",
            "boolean",
            "globalDefault specifies whether this PriorityClass should be considered as the default priority for "
            "pods that do not have any priority class.",
        ),
        AGE_COLUMN,
        col(
            "PreemptionPolicy",
            description="preemptionPolicy is the Policy for preempting pods with lower priority.",
        ),
    ),
    row=priority_class_row,
)

"""The RuntimeClass printer (printers.go printRuntimeClass)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.printing import AGE_COLUMN, NAME_COLUMN, age, col, name, text
from kube_apiserver.registry.resource_spec import TablePrinter


def runtime_class_row(obj: dict[str, Any], now: float) -> list[Any]:
    return [name(obj), text(obj.get("handler")), age(obj, now)]


RUNTIME_CLASS_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col(
            "Handler",
            description="handler specifies the underlying runtime and configuration that the CRI implementation will use to handle pods of this class.",
        ),
        AGE_COLUMN,
    ),
    row=runtime_class_row,
)

"""The Lease printer (printers.go printLease)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.printing import AGE_COLUMN, NAME_COLUMN, age, col, get, name, text
from kube_apiserver.registry.resource_spec import TablePrinter


def lease_row(obj: dict[str, Any], now: float) -> list[Any]:
    return [name(obj), text(get(obj, "spec", "holderIdentity")), age(obj, now)]


LEASE_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col("Holder", description="holderIdentity contains the identity of the holder of a current lease."),
        AGE_COLUMN,
    ),
    row=lease_row,
)

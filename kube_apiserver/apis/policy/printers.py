"""The PodDisruptionBudget printer (printers.go printPodDisruptionBudget)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.printing import AGE_COLUMN, NAME_COLUMN, age, col, d, get, int_or_string, name, num
from kube_apiserver.registry.resource_spec import TablePrinter


def pdb_row(obj: dict[str, Any], now: float) -> list[Any]:
    spec = d(obj.get("spec"))
    min_available = spec.get("minAvailable")
    max_unavailable = spec.get("maxUnavailable")
    return [
        name(obj),
        "N/A" if min_available is None else int_or_string(min_available),
        "N/A" if max_unavailable is None else int_or_string(max_unavailable),
        num(get(obj, "status", "disruptionsAllowed")),
        age(obj, now),
    ]


PDB_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col("Min Available", description="The minimum number of pods that must be available."),
        col("Max Unavailable", description="The maximum number of pods that may be unavailable."),
        col("Allowed Disruptions", "integer", "Calculated number of pods that may be disrupted at this time."),
        AGE_COLUMN,
    ),
    row=pdb_row,
)

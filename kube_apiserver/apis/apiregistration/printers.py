"""The APIService printer (kube-aggregator pkg/registry/apiservice/etcd REST.ConvertToTable)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.printing import AGE_COLUMN, NAME_COLUMN, age, col, condition, get, name, text
from kube_apiserver.registry.resource_spec import TablePrinter


def api_service_row(obj: dict[str, Any], now: float) -> list[Any]:
    service = get(obj, "spec", "service")
    shown = "Local"
    if isinstance(service, dict):
        shown = f"{text(service.get('namespace'))}/{text(service.get('name'))}"
    available = "Unknown"
    cond = condition(get(obj, "status", "conditions"), "Available")
    if cond is not None:
        cond_status = text(cond.get("status"))
        if cond_status == "True" or not text(cond.get("reason")):
            available = cond_status
        else:
            available = f"{cond_status} ({text(cond.get('reason'))})"
    return [name(obj), shown, available, age(obj, now)]


API_SERVICE_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col("Service", description="The reference to the service that hosts this API endpoint."),
        col("Available", description="Whether this service is available."),
        AGE_COLUMN,
    ),
    row=api_service_row,
)

"""events.k8s.io/v1 events print with the core Event printer (they share storage upstream).

The row maps the events.k8s.io/v1 shape onto core/v1's, as Convert_v1_Event_To_core_Event does.
"""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.core.printers_cluster import EVENT_PRINTER as _CORE_EVENT_PRINTER
from kube_apiserver.apis.core.printers_cluster import event_row as _core_event_row
from kube_apiserver.registry.resource_spec import TablePrinter


def to_core_event(event: dict[str, Any]) -> dict[str, Any]:
    """An events.k8s.io/v1 Event dict in core/v1 field names."""
    core: dict[str, Any] = {
        "metadata": event.get("metadata"),
        "involvedObject": event.get("regarding"),
        "related": event.get("related"),
        "reason": event.get("reason"),
        "message": event.get("note"),
        "source": event.get("deprecatedSource"),
        "firstTimestamp": event.get("deprecatedFirstTimestamp"),
        "lastTimestamp": event.get("deprecatedLastTimestamp"),
        "count": event.get("deprecatedCount"),
        "type": event.get("type"),
        "eventTime": event.get("eventTime"),
        "series": event.get("series"),
        "action": event.get("action"),
        "reportingComponent": event.get("reportingController"),
        "reportingInstance": event.get("reportingInstance"),
    }
    return {k: v for k, v in core.items() if v is not None}


def events_v1_row(event: dict[str, Any], now: float) -> list[Any]:
    return _core_event_row(to_core_event(event), now)


EVENT_PRINTER = TablePrinter(columns=_CORE_EVENT_PRINTER.columns, row=events_v1_row)

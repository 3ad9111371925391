"""events.k8s.io/v1 as kube-apiserver 1.33's discovery lists it."""

from __future__ import annotations

from kube_apiserver.apis.events.printers import EVENT_PRINTER
from kube_apiserver.registry.resource_spec import ResourceSpec

GROUP = "events.k8s.io"
VERSION = "v1"

# pkg/apis/events/v1/conversion.go AddFieldLabelConversionsForEvent: the events.k8s.io spellings
# (regarding.*, reportingController) are accepted and mapped onto core's selectable fields; the
# paths below are into the events.k8s.io/v1 shape of the object.
EVENT_FIELDS: dict[str, str] = {
    "reason": "reason",
    "regarding.kind": "regarding.kind",
    "regarding.namespace": "regarding.namespace",
    "regarding.name": "regarding.name",
    "regarding.uid": "regarding.uid",
    "regarding.apiVersion": "regarding.apiVersion",
    "regarding.resourceVersion": "regarding.resourceVersion",
    "regarding.fieldPath": "regarding.fieldPath",
    "reportingController": "reportingController",
    "source": "deprecatedSource.component",  # upstream falls back to reportingController when empty
    "type": "type",
}

RESOURCES: list[ResourceSpec] = [
    ResourceSpec(
        GROUP,
        VERSION,
        "events",
        "Event",
        True,
        short_names=("ev",),
        selectable_fields=EVENT_FIELDS,
        printer=EVENT_PRINTER,
        storage_key="events",  # shares the core/v1 events storage upstream
    ),
]

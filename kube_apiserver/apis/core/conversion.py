"""Conversions of core/v1 kinds. core has one version; its only conversion is of Event to the
events.k8s.io/v1 Event that shares its storage (defined with its inverse in apis/events/conversion.py).
Keys that cross groups name the target apiVersion."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kube_apiserver.apis.events.conversion import event_core_to_events_v1

CONVERTERS: dict[tuple[tuple[str, str], str], Callable[[dict[str, Any]], dict[str, Any]]] = {
    (("v1", "Event"), "events.k8s.io/v1"): event_core_to_events_v1,
}

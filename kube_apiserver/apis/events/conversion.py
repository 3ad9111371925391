"""events.k8s.io/v1 Event ↔ core/v1 Event (pkg/apis/events/v1/conversion.go).

The two are one resource in one storage: kube-apiserver keeps events.k8s.io events with the core
events (/registry/events/, cohabitating resources), encoded as core/v1. The fields map one to one
under other names:

  events.k8s.io/v1            core/v1
  regarding                   involvedObject
  note                        message
  reportingController         reportingComponent
  deprecatedSource            source
  deprecatedFirstTimestamp    firstTimestamp
  deprecatedLastTimestamp     lastTimestamp
  deprecatedCount             count
  eventTime, series, reportingInstance, action, reason, related, type: the same

Each function writes the target as Go serializes the typed struct: the fields without omitempty
(or struct-typed, which omitempty does not drop) are always present, e.g. core's eventTime: null,
reportingComponent: "" and source: {}; events.k8s.io's regarding: {} and deprecatedSource: {}.

The converters cross groups, so their keys name the target apiVersion: core/v1 is "v1"
(Scheme.convert never looks that key up within events.k8s.io, whose own v1 needs no converter).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson


def _copy(v: Any) -> Any:
    return orjson.loads(orjson.dumps(v))


def _put(out: dict[str, Any], key: str, value: Any) -> None:
    """omitempty: nil, "", 0 and empty collections are left out."""
    if value is None or value == "" or value == 0 or value == [] or value == {} or value is False:
        return
    out[key] = _copy(value)


def _struct(value: Any) -> Any:
    """A struct-typed field: always written, {} when unset."""
    return _copy(value) if isinstance(value, dict) else {}


def _meta(obj: dict[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata")
    return _copy(meta) if isinstance(meta, dict) else {}


def event_core_to_events_v1(obj: dict[str, Any]) -> dict[str, Any]:
    """Convert_core_Event_To_v1_Event: a core/v1 Event as events.k8s.io/v1 serves it."""
    out: dict[str, Any] = {"apiVersion": "events.k8s.io/v1", "kind": obj.get("kind") or "Event"}
    out["metadata"] = _meta(obj)
    out["eventTime"] = obj.get("eventTime")
    series = obj.get("series")
    if isinstance(series, dict):  # events.k8s.io's EventSeries has no omitempty
        out["series"] = {"count": series.get("count") or 0, "lastObservedTime": series.get("lastObservedTime")}
    _put(out, "reportingController", obj.get("reportingComponent"))
    _put(out, "reportingInstance", obj.get("reportingInstance"))
    _put(out, "action", obj.get("action"))
    _put(out, "reason", obj.get("reason"))
    out["regarding"] = _struct(obj.get("involvedObject"))
    if isinstance(obj.get("related"), dict):
        out["related"] = _copy(obj["related"])
    _put(out, "note", obj.get("message"))
    _put(out, "type", obj.get("type"))
    out["deprecatedSource"] = _struct(obj.get("source"))
    out["deprecatedFirstTimestamp"] = obj.get("firstTimestamp")
    out["deprecatedLastTimestamp"] = obj.get("lastTimestamp")
    _put(out, "deprecatedCount", obj.get("count"))
    return out


def event_events_v1_to_core(obj: dict[str, Any]) -> dict[str, Any]:
    """Convert_v1_Event_To_core_Event: an events.k8s.io/v1 Event as core/v1 keeps and serves it."""
    out: dict[str, Any] = {"apiVersion": "v1", "kind": obj.get("kind") or "Event"}
    out["metadata"] = _meta(obj)
    out["involvedObject"] = _struct(obj.get("regarding"))
    _put(out, "reason", obj.get("reason"))
    _put(out, "message", obj.get("note"))
    out["source"] = _struct(obj.get("deprecatedSource"))
    out["firstTimestamp"] = obj.get("deprecatedFirstTimestamp")
    out["lastTimestamp"] = obj.get("deprecatedLastTimestamp")
    _put(out, "count", obj.get("deprecatedCount"))
    _put(out, "type", obj.get("type"))
    out["eventTime"] = obj.get("eventTime")
    series = obj.get("series")
    if isinstance(series, dict):  # core's EventSeries fields are omitempty
        core_series: dict[str, Any] = {}
        _put(core_series, "count", series.get("count"))
        _put(core_series, "lastObservedTime", series.get("lastObservedTime"))
        out["series"] = core_series
    _put(out, "action", obj.get("action"))
    if isinstance(obj.get("related"), dict):
        out["related"] = _copy(obj["related"])
    out["reportingComponent"] = obj.get("reportingController") or ""
    out["reportingInstance"] = obj.get("reportingInstance") or ""
    return out


CONVERTERS: dict[tuple[tuple[str, str], str], Callable[[dict[str, Any]], dict[str, Any]]] = {
    (("v1", "Event"), "v1"): event_events_v1_to_core,  # to core/v1
}

"""events.k8s.io/v1 Event validation (pkg/apis/core/validation/events.go: ValidateEventCreate and
ValidateEventUpdate with the strict rules of the events.k8s.io API).

kube validates the internal core Event, so errors carry its field names: regarding is
involvedObject, note is message, deprecatedSource is source and deprecatedCount is count.
"""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.validation_util import field, gorepr
from kube_apiserver.apis.validation_util.names import is_dns1123_subdomain
from kube_apiserver.runtime.errors import StatusCause
from kube_apiserver.runtime.validation.names import is_qualified_name

REPORTING_INSTANCE_LENGTH_LIMIT = 128
ACTION_LENGTH_LIMIT = 128
REASON_LENGTH_LIMIT = 128
NOTE_LENGTH_LIMIT = 1024


def validate_event(obj: dict[str, Any]) -> list[StatusCause]:
    errs = _legacy_validate_event(obj)
    series = obj.get("series")
    if isinstance(series, dict):
        errs.extend(_validate_series(series))
    if not obj.get("eventTime"):
        errs.append(field.required("eventTime", ""))
    kind = obj.get("type", "")
    if kind not in ("Normal", "Warning"):
        errs.append(field.invalid("type", "", f"has invalid value: {kind}"))
    for internal, external in (
        ("firstTimestamp", "deprecatedFirstTimestamp"),
        ("lastTimestamp", "deprecatedLastTimestamp"),
    ):
        if obj.get(external):
            errs.append(field.invalid(internal, "", "needs to be unset"))
    if obj.get("deprecatedCount"):
        errs.append(field.invalid("count", "", "needs to be unset"))
    source = field.as_dict(obj.get("deprecatedSource"))
    if source.get("component") or source.get("host"):
        errs.append(field.invalid("source", "", "needs to be unset"))
    return errs


def _validate_series(series: dict[str, Any]) -> list[StatusCause]:
    errs = []
    count = series.get("count", 0)
    if field.is_int(count) and count < 2:
        errs.append(field.invalid("series.count", "", "should be at least 2"))
    if not series.get("lastObservedTime"):
        errs.append(field.required("series.lastObservedTime", ""))
    return errs


def _legacy_validate_event(obj: dict[str, Any]) -> list[StatusCause]:
    """legacyValidateEvent for an event with an eventTime (the events.k8s.io kind of event)."""
    errs = []
    namespace = field.as_str(field.meta_of(obj).get("namespace"))
    regarding_ns = field.as_str(field.as_dict(obj.get("regarding")).get("namespace"))
    if obj.get("eventTime"):
        if not regarding_ns and namespace not in ("default", "kube-system"):
            errs.append(field.invalid("involvedObject.namespace", regarding_ns, "does not match event.namespace"))
        controller = field.as_str(obj.get("reportingController"))
        if not controller:
            errs.append(field.required("reportingController", ""))
        errs.extend(field.invalid("reportingController", controller, msg) for msg in is_qualified_name(controller))
        for name, internal, limit in (
            ("reportingInstance", "reportingInstance", REPORTING_INSTANCE_LENGTH_LIMIT),
            ("action", "action", ACTION_LENGTH_LIMIT),
            ("reason", "reason", REASON_LENGTH_LIMIT),
        ):
            value = field.as_str(obj.get(name))
            if not value:
                errs.append(field.required(internal, ""))
            if len(value.encode()) > limit:
                errs.append(field.invalid(internal, "", f"can have at most {limit} characters"))
        if len(field.as_str(obj.get("note")).encode()) > NOTE_LENGTH_LIMIT:
            errs.append(field.invalid("message", "", f"can have at most {NOTE_LENGTH_LIMIT} characters"))
    elif regarding_ns:
        if namespace != regarding_ns:
            errs.append(field.invalid("involvedObject.namespace", regarding_ns, "does not match event.namespace"))
    elif namespace not in ("", "default"):
        errs.append(field.invalid("involvedObject.namespace", regarding_ns, "does not match event.namespace"))
    errs.extend(field.invalid("namespace", namespace, msg) for msg in is_dns1123_subdomain(namespace))
    return errs


# (events.k8s.io name, internal name, Go type of the value shown) of the fields fixed at creation
_IMMUTABLE = (
    ("regarding", "involvedObject", "core.ObjectReference"),
    ("reason", "reason", None),
    ("note", "message", None),
    ("deprecatedSource", "source", "core.EventSource"),
    ("deprecatedFirstTimestamp", "firstTimestamp", None),
    ("deprecatedLastTimestamp", "lastTimestamp", None),
    ("deprecatedCount", "count", None),
    ("type", "type", None),
    ("eventTime", "eventTime", None),
    ("action", "action", None),
    ("related", "related", "core.ObjectReference"),
    ("reportingController", "reportingController", None),
    ("reportingInstance", "reportingInstance", None),
)


def validate_event_update(new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
    errs = []
    for name, internal, type_name in _IMMUTABLE:
        value = new.get(name)
        shown = gorepr.approx(type_name, value) if type_name and value is not None else None
        errs.extend(field.validate_immutable_field(value, old.get(name), internal, shown))
    return errs


VALIDATORS = {("v1", "Event"): validate_event}
UPDATE_VALIDATORS = {("v1", "Event"): validate_event_update}

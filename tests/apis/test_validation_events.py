"""events.k8s.io/v1 Event validation: kube-apiserver 1.33's messages, on the internal field names."""

from __future__ import annotations

from typing import Any

from validation_groups_helpers import errors, with_changes

from kube_apiserver.apis.events.validation import validate_event, validate_event_update


def event(**changes: Any) -> dict[str, Any]:
    obj = {
        "apiVersion": "events.k8s.io/v1",
        "kind": "Event",
        "metadata": {"name": "web.1", "namespace": "default"},
        "eventTime": "2024-01-01T00:00:00.000000Z",
        "reportingController": "example.com/controller",
        "reportingInstance": "controller-1",
        "action": "Scale",
        "reason": "Scaled",
        "type": "Normal",
        "note": "scaled up",
        "regarding": {"kind": "Deployment", "namespace": "default", "name": "web"},
    }
    return with_changes(obj, **changes)


def test_valid() -> None:
    assert validate_event(event()) == []


def test_required_and_unset_fields() -> None:
    obj = event(eventTime=None, reportingController=None, action=None, type="Info", deprecatedCount=3)
    assert errors(validate_event(obj)) == [
        "eventTime: Required value",
        'type: Invalid value: "": has invalid value: Info',
        'count: Invalid value: "": needs to be unset',
    ]
    obj = event(reportingController=None, action="x" * 129, series={"count": 1})
    assert errors(validate_event(obj)) == [
        "reportingController: Required value",
        'reportingController: Invalid value: "": name part must be non-empty',
        "reportingController: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', "
        "and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used "
        "for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        'action: Invalid value: "": can have at most 128 characters',
        'series.count: Invalid value: "": should be at least 2',
        "series.lastObservedTime: Required value",
    ]


def test_regarding_namespace() -> None:
    obj = event(regarding__namespace="", metadata__namespace="team-a")
    assert errors(validate_event(obj)) == [
        'involvedObject.namespace: Invalid value: "": does not match event.namespace'
    ]


def test_update_fields_are_immutable() -> None:
    old = event()
    assert errors(validate_event_update(event(note="changed", reason="Other"), old)) == [
        'reason: Invalid value: "Other": field is immutable',
        'message: Invalid value: "changed": field is immutable',
    ]
    assert (
        validate_event_update(event(series={"count": 2, "lastObservedTime": "2024-01-01T00:00:01.000000Z"}), old) == []
    )

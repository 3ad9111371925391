"""core/v1 Event ↔ events.k8s.io/v1 Event (pkg/apis/events/v1/conversion.go): one resource, stored as
core/v1, each field under its other name, written as Go serializes the target struct."""

from __future__ import annotations

import orjson

from kube_apiserver.apis.core.conversion import CONVERTERS as CORE_CONVERTERS
from kube_apiserver.apis.events.conversion import (
    CONVERTERS,
    event_core_to_events_v1,
    event_events_v1_to_core,
)

META = {"name": "foo.1", "namespace": "default", "uid": "u-1", "resourceVersion": "12"}
POD = {"kind": "Pod", "namespace": "default", "name": "foo", "uid": "p-1", "apiVersion": "v1", "fieldPath": "spec"}

CORE = {
    "apiVersion": "v1",
    "kind": "Event",
    "metadata": META,
    "involvedObject": POD,
    "reason": "Pulled",
    "message": "Container image pulled",
    "source": {"component": "kubelet", "host": "node-1"},
    "firstTimestamp": "2025-01-01T00:00:00Z",
    "lastTimestamp": "2025-01-01T00:05:00Z",
    "count": 3,
    "type": "Normal",
    "eventTime": "2025-01-01T00:00:00.000001Z",
    "series": {"count": 3, "lastObservedTime": "2025-01-01T00:05:00.000000Z"},
    "action": "Pulling",
    "related": {"kind": "Node", "name": "node-1"},
    "reportingComponent": "kubelet",
    "reportingInstance": "node-1",
}

EVENTS = {
    "apiVersion": "events.k8s.io/v1",
    "kind": "Event",
    "metadata": META,
    "eventTime": "2025-01-01T00:00:00.000001Z",
    "series": {"count": 3, "lastObservedTime": "2025-01-01T00:05:00.000000Z"},
    "reportingController": "kubelet",
    "reportingInstance": "node-1",
    "action": "Pulling",
    "reason": "Pulled",
    "regarding": POD,
    "related": {"kind": "Node", "name": "node-1"},
    "note": "Container image pulled",
    "type": "Normal",
    "deprecatedSource": {"component": "kubelet", "host": "node-1"},
    "deprecatedFirstTimestamp": "2025-01-01T00:00:00Z",
    "deprecatedLastTimestamp": "2025-01-01T00:05:00Z",
    "deprecatedCount": 3,
}


def test_core_to_events_maps_every_field():
    out = event_core_to_events_v1(CORE)
    assert out == EVENTS
    # in the order of the Go struct's fields
    assert list(out) == list(EVENTS)


def test_events_to_core_maps_every_field():
    out = event_events_v1_to_core(EVENTS)
    assert out == CORE
    assert list(out) == list(CORE)


def test_round_trips():
    assert event_events_v1_to_core(event_core_to_events_v1(CORE)) == CORE
    assert event_core_to_events_v1(event_events_v1_to_core(EVENTS)) == EVENTS


def test_upstream_conversion_test_case():
    # conversion_test.go: regarding/involvedObject, deprecatedSource/source, note/message.
    core = event_events_v1_to_core(
        {
            "apiVersion": "events.k8s.io/v1",
            "kind": "Event",
            "metadata": {"name": "foo", "namespace": "default"},
            "regarding": {"kind": "Pod", "namespace": "default", "name": "foo"},
            "deprecatedSource": {"component": "controller-manager", "host": "master1"},
            "note": "convert v1 event to core event",
        }
    )
    assert core == {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": "foo", "namespace": "default"},
        "involvedObject": {"kind": "Pod", "namespace": "default", "name": "foo"},
        "message": "convert v1 event to core event",
        "source": {"component": "controller-manager", "host": "master1"},
        # What Go writes for the zero values of fields without omitempty (or of struct type).
        "firstTimestamp": None,
        "lastTimestamp": None,
        "eventTime": None,
        "reportingComponent": "",
        "reportingInstance": "",
    }


def test_a_minimal_core_event_as_events_k8s_io_serves_it():
    out = event_core_to_events_v1(
        {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": "e", "namespace": "default"},
            "involvedObject": {"kind": "Pod", "name": "p"},
            "message": "hello",
            "reportingComponent": "",
            "count": 0,
        }
    )
    assert out == {
        "apiVersion": "events.k8s.io/v1",
        "kind": "Event",
        "metadata": {"name": "e", "namespace": "default"},
        "eventTime": None,
        "regarding": {"kind": "Pod", "name": "p"},
        "note": "hello",
        "deprecatedSource": {},
        "deprecatedFirstTimestamp": None,
        "deprecatedLastTimestamp": None,
    }


def test_series_fields():
    # events.k8s.io's EventSeries writes both fields always; core's leaves zero values out.
    assert event_core_to_events_v1({"series": {}})["series"] == {"count": 0, "lastObservedTime": None}
    assert event_events_v1_to_core({"series": {"count": 0, "lastObservedTime": None}})["series"] == {}


def test_input_is_not_modified_or_shared():
    before = orjson.dumps(CORE)
    out = event_core_to_events_v1(CORE)
    out["metadata"]["name"] = "changed"
    out["regarding"]["name"] = "changed"
    assert orjson.dumps(CORE) == before


def test_odd_input_never_raises():
    for odd in ({}, {"metadata": 3, "involvedObject": "x", "series": [1], "related": 5}):
        event_core_to_events_v1(odd)
        event_events_v1_to_core(odd)


def test_conversion_tables_cross_groups_by_api_version():
    assert CONVERTERS == {(("v1", "Event"), "v1"): event_events_v1_to_core}
    assert CORE_CONVERTERS == {(("v1", "Event"), "events.k8s.io/v1"): event_core_to_events_v1}

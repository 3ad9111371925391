"""Tests for the shared printing helpers (duration.HumanDuration and friends)."""

from __future__ import annotations

import pytest

from kube_apiserver.apis.printing import (
    DEFAULT_TABLE_PRINTER,
    age,
    created_at,
    format_label_selector,
    format_labels,
    human_duration,
    parse_time,
    selector_string,
)

MINUTE = 60
HOUR = 60 * MINUTE
DAY = 24 * HOUR
YEAR = 365 * DAY


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [
        (-5, "<invalid>"),
        (-2, "<invalid>"),
        (-1, "0s"),
        (-0.5, "0s"),
        (0, "0s"),
        (5, "5s"),
        (5.9, "5s"),
        (119, "119s"),
        (2 * MINUTE, "2m"),
        (3 * MINUTE + 2, "3m2s"),
        (9 * MINUTE + 59, "9m59s"),
        (10 * MINUTE, "10m"),
        (10 * MINUTE + 30, "10m"),
        (179 * MINUTE, "179m"),
        (3 * HOUR, "3h"),
        (3 * HOUR + 30 * MINUTE, "3h30m"),
        (7 * HOUR + 59 * MINUTE, "7h59m"),
        (8 * HOUR, "8h"),
        (47 * HOUR + 59 * MINUTE, "47h"),
        (2 * DAY, "2d"),
        (2 * DAY + 3 * HOUR, "2d3h"),
        (7 * DAY + 23 * HOUR, "7d23h"),
        (8 * DAY, "8d"),
        (8 * DAY + 5 * HOUR, "8d"),
        (365 * DAY, "365d"),
        (2 * YEAR - DAY, "729d"),
        (2 * YEAR, "2y"),
        (2 * YEAR + 10 * DAY, "2y10d"),
        (5 * YEAR, "5y"),
        (8 * YEAR, "8y"),
        (8 * YEAR + 100 * DAY, "8y"),
        (12 * YEAR, "12y"),
    ],
)
def test_human_duration(seconds: float, expected: str) -> None:
    assert human_duration(seconds) == expected


def test_parse_time() -> None:
    assert parse_time("1970-01-01T00:00:10Z") == 10.0
    assert parse_time("1970-01-01T00:00:10.500000Z") == 10.5
    assert parse_time("1970-01-01T01:00:00+01:00") == 0.0
    assert parse_time("") is None
    assert parse_time(None) is None
    assert parse_time("yesterday") is None


def test_age() -> None:
    created = parse_time("2024-01-01T00:00:00Z")
    assert created is not None
    obj = {"metadata": {"name": "x", "creationTimestamp": "2024-01-01T00:00:00Z"}}
    assert age(obj, created + 5) == "5s"
    assert age(obj, created + 3 * MINUTE + 2) == "3m2s"
    assert age(obj, created + 2 * DAY + 3 * HOUR) == "2d3h"
    assert age({"metadata": {"name": "x"}}, created) == "<unknown>"
    assert age({}, created) == "<unknown>"
    assert age({"metadata": None}, created) == "<unknown>"


def test_created_at_and_default_printer() -> None:
    obj = {"metadata": {"name": "x", "creationTimestamp": "2024-01-01T02:00:00+02:00"}}
    assert created_at(obj) == "2024-01-01T00:00:00Z"
    assert created_at({}) == "0001-01-01T00:00:00Z"
    assert [c.name for c in DEFAULT_TABLE_PRINTER.columns] == ["Name", "Created At"]
    assert DEFAULT_TABLE_PRINTER.columns[1].type == "date"
    assert DEFAULT_TABLE_PRINTER.row(obj, 0) == ["x", "2024-01-01T00:00:00Z"]


def test_label_formatting() -> None:
    assert format_labels(None) == "<none>"
    assert format_labels({"b": "2", "a": "1"}) == "a=1,b=2"
    assert selector_string(None) == ""
    assert selector_string({}) == ""
    assert format_label_selector(None) == "<none>"
    assert format_label_selector({}) == "<none>"
    selector = {
        "matchLabels": {"app": "web"},
        "matchExpressions": [
            {"key": "tier", "operator": "In", "values": ["b", "a"]},
            {"key": "env", "operator": "NotIn", "values": ["prod"]},
            {"key": "canary", "operator": "DoesNotExist"},
            {"key": "zone", "operator": "Exists"},
        ],
    }
    assert selector_string(selector) == "app=web,!canary,env notin (prod),tier in (a,b),zone"
    assert format_label_selector({"matchExpressions": [{"key": "k", "operator": "Bogus"}]}) == "<error>"

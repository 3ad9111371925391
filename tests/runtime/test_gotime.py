"""metav1.Time / MicroTime parsing and writing as Go's time.Parse and kube's MarshalJSON do them."""

from __future__ import annotations

import pytest

from kube_apiserver.runtime import gotime

TIME = '"2006-01-02T15:04:05Z07:00"'
MICRO = '"2006-01-02T15:04:05.000000Z07:00"'


@pytest.mark.parametrize(
    ("value", "micro", "written"),
    [
        ("2024-01-01T10:00:00Z", False, "2024-01-01T10:00:00Z"),
        ("2024-01-01T10:00:00.987+02:00", False, "2024-01-01T08:00:00Z"),  # UTC, fraction dropped
        ("2024-01-01T01:30:00-01:45", False, "2024-01-01T03:15:00Z"),
        ("2024-01-01T1:00:00Z", False, "2024-01-01T01:00:00Z"),  # the hour may have one digit
        ("2024-02-29T00:00:00Z", False, "2024-02-29T00:00:00Z"),
        ("2024-01-01T10:00:00.123456+00:00", True, "2024-01-01T10:00:00.123456Z"),
        ("2024-01-01T23:59:59.000001-01:00", True, "2024-01-02T00:59:59.000001Z"),
    ],
)
def test_written_back_in_utc(value, micro, written):
    assert gotime.normalize(value, micro) == written


@pytest.mark.parametrize(
    ("value", "micro", "message"),
    [
        ("abc", False, f'parsing time "abc" as {TIME}: cannot parse "abc" as "2006"'),
        (
            "2024-01-01 10:00:00Z",
            False,
            f'parsing time "2024-01-01 10:00:00Z" as {TIME}: cannot parse " 10:00:00Z" as "T"',
        ),
        ("2024-01-01T10:00:00", False, f'parsing time "2024-01-01T10:00:00" as {TIME}: cannot parse "" as "Z07:00"'),
        ("2024-13-01T10:00:00Z", False, 'parsing time "2024-13-01T10:00:00Z": month out of range'),
        ("2023-02-29T10:00:00Z", False, 'parsing time "2023-02-29T10:00:00Z": day out of range'),
        ("2024-01-01T10:00:00Zx", False, 'parsing time "2024-01-01T10:00:00Zx": extra text: "x"'),
        # MicroTime: exactly six fraction digits
        (
            "2024-01-01T10:00:00Z",
            True,
            f'parsing time "2024-01-01T10:00:00Z" as {MICRO}: cannot parse "Z" as ".000000"',
        ),
        (
            "2024-01-01T10:00:00.123Z",
            True,
            f'parsing time "2024-01-01T10:00:00.123Z" as {MICRO}: cannot parse ".123Z" as ".000000"',
        ),
    ],
)
def test_refused_in_go_words(value, micro, message):
    with pytest.raises(gotime.TimeParseError) as exc:
        gotime.parse(value, micro)
    assert str(exc.value) == message

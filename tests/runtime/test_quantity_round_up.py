"""Quantity.RoundUp(Milli) as SetDefaults_ResourceList applies it (resource.Quantity keeps milli precision for
resource lists: kube stores "0.0001" CPU as "1m"), and the pull policy SetDefaults_Container picks from a tag."""

from __future__ import annotations

import pytest

from kube_apiserver.apis.core.defaults.images import default_pull_policy
from kube_apiserver.runtime.quantity import QuantityError, round_up_milli


@pytest.mark.parametrize(
    ("text", "rounded"),
    [
        ("0.0001", "1m"),
        ("-0.0001", "-1m"),  # away from zero
        ("1n", "1m"),
        ("12345u", "13m"),
        ("-1.0005", "-1001m"),
        ("1e-4", "1e-3"),  # the format is kept
        (0.0001, "1m"),
        ("100m", None),
        ("1.5Gi", None),
        ("1", None),
        (1, None),
    ],
)
def test_round_up_milli(text, rounded):
    assert round_up_milli(text) == rounded


def test_round_up_milli_of_a_non_quantity_raises():
    with pytest.raises(QuantityError):
        round_up_milli("abc")


@pytest.mark.parametrize(
    ("image", "policy"),
    [
        ("nginx", "Always"),
        ("nginx:latest", "Always"),
        ("localhost:5000/team/app", "Always"),  # the port is not a tag
        ("nginx:1.27", "IfNotPresent"),
        ("localhost:5000/team/app:v2", "IfNotPresent"),
        ("UPPER/case", "Always"),  # an upper-case first component is a registry host
        ("library/UPPER", "IfNotPresent"),  # does not parse: no tag
        ("library/UPPER:latest", "IfNotPresent"),
        ("busybox@sha256:" + "a" * 64, "IfNotPresent"),
        ("busybox:latest@sha256:" + "a" * 64, "Always"),
        ("busybox:1.0@sha256:" + "a" * 64, "IfNotPresent"),
        ("a" * 64, "IfNotPresent"),  # a 64-hex identifier is not a reference
        ("", "IfNotPresent"),
        (None, "IfNotPresent"),
    ],
)
def test_default_pull_policy(image, policy):
    assert default_pull_policy(image) == policy

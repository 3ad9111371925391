"""resource.Quantity parsing and canonical form (the values kube-apiserver writes back)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from kube_apiserver.runtime.quantity import QuantityError, canonical_quantity, quantity_value


@pytest.mark.parametrize(
    ("given", "canonical"),
    [
        ("1024Mi", "1Gi"),
        ("1536Mi", "1536Mi"),
        ("1.5Gi", "1536Mi"),
        ("2048Ki", "2Mi"),
        ("512", "512"),
        ("1000", "1k"),
        ("1500", "1500"),
        ("12000", "12k"),
        ("0.5", "500m"),
        ("0.1", "100m"),
        ("100m", "100m"),
        ("1000m", "1"),
        ("1e3", "1e3"),
        ("1.5e3", "1500"),
        ("0", "0"),
        ("0Mi", "0"),
        ("-1k", "-1k"),
        ("0.0000000001", "1n"),  # below nano precision rounds up
        (1, "1"),
        (0.25, "250m"),
        ("100Mi", "100Mi"),
        ("1E", "1E"),
    ],
)
def test_canonical_form(given, canonical):
    assert canonical_quantity(given) == canonical


@pytest.mark.parametrize("bad", ["", "abc", "1 Gi", "1Zi", "--1", "1.2.3", True, float("inf")])
def test_invalid_quantities(bad):
    with pytest.raises(QuantityError):
        canonical_quantity(bad)


def test_values_compare_exactly():
    assert quantity_value("1Gi") == Fraction(2**30)
    assert quantity_value("500m") < quantity_value("1")
    assert quantity_value("1k") == quantity_value("1000")

"""SetDefaults_ResourceList: every quantity of a resource list is rounded up to milli precision (kube
keeps this for API compatibility: "0.0001" CPU is stored as "1m")."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from kube_apiserver.apis.core.defaults.fields import child
from kube_apiserver.runtime.quantity import QuantityError, format_quantity, parse_quantity


def set_defaults_resource_list(resources: Any) -> None:
    if not isinstance(resources, dict):
        return
    rounded: dict[str, str] | None = None
    for name, text in resources.items():
        if isinstance(text, bool) or not isinstance(text, str | int | float):
            continue
        try:
            value, fmt = parse_quantity(text)
        except QuantityError:
            continue  # validation reports it
        # value is exact: it has milli precision when value * 1000 is a whole number.
        numerator, denominator = value.numerator * 1000, value.denominator
        if numerator % denominator == 0:
            continue
        # Quantity.RoundUp rounds away from zero.
        millis = -(-numerator // denominator) if numerator > 0 else numerator // denominator
        if rounded is None:
            rounded = {}
        rounded[name] = format_quantity(Fraction(millis, 1000), fmt)
    if rounded:
        resources.update(rounded)


def set_defaults_resource_requirements(requirements: dict[str, Any]) -> None:
    set_defaults_resource_list(child(requirements, "limits"))
    set_defaults_resource_list(child(requirements, "requests"))

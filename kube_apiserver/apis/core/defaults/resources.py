"""SetDefaults_ResourceList: every quantity of a resource list is rounded up to milli precision (kube
keeps this for API compatibility: "0.0001" CPU is stored as "1m")."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from kube_apiserver.apis.core.defaults.fields import child
from kube_apiserver.runtime.quantity import QuantityError, format_quantity, parse_quantity

_MILLI = Fraction(1, 1000)


def set_defaults_resource_list(resources: Any) -> None:
    if not isinstance(resources, dict):
        return
    for name, text in list(resources.items()):
        if isinstance(text, bool) or not isinstance(text, str | int | float):
            continue
        try:
            value, fmt = parse_quantity(text)
        except QuantityError:
            continue  # validation reports it
        scaled = value / _MILLI
        if scaled.denominator == 1:
            continue
        # Quantity.RoundUp rounds away from zero.
        rounded = math.ceil(scaled) if value > 0 else math.floor(scaled)
        resources[name] = format_quantity(rounded * _MILLI, fmt)


def set_defaults_resource_requirements(requirements: dict[str, Any]) -> None:
    set_defaults_resource_list(child(requirements, "limits"))
    set_defaults_resource_list(child(requirements, "requests"))

"""SetDefaults_ResourceList: every quantity of a resource list is rounded up to milli precision (kube
keeps this for API compatibility: "0.0001" CPU is stored as "1m")."""

from __future__ import annotations

from typing import Any

from kube_apiserver.runtime.quantity import QuantityError, round_up_milli


def set_defaults_resource_list(resources: Any) -> None:
    if not isinstance(resources, dict):
        return
    rounded: dict[str, str] | None = None
    for name, text in resources.items():
        # a tuple, not str | int | float: the union would be built anew at every quantity
        if type(text) is not str and (isinstance(text, bool) or not isinstance(text, (str, int, float))):
            continue
        try:
            text = round_up_milli(text)
        except QuantityError:
            continue  # validation reports it
        if text is not None:
            if rounded is None:
                rounded = {}
            rounded[name] = text
    if rounded:
        resources.update(rounded)


def set_defaults_resource_requirements(requirements: dict[str, Any]) -> None:
    # (fields.child spelled out: this runs for every container written)
    limits = requirements.get("limits")
    if isinstance(limits, dict):
        set_defaults_resource_list(limits)
    requests = requirements.get("requests")
    if isinstance(requests, dict):
        set_defaults_resource_list(requests)

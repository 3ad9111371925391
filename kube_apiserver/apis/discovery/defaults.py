"""discovery.k8s.io/v1 defaults (pkg/apis/discovery/v1/defaults.go): EndpointSlice ports."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.core.defaults.fields import default, items


def set_object_defaults_endpoint_slice(obj: dict[str, Any]) -> None:
    for port in items(obj, "ports"):
        default(port, "name", "")
        default(port, "protocol", "TCP")


DEFAULTERS = {
    ("v1", "EndpointSlice"): set_object_defaults_endpoint_slice,
}

"""apiregistration.k8s.io/v1 defaults (kube-aggregator/pkg/apis/apiregistration/v1/defaults.go)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.core.defaults.fields import default


def set_object_defaults_api_service(obj: dict[str, Any]) -> None:
    """SetDefaults_ServiceReference: a service is reached on port 443 unless told otherwise."""
    spec = obj.get("spec")
    if isinstance(spec, dict) and isinstance(spec.get("service"), dict):
        default(spec["service"], "port", 443)


DEFAULTERS = {
    ("v1", "APIService"): set_object_defaults_api_service,
}

"""autoscaling/v1 and autoscaling/v2 as kube-apiserver 1.33's discovery lists them."""

from __future__ import annotations

from kube_apiserver.apis.autoscaling.printers import HPA_PRINTER
from kube_apiserver.apis.common import ALL, status
from kube_apiserver.registry.resource_spec import ResourceSpec

GROUP = "autoscaling"


def _hpa(version: str) -> ResourceSpec:
    return ResourceSpec(
        GROUP,
        version,
        "horizontalpodautoscalers",
        "HorizontalPodAutoscaler",
        True,
        short_names=("hpa",),
        categories=ALL,
        subresources=(status("HorizontalPodAutoscaler"),),
        printer=HPA_PRINTER,
    )


# v2 first: it is the preferred version (version priority 30 against v1's 15).
RESOURCES: list[ResourceSpec] = [_hpa("v2"), _hpa("v1")]

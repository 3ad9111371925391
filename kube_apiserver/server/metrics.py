"""Prometheus metrics served at /metrics, named as kube-apiserver names them."""

from __future__ import annotations

from collections.abc import Callable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily

from kube_apiserver.endpoints.request import Request, send_bytes

REGISTRY = CollectorRegistry(auto_describe=True)

REQUEST_TOTAL = Counter(
    "apiserver_request_total",
    "Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, "
    "component, and HTTP response code.",
    ["verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component", "code"],
    registry=REGISTRY,
)
REQUEST_DURATION = Histogram(
    "apiserver_request_duration_seconds",
    "Response latency distribution in seconds for each verb, dry run value, group, version, resource, "
    "subresource, scope and component.",
    ["verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component"],
    buckets=(0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60),
    registry=REGISTRY,
)
INFLIGHT = Gauge(
    "apiserver_current_inflight_requests",
    "Maximal number of currently used inflight request limit of this apiserver per request kind in last second.",
    ["request_kind"],
    registry=REGISTRY,
)


class _Callbacks:
    """apiserver_storage_objects and apiserver_registered_watchers, read at scrape time."""

    def __init__(self) -> None:
        self.storage_objects: Callable[[], dict[str, int]] = dict
        self.watchers: Callable[[], dict[tuple[str, str, str], int]] = dict

    def describe(self) -> list[GaugeMetricFamily]:
        return []

    def collect(self) -> list[GaugeMetricFamily]:
        objects = GaugeMetricFamily(
            "apiserver_storage_objects",
            "Number of stored objects at the time of last check split by kind.",
            labels=["resource"],
        )
        for resource, n in sorted(self.storage_objects().items()):
            objects.add_metric([resource], n)
        watchers = GaugeMetricFamily(
            "apiserver_registered_watchers",
            "Number of currently registered watchers for a given resources",
            labels=["group", "version", "kind"],
        )
        for (g, v, k), n in sorted(self.watchers().items()):
            watchers.add_metric([g, v, k], n)
        return [objects, watchers]


CALLBACKS = _Callbacks()
REGISTRY.register(CALLBACKS)  # type: ignore[arg-type]


async def serve_metrics(req: Request) -> None:
    await send_bytes(req.send, 200, generate_latest(REGISTRY), "text/plain; version=0.0.4; charset=utf-8")

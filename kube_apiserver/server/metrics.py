"""Prometheus metrics served at /metrics, named as kube-apiserver names them."""

from __future__ import annotations

import asyncio
import bisect
from collections.abc import Callable
from typing import Any

from prometheus_client import CollectorRegistry, Gauge, ProcessCollector, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily
from prometheus_client.utils import floatToGoString

from kube_apiserver.endpoints.request import Request, send_bytes

REGISTRY = CollectorRegistry(auto_describe=True)

_REQUEST_LABELS = ("verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component")
_DURATION_BUCKETS = (
    0.005,
    0.025,
    0.05,
    0.1,
    0.2,
    0.4,
    0.6,
    0.8,
    1.0,
    1.25,
    1.5,
    2,
    3,
    4,
    5,
    6,
    8,
    10,
    15,
    20,
    30,
    45,
    60,
)


# The subresources whose requests are counted as CONNECT (validConnectRequests).
_CONNECT_SUBRESOURCES = frozenset({"log", "exec", "proxy", "attach", "portforward"})
_VALID_VERBS = frozenset(
    {"APPLY", "CONNECT", "CREATE", "DELETE", "DELETECOLLECTION", "GET", "LIST", "PATCH", "POST", "PROXY", "PUT"}
    | {"UPDATE", "WATCH", "WATCHLIST"}
)


def clean_scope(info: Any) -> str:
    """metrics.CleanScope."""
    if info.name or info.verb == "create":
        return "resource"
    if info.namespace:
        return "namespace"
    return "cluster" if info.is_resource_request else ""


def reported_verb(req: Request, info: Any, scope_label: str) -> str:
    """The verb label as MonitorRequest reports it: the HTTP method (GET of a collection is LIST), WATCH for a
    watch, APPLY for a server-side apply, CONNECT for the streaming subresources, else OTHER."""
    verb = req.method.upper()
    if verb in ("GET", "HEAD"):
        verb = "LIST" if scope_label not in ("resource", "") else "GET"
        if req.flag("watch"):
            verb = "WATCH"
    elif verb == "PATCH" and req.header("content-type").split(";")[0].strip() == "application/apply-patch+yaml":
        verb = "APPLY"
    if info.is_resource_request and info.subresource in _CONNECT_SUBRESOURCES:
        verb = "CONNECT"
    if info.is_resource_request and info.verb == "watch":
        verb = "WATCH"  # also the legacy /watch/ paths
    return verb if verb in _VALID_VERBS else "OTHER"


def _clean_dry_run(values: list[str] | None) -> str:
    """metrics cleanDryRun: the distinct values sorted, or "invalid"."""
    if not values:
        return ""
    if any(v != "All" for v in values):
        return "invalid"
    return "All"


def request_labels(req: Request, info: Any) -> tuple[str, ...]:
    """The labels of apiserver_request_total and apiserver_request_duration_seconds of a request, less its
    code (MonitorRequest's: verb, dry_run, group, version, resource, subresource, scope, component)."""
    scope_label = clean_scope(info)
    return (
        reported_verb(req, info, scope_label),
        _clean_dry_run(req.query.get("dryRun")),
        info.api_group,
        info.api_version,
        info.resource,
        info.subresource,
        scope_label,
        "apiserver",
    )


def record_dropped_request(scope: dict[str, Any]) -> None:
    """RecordDroppedRequest: a request refused with 429 by max-in-flight or priority and fairness, before it
    reached the handler that counts requests, is counted in apiserver_request_total all the same."""
    req, info = scope.get("k8s.request"), scope.get("k8s.request_info")
    if req is not None and info is not None:
        REQUESTS.observe(request_labels(req, info), "429", None)


class RequestMetrics:
    """apiserver_request_total and apiserver_request_duration_seconds. Counted in plain dicts by the
    event loop (the only writer) and made into metric families when scraped: a prometheus_client
    child takes a lock and searches its buckets on every observation, ~2.5 us of every request."""

    def __init__(self) -> None:
        self.totals: dict[tuple[str, ...], int] = {}
        # labels -> per bucket counts (the last is +Inf), then the sum of the observations
        self.durations: dict[tuple[str, ...], list[float]] = {}

    def observe(self, labels: tuple[str, ...], code: str, seconds: float | None) -> None:
        """One request: its labels (_REQUEST_LABELS), response code, and duration (None: not observed)."""
        key = (*labels, code)
        self.totals[key] = self.totals.get(key, 0) + 1
        if seconds is None:
            return
        counts = self.durations.get(labels)
        if counts is None:
            counts = self.durations[labels] = [0.0] * (len(_DURATION_BUCKETS) + 2)
        counts[bisect.bisect_left(_DURATION_BUCKETS, seconds)] += 1
        counts[-1] += seconds

    def describe(self) -> list[Any]:
        return []

    def collect(self) -> list[Any]:
        total = CounterMetricFamily(
            "apiserver_request_total",
            "Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, "
            "scope, component, and HTTP response code.",
            labels=[*_REQUEST_LABELS, "code"],
        )
        for key, n in list(self.totals.items()):
            total.add_metric(list(key), n)
        duration = HistogramMetricFamily(
            "apiserver_request_duration_seconds",
            "Response latency distribution in seconds for each verb, dry run value, group, version, resource, "
            "subresource, scope and component.",
            labels=list(_REQUEST_LABELS),
        )
        bounds = [floatToGoString(b) for b in _DURATION_BUCKETS] + ["+Inf"]
        for labels, counts in list(self.durations.items()):
            cumulative, running = [], 0.0
            for bound, n in zip(bounds, counts[:-1], strict=True):
                running += n
                cumulative.append((bound, running))
            duration.add_metric(list(labels), cumulative, sum_value=counts[-1])
        return [total, duration]


REQUESTS = RequestMetrics()
REGISTRY.register(REQUESTS)  # type: ignore[arg-type]
INFLIGHT = Gauge(
    "apiserver_current_inflight_requests",
    "Maximal number of currently used inflight request limit of this apiserver per request kind in last second.",
    ["request_kind"],
    registry=REGISTRY,
)


class InflightWatermark:
    """The requests executing per kind (readOnly, mutating), for apiserver_current_inflight_requests: the
    most seen in the last second, published each second (startWatermarkMaintenance), by the max-in-flight
    and the priority-and-fairness filters alike."""

    PERIOD = 1.0

    def __init__(self) -> None:
        self.executing = {"readOnly": 0, "mutating": 0}
        self.high = {"readOnly": 0, "mutating": 0}
        self._task: asyncio.Task[None] | None = None

    def started(self, kind: str) -> None:
        n = self.executing[kind] = self.executing[kind] + 1
        if n > self.high[kind]:
            self.high[kind] = n
        if self._task is None:
            for k in self.high:
                INFLIGHT.labels(k).set(0)
            self._task = asyncio.get_running_loop().create_task(self._publish(), name="inflight watermark")

    def finished(self, kind: str) -> None:
        self.executing[kind] -= 1

    async def _publish(self) -> None:
        while True:
            await asyncio.sleep(self.PERIOD)
            for kind, high in self.high.items():
                INFLIGHT.labels(kind).set(high)
                self.high[kind] = self.executing[kind]


WATERMARK = InflightWatermark()


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
# process_cpu_seconds_total, process_resident_memory_bytes, ... (legacyregistry's process collector)
ProcessCollector(registry=REGISTRY)
BUILD_INFO = Gauge(
    "kubernetes_build_info",
    "A metric with a constant '1' value labeled by major, minor, git version, git commit, git tree state, "
    "build date, Go version, and compiler from which Kubernetes was built, and platform on which it is running.",
    [
        "build_date",
        "compiler",
        "git_commit",
        "git_tree_state",
        "git_version",
        "go_version",
        "major",
        "minor",
        "platform",
    ],
    registry=REGISTRY,
)


def set_build_info(info: dict[str, Any]) -> None:
    BUILD_INFO.labels(
        info["buildDate"],
        info["compiler"],
        info["gitCommit"],
        info["gitTreeState"],
        info["gitVersion"],
        info["goVersion"],
        info["major"],
        info["minor"],
        info["platform"],
    ).set(1)


async def serve_metrics(req: Request) -> None:
    await send_bytes(req.send, 200, generate_latest(REGISTRY), "text/plain; version=0.0.4; charset=utf-8")

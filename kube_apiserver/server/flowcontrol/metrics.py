"""apiserver_flowcontrol_* metrics (pkg/util/flowcontrol/metrics), the stable and beta ones, on the
server's registry. Children are looked up once per label set: prometheus_client's labels() validates
and locks on every call."""

from __future__ import annotations

from typing import Any

from prometheus_client import Counter, Gauge, Histogram

from kube_apiserver.server.flowcontrol.conc_alloc import Integrator
from kube_apiserver.server.flowcontrol.queueset import Observer
from kube_apiserver.server.metrics import REGISTRY

_PL, _FS = "priority_level", "flow_schema"
_DURATION_BUCKETS = (0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30)

REJECTED = Counter(
    "apiserver_flowcontrol_rejected_requests_total",
    "Number of requests rejected by API Priority and Fairness subsystem",
    [_PL, _FS, "reason"],
    registry=REGISTRY,
)
DISPATCHED = Counter(
    "apiserver_flowcontrol_dispatched_requests_total",
    "Number of requests executed by API Priority and Fairness subsystem",
    [_PL, _FS],
    registry=REGISTRY,
)
INQUEUE = Gauge(
    "apiserver_flowcontrol_current_inqueue_requests",
    "Number of requests currently pending in queues of the API Priority and Fairness subsystem",
    [_PL, _FS],
    registry=REGISTRY,
)
EXECUTING = Gauge(
    "apiserver_flowcontrol_current_executing_requests",
    "Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority "
    "and Fairness subsystem",
    [_PL, _FS],
    registry=REGISTRY,
)
EXECUTING_SEATS = Gauge(
    "apiserver_flowcontrol_current_executing_seats",
    "Concurrency (number of seats) occupied by the currently executing (initial stage for a WATCH, any stage "
    "otherwise) requests in the API Priority and Fairness subsystem",
    [_PL, _FS],
    registry=REGISTRY,
)
WAIT_DURATION = Histogram(
    "apiserver_flowcontrol_request_wait_duration_seconds",
    "Length of time a request spent waiting in its queue",
    [_PL, _FS, "execute"],
    buckets=_DURATION_BUCKETS,
    registry=REGISTRY,
)
NOMINAL_LIMIT = Gauge(
    "apiserver_flowcontrol_nominal_limit_seats",
    "Nominal number of execution seats configured for each priority level",
    [_PL],
    registry=REGISTRY,
)
LOWER_LIMIT = Gauge(
    "apiserver_flowcontrol_lower_limit_seats",
    "Configured lower bound on number of execution seats available to each priority level",
    [_PL],
    registry=REGISTRY,
)
UPPER_LIMIT = Gauge(
    "apiserver_flowcontrol_upper_limit_seats",
    "Configured upper bound on number of execution seats available to each priority level",
    [_PL],
    registry=REGISTRY,
)
CURRENT_LIMIT = Gauge(
    "apiserver_flowcontrol_current_limit_seats",
    "current derived number of execution seats available to each priority level",
    [_PL],
    registry=REGISTRY,
)

_children: dict[tuple[Any, tuple[str, ...]], Any] = {}


def child(metric: Any, *labels: str) -> Any:
    key = (metric, labels)
    c = _children.get(key)
    if c is None:
        c = _children[key] = metric.labels(*labels)
    return c


def set_priority_level_limits(pl_name: str, nominal: int, lower: int, upper: int) -> None:
    child(NOMINAL_LIMIT, pl_name).set(nominal)
    child(LOWER_LIMIT, pl_name).set(lower)
    child(UPPER_LIMIT, pl_name).set(upper)


def set_current_limit(pl_name: str, current: int) -> None:
    child(CURRENT_LIMIT, pl_name).set(current)


def forget_priority_level(pl_name: str) -> None:
    for metric in (NOMINAL_LIMIT, LOWER_LIMIT, UPPER_LIMIT, CURRENT_LIMIT):
        _children.pop((metric, (pl_name,)), None)
        try:
            metric.remove(pl_name)
        except KeyError:
            pass


class PriorityLevelObserver(Observer):
    """What one level's QueueSet reports: the per-schema gauges, and its seat demand for borrowing."""

    __slots__ = ("pl_name", "integrator", "_waiting", "_executing")

    def __init__(self, pl_name: str, integrator: Integrator) -> None:
        self.pl_name = pl_name
        self.integrator = integrator
        self._waiting: dict[str, Any] = {}
        self._executing: dict[str, tuple[Any, Any]] = {}

    def waiting(self, fs_name: str, delta: int) -> None:
        g = self._waiting.get(fs_name)
        if g is None:
            g = self._waiting[fs_name] = INQUEUE.labels(self.pl_name, fs_name)
        g.inc(delta)

    def executing(self, fs_name: str, delta: int, seats: int) -> None:
        pair = self._executing.get(fs_name)
        if pair is None:
            pair = self._executing[fs_name] = (
                EXECUTING.labels(self.pl_name, fs_name),
                EXECUTING_SEATS.labels(self.pl_name, fs_name),
            )
        pair[0].inc(delta)
        pair[1].inc(delta * seats)

    def demand(self, seats: int) -> None:
        self.integrator.set(seats)

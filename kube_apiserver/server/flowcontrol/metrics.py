"""apiserver_flowcontrol_* metrics (pkg/util/flowcontrol/metrics), the stable and beta ones, on the
server's registry.

What changes on every request (requests waiting and executing, seats, dispatches, rejections) is kept
in plain counters by the queue sets and the filter and read at scrape time: a prometheus_client metric
takes a lock on every update, which would cost every request. Only the wait duration histogram, which a
request only meets when it had to queue, is a prometheus_client metric.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from prometheus_client import Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from kube_apiserver.server.metrics import REGISTRY

_PL, _FS = "priority_level", "flow_schema"
_DURATION_BUCKETS = (0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30)

WAIT_DURATION = Histogram(
    "apiserver_flowcontrol_request_wait_duration_seconds",
    "Length of time a request spent waiting in its queue",
    [_PL, _FS, "execute"],
    buckets=_DURATION_BUCKETS,
    registry=REGISTRY,
)

# (priority level, flow schema) -> requests dispatched; (priority level, flow schema, reason) -> rejected
DISPATCHED: dict[tuple[str, str], int] = {}
REJECTED: dict[tuple[str, str, str], int] = {}

_wait_children: dict[tuple[str, str, str], Any] = {}


def observe_wait(pl_name: str, fs_name: str, executed: bool, seconds: float) -> None:
    key = (pl_name, fs_name, "true" if executed else "false")
    child = _wait_children.get(key)
    if child is None:
        child = _wait_children[key] = WAIT_DURATION.labels(*key)
    child.observe(seconds)


class FlowControlCollector:
    """Reads the config controller's priority levels at scrape time."""

    def __init__(self) -> None:
        # () -> the controller's priority level states by name; set when APF is installed
        self.priority_levels: Callable[[], dict[str, Any]] = dict

    def describe(self) -> list[Metric]:
        return []

    def collect(self) -> Iterator[Metric]:
        levels = self.priority_levels()
        rejected = CounterMetricFamily(
            "apiserver_flowcontrol_rejected_requests",
            "Number of requests rejected by API Priority and Fairness subsystem",
            labels=[_PL, _FS, "reason"],
        )
        for labels, n in sorted(REJECTED.items()):
            rejected.add_metric(list(labels), n)
        dispatched = CounterMetricFamily(
            "apiserver_flowcontrol_dispatched_requests",
            "Number of requests executed by API Priority and Fairness subsystem",
            labels=[_PL, _FS],
        )
        for labels, n in sorted(DISPATCHED.items()):
            dispatched.add_metric(list(labels), n)
        inqueue = GaugeMetricFamily(
            "apiserver_flowcontrol_current_inqueue_requests",
            "Number of requests currently pending in queues of the API Priority and Fairness subsystem",
            labels=[_PL, _FS],
        )
        executing = GaugeMetricFamily(
            "apiserver_flowcontrol_current_executing_requests",
            "Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API "
            "Priority and Fairness subsystem",
            labels=[_PL, _FS],
        )
        seats = GaugeMetricFamily(
            "apiserver_flowcontrol_current_executing_seats",
            "Concurrency (number of seats) occupied by the currently executing (initial stage for a WATCH, any "
            "stage otherwise) requests in the API Priority and Fairness subsystem",
            labels=[_PL, _FS],
        )
        limits = {
            "nominal": GaugeMetricFamily(
                "apiserver_flowcontrol_nominal_limit_seats",
                "Nominal number of execution seats configured for each priority level",
                labels=[_PL],
            ),
            "lower": GaugeMetricFamily(
                "apiserver_flowcontrol_lower_limit_seats",
                "Configured lower bound on number of execution seats available to each priority level",
                labels=[_PL],
            ),
            "upper": GaugeMetricFamily(
                "apiserver_flowcontrol_upper_limit_seats",
                "Configured upper bound on number of execution seats available to each priority level",
                labels=[_PL],
            ),
            "current": GaugeMetricFamily(
                "apiserver_flowcontrol_current_limit_seats",
                "current derived number of execution seats available to each priority level",
                labels=[_PL],
            ),
        }
        for name in sorted(levels):
            state = levels[name]
            limits["nominal"].add_metric([name], state.nominal_cl)
            limits["lower"].add_metric([name], state.min_cl)
            limits["upper"].add_metric([name], state.max_cl)
            limits["current"].add_metric([name], state.current_cl)
            if state.queues is None:
                continue
            for fs_name, (waiting, running, seats_in_use) in sorted(state.queues.fs_counts.items()):
                inqueue.add_metric([name, fs_name], waiting)
                executing.add_metric([name, fs_name], running)
                seats.add_metric([name, fs_name], seats_in_use)
        yield from (rejected, dispatched, inqueue, executing, seats, *limits.values())


COLLECTOR = FlowControlCollector()
REGISTRY.register(COLLECTOR)  # type: ignore[arg-type]

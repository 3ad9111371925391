"""/debug/api_priority_and_fairness/dump_* (apf_controller_debug.go): comma-separated rows aligned the way
Go's tabwriter (minwidth 8, padding 1) aligns them: a row per priority level, per queue, per waiting
request."""

from __future__ import annotations

import time
from typing import Any

from kube_apiserver.endpoints.request import Request, send_text
from kube_apiserver.server.flowcontrol.controller import ConfigController

PREFIX = "/debug/api_priority_and_fairness/"


def tabwrite(rows: list[list[str]]) -> str:
    """Every cell but a row's last ends in ",\\t"; a column is as wide as its widest cell plus one, and
    at least 8."""
    widths: list[int] = []
    for row in rows:
        for i, cell in enumerate(row[:-1]):
            width = len(cell) + 1  # the comma
            if i == len(widths):
                widths.append(width)
            elif width > widths[i]:
                widths[i] = width
    lines = []
    for row in rows:
        cells = [f"{cell},".ljust(max(widths[i] + 1, 8)) for i, cell in enumerate(row[:-1])]
        lines.append("".join(cells) + (row[-1] if row else ""))
    return "".join(line + "\n" for line in lines)


def _bool(value: bool) -> str:
    return "true" if value else "false"


def dump_priority_levels(controller: ConfigController) -> str:
    rows = [["PriorityLevelName", "ActiveQueues", "IsIdle", "IsQuiescing", "WaitingRequests", "ExecutingRequests"]]
    for name, state in controller.priority_levels.items():
        qs = state.queues
        if qs is None:
            rows.append([name, *["<none>"] * 5])
            continue
        active = sum(1 for q in qs.queues if q.requests)
        rows.append(
            [
                name,
                str(active),
                _bool(qs.is_idle()),
                _bool(state.quiescing),
                str(qs.tot_requests_waiting),
                str(qs.tot_requests_executing),
            ]
        )
    return tabwrite(rows)


def dump_queues(controller: ConfigController) -> str:
    rows = [
        [
            "PriorityLevelName",
            "Index",
            "PendingRequests",
            "ExecutingRequests",
            "SeatsInUse",
            "NextDispatchR",
            "InitialSeatsSum",
            "MaxSeatsSum",
            "TotalWorkSum",
        ]
    ]
    for name, state in controller.priority_levels.items():
        qs = state.queues
        if qs is None:
            continue
        for i, q in enumerate(qs.queues):
            work = sum(r.work for r in q.requests)
            rows.append(
                [
                    name,
                    str(i),
                    str(len(q.requests)),
                    str(q.requests_executing),
                    str(q.seats_in_use),
                    f"{q.next_dispatch_r:.8f}ss",
                    str(q.seats_waiting),
                    str(q.seats_waiting),
                    f"{work:.8f}ss",
                ]
            )
    return tabwrite(rows)


def dump_requests(controller: ConfigController) -> str:
    rows = [
        [
            "PriorityLevelName",
            "FlowSchemaName",
            "QueueIndex",
            "RequestIndexInQueue",
            "FlowDistingsher",
            "ArriveTime",
            "InitialSeats",
            "FinalSeats",
            "AdditionalLatency",
        ]
    ]
    # request times are monotonic: shown as wall-clock times
    offset = time.time() - time.monotonic()
    for name, state in controller.priority_levels.items():
        qs = state.queues
        if qs is None:
            continue
        for iq, q in enumerate(qs.queues):
            for ir, r in enumerate(q.requests):
                arrived = r.arrival_time + offset
                stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(arrived)) + f".{int(arrived % 1 * 1e9):09d}Z"
                rows.append([name, r.fs_name, str(iq), str(ir), r.flow, stamp, str(r.seats), "0", "0s"])
    return tabwrite(rows)


def install(mux: Any, controller: ConfigController) -> None:
    def serve(dump: Any) -> Any:
        async def handler(req: Request) -> None:
            await send_text(req.send, 200, dump(controller))

        return handler

    mux.handle(PREFIX + "dump_priority_levels", serve(dump_priority_levels))
    mux.handle(PREFIX + "dump_queues", serve(dump_queues))
    mux.handle(PREFIX + "dump_requests", serve(dump_requests))

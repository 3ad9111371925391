"""Fair queuing for server requests (pkg/util/flowcontrol/fairqueuing/queueset).

One QueueSet per priority level. A Limited level with queuing has `queues` FIFO queues; a flow is
shuffle-sharded to the shortest queue of its hand; when a seat is free the request dispatched next is
the oldest of the queue whose virtual finish time is least. Virtual time R counts the seat-seconds each
active queue has been allotted: it advances at min(seats asked for, concurrency limit) / active queues
per second, so a queue that keeps asking gets its fair share and no more. A dispatched request is
charged an estimated service time G (3 ms) at dispatch and corrected by the actual duration at the end.

A level without queues (limitResponse Reject) only counts seats; the exempt level counts and never
limits. The core is synchronous and takes its time from a clock, so it can be driven step by step in
tests; `wait` is the one coroutine, for a request that has to queue.
"""

from __future__ import annotations

import asyncio
import bisect
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from kube_apiserver.server.flowcontrol.shufflesharding import Dealer, DealerError

# Estimated service duration of a request (queueSet.estimatedServiceDuration).
ESTIMATED_SERVICE_DURATION = 0.003

WAITING, EXECUTING, REJECTED, FINISHED = "waiting", "executing", "rejected", "finished"


class QueueSetConfigError(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class QueuingConfig:
    name: str
    # > 0: that many queues; 0: no queuing, reject beyond the limit; < 0: exempt, never limited
    desired_num_queues: int
    queue_length_limit: int = 0
    hand_size: int = 0


class DemandIntegrator(Protocol):
    """Told the seats in use plus the seats waiting whenever that changes (for borrowing)."""

    def set(self, x: float, now: float) -> None: ...


class Request:
    __slots__ = (
        "qs",
        "fs_name",
        "flow",
        "seats",
        "queue",
        "arrival_time",
        "arrival_r",
        "start_time",
        "state",
        "waiter",
    )

    def __init__(self, qs: QueueSet, fs_name: str, flow: str, seats: int, now: float) -> None:
        self.qs = qs
        self.fs_name = fs_name
        self.flow = flow
        self.seats = seats
        self.queue: Queue | None = None
        self.arrival_time = now
        self.arrival_r = qs.current_r
        self.start_time = now
        self.state = WAITING
        self.waiter: asyncio.Future[None] | None = None

    @property
    def work(self) -> float:
        return self.seats * ESTIMATED_SERVICE_DURATION


class Queue:
    __slots__ = ("index", "requests", "next_dispatch_r", "requests_executing", "seats_in_use", "seats_waiting")

    def __init__(self, index: int) -> None:
        self.index = index
        self.requests: deque[Request] = deque()
        self.next_dispatch_r = 0.0
        self.requests_executing = 0
        self.seats_in_use = 0
        self.seats_waiting = 0  # sum of the waiting requests' seats (their work is this times G)

    @property
    def active(self) -> bool:
        return bool(self.requests) or self.requests_executing > 0


def check_config(cfg: QueuingConfig) -> Dealer | None:
    if cfg.desired_num_queues <= 0:
        return None
    try:
        return Dealer(cfg.desired_num_queues, cfg.hand_size)
    except DealerError as e:
        raise QueueSetConfigError(
            f"the QueueSetConfig implies an invalid shuffle sharding config (DesiredNumQueues is deckSize): {e}"
        ) from None


class QueueSet:
    def __init__(
        self,
        cfg: QueuingConfig,
        concurrency_limit: int,
        clock: Callable[[], float] = time.monotonic,
        integrator: DemandIntegrator | None = None,
    ) -> None:
        self.clock = clock
        self.integrator = integrator
        # per FlowSchema: [requests waiting, requests executing, seats executing], read by the metrics
        self.fs_counts: dict[str, list[int]] = {}
        self.cfg = cfg
        self.dealer = check_config(cfg)
        self.concurrency_limit = concurrency_limit
        self.queues: list[Queue] = [Queue(i) for i in range(max(cfg.desired_num_queues, 0))]
        self.current_r = 0.0
        self.last_real_time = clock()
        self.robin_index = -1
        self.enqueues = 0
        self.active_queues = 0
        self.tot_requests_waiting = 0
        self.tot_requests_executing = 0
        self.tot_seats_in_use = 0
        self.tot_seats_waiting = 0
        self.nonempty: set[int] = set()  # indexes of the queues with requests waiting

    # --- configuration ---

    def set_configuration(self, cfg: QueuingConfig, concurrency_limit: int) -> None:
        """New queuing parameters and limit (BeginConfigChange + Complete). Raises QueueSetConfigError."""
        dealer = check_config(cfg)
        self._sync_time()
        if cfg.desired_num_queues > len(self.queues):
            self.queues.extend(Queue(i) for i in range(len(self.queues), cfg.desired_num_queues))
        elif cfg.desired_num_queues <= 0:
            # no queues wanted: the old parameters stay for the requests still queued
            cfg = QueuingConfig(cfg.name, cfg.desired_num_queues, self.cfg.queue_length_limit, self.cfg.hand_size)
        # fewer queues wanted: an excess queue goes when it is empty
        self.cfg, self.dealer, self.concurrency_limit = cfg, dealer, concurrency_limit
        self._dispatch_as_much_as_possible()

    # --- virtual time ---

    def _sync_time(self) -> None:
        now = self.clock()
        if self.active_queues:
            seats_requested = self.tot_seats_in_use + self.tot_seats_waiting
            ratio = min(seats_requested, self.concurrency_limit) / self.active_queues
            self.current_r += ratio * (now - self.last_real_time)
        self.last_real_time = now

    def _bound_next_dispatch(self, queue: Queue) -> None:
        # anti-windup: a queue's virtual dispatch never precedes its oldest request's arrival
        if queue.requests and queue.next_dispatch_r < queue.requests[0].arrival_r:
            queue.next_dispatch_r = queue.requests[0].arrival_r

    # --- requests ---

    def _count(self, fs_name: str, waiting: int, executing: int, seats: int) -> None:
        counts = self.fs_counts.get(fs_name)
        if counts is None:
            counts = self.fs_counts[fs_name] = [0, 0, 0]
        counts[0] += waiting
        counts[1] += executing
        counts[2] += seats
        if self.integrator is not None:
            self.integrator.set(self.tot_seats_in_use + self.tot_seats_waiting, self.last_real_time)

    def start_request(self, seats: int, hash_value: int, fs_name: str, flow: str) -> tuple[Request | None, str]:
        """Admit, queue or reject. Returns (request, "") or (None, reason): the request is EXECUTING when
        dispatched at once, WAITING when queued (then `wait` for it)."""
        if self.cfg.desired_num_queues < 1:
            # only the seats count (virtual time moves only while queues are active)
            self._sync_time()
            if not self._can_accommodate(seats):
                return None, "concurrency-limit"
            req = Request(self, fs_name, flow, seats, self.last_real_time)
            req.state = EXECUTING
            self.tot_requests_executing += 1
            self.tot_seats_in_use += seats
            self._count(fs_name, 0, 1, seats)
            return req, ""
        self._sync_time()
        req = Request(self, fs_name, flow, seats, self.last_real_time)
        queue = self.queues[self._shuffle_shard(hash_value)]
        if (
            not self.tot_requests_waiting
            and self.tot_seats_in_use < self.concurrency_limit
            and self._can_accommodate(seats)
        ):
            # the usual case, no contention: enqueued and dispatched at once, as the only request waiting
            if not queue.requests_executing:  # and nothing waits anywhere: the queue was idle
                queue.next_dispatch_r = self.current_r
                self.active_queues += 1
            req.queue = queue
            req.state = EXECUTING
            self.robin_index = queue.index
            self.tot_requests_executing += 1
            self.tot_seats_in_use += seats
            queue.requests_executing += 1
            queue.seats_in_use += seats
            queue.next_dispatch_r += req.work
            self._count(fs_name, 0, 1, seats)
            return req, ""
        if self.tot_seats_in_use >= self.concurrency_limit and len(queue.requests) >= self.cfg.queue_length_limit:
            return None, "queue-full"
        self._enqueue(req, queue)
        self._dispatch_as_much_as_possible()
        return req, ""

    def _shuffle_shard(self, hash_value: int) -> int:
        """The queue of the flow's hand with the least waiting work; ties go round the hand, starting
        one further on each time, so overlapping hands are not biased."""
        assert self.dealer is not None
        hand = self.dealer.hand(hash_value)
        hand_size = len(hand)
        offset = self.enqueues % hand_size
        self.enqueues += 1
        if not self.tot_requests_waiting:
            return hand[offset]  # every queue is empty: the first one looked at wins
        queues = self.queues
        best, least = -1, -1
        for i in range(hand_size):
            index = hand[(offset + i) % hand_size]
            waiting = queues[index].seats_waiting
            if least < 0 or waiting < least:
                best, least = index, waiting
        return best

    def _enqueue(self, req: Request, queue: Queue) -> None:
        was_active = queue.active
        if not was_active:
            queue.next_dispatch_r = self.current_r  # an idle queue starts from now
        req.queue = queue
        queue.requests.append(req)
        queue.seats_waiting += req.seats
        if not was_active:
            self.active_queues += 1
        if len(queue.requests) == 1:
            self.nonempty.add(queue.index)
        self.tot_requests_waiting += 1
        self.tot_seats_waiting += req.seats
        self._count(req.fs_name, 1, 0, 0)
        self._bound_next_dispatch(queue)

    def _can_accommodate(self, seats: int) -> bool:
        if self.cfg.desired_num_queues < 0:
            return True
        if seats > self.concurrency_limit:
            # wider than the whole level: it runs alone
            return self.tot_requests_executing == 0
        return self.tot_seats_in_use + seats <= self.concurrency_limit

    def _dispatch_as_much_as_possible(self) -> None:
        while self.tot_requests_waiting and self.tot_seats_in_use < self.concurrency_limit and self._dispatch():
            pass

    def _round_robin(self) -> list[int]:
        """The non-empty queues in round-robin order, starting after the last one dispatched from."""
        order = sorted(self.nonempty)
        if len(order) > 1:
            i = bisect.bisect_right(order, self.robin_index)
            order = order[i:] + order[:i]
        return order

    def _dispatch(self) -> bool:
        """Dispatch the oldest request of the queue with the least virtual finish time, if it fits."""
        best: Queue | None = None
        best_finish = 0.0
        queues = self.queues
        for index in self._round_robin():
            queue = queues[index]
            finish = queue.next_dispatch_r + queue.requests[0].work
            if best is None or finish < best_finish:
                best, best_finish = queue, finish
        if best is None:
            return False
        req = best.requests[0]
        if not self._can_accommodate(req.seats):
            return False
        best.requests.popleft()
        if not best.requests:
            self.nonempty.discard(best.index)
        best.seats_waiting -= req.seats
        # the queues not chosen win the next tie
        self.robin_index = best.index
        self.tot_requests_waiting -= 1
        self.tot_seats_waiting -= req.seats
        req.state = EXECUTING
        req.start_time = self.last_real_time
        self.tot_requests_executing += 1
        self.tot_seats_in_use += req.seats
        best.requests_executing += 1
        best.seats_in_use += req.seats
        best.next_dispatch_r += req.work
        self._bound_next_dispatch(best)
        self._count(req.fs_name, -1, 1, req.seats)
        if req.waiter is not None and not req.waiter.done():
            req.waiter.set_result(None)
        return True

    def remove_waiting(self, req: Request) -> bool:
        """Take a request that gave up (its wait limit passed, its client went away) out of its queue.
        False when it is not waiting any more."""
        if req.state != WAITING or req.queue is None:
            return False
        self._sync_time()
        queue = req.queue
        queue.requests.remove(req)
        if not queue.requests:
            self.nonempty.discard(queue.index)
        queue.seats_waiting -= req.seats
        if not queue.active:
            self.active_queues -= 1
        self.tot_requests_waiting -= 1
        self.tot_seats_waiting -= req.seats
        req.state = REJECTED
        self._count(req.fs_name, -1, 0, 0)
        self._bound_next_dispatch(queue)
        self._remove_queue_if_excess(queue)
        return True

    def finish_request(self, req: Request) -> None:
        """The request's execution is over: free its seats and dispatch what now fits."""
        if req.state != EXECUTING:
            return
        req.state = FINISHED
        queue = req.queue
        self._sync_time()
        if queue is None:  # dispatched without a queue
            self.tot_requests_executing -= 1
            self.tot_seats_in_use -= req.seats
            self._count(req.fs_name, 0, -1, -req.seats)
            if self.tot_requests_waiting:
                self._dispatch_as_much_as_possible()
            return
        self.tot_requests_executing -= 1
        self.tot_seats_in_use -= req.seats
        queue.requests_executing -= 1
        queue.seats_in_use -= req.seats
        # charged G at dispatch: now charge what it really took
        service = self.last_real_time - req.start_time
        queue.next_dispatch_r -= req.seats * (ESTIMATED_SERVICE_DURATION - service)
        if not queue.active:
            self.active_queues -= 1
        self._bound_next_dispatch(queue)
        self._remove_queue_if_excess(queue)
        self._count(req.fs_name, 0, -1, -req.seats)
        self._dispatch_as_much_as_possible()

    def _remove_queue_if_excess(self, queue: Queue) -> None:
        if len(self.queues) > max(self.cfg.desired_num_queues, 0) and not queue.active:
            i = queue.index
            del self.queues[i]
            for q in self.queues[i:]:
                q.index -= 1
            self.nonempty = {j - 1 if j > i else j for j in self.nonempty}
            if self.robin_index >= i:
                self.robin_index -= 1

    async def wait(self, req: Request, timeout: float) -> bool:
        """Wait until the request is dispatched (True) or timeout seconds pass (False, removed from its
        queue). If the caller is cancelled, the request leaves its queue or frees its seats."""
        if req.state != WAITING:
            return req.state == EXECUTING
        req.waiter = asyncio.get_running_loop().create_future()
        try:
            async with asyncio.timeout(timeout):
                await req.waiter
        except TimeoutError:
            if req.state == EXECUTING:  # dispatched at the very deadline
                return True
            self.remove_waiting(req)
            return False
        except asyncio.CancelledError:
            if not self.remove_waiting(req):
                self.finish_request(req)
            raise
        return True

    def is_idle(self) -> bool:
        return self.tot_requests_waiting == 0 and self.tot_requests_executing == 0

    def dump(self) -> dict[str, Any]:
        return {
            "waiting": self.tot_requests_waiting,
            "executing": self.tot_requests_executing,
            "seats_in_use": self.tot_seats_in_use,
            "seats_waiting": self.tot_seats_waiting,
            "queues": [
                {
                    "index": q.index,
                    "next_dispatch_r": q.next_dispatch_r,
                    "waiting": len(q.requests),
                    "executing": q.requests_executing,
                    "seats_in_use": q.seats_in_use,
                    "requests": [(r.fs_name, r.flow, r.seats, r.arrival_time) for r in q.requests],
                }
                for q in self.queues
            ],
        }

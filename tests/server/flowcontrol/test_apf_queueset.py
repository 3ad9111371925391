"""Fair queuing (queueset.go) driven step by step on a fake clock: no timing races."""

from __future__ import annotations

import asyncio

import pytest

from kube_apiserver.server.flowcontrol.queueset import (
    ESTIMATED_SERVICE_DURATION,
    EXECUTING,
    REJECTED,
    WAITING,
    QueueSet,
    QueueSetConfigError,
    QueuingConfig,
)


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


class Demand:
    """Records what the queue set reports as its seat demand."""

    def __init__(self) -> None:
        self.values: list[float] = []

    def set(self, x: float, now: float) -> None:
        self.values.append(x)


def test_exempt_is_never_limited_but_counted():
    demand = Demand()
    qs = QueueSet(QueuingConfig("exempt", -1), 0, Clock(), demand)
    reqs = [qs.start_request(1, 0, "exempt", "")[0] for _ in range(50)]
    assert all(r is not None and r.state == EXECUTING for r in reqs)
    assert qs.tot_requests_executing == 50 and qs.fs_counts == {"exempt": [0, 50, 50]}
    for r in reqs:
        qs.finish_request(r)
    assert qs.is_idle() and qs.fs_counts == {"exempt": [0, 0, 0]}
    assert demand.values == list(range(1, 51)) + list(range(49, -1, -1))


def test_reject_level_limits_concurrency():
    qs = QueueSet(QueuingConfig("catch-all", 0), 2, Clock())
    a, _ = qs.start_request(1, 0, "catch-all", "u")
    b, _ = qs.start_request(1, 0, "catch-all", "u")
    assert a is not None and b is not None and a.state == b.state == EXECUTING
    assert qs.start_request(1, 0, "catch-all", "u") == (None, "concurrency-limit")
    qs.finish_request(a)
    qs.finish_request(a)  # twice is harmless
    c, reason = qs.start_request(1, 0, "catch-all", "u")
    assert c is not None and reason == "" and qs.tot_seats_in_use == 2


def test_one_queue_fifo_and_queue_full():
    qs = QueueSet(QueuingConfig("pl", 1, queue_length_limit=2, hand_size=1), 1, Clock())
    first, _ = qs.start_request(1, 0, "fs", "a")
    second, _ = qs.start_request(1, 0, "fs", "a")
    third, _ = qs.start_request(1, 0, "fs", "a")
    assert first is not None and second is not None and third is not None
    assert (first.state, second.state, third.state) == (EXECUTING, WAITING, WAITING)
    assert qs.fs_counts == {"fs": [2, 1, 1]}
    assert qs.start_request(1, 0, "fs", "a") == (None, "queue-full")
    qs.finish_request(first)
    assert (second.state, third.state) == (EXECUTING, WAITING)
    assert qs.fs_counts == {"fs": [1, 1, 1]}
    # a free seat lets a request in even when its queue is at the length limit
    qs2 = QueueSet(QueuingConfig("pl", 1, queue_length_limit=0, hand_size=1), 1, Clock())
    r, _ = qs2.start_request(1, 0, "fs", "a")
    assert r is not None and r.state == EXECUTING
    assert qs2.start_request(1, 0, "fs", "a") == (None, "queue-full")


def test_fair_queuing_serves_the_quiet_flow_first():
    """Flow A keeps its queue busy; B's single request, queued last, goes before A's backlog."""
    clock = Clock()
    qs = QueueSet(QueuingConfig("pl", 8, queue_length_limit=10, hand_size=1), 1, clock)
    # with one card per hand, hash h deals queue h % 8
    a1, _ = qs.start_request(1, 0, "fs", "A")
    a2, _ = qs.start_request(1, 0, "fs", "A")
    a3, _ = qs.start_request(1, 0, "fs", "A")
    b1, _ = qs.start_request(1, 1, "fs", "B")
    assert a1 is not None and a2 is not None and a3 is not None and b1 is not None
    assert a1.queue is not None and b1.queue is not None and a1.queue is a2.queue and a1.queue is not b1.queue
    order = [a1]
    for _ in range(3):
        clock.t += 1.0
        running = next(r for r in (a1, a2, a3, b1) if r.state == EXECUTING)
        qs.finish_request(running)
        order.append(next(r for r in (a1, a2, a3, b1) if r.state == EXECUTING))
    assert [r.flow for r in order] == ["A", "B", "A", "A"]
    assert order[2] is a2  # FIFO within a queue


def test_virtual_time_advances_by_seats_per_active_queue():
    clock = Clock()
    qs = QueueSet(QueuingConfig("pl", 4, queue_length_limit=10, hand_size=1), 1, clock)
    qs.start_request(1, 0, "fs", "A")
    qs.start_request(1, 1, "fs", "B")
    assert qs.active_queues == 2 and qs.current_r == 0.0
    clock.t += 2.0
    qs.start_request(1, 2, "fs", "C")  # syncs: 2 s at min(2 seats asked, limit 1) / 2 queues
    assert qs.current_r == pytest.approx(1.0)
    assert qs.active_queues == 3


def test_queue_charged_for_actual_service_time():
    clock = Clock()
    qs = QueueSet(QueuingConfig("pl", 2, queue_length_limit=10, hand_size=1), 1, clock)
    r, _ = qs.start_request(1, 0, "fs", "A")
    assert r is not None and r.queue is not None
    queue = r.queue
    assert queue.next_dispatch_r == pytest.approx(ESTIMATED_SERVICE_DURATION)
    qs.start_request(1, 0, "fs", "A")  # keeps the queue active after the first finishes
    clock.t += 0.5
    qs.finish_request(r)
    # R moved 0.5 s at min(2, 1)/1 = 0.5; the queue was charged 0.5 s instead of G, then dispatched the next
    assert qs.current_r == pytest.approx(0.5)
    assert queue.next_dispatch_r == pytest.approx(0.5 + ESTIMATED_SERVICE_DURATION)


def test_shuffle_sharding_picks_the_shortest_queue_of_the_hand():
    qs = QueueSet(QueuingConfig("pl", 4, queue_length_limit=10, hand_size=2), 0, Clock())
    hand = qs.dealer.deal(7) if qs.dealer else []
    assert len(hand) == 2
    first, _ = qs.start_request(1, 7, "fs", "f")
    second, _ = qs.start_request(1, 7, "fs", "f")
    assert first is not None and second is not None
    # nothing executes (limit 0): the first took one queue of the hand, the second the other one
    assert {first.queue.index, second.queue.index} == set(hand)  # type: ignore[union-attr]
    third, _ = qs.start_request(1, 7, "fs", "f")
    assert third is not None and third.queue is not None and third.queue.index in hand


def test_remove_waiting_and_idle():
    qs = QueueSet(QueuingConfig("pl", 1, queue_length_limit=1, hand_size=1), 1, Clock())
    a, _ = qs.start_request(1, 0, "fs", "a")
    b, _ = qs.start_request(1, 0, "fs", "a")
    assert a is not None and b is not None
    assert qs.start_request(1, 0, "fs", "a") == (None, "queue-full")
    assert qs.remove_waiting(b) and b.state == REJECTED
    assert not qs.remove_waiting(b)
    c, _ = qs.start_request(1, 0, "fs", "a")  # room again in the queue
    assert c is not None and c.state == WAITING
    qs.finish_request(a)
    assert c.state == EXECUTING and not qs.is_idle()
    qs.finish_request(c)
    assert qs.is_idle() and qs.active_queues == 0


def test_reconfiguration():
    qs = QueueSet(QueuingConfig("pl", 2, queue_length_limit=5, hand_size=1), 0, Clock())
    reqs = [qs.start_request(1, h, "fs", "f")[0] for h in (0, 1, 0)]
    assert all(r is not None and r.state == WAITING for r in reqs)
    # a higher limit dispatches what now fits, oldest virtual finish first
    qs.set_configuration(QueuingConfig("pl", 2, queue_length_limit=5, hand_size=1), 2)
    assert [r.state for r in reqs if r] == [EXECUTING, EXECUTING, WAITING]
    # fewer queues: the excess queue goes once empty
    qs.set_configuration(QueuingConfig("pl", 1, queue_length_limit=5, hand_size=1), 2)
    assert len(qs.queues) == 2
    qs.finish_request(reqs[1])  # type: ignore[arg-type]
    assert len(qs.queues) == 1
    with pytest.raises(QueueSetConfigError) as e:
        qs.set_configuration(QueuingConfig("pl", 4, queue_length_limit=5, hand_size=5), 2)
    assert str(e.value) == (
        "the QueueSetConfig implies an invalid shuffle sharding config (DesiredNumQueues is deckSize): "
        "handSize 5 is greater than deckSize 4"
    )


def test_wait_dispatch_timeout_and_cancel():
    async def scenario() -> None:
        qs = QueueSet(QueuingConfig("pl", 1, queue_length_limit=5, hand_size=1), 1, Clock())
        running, _ = qs.start_request(1, 0, "fs", "a")
        waiting, _ = qs.start_request(1, 0, "fs", "a")
        assert running is not None and waiting is not None
        # times out: out of its queue
        assert await qs.wait(waiting, 0.01) is False
        assert waiting.state == REJECTED and qs.tot_requests_waiting == 0
        # dispatched while waiting
        waiting2, _ = qs.start_request(1, 0, "fs", "a")
        assert waiting2 is not None
        task = asyncio.create_task(qs.wait(waiting2, 10))
        await asyncio.sleep(0)
        qs.finish_request(running)
        assert await task is True and waiting2.state == EXECUTING
        # cancelled while waiting: out of its queue
        waiting3, _ = qs.start_request(1, 0, "fs", "a")
        assert waiting3 is not None
        task = asyncio.create_task(qs.wait(waiting3, 10))
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert waiting3.state == REJECTED and qs.tot_requests_waiting == 0
        # an already dispatched request does not wait
        qs.finish_request(waiting2)
        now, _ = qs.start_request(1, 0, "fs", "a")
        assert now is not None and await qs.wait(now, 0) is True

    asyncio.run(scenario())

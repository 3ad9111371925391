"""The watch's delivery: frames queued during the cacher's dispatch go out as one direct write per turn of the
event loop; what the connection refuses is sent by the stream's task, in order, before anything newer."""

from __future__ import annotations

import asyncio

from kube_apiserver.endpoints.handlers import watch
from kube_apiserver.storage.cacher.cacher import WATCHER_QUEUE_LIMIT


class FakeServer:
    def frame(self, ev: bytes) -> bytes:  # the events here are their own frames
        return ev


class FakeWatcher:
    def __init__(self) -> None:
        self.overflowed = False
        self.delivery: watch._Delivery | None = None

    def stop(self) -> None:
        assert self.delivery is not None
        self.delivery.offer(None)


class FakeWriter:
    def __init__(self) -> None:
        self.accept = True
        self.writes: list[bytes] = []

    def write(self, body: bytes) -> bool:
        if self.accept:
            self.writes.append(body)
        return self.accept


def _delivery(writer: FakeWriter | None) -> tuple[watch._Delivery, FakeWatcher]:
    watcher = FakeWatcher()
    delivery = watch._Delivery(FakeServer(), watcher, writer)  # type: ignore[arg-type]
    watcher.delivery = delivery
    return delivery, watcher


async def _turn() -> None:
    await asyncio.sleep(0)
    await asyncio.sleep(0)


def test_one_write_per_loop_turn():
    async def body() -> None:
        writer = FakeWriter()
        delivery, _ = _delivery(writer)
        for ev in (b"a\n", b"b\n", b"c\n"):
            delivery.offer(ev)  # type: ignore[arg-type]
        assert writer.writes == []  # nothing is written inside the dispatch
        await _turn()
        assert writer.writes == [b"a\nb\nc\n"]
        delivery.offer(b"d\n")  # type: ignore[arg-type]
        await _turn()
        assert writer.writes == [b"a\nb\nc\n", b"d\n"]
        assert not delivery.wake.is_set()

    asyncio.run(body())


def test_refused_frames_go_through_the_task_before_newer_ones():
    async def body() -> None:
        writer = FakeWriter()
        delivery, _ = _delivery(writer)
        writer.accept = False  # the client is not reading
        delivery.offer(b"1\n")  # type: ignore[arg-type]
        await _turn()
        assert delivery.wake.is_set() and delivery.frames == [b"1\n"]

        writer.accept = True  # it reads again while the task's send is still waiting to drain
        sent: list[bytes] = []
        release = asyncio.Event()

        async def send(message: dict) -> None:
            await release.wait()
            sent.append(message["body"])

        task = asyncio.create_task(delivery.send_pending(send))
        await _turn()
        delivery.offer(b"2\n")  # type: ignore[arg-type]
        await _turn()
        assert writer.writes == []  # not past the frame the task is sending
        release.set()
        await task
        assert sent == [b"1\n", b"2\n"]
        assert delivery.frames == [] and not delivery.task_sending

    asyncio.run(body())


def test_without_a_writer_the_task_sends():
    async def body() -> None:
        delivery, _ = _delivery(None)
        delivery.offer(b"x\n")  # type: ignore[arg-type]
        await _turn()
        assert delivery.wake.is_set()
        sent: list[bytes] = []

        async def send(message: dict) -> None:
            sent.append(message["body"])

        await delivery.send_pending(send)
        assert sent == [b"x\n"]

    asyncio.run(body())


def test_a_client_too_far_behind_is_dropped():
    async def body() -> None:
        writer = FakeWriter()
        writer.accept = False
        delivery, watcher = _delivery(writer)
        for _ in range(WATCHER_QUEUE_LIMIT):
            assert not delivery.closed
            delivery.offer(b"e\n")  # type: ignore[arg-type]
        assert watcher.overflowed and delivery.closed and delivery.wake.is_set()

    asyncio.run(body())

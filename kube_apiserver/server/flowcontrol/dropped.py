"""The Retry-After a rejected request is told, per priority level (dropped_requests_tracker.go).

It starts at 1 s and behaves like TCP's congestion window the other way round: when a level dropped at
least 3 x retryAfter requests over the last retryAfter seconds it doubles (at most once per retryAfter
seconds, up to 32 s); when it dropped fewer than retryAfter, it shrinks by one second. It is only
reconsidered when a drop falls in a new second.
"""

from __future__ import annotations

import time
from collections.abc import Callable

MAX_RETRY_AFTER = 32


class _Stats:
    __slots__ = ("history", "current_unix", "current_count", "retry_after", "retry_after_update_unix")

    def __init__(self) -> None:
        self.history: list[tuple[int, int]] = []  # (unix second, drops), oldest first
        self.current_unix = 0
        self.current_count = 0
        self.retry_after = 1
        self.retry_after_update_unix = 0  # a first bump may come at any time

    def record(self, unix: int) -> None:
        if unix == self.current_unix:
            self.current_count += 1
            return
        self._update_history(self.current_unix, self.current_count)
        self.current_unix = unix
        self.current_count = 1
        self._update_retry_after(unix)

    def _update_history(self, unix: int, count: int) -> None:
        self.history.append((unix, count))
        start = 0
        while start < len(self.history) and unix - self.history[start][0] > MAX_RETRY_AFTER:
            start += 1
        if start:
            del self.history[:start]

    def _update_retry_after(self, unix: int) -> None:
        retry_after = self.retry_after
        # drops in [unix - retryAfter, unix)
        dropped = 0
        for second, count in reversed(self.history):
            if unix - second > retry_after:
                break
            if second < unix:
                dropped += count
        if unix - self.retry_after_update_unix >= retry_after and dropped >= 3 * retry_after:
            self.retry_after = min(retry_after * 2, MAX_RETRY_AFTER)
            self.retry_after_update_unix = unix
        elif dropped < retry_after and retry_after > 1:
            self.retry_after = retry_after - 1


class DroppedRequestsTracker:
    def __init__(self, now: Callable[[], float] = time.time) -> None:
        self.now = now
        self.stats: dict[str, _Stats] = {}

    def record_dropped_request(self, pl_name: str) -> None:
        stats = self.stats.get(pl_name)
        if stats is None:
            stats = self.stats[pl_name] = _Stats()
        stats.record(int(self.now()))

    def retry_after(self, pl_name: str) -> int:
        stats = self.stats.get(pl_name)
        return stats.retry_after if stats is not None else 1

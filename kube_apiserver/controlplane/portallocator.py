"""The NodePort allocator (pkg/registry/core/service/portallocator and the bitmap of
pkg/registry/core/service/allocator).

Upstream persists the bitmap in storage and a repair controller reconciles it with the Services;
here the used set lives in memory and is rebuilt from the stored Services when the server starts,
which is what that repair would arrive at. Every operation is synchronous, so on the event loop
each one is atomic: two concurrent creates can never get the same port.

Dynamic allocation prefers the upper part of the range and leaves the lowest ports to users who
ask for a specific one (KEP-3668, ServiceNodePortStaticSubrange, GA since 1.29).
"""

from __future__ import annotations

import random


class PortAllocationError(Exception):
    """An allocation failed; str() is upstream's message."""


class PortAllocatedError(PortAllocationError):
    def __init__(self) -> None:
        super().__init__("provided port is already allocated")


class PortNotInRangeError(PortAllocationError):
    def __init__(self, valid_ports: str) -> None:
        super().__init__(f"provided port is not in the valid range. The range of valid ports is {valid_ports}")


class PortRangeFullError(PortAllocationError):
    def __init__(self) -> None:
        super().__init__("range is full")


def calculate_range_offset(size: int) -> int:
    """min(max(16, size/32), 128), and 0 for ranges of 16 ports or fewer: the static band."""
    if size <= 16:
        return 0
    return min(max(16, size // 32), 128)


class PortAllocator:
    """Ports base..base+size-1 (net.PortRange)."""

    def __init__(self, base: int, size: int, rng: random.Random | None = None) -> None:
        self.base = base
        self.size = size
        self.offset = calculate_range_offset(size)
        self.used: set[int] = set()
        self._rand = rng or random.Random()

    @classmethod
    def from_range(cls, low: int, high: int, rng: random.Random | None = None) -> PortAllocator:
        return cls(low, high - low + 1, rng)

    def __str__(self) -> str:
        # net.PortRange.String()
        return f"{self.base}-{self.base + self.size - 1}"

    def contains(self, port: int) -> bool:
        return self.base <= port < self.base + self.size

    def allocate(self, port: int) -> None:
        if not self.contains(port):
            raise PortNotInRangeError(str(self))
        if port in self.used:
            raise PortAllocatedError()
        self.used.add(port)

    def allocate_next(self) -> int:
        """A random free port of the upper band, else of the lower one (randomScanStrategyWithOffset)."""
        if len(self.used) >= self.size:
            raise PortRangeFullError()
        upper = self.size - self.offset
        for first, count in ((self.offset, upper), (0, self.offset)):
            if count <= 0:
                continue
            start = self._rand.randrange(count)
            for i in range(count):
                port = self.base + first + (start + i) % count
                if port not in self.used:
                    self.used.add(port)
                    return port
        raise PortRangeFullError()

    def release(self, port: int) -> None:
        """Releasing a free port, or one out of the range, does nothing."""
        self.used.discard(port)

    def has(self, port: int) -> bool:
        return port in self.used

    def free(self) -> int:
        return self.size - len(self.used)


class PortAllocationOperation:
    """One request's port allocations (portallocator.PortAllocationOperation): allocations happen at
    once, releases are deferred to commit, and finish() without commit rolls the allocations back;
    better to leak a port for a moment than to hand it out twice.

    A dry run reserves nothing: it only checks that a requested port is free, and makes up values for
    the ports it would allocate, counting up from 32769 as upstream does."""

    def __init__(self, allocator: PortAllocator, dry_run: bool = False) -> None:
        self.allocator = allocator
        self.dry_run = dry_run
        self.allocated: list[int] = []
        self.release_deferred: list[int] = []
        self._should_rollback = True

    def allocate(self, port: int) -> None:
        if self.dry_run:
            # Upstream's dry run only asks whether the port is taken; the range is not checked.
            if self.allocator.has(port) or port in self.allocated:
                raise PortAllocatedError()
            self.allocated.append(port)
            return
        self.allocator.allocate(port)
        self.allocated.append(port)

    def allocate_next(self) -> int:
        if self.dry_run:
            port = max(self.allocated, default=32768) + 1
            self.allocated.append(port)
            return port
        port = self.allocator.allocate_next()
        self.allocated.append(port)
        return port

    def release_deferred_port(self, port: int) -> None:
        self.release_deferred.append(port)

    def commit(self) -> None:
        if not self.dry_run:
            for port in self.release_deferred:
                self.allocator.release(port)
        self._should_rollback = False

    def finish(self) -> None:
        """Roll back unless committed."""
        if self._should_rollback:
            self.rollback()

    def rollback(self) -> None:
        if not self.dry_run:
            for port in self.allocated:
                self.allocator.release(port)
        self.allocated = []
        self._should_rollback = False

"""Borrowing between priority levels (KEP-1040; pkg/util/flowcontrol/conc_alloc.go and the
fairqueuing Integrator).

Every adjustment period each level's seat demand over the period (time-weighted average, deviation,
high watermark, tracked by an Integrator) gives a target; the server's seats are then shared so that
every level gets the same proportion of its target, within its bounds: no less than what it may not
lend (nominal - lendable), no more than nominal + what it may borrow.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

MIN_TARGET = 0.001
EPSILON = 0.0000001


class AllocationError(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class AllocProblemItem:
    target: float
    lower_bound: float
    upper_bound: float


def compute_concurrency_allocation(required_sum: int, classes: list[AllocProblemItem]) -> tuple[list[float], float]:
    """The allocations, summing to required_sum, where every class gets fair_prop * target clamped to
    its bounds, and fair_prop. Raises AllocationError when the bounds make that impossible."""
    if required_sum < 0:
        raise AllocationError("negative sums are not supported")
    low_sum = high_sum = 0.0
    targets: list[float] = []
    for idx, item in enumerate(classes):
        if item.lower_bound < 0:
            raise AllocationError(f"lower bound {idx} is {item.lower_bound} but negative lower bounds are not allowed")
        if item.target < item.lower_bound:
            raise AllocationError(
                f"target {idx} is {item.target}, which is below its lower bound of {item.lower_bound}"
            )
        if item.upper_bound < item.lower_bound:
            raise AllocationError(
                f"upper bound {idx} is {item.upper_bound} but should not be less than the lower bound {item.lower_bound}"
            )
        targets.append(max(item.target, MIN_TARGET))  # never divide by zero
        low_sum += item.lower_bound
        high_sum += item.upper_bound
    if low_sum - required_sum > EPSILON:
        raise AllocationError(f"lower bounds sum to {low_sum}, which is higher than the required sum of {required_sum}")
    if required_sum - high_sum > EPSILON:
        raise AllocationError(f"upper bounds sum to {high_sum}, which is lower than the required sum of {required_sum}")
    if required_sum == 0:
        return [0.0] * len(classes), 0.0
    if low_sum - required_sum > -EPSILON:  # no room: everyone at its lower bound
        return [c.lower_bound for c in classes], min(c.lower_bound / t for c, t in zip(classes, targets, strict=True))
    if required_sum - high_sum > -EPSILON:  # no room: everyone at its upper bound
        return [c.upper_bound for c in classes], max(c.upper_bound / t for c, t in zip(classes, targets, strict=True))

    def total(prop: float) -> float:
        return sum(min(c.upper_bound, max(c.lower_bound, prop * t)) for c, t in zip(classes, targets, strict=True))

    # total() is continuous and non-decreasing in prop; the answer lies between the smallest relative
    # lower bound and the largest relative upper bound. Bisection finds it to float precision.
    lo = min(c.lower_bound / t for c, t in zip(classes, targets, strict=True))
    hi = max(c.upper_bound / t for c, t in zip(classes, targets, strict=True))
    for _ in range(200):
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        if total(mid) < required_sum:
            lo = mid
        else:
            hi = mid
    prop = hi
    return [min(c.upper_bound, max(c.lower_bound, prop * t)) for c, t in zip(classes, targets, strict=True)], prop


@dataclass(frozen=True, slots=True)
class IntegratorResults:
    duration: float
    average: float
    deviation: float
    max: float


class Integrator:
    """Time integrals of a piecewise-constant value x since the last reset: for its average, standard
    deviation and maximum over the period."""

    __slots__ = ("clock", "last_time", "x", "sum_x", "sum_xx", "max", "start")

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.start = self.last_time = clock()
        self.x = 0.0
        self.sum_x = self.sum_xx = 0.0
        self.max = 0.0

    def set(self, x: float, now: float | None = None) -> None:
        """x from now on (now: the caller's reading of the same clock, to save a call)."""
        if now is None:
            now = self.clock()
        dt = now - self.last_time
        if dt < 0:  # a reading older than the last one
            dt, now = 0.0, self.last_time
        self.sum_x += self.x * dt
        self.sum_xx += self.x * self.x * dt
        self.last_time = now
        self.x = x
        if x > self.max:
            self.max = x

    def reset(self) -> IntegratorResults:
        self.set(self.x)
        duration = self.last_time - self.start
        if duration > 0:
            avg = self.sum_x / duration
            variance = max(self.sum_xx / duration - avg * avg, 0.0)
            results = IntegratorResults(duration, avg, math.sqrt(variance), self.max)
        else:
            results = IntegratorResults(0.0, math.nan, math.nan, self.max)
        self.start = self.last_time
        self.sum_x = self.sum_xx = 0.0
        self.max = self.x
        return results

"""How many seats a request occupies (pkg/util/flowcontrol/request: the work estimator).

A LIST takes a seat per 100 objects it goes through; it is served from the watch cache here, so that is
every stored object of the resource (kube counts the resource's objects, all namespaces). At least one
seat, at most the level's maximum: ceil(15% of its nominal seats), no more than nominal / handSize, and
never more than 10. Everything else takes one seat. (Upstream also charges mutating requests extra
seats held after they finish, by the number of watchers to notify: not done here.)
"""

from __future__ import annotations

import math
from collections.abc import Callable

from kube_apiserver.endpoints.request_info import RequestInfo

OBJECTS_PER_SEAT = 100
MINIMUM_SEATS = 1
MAXIMUM_SEATS_LIMIT = 10
PRIORITY_LEVEL_MAX_SEATS_PERCENT = 0.15


def max_seats(nominal_cl: int, hand_size: int) -> int:
    """The seats a request of a queuing level may take at most (finishQueueSetReconfigsLocked); 0 for a
    level without queues: the estimator's own limit applies."""
    if hand_size <= 0:
        return 0
    return max(1, min(math.ceil(nominal_cl * PRIORITY_LEVEL_MAX_SEATS_PERCENT), nominal_cl // hand_size))


class WorkEstimator:
    def __init__(self, count_objects: Callable[[str, str], int] | None = None) -> None:
        """count_objects(api group, resource) -> the objects stored; None: every request takes one seat."""
        self.count_objects = count_objects

    def seats(self, info: RequestInfo, level_max_seats: int) -> int:
        if info.verb != "list" or self.count_objects is None:
            return MINIMUM_SEATS
        stored = self.count_objects(info.api_group, info.resource)
        seats = max(math.ceil(stored / OBJECTS_PER_SEAT), MINIMUM_SEATS)
        limit = MAXIMUM_SEATS_LIMIT if level_max_seats <= 0 else min(level_max_seats, MAXIMUM_SEATS_LIMIT)
        return min(seats, limit)

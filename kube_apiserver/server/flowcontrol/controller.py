"""The API Priority and Fairness config controller (pkg/util/flowcontrol/apf_controller.go).

It follows the FlowSchemas and PriorityLevelConfigurations through watches on their watch caches and,
on every change, digests all of them together (the simplest way to cope with their dependencies):
  - each well-formed PriorityLevelConfiguration becomes a PriorityLevelState with a QueueSet;
  - the server's seats (--max-requests-inflight + --max-mutating-requests-inflight) are divided among
    the levels by nominalConcurrencyShares: NominalCL = ceil(ServerCL * NCS / sum NCS), and within
    [NominalCL - lendable, NominalCL + borrowable] the current limit follows seat demand (borrowing,
    recomputed every 10 s);
  - FlowSchemas whose level exists are kept, sorted by matchingPrecedence then name; every FlowSchema's
    Dangling condition says whether its level exists;
  - the mandatory exempt and catch-all objects are imagined from the bootstrap ones while missing;
  - a level that is gone but still has requests drains first (quiescing).
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kube_apiserver.apis.flowcontrol import bootstrap
from kube_apiserver.authentication.user import UserInfo
from kube_apiserver.endpoints.request_info import RequestInfo
from kube_apiserver.server.flowcontrol.conc_alloc import (
    AllocationError,
    AllocProblemItem,
    Integrator,
    IntegratorResults,
    compute_concurrency_allocation,
)
from kube_apiserver.server.flowcontrol.queueset import QueueSet, QueueSetConfigError, QueuingConfig, check_config
from kube_apiserver.server.flowcontrol.rules import (
    CompiledFlowSchema,
    compile_flow_schema,
    compute_flow_distinguisher,
    hash_flow_id,
    sort_key,
)
from kube_apiserver.server.flowcontrol.work_estimator import max_seats

log = logging.getLogger(__name__)

BORROWING_ADJUSTMENT_PERIOD = 10.0
# Half-life of 5 minutes for the smoothed seat demand, at one adjustment per period.
SEAT_DEMAND_SMOOTHING_COEFFICIENT = 0.977
MATCH_CACHE_SIZE = 8192


class BrokenPriorityLevel(ValueError):
    pass


def _round(x: float) -> int:
    """Go's math.Round for the non-negative values used here: halves away from zero."""
    return int(math.floor(x + 0.5))


def _int(value: Any, default: int | None) -> int | None:
    if value is None:
        return default
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise BrokenPriorityLevel(f"not an integer: {value!r}")


@dataclass
class SeatDemandStats:
    avg: float = 0.0
    std_dev: float = 0.0
    high_watermark: float = 0.0
    smoothed: float = 0.0

    def update(self, obs: IntegratorResults) -> None:
        self.high_watermark = obs.max
        if obs.duration <= 0:
            return
        deviation = 0.0 if math.isnan(obs.deviation) else obs.deviation
        self.avg, self.std_dev = obs.average, deviation
        envelope = obs.average + deviation
        a = SEAT_DEMAND_SMOOTHING_COEFFICIENT
        self.smoothed = max(envelope, a * self.smoothed + (1 - a) * envelope)


@dataclass
class PriorityLevelSpec:
    """What the controller needs of a PriorityLevelConfiguration; parse_priority_level checks it as
    queueSetCompleterForPL does, so a broken object is ignored instead of breaking the filter."""

    exempt: bool
    queuing: QueuingConfig
    shares: int
    lendable_percent: int | None
    borrowing_percent: int | None


def parse_priority_level(name: str, obj: dict[str, Any]) -> PriorityLevelSpec:
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    kind = spec.get("type")
    limited, exempt = spec.get("limited"), spec.get("exempt")
    if kind not in ("Limited", "Exempt"):
        raise BrokenPriorityLevel(f"unknown type {kind!r}")
    if (kind == "Limited") != isinstance(limited, dict):
        raise BrokenPriorityLevel("broken union structure at the top, for Limited")
    if (kind == "Exempt") != isinstance(exempt, dict):
        raise BrokenPriorityLevel("broken union structure at the top, for Exempt")
    if (kind == "Exempt") != (name == bootstrap.PRIORITY_LEVEL_EXEMPT):
        raise BrokenPriorityLevel("non-alignment between name and type")
    if isinstance(exempt, dict):
        shares = _int(exempt.get("nominalConcurrencyShares"), 0) or 0
        lendable = _int(exempt.get("lendablePercent"), None)
        queuing = QueuingConfig(name, -1)
        borrowing = None
    else:
        assert isinstance(limited, dict)
        shares = _int(limited.get("nominalConcurrencyShares"), 30) or 0
        lendable = _int(limited.get("lendablePercent"), None)
        borrowing = _int(limited.get("borrowingLimitPercent"), None)
        response = limited.get("limitResponse") if isinstance(limited.get("limitResponse"), dict) else {}
        qc = response.get("queuing")
        if (response.get("type") == "Reject") != (qc is None):
            raise BrokenPriorityLevel("broken union structure for limit response")
        if qc is None:
            queuing = QueuingConfig(name, 0)
        elif not isinstance(qc, dict):
            raise BrokenPriorityLevel("broken queuing configuration")
        else:
            queues = _int(qc.get("queues"), 64) or 0
            if queues <= 0:
                raise BrokenPriorityLevel(f"queues {queues} is not positive")
            queuing = QueuingConfig(
                name, queues, _int(qc.get("queueLengthLimit"), 50) or 0, _int(qc.get("handSize"), 8) or 0
            )
    if shares < 0 or (lendable is not None and not 0 <= lendable <= 100) or (borrowing is not None and borrowing < 0):
        raise BrokenPriorityLevel("negative shares or percentages out of range")
    try:
        check_config(queuing)
    except QueueSetConfigError as e:
        raise BrokenPriorityLevel(f"priority level {name!r} has an invalid QueuingConfiguration: {e}") from None
    return PriorityLevelSpec(kind == "Exempt", queuing, shares, lendable, borrowing)


@dataclass
class PriorityLevelState:
    name: str
    obj: dict[str, Any]
    spec: PriorityLevelSpec
    uid: str = ""
    queues: QueueSet | None = None
    quiescing: bool = False
    nominal_cl: int = 0
    min_cl: int = 0
    max_cl: int = 0
    current_cl: int = 0
    stats: SeatDemandStats = field(default_factory=SeatDemandStats)
    integrator: Integrator | None = None
    uid_bytes: bytes = b""  # for the X-Kubernetes-PF-PriorityLevel-UID response header
    max_seats: int = 0  # the most seats one request may take (0: the work estimator's own limit)


# (FlowSchema, its priority level, flow distinguisher, flow hash)
Classification = tuple[CompiledFlowSchema, PriorityLevelState, str, int]


@dataclass(frozen=True, slots=True)
class StatusUpdate:
    """A FlowSchema whose Dangling condition is not what it should be."""

    name: str
    condition: dict[str, Any]


def dangling_condition(pl_name: str, dangling: bool, now: str) -> dict[str, Any]:
    if dangling:
        status, reason = "True", "NotFound"
        message = f'This FlowSchema references the PriorityLevelConfiguration object named "{pl_name}" but there is no such object'
    else:
        status, reason = "False", "Found"
        message = f'This FlowSchema references the PriorityLevelConfiguration object named "{pl_name}" and it exists'
    return {"type": "Dangling", "status": status, "lastTransitionTime": now, "reason": reason, "message": message}


def _name(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    return name if isinstance(name, str) else ""


def _uid(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata")
    uid = meta.get("uid") if isinstance(meta, dict) else None
    return uid if isinstance(uid, str) else ""


class ConfigController:
    def __init__(
        self,
        server_concurrency_limit: int,
        clock: Callable[[], float] = time.monotonic,
        now_rfc3339: Callable[[], str] | None = None,
    ) -> None:
        self.server_concurrency_limit = server_concurrency_limit
        self.clock = clock
        self.now_rfc3339 = now_rfc3339 or _now_rfc3339
        self.flow_schemas: list[CompiledFlowSchema] = []
        self.priority_levels: dict[str, PriorityLevelState] = {}
        self.nominal_cl_sum = 0
        # classification by the request's attributes, for the current configuration
        self._matches: dict[tuple[Any, ...], Classification] = {}
        # set when a digest is due: a config object changed, or a quiescing level went idle
        self.dirty = asyncio.Event()
        self.digest([], [])  # the mandatory configuration, until the objects are read

    # --- classification ---

    def classify(self, user: UserInfo, info: RequestInfo) -> Classification:
        """The FlowSchema that takes the request, its priority level, and its flow (distinguisher and
        hash). A user's requests come in few shapes: the answer is remembered by the attributes the rules
        and the distinguisher look at."""
        if info.is_resource_request:
            key: tuple[Any, ...] = (
                user.name,
                user.groups,
                info.verb,
                info.api_group,
                info.resource,
                info.subresource,
                info.namespace,
            )
        else:
            key = (user.name, user.groups, info.verb, info.path)
        found = self._matches.get(key)
        if found is None:
            if len(self._matches) >= MATCH_CACHE_SIZE:
                self._matches.clear()
            fs, pl = self.match(user, info)
            found = self._matches[key] = (fs, pl, *self.flow_of(fs, pl, user, info))
        return found

    def match(self, user: UserInfo, info: RequestInfo) -> tuple[CompiledFlowSchema, PriorityLevelState]:
        catch_all = None
        for fs in self.flow_schemas:
            if fs.matches(user, info):
                return fs, self.priority_levels[fs.priority_level]
            if fs.name == bootstrap.FLOW_SCHEMA_CATCH_ALL:
                catch_all = fs
        # every user is in system:authenticated or system:unauthenticated, which catch-all matches;
        # should that ever fail, catch-all takes the request anyway
        if catch_all is None:
            catch_all = compile_flow_schema(bootstrap.mandatory_flow_schema_catch_all())
        return catch_all, self.priority_levels[catch_all.priority_level]

    @staticmethod
    def flow_of(fs: CompiledFlowSchema, pl: PriorityLevelState, user: UserInfo, info: RequestInfo) -> tuple[str, int]:
        """The flow distinguisher and its hash; only a level with more than one queue needs them."""
        if pl.spec.queuing.desired_num_queues > 1:
            flow = compute_flow_distinguisher(user, info, fs.distinguisher)
            return flow, hash_flow_id(fs.name, flow)
        return "", 0

    def note_idle(self, pl: PriorityLevelState) -> None:
        """A request of pl finished or gave up: a quiescing level that is now idle can go."""
        if pl.quiescing and pl.queues is not None and pl.queues.is_idle():
            self.dirty.set()

    # --- digesting the config objects ---

    def digest(self, pl_objs: list[dict[str, Any]], fs_objs: list[dict[str, Any]]) -> list[StatusUpdate]:
        """Switch to the configuration of these objects; returns the FlowSchema status writes due."""
        old = self.priority_levels
        states: dict[str, PriorityLevelState] = {}
        share_sum = 0
        for obj in pl_objs:
            name = _name(obj)
            try:
                spec = parse_priority_level(name, obj)
            except BrokenPriorityLevel as e:
                log.warning("Ignoring PriorityLevelConfiguration object %s because its spec is broken: %s", name, e)
                continue
            state = old.get(name)
            if state is None:
                state = PriorityLevelState(name, obj, spec)
            state.obj, state.spec, state.uid, state.quiescing = obj, spec, _uid(obj), False
            state.uid_bytes = state.uid.encode("latin-1", "replace")
            states[name] = state
            share_sum += spec.shares

        updates: list[StatusUpdate] = []
        sequence: list[CompiledFlowSchema] = []
        for obj in fs_objs:
            fs = compile_flow_schema(obj)
            found = fs.priority_level in states
            update = self._presync_status(obj, fs, dangling=not found)
            if update is not None:
                updates.append(update)
            if found:
                sequence.append(fs)
        sequence.sort(key=sort_key)
        if not any(fs.name == bootstrap.FLOW_SCHEMA_EXEMPT for fs in sequence):
            sequence.insert(0, compile_flow_schema(bootstrap.mandatory_flow_schema_exempt()))
        if not any(fs.name == bootstrap.FLOW_SCHEMA_CATCH_ALL for fs in sequence):
            sequence.append(compile_flow_schema(bootstrap.mandatory_flow_schema_catch_all()))

        for name, state in old.items():
            if name in states:
                continue
            if name not in (bootstrap.PRIORITY_LEVEL_EXEMPT, bootstrap.PRIORITY_LEVEL_CATCH_ALL):
                if state.queues is None or state.queues.is_idle():
                    continue
                state.quiescing = True  # keeps draining with its share of seats, takes nothing new
            states[name] = state
            share_sum += state.spec.shares
        for proto in (bootstrap.mandatory_priority_level_exempt(), bootstrap.mandatory_priority_level_catch_all()):
            name = _name(proto)
            if name not in states:
                states[name] = PriorityLevelState(name, proto, parse_priority_level(name, proto))
                share_sum += states[name].spec.shares

        self._finish_queue_set_reconfigs(states, share_sum)
        self.flow_schemas = sequence
        self.priority_levels = states
        self._matches = {}
        return updates

    def _presync_status(self, obj: dict[str, Any], fs: CompiledFlowSchema, dangling: bool) -> StatusUpdate | None:
        status = obj.get("status") if isinstance(obj.get("status"), dict) else {}
        conditions = status.get("conditions") if isinstance(status.get("conditions"), list) else []
        current = next((c for c in conditions if isinstance(c, dict) and c.get("type") == "Dangling"), {})
        desired = dangling_condition(fs.priority_level, dangling, "")
        if all(current.get(k) == desired[k] for k in ("status", "reason", "message")):
            return None
        desired["lastTransitionTime"] = self.now_rfc3339()
        return StatusUpdate(fs.name, desired)

    def _finish_queue_set_reconfigs(self, states: dict[str, PriorityLevelState], share_sum: int) -> None:
        server_cl = self.server_concurrency_limit
        nominal_sum = 0
        for state in states.values():
            spec = state.spec
            # ceil: the levels' limits may add up to a little more than the server's
            nominal = math.ceil(server_cl * spec.shares / share_sum) if share_sum else 0
            lendable = _round(nominal * spec.lendable_percent / 100) if spec.lendable_percent is not None else 0
            borrowing = (
                _round(nominal * spec.borrowing_percent / 100) if spec.borrowing_percent is not None else server_cl
            )
            state.nominal_cl, state.min_cl, state.max_cl = nominal, nominal - lendable, nominal + borrowing
            queuing = spec.queuing
            state.max_seats = max_seats(nominal, queuing.hand_size) if queuing.desired_num_queues > 0 else 0
            nominal_sum += nominal
            if state.queues is None:
                state.current_cl = nominal - lendable // 2
                state.stats = SeatDemandStats()
                state.integrator = Integrator(self.clock)
                state.queues = QueueSet(spec.queuing, state.current_cl, self.clock, state.integrator)
        self.nominal_cl_sum = nominal_sum
        self.update_borrowing(states)

    # --- borrowing ---

    def update_borrowing(self, states: dict[str, PriorityLevelState] | None = None) -> None:
        """Share the seats again by the levels' recent demand (updateBorrowingLocked)."""
        states = self.priority_levels if states is None else states
        names = list(states)
        items = []
        for name in names:
            state = states[name]
            assert state.integrator is not None
            state.stats.update(state.integrator.reset())
            # never below what the level may not lend, nor below its recent peak demand up to its nominal
            lower = max(state.min_cl, min(state.nominal_cl, state.stats.high_watermark))
            items.append(AllocProblemItem(max(lower, state.stats.smoothed), lower, state.max_cl))
        try:
            allocs, _ = compute_concurrency_allocation(self.nominal_cl_sum, items)
        except AllocationError as e:
            log.error("Unable to derive new concurrency limits: %s", e)
            allocs = [float(states[n].current_cl) for n in names]
        for name, alloc in zip(names, allocs, strict=True):
            state = states[name]
            state.current_cl = _round(alloc)
            assert state.queues is not None
            state.queues.set_configuration(state.spec.queuing, state.current_cl)

    # --- running ---

    async def run_borrowing(self) -> None:
        while True:
            await asyncio.sleep(BORROWING_ADJUSTMENT_PERIOD)
            try:
                self.update_borrowing()
            except Exception:  # noqa: BLE001 - keep adjusting; the next period retries
                log.exception("API Priority and Fairness borrowing adjustment failed")


def _now_rfc3339() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())

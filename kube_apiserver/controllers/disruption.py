"""The disruption controller (pkg/controller/disruption): keeps each PodDisruptionBudget's status in
step with the pods it selects, so that pods/eviction can decide. Without it every budget would stay
at observedGeneration 0 and each eviction would be refused as "still being processed".

For a budget: expectedPods (the selected pods, or the scale of their controllers when the budget is
a percentage or a maxUnavailable), desiredHealthy (minAvailable, or expected - maxUnavailable, a
percentage rounded up), currentHealthy (selected pods that are Ready, not terminating and not just
evicted), disruptionsAllowed = currentHealthy - desiredHealthy (never below 0, and 0 with no
expected pods), disruptedPods (evictions not yet seen through, for at most two minutes) and the
DisruptionAllowed condition. A budget that cannot be computed gets disruptionsAllowed 0 and the
condition False/SyncFailed with the reason.

Work is per namespace: any write to a pod, budget or scalable controller of a namespace holding
budgets queues the namespace, and one task syncs the queued namespaces in turn.
"""

from __future__ import annotations

import asyncio
import copy
import logging
import math
import time
from datetime import datetime
from typing import Any

from kube_apiserver.apis.core.pod_eviction import (
    DISRUPTION_ALLOWED,
    SYNC_FAILED,
    conditions_are_up_to_date,
    is_pod_ready,
    set_status_condition,
    update_disruption_allowed_condition,
)
from kube_apiserver.registry.store import Store
from kube_apiserver.runtime import errors
from kube_apiserver.runtime.labels import SelectorParseError, selector_from_label_selector_dict
from kube_apiserver.storage.interface import ListOptions

log = logging.getLogger(__name__)

# DeletionTimeout: how long an eviction's entry in disruptedPods keeps its pod out of the healthy count.
DELETION_TIMEOUT = 120.0

StoreKey = tuple[str, str, str]


class _SyncError(Exception):
    """A budget whose status cannot be computed (failSafe)."""


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _parse_time(value: Any) -> float | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value).timestamp()
    except ValueError:
        return None


def scaled_value(value: Any, total: int) -> int:
    """intstr.GetScaledValueFromIntOrPercent with roundUp."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if not isinstance(value, str):
        raise _SyncError("invalid value for IntOrString: invalid type: neither int nor percentage")
    if not value.endswith("%"):
        raise _SyncError("invalid value for IntOrString: invalid type: string is not a percentage")
    try:
        percent = int(value[:-1], 10)
    except ValueError:
        raise _SyncError(
            f'invalid value for IntOrString: invalid value "{value}": strconv.Atoi: parsing "{value[:-1]}": invalid syntax'
        ) from None
    return math.ceil(float(percent) * float(total) / 100)


def controller_of(obj: dict[str, Any]) -> dict[str, Any] | None:
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or []:
        if isinstance(ref, dict) and ref.get("controller") is True:
            return ref
    return None


def _group_of(ref: dict[str, Any]) -> str:
    """schema.ParseGroupVersion(ref.apiVersion).Group."""
    api_version = str(ref.get("apiVersion", ""))
    if api_version.count("/") > 1:
        raise _SyncError(f"unexpected GroupVersion string: {api_version}")
    return api_version.split("/")[0] if "/" in api_version else ""


class DisruptionController:
    def __init__(self, pdbs: Store, pods: Store, stores: dict[StoreKey, Store]) -> None:
        self.pdbs = pdbs
        self.pods = pods
        # The scalable objects a pod's controller can be: (group, kind) → store.
        self.by_kind: dict[tuple[str, str], Store] = {}
        for (group, _version, _resource), store in stores.items():
            self.by_kind.setdefault((group, store.spec.kind), store)
        self.namespaces: set[str] = set()  # namespaces known to hold budgets
        self.queue: dict[str, None] = {}  # ordered set
        self.task: asyncio.Task[None] | None = None
        self.started = False
        pdbs.after_write.append(self._on_budget)
        pods.after_write.append(self._on_object)
        for key in (
            ("", "ReplicationController"),
            ("apps", "ReplicaSet"),
            ("apps", "Deployment"),
            ("apps", "StatefulSet"),
        ):
            if key in self.by_kind:
                self.by_kind[key].after_write.append(self._on_object)

    async def start(self) -> None:
        self.started = True
        for item in (await self.pdbs.list("", ListOptions())).items:
            ns = (item.obj.get("metadata") or {}).get("namespace", "")
            self.namespaces.add(ns)
            self._enqueue(ns)

    # --- events ---

    @staticmethod
    def _namespace(old: dict[str, Any] | None, new: dict[str, Any] | None) -> str:
        obj = new if new is not None else old
        return ((obj or {}).get("metadata") or {}).get("namespace", "")

    def _on_budget(self, old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
        ns = self._namespace(old, new)
        self.namespaces.add(ns)
        self._enqueue(ns)

    def _on_object(self, old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
        ns = self._namespace(old, new)
        if ns in self.namespaces:
            self._enqueue(ns)

    def _enqueue(self, ns: str) -> None:
        if not self.started:
            return
        self.queue[ns] = None
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._drain())

    def _enqueue_after(self, ns: str, delay: float) -> None:
        asyncio.get_running_loop().call_later(max(delay, 0.0), self._enqueue, ns)

    async def _drain(self) -> None:
        while self.queue:
            ns = next(iter(self.queue))
            del self.queue[ns]
            try:
                await self.sync_namespace(ns)
            except errors.StatusError as e:
                if e.code == 409:  # a budget moved under us: its write hook queued the namespace again
                    continue
                log.warning("disruption controller: namespace %s: %s", ns, e)
            except Exception:  # noqa: BLE001 - one namespace must not stop the others
                log.exception("disruption controller: namespace %s", ns)

    # --- sync ---

    async def sync_namespace(self, ns: str) -> None:
        budgets = (await self.pdbs.list(ns, ListOptions())).items
        if not budgets:
            self.namespaces.discard(ns)
            return
        pods = [item.obj for item in (await self.pods.list(ns, ListOptions())).items]
        for item in budgets:
            await self.sync_budget(item.obj, pods)

    async def sync_budget(self, pdb: dict[str, Any], all_pods: list[dict[str, Any]]) -> None:
        """trySync, or failSafe when the status cannot be computed."""
        spec = pdb.get("spec") if isinstance(pdb.get("spec"), dict) else {}
        try:
            try:
                selector = selector_from_label_selector_dict(spec.get("selector"))
            except SelectorParseError as e:
                raise _SyncError(str(e)) from None
            pods = [p for p in all_pods if selector.matches((p.get("metadata") or {}).get("labels") or {})]
            expected, desired = await self.expected_pod_count(pdb, pods)
        except _SyncError as e:
            await self._fail_safe(pdb, str(e))
            return
        now = time.time()
        disrupted, recheck = self.build_disrupted_pod_map(pods, pdb, now)
        current = count_healthy_pods(pods, disrupted, now)
        await self._update_status(pdb, current, desired, expected, disrupted)
        if recheck is not None:
            self._enqueue_after((pdb.get("metadata") or {}).get("namespace", ""), recheck - now + 0.01)

    async def expected_pod_count(self, pdb: dict[str, Any], pods: list[dict[str, Any]]) -> tuple[int, int]:
        """getExpectedPodCount: (expectedCount, desiredHealthy)."""
        spec = pdb.get("spec") if isinstance(pdb.get("spec"), dict) else {}
        max_unavailable, min_available = spec.get("maxUnavailable"), spec.get("minAvailable")
        if max_unavailable is not None:
            expected = await self.expected_scale(pods)
            return expected, max(expected - scaled_value(max_unavailable, expected), 0)
        if isinstance(min_available, int) and not isinstance(min_available, bool):
            return len(pods), min_available
        if isinstance(min_available, str):
            expected = await self.expected_scale(pods)
            return expected, scaled_value(min_available, expected)
        return 0, 0

    async def expected_scale(self, pods: list[dict[str, Any]]) -> int:
        """getExpectedScale: the summed replicas of the pods' controllers (pods without one are left
        out, as upstream does after its UnmanagedPods warning)."""
        scales: dict[str, int] = {}
        for pod in pods:
            ref = controller_of(pod)
            if ref is None:
                continue
            if ref.get("uid") in scales:
                continue
            ns = (pod.get("metadata") or {}).get("namespace", "")
            found = None
            for finder in (
                self._replication_controller,
                self._deployment,
                self._replica_set,
                self._stateful_set,
                self._scale,
            ):
                found = await finder(ref, ns)
                if found is not None:
                    break
            if found is None:
                raise _SyncError(f'found no controllers for pod "{(pod.get("metadata") or {}).get("name", "")}"')
            scales[found[0]] = found[1]
        return sum(scales.values())

    # --- the pod controller finders (uid, replicas) ---

    async def _get(self, key: tuple[str, str], ns: str, name: str) -> dict[str, Any] | None:
        store = self.by_kind.get(key)
        if store is None:
            return None
        try:
            return (await store.get(ns, name)).obj
        except errors.StatusError as e:
            if e.code == 404:
                return None
            raise

    @staticmethod
    def _replicas(obj: dict[str, Any]) -> int:
        replicas = (obj.get("spec") or {}).get("replicas")
        return replicas if isinstance(replicas, int) and not isinstance(replicas, bool) else 1

    @staticmethod
    def _is(ref: dict[str, Any], kind: str, groups: tuple[str, ...]) -> bool:
        group = _group_of(ref)
        return ref.get("kind") == kind and group in groups

    async def _owned(self, ref: dict[str, Any], key: tuple[str, str], ns: str) -> dict[str, Any] | None:
        obj = await self._get(key, ns, str(ref.get("name", "")))
        if obj is None or (obj.get("metadata") or {}).get("uid") != ref.get("uid"):
            return None
        return obj

    async def _replication_controller(self, ref: dict[str, Any], ns: str) -> tuple[str, int] | None:
        if not self._is(ref, "ReplicationController", ("",)):
            return None
        rc = await self._owned(ref, ("", "ReplicationController"), ns)
        return None if rc is None else (str(ref.get("uid")), self._replicas(rc))

    async def _deployment(self, ref: dict[str, Any], ns: str) -> tuple[str, int] | None:
        if not self._is(ref, "ReplicaSet", ("apps", "extensions")):
            return None
        rs = await self._owned(ref, ("apps", "ReplicaSet"), ns)
        rs_ref = controller_of(rs) if rs is not None else None
        if rs_ref is None or not self._is(rs_ref, "Deployment", ("apps", "extensions")):
            return None
        deployment = await self._owned(rs_ref, ("apps", "Deployment"), ns)
        return None if deployment is None else (str(rs_ref.get("uid")), self._replicas(deployment))

    async def _replica_set(self, ref: dict[str, Any], ns: str) -> tuple[str, int] | None:
        if not self._is(ref, "ReplicaSet", ("apps", "extensions")):
            return None
        rs = await self._owned(ref, ("apps", "ReplicaSet"), ns)
        if rs is None:
            return None
        rs_ref = controller_of(rs)
        if rs_ref is not None and rs_ref.get("kind") == "Deployment":
            return None  # counted through its Deployment
        return str(ref.get("uid")), self._replicas(rs)

    async def _stateful_set(self, ref: dict[str, Any], ns: str) -> tuple[str, int] | None:
        if not self._is(ref, "StatefulSet", ("apps",)):
            return None
        sts = await self._owned(ref, ("apps", "StatefulSet"), ns)
        return None if sts is None else (str(ref.get("uid")), self._replicas(sts))

    async def _scale(self, ref: dict[str, Any], ns: str) -> tuple[str, int] | None:
        """getScaleController: any kind with a scale subresource."""
        group = _group_of(ref)
        kind = str(ref.get("kind", ""))
        store = self.by_kind.get((group, kind))
        if store is None:
            version = str(ref.get("apiVersion", ""))
            raise _SyncError(f'no matches for kind "{kind}" in version "{version}"')
        if store.spec.subresource("scale") is None:
            resource = f"{store.spec.resource}.{group}" if group else store.spec.resource
            raise _SyncError(f"{resource} does not implement the scale subresource")
        obj = await self._owned(ref, (group, kind), ns)
        return None if obj is None else (str(ref.get("uid")), self._replicas(obj))

    # --- status ---

    @staticmethod
    def build_disrupted_pod_map(
        pods: list[dict[str, Any]], pdb: dict[str, Any], now: float
    ) -> tuple[dict[str, str], float | None]:
        """buildDisruptedPodMap: the evictions still awaited (recent, pod present and not terminating),
        and when the first of them expires."""
        recorded = (pdb.get("status") or {}).get("disruptedPods")
        result: dict[str, str] = {}
        recheck: float | None = None
        if not isinstance(recorded, dict):
            return result, recheck
        for pod in pods:
            meta = pod.get("metadata") or {}
            if meta.get("deletionTimestamp") or meta.get("name") not in recorded:
                continue
            stamp = recorded[meta.get("name")]
            at = _parse_time(stamp)
            if at is None or at + DELETION_TIMEOUT < now:
                log.info("pod %s/%s was expected to be deleted by now", meta.get("namespace"), meta.get("name"))
                continue
            expires = at + DELETION_TIMEOUT
            recheck = expires if recheck is None else min(recheck, expires)
            result[meta["name"]] = stamp
        return result, recheck

    async def _update_status(
        self, pdb: dict[str, Any], current: int, desired: int, expected: int, disrupted: dict[str, str]
    ) -> None:
        """updatePdbStatus: write the status when any of it changed."""
        allowed = current - desired
        if expected <= 0 or allowed <= 0:
            allowed = 0
        meta = pdb.get("metadata") or {}
        generation = _int(meta.get("generation"))
        status = pdb.get("status") if isinstance(pdb.get("status"), dict) else {}
        if (
            _int(status.get("currentHealthy")) == current
            and _int(status.get("desiredHealthy")) == desired
            and _int(status.get("expectedPods")) == expected
            and _int(status.get("disruptionsAllowed")) == allowed
            and (status.get("disruptedPods") or {}) == disrupted
            and _int(status.get("observedGeneration")) == generation
            and conditions_are_up_to_date(pdb)
        ):
            return
        new_status: dict[str, Any] = {}
        if generation:
            new_status["observedGeneration"] = generation
        if disrupted:
            new_status["disruptedPods"] = disrupted
        new_status.update(
            disruptionsAllowed=allowed, currentHealthy=current, desiredHealthy=desired, expectedPods=expected
        )
        new_status["conditions"] = copy.deepcopy(status.get("conditions") or [])
        update_disruption_allowed_condition(new_status)
        await self._write(pdb, new_status)

    async def _fail_safe(self, pdb: dict[str, Any], reason: str) -> None:
        """failSafe: no disruption allowed, and the condition says why."""
        status = copy.deepcopy(pdb.get("status") if isinstance(pdb.get("status"), dict) else {})
        status["disruptionsAllowed"] = 0
        for key in ("currentHealthy", "desiredHealthy", "expectedPods"):
            status.setdefault(key, 0)
        conditions = status.get("conditions") if isinstance(status.get("conditions"), list) else []
        status["conditions"] = conditions
        set_status_condition(
            conditions,
            {
                "type": DISRUPTION_ALLOWED,
                "status": "False",
                "reason": SYNC_FAILED,
                "message": reason,
                "observedGeneration": _int(status.get("observedGeneration")),
            },
        )
        if status != pdb.get("status"):
            await self._write(pdb, status)

    async def _write(self, pdb: dict[str, Any], status: dict[str, Any]) -> None:
        meta = pdb.get("metadata") or {}
        new = copy.deepcopy(pdb)
        new["status"] = status
        # Optimistic: the resourceVersion read is kept, so a budget changed meanwhile is a conflict
        # (and its write has queued the namespace again).
        await self.pdbs.update(meta.get("namespace", ""), meta.get("name", ""), new, subresource="status")


def count_healthy_pods(pods: list[dict[str, Any]], disrupted: dict[str, str], now: float) -> int:
    """countHealthyPods: Ready pods, not terminating, not awaiting an eviction."""
    healthy = 0
    for pod in pods:
        meta = pod.get("metadata") or {}
        if meta.get("deletionTimestamp"):
            continue
        at = _parse_time(disrupted.get(meta.get("name", ""))) if meta.get("name") in disrupted else None
        if at is not None and at + DELETION_TIMEOUT > now:
            continue
        if is_pod_ready(pod):
            healthy += 1
    return healthy

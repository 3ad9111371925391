"""The namespace controller (pkg/controller/namespace): empties a terminating namespace, then
removes the "kubernetes" finalizer so the namespace goes. Without it `kubectl delete ns` never ends.

As upstream's, it starts on a namespace only a grace period (5 s) after the deletion: meanwhile the
namespace is Terminating and its objects are still there, so `kubectl delete -f` of a manifest holding a
namespace and objects in it deletes each of them (and a client's last requests do not race the cleanup).
On every pass it writes upstream's five deletion conditions into the namespace's status: what remains, and
which finalizers hold it."""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from typing import Any

import orjson

from kube_apiserver.registry.store import DeleteOptions, Store
from kube_apiserver.runtime import errors
from kube_apiserver.runtime.meta import now_rfc3339
from kube_apiserver.storage.interface import ListOptions

log = logging.getLogger(__name__)

# namespaceDeletionGracePeriod of kube-controller-manager's namespace controller
DELETION_GRACE_PERIOD = 5.0

# The conditions the deleter keeps (deletion/status_condition_utils.go), in its order, with the
# reason and message of each when all is well.
CONDITIONS_OK = {
    "NamespaceDeletionDiscoveryFailure": ("ResourcesDiscovered", "All resources successfully discovered"),
    "NamespaceDeletionGroupVersionParsingFailure": ("ParsedGroupVersions", "All legacy kube types successfully parsed"),
    "NamespaceDeletionContentFailure": (
        "ContentDeleted",
        "All content successfully deleted, may be waiting on finalization",
    ),
    "NamespaceContentRemaining": ("ContentRemoved", "All content successfully removed"),
    "NamespaceFinalizersRemaining": ("ContentRemoved", "All content successfully removed"),
}


def deletion_conditions(
    remaining: dict[str, int], finalizers: dict[str, int], failures: list[str]
) -> dict[str, tuple[str, str, str]]:
    """Condition type → (status, reason, message) after one pass over the namespace's content."""
    out = {t: ("False", reason, message) for t, (reason, message) in CONDITIONS_OK.items()}
    if failures:
        out["NamespaceDeletionContentFailure"] = (
            "True",
            "ContentDeletionFailed",
            f"Failed to delete all resource types, {len(failures)} remaining: {', '.join(sorted(failures))}",
        )
    if remaining:
        listed = sorted(f"{resource} has {n} resource instances" for resource, n in remaining.items() if n)
        out["NamespaceContentRemaining"] = (
            "True",
            "SomeResourcesRemain",
            f"Some resources are remaining: {', '.join(listed)}",
        )
    if finalizers:
        listed = sorted(f"{f} in {n} resource instances" for f, n in finalizers.items() if n)
        out["NamespaceFinalizersRemaining"] = (
            "True",
            "SomeFinalizerRemain",
            f"Some finalizers are remaining: {', '.join(listed)}",
        )
    return out


def update_conditions(status: dict[str, Any], conditions: dict[str, tuple[str, str, str]]) -> bool:
    """updateConditions: each kept condition set to its new state; lastTransitionTime moves only when the
    status does. Whether anything changed."""
    current = status.setdefault("conditions", [])
    changed = False
    for ctype, (state, reason, message) in conditions.items():
        old = next((c for c in current if c.get("type") == ctype), None)
        if old is None:
            current.append(
                {
                    "type": ctype,
                    "status": state,
                    "lastTransitionTime": now_rfc3339(),
                    "reason": reason,
                    "message": message,
                }
            )
            changed = True
        elif (old.get("status"), old.get("reason"), old.get("message")) != (state, reason, message):
            if old.get("status") != state:
                old["lastTransitionTime"] = now_rfc3339()
            old.update(status=state, reason=reason, message=message)
            changed = True
    return changed


class NamespaceController:
    def __init__(self, namespaces: Store, namespaced: list[Store], grace_period: float = DELETION_GRACE_PERIOD) -> None:
        self.namespaces = namespaces
        self.namespaced = namespaced
        self.grace_period = grace_period
        self.active: set[str] = set()
        self.tasks: set[asyncio.Task[None]] = set()
        namespaces.after_write.append(self._on_write)

    async def start(self) -> None:
        listed = await self.namespaces.list("", ListOptions())
        for item in listed.items:
            self._on_write(None, item.obj)

    def _on_write(self, old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
        if new is None:
            return
        meta = new.get("metadata") or {}
        name = meta.get("name", "")
        if meta.get("deletionTimestamp") and name not in self.active:
            self.active.add(name)
            task = asyncio.get_running_loop().create_task(self._finalize(name))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)

    async def _delete_content(self, name: str) -> dict[str, tuple[str, str, str]]:
        """One pass: delete every namespaced resource's objects in the namespace, then count what is left."""
        remaining: dict[str, int] = {}
        finalizers: Counter[str] = Counter()
        failures: list[str] = []
        for store in self.namespaced:
            try:
                # in the background, as upstream's deleter: the namespace's objects go whatever their kind's
                # default (Jobs would otherwise wait for the garbage collector to orphan their pods)
                options = DeleteOptions(grace_period_seconds=0, propagation_policy="Background")
                await store.delete_collection(name, ListOptions(), options)
                left = (await store.list(name, ListOptions())).items
            except errors.StatusError as e:  # NamespaceDeletionContentFailure: the pass is not done
                log.warning("namespace %s: deleting %s: %s", name, store.spec.resource, e)
                failures.append(e.message)
                continue
            if left:
                remaining[f"{store.spec.resource}.{store.spec.group}"] = len(left)
                for item in left:
                    finalizers.update((item.obj.get("metadata") or {}).get("finalizers") or ())
        return deletion_conditions(remaining, finalizers, failures)

    async def _write_conditions(self, name: str, conditions: dict[str, tuple[str, str, str]]) -> None:
        current = await self.namespaces.get("", name)
        status = orjson.loads(orjson.dumps(current.obj.get("status") or {}))  # the cached object is shared
        if not update_conditions(status, conditions):
            return

        def set_status(obj: dict[str, Any]) -> dict[str, Any]:
            obj["status"] = {**(obj.get("status") or {}), "conditions": status["conditions"]}
            return obj

        await self.namespaces.patch("", name, set_status, subresource="status")

    async def _finalize(self, name: str) -> None:
        delay = 0.05
        try:
            await asyncio.sleep(self.grace_period)
            while True:
                conditions = await self._delete_content(name)
                await self._write_conditions(name, conditions)
                if all(state == "False" for state, _, _ in conditions.values()):
                    break
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)

            def drop_finalizer(obj: dict[str, Any]) -> dict[str, Any]:
                spec = obj.get("spec") or {}
                spec["finalizers"] = [f for f in spec.get("finalizers") or [] if f != "kubernetes"]
                obj["spec"] = spec
                return obj

            await self.namespaces.patch("", name, drop_finalizer, subresource="finalize")
        except errors.StatusError as e:
            if e.code != 404:
                log.warning("namespace %s: finalizing: %s", name, e)
        finally:
            self.active.discard(name)

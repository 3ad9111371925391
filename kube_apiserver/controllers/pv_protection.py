"""The PV protection controller (pkg/controller/volume/pvprotection, run by kube-controller-manager as
"persistentvolume-protection-controller"): a PersistentVolume being deleted keeps the kubernetes.io/pv-protection
finalizer (put on by StorageObjectInUseProtection admission) while it is bound, and loses it, so that it goes,
once it is not. A volume without the finalizer that is not being deleted gets it.

"Bound" is upstream's isBeingUsed: status.phase Bound, as the persistent volume controller keeps it; every
change of a volume being deleted (a status write that moves it to Released, say) looks at it again."""

from __future__ import annotations

import logging
from typing import Any

from kube_apiserver.admission.plugins.storage_object_in_use_protection import PV_PROTECTION_FINALIZER
from kube_apiserver.controllers.informer import Informer
from kube_apiserver.controllers.pvc_protection import is_deletion_candidate, need_to_add_finalizer, write_finalizers
from kube_apiserver.controllers.workqueue import WorkQueue
from kube_apiserver.registry.store import Store
from kube_apiserver.runtime import errors

log = logging.getLogger(__name__)

# The controller's name in kube-controller-manager (--controllers).
NAME = "persistentvolume-protection-controller"


def _name(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata")
    return str(meta.get("name", "")) if isinstance(meta, dict) else ""


def is_being_used(pv: dict[str, Any]) -> bool:
    """isBeingUsed: bound to a claim, as its status says."""
    status = pv.get("status")
    return isinstance(status, dict) and status.get("phase") == "Bound"


class PVProtectionController:
    def __init__(self, volumes: Store) -> None:
        self.volumes = volumes
        self.queue: WorkQueue[str] = WorkQueue("pvprotection", self.process_pv, log)
        self.informer = Informer(volumes, self._pv_added_updated)

    async def start(self) -> None:
        self.queue.start()
        await self.informer.start()

    def _pv_added_updated(self, old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
        """pvAddedUpdated (a removal needs nothing)."""
        if new is None:
            return
        if need_to_add_finalizer(new, PV_PROTECTION_FINALIZER) or is_deletion_candidate(new, PV_PROTECTION_FINALIZER):
            self.queue.add(_name(new))

    async def process_pv(self, name: str) -> None:
        """processPV."""
        try:
            pv = (await self.volumes.get("", name)).obj
        except errors.StatusError as e:
            if e.code == 404:
                return
            raise
        finalizers = (pv.get("metadata") or {}).get("finalizers") or []
        if is_deletion_candidate(pv, PV_PROTECTION_FINALIZER):
            if not is_being_used(pv):
                await self._write_finalizers(pv, [f for f in finalizers if f != PV_PROTECTION_FINALIZER])
            else:
                log.debug("keeping PV %s: it is bound", name)
            return
        if need_to_add_finalizer(pv, PV_PROTECTION_FINALIZER):
            await self._write_finalizers(pv, list(finalizers) + [PV_PROTECTION_FINALIZER])

    async def _write_finalizers(self, pv: dict[str, Any], finalizers: list[Any]) -> None:
        await write_finalizers(self.volumes, pv, finalizers)

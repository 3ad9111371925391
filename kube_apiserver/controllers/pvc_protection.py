"""The PVC protection controller (pkg/controller/volume/pvcprotection, run by kube-controller-manager as
"persistentvolumeclaim-protection-controller"): a PersistentVolumeClaim being deleted keeps the
kubernetes.io/pvc-protection finalizer (put on by StorageObjectInUseProtection admission) while a pod uses it,
and loses it, so that it goes, once none does. A claim without the finalizer that is not being deleted gets it
(one made while the admission plugin was off, or before it was on).

Upstream's podUsesPVC decides what "uses" means: only a scheduled pod (spec.nodeName set) counts, since the
kubelet starts no pod with a claim that is being deleted; a scheduled pod uses the claims its
persistentVolumeClaim volumes name whatever its phase (a finished pod holds its claim until it is deleted),
and the claim of a generic ephemeral volume ("<pod>-<volume>", controlled by the pod) until the pod is shut
down (deleted with a zero grace period). A pod's change re-checks the claims it names only when it can free
them (isPodTerminated, not scheduled, or removed), as upstream's enqueuePVCs filters.

Upstream first asks its informer's pod index and, when that finds no user, makes sure with a live list of the
namespace's pods; here the pod watch cache read after catching up with storage (a consistent list) is that
live list, so one read decides. The finalizer goes with an update carrying the claim's resourceVersion; a
conflict fails the sync and the work queue retries it, as upstream's rate-limited requeue does."""

from __future__ import annotations

import logging
from typing import Any

import orjson

from kube_apiserver.admission.plugins.storage_object_in_use_protection import PVC_PROTECTION_FINALIZER
from kube_apiserver.controllers.informer import Informer
from kube_apiserver.controllers.workqueue import WorkQueue
from kube_apiserver.registry.fieldmanager import managing_as_server
from kube_apiserver.registry.store import Store
from kube_apiserver.runtime import errors
from kube_apiserver.storage.interface import ListOptions

log = logging.getLogger(__name__)

# The controller's name in kube-controller-manager (--controllers), and the field manager of its writes.
NAME = "persistentvolumeclaim-protection-controller"
MANAGER = "kube-controller-manager"

ClaimKey = tuple[str, str]  # (namespace, name)


def _meta(obj: dict[str, Any] | None) -> dict[str, Any]:
    meta = (obj or {}).get("metadata")
    return meta if isinstance(meta, dict) else {}


def _finalizers(obj: dict[str, Any]) -> list[Any]:
    finalizers = _meta(obj).get("finalizers")
    return finalizers if isinstance(finalizers, list) else []


def is_deletion_candidate(obj: dict[str, Any], finalizer: str) -> bool:
    """protectionutil.IsDeletionCandidate: being deleted, and still holding finalizer."""
    return bool(_meta(obj).get("deletionTimestamp")) and finalizer in _finalizers(obj)


def need_to_add_finalizer(obj: dict[str, Any], finalizer: str) -> bool:
    """protectionutil.NeedToAddFinalizer: not being deleted, and without finalizer."""
    return not _meta(obj).get("deletionTimestamp") and finalizer not in _finalizers(obj)


def _spec(pod: dict[str, Any]) -> dict[str, Any]:
    spec = pod.get("spec")
    return spec if isinstance(spec, dict) else {}


def _volumes(pod: dict[str, Any]) -> list[dict[str, Any]]:
    volumes = _spec(pod).get("volumes")
    return [v for v in volumes if isinstance(v, dict)] if isinstance(volumes, list) else []


def ephemeral_claim_name(pod: dict[str, Any], volume: dict[str, Any]) -> str:
    """ephemeral.VolumeClaimName: the claim a generic ephemeral volume gets, "<pod name>-<volume name>"."""
    return f"{_meta(pod).get('name', '')}-{volume.get('name', '')}"


def is_controlled_by(obj: dict[str, Any], owner: dict[str, Any]) -> bool:
    """metav1.IsControlledBy: obj's controller reference names owner's uid (ephemeral.VolumeIsForPod)."""
    uid = _meta(owner).get("uid")
    refs = _meta(obj).get("ownerReferences")
    if not uid or not isinstance(refs, list):
        return False
    return any(isinstance(r, dict) and r.get("controller") is True and r.get("uid") == uid for r in refs)


def claims_of(pod: dict[str, Any]) -> list[str]:
    """The names of the claims a pod's volumes refer to (common.PodPVCIndexFunc, without the namespace)."""
    names = []
    for volume in _volumes(pod):
        claim = volume.get("persistentVolumeClaim")
        if isinstance(claim, dict):
            if claim.get("claimName"):
                names.append(str(claim["claimName"]))
        elif volume.get("ephemeral") is not None:
            names.append(ephemeral_claim_name(pod, volume))
    return names


def pod_is_shut_down(pod: dict[str, Any]) -> bool:
    """podIsShutDown: deleted with a zero grace period (the kubelet is done with it, or it was forced)."""
    meta = _meta(pod)
    return bool(meta.get("deletionTimestamp")) and meta.get("deletionGracePeriodSeconds") == 0


def _not_running(statuses: Any) -> bool:
    """notRunning (pkg/volume/util): every container waiting or terminated, or none reported."""
    if not isinstance(statuses, list):
        return True
    for status in statuses:
        state = status.get("state") if isinstance(status, dict) else None
        state = state if isinstance(state, dict) else {}
        if state.get("terminated") is None and state.get("waiting") is None:
            return False
    return True


def is_pod_terminated(pod: dict[str, Any]) -> bool:
    """volumeutil.IsPodTerminated: a finished phase, or deleted with no container still running."""
    status = pod.get("status")
    status = status if isinstance(status, dict) else {}
    if status.get("phase") in ("Failed", "Succeeded"):
        return True
    return bool(_meta(pod).get("deletionTimestamp")) and all(
        _not_running(status.get(field))
        for field in ("initContainerStatuses", "containerStatuses", "ephemeralContainerStatuses")
    )


def pod_uses_pvc(pod: dict[str, Any], pvc: dict[str, Any]) -> bool:
    """podUsesPVC: whether pod (of the claim's namespace) keeps the claim from going."""
    if not _spec(pod).get("nodeName"):
        return False  # not scheduled: the scheduler places no pod whose claim is being deleted
    name = _meta(pvc).get("name")
    for volume in _volumes(pod):
        claim = volume.get("persistentVolumeClaim")
        if isinstance(claim, dict) and claim.get("claimName") == name:
            return True
        if (
            volume.get("ephemeral") is not None
            and not pod_is_shut_down(pod)
            and ephemeral_claim_name(pod, volume) == name
            and is_controlled_by(pvc, pod)
        ):
            return True
    return False


class PVCProtectionController:
    def __init__(self, claims: Store, pods: Store) -> None:
        self.claims = claims
        self.pods = pods
        self.queue: WorkQueue[ClaimKey] = WorkQueue("pvcprotection", self.process_pvc, log)
        self.claim_informer = Informer(claims, self._claim_added_updated)
        # after a relist of the pods some removals went unheard: look again at every claim waiting
        self.pod_informer = Informer(pods, self._pod_added_deleted_updated, on_relist=self._recheck_waiting)

    async def start(self) -> None:
        self.queue.start()
        await self.claim_informer.start()
        await self.pod_informer.start()

    # --- events ---

    def _claim_added_updated(self, old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
        """pvcAddedUpdated (a removal needs nothing)."""
        if new is None:
            return
        if need_to_add_finalizer(new, PVC_PROTECTION_FINALIZER) or is_deletion_candidate(new, PVC_PROTECTION_FINALIZER):
            meta = _meta(new)
            self.queue.add((str(meta.get("namespace", "")), str(meta.get("name", ""))))

    def _pod_added_deleted_updated(self, old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
        """podAddedDeletedUpdated."""
        if new is None:
            if old is not None:
                self._enqueue_pvcs(old, deleted=True)
            return
        self._enqueue_pvcs(new, deleted=False)
        # a change that is in fact another pod under the same name (seen across a relist): the old one is gone
        if old is not None and _meta(old).get("uid") != _meta(new).get("uid"):
            self._enqueue_pvcs(old, deleted=True)

    def _enqueue_pvcs(self, pod: dict[str, Any], deleted: bool) -> None:
        """enqueuePVCs: only a pod that can free a claim (removed, terminated or not scheduled) is of interest."""
        if not deleted and not is_pod_terminated(pod) and _spec(pod).get("nodeName"):
            return
        namespace = str(_meta(pod).get("namespace", ""))
        for name in claims_of(pod):
            self.queue.add((namespace, name))

    def _recheck_waiting(self) -> None:
        cached = self.claims.storage.list_cached(self.claims.prefix, ListOptions())
        for item in cached.items:
            self._claim_added_updated(None, item.obj)

    # --- the work ---

    async def process_pvc(self, key: ClaimKey) -> None:
        """processPVC."""
        namespace, name = key
        try:
            pvc = (await self.claims.get(namespace, name)).obj
        except errors.StatusError as e:
            if e.code == 404:
                return
            raise
        if is_deletion_candidate(pvc, PVC_PROTECTION_FINALIZER):
            if not await self.is_being_used(pvc):
                await self._write_finalizers(pvc, [f for f in _finalizers(pvc) if f != PVC_PROTECTION_FINALIZER])
            else:
                log.debug("keeping PVC %s/%s: a pod uses it", namespace, name)
            return
        if need_to_add_finalizer(pvc, PVC_PROTECTION_FINALIZER):
            await self._write_finalizers(pvc, _finalizers(pvc) + [PVC_PROTECTION_FINALIZER])

    async def is_being_used(self, pvc: dict[str, Any]) -> bool:
        """isBeingUsed: a consistent list of the claim's namespace's pods (askAPIServer)."""
        pods = await self.pods.list(str(_meta(pvc).get("namespace", "")), ListOptions())
        return any(pod_uses_pvc(item.obj, pvc) for item in pods.items)

    async def _write_finalizers(self, pvc: dict[str, Any], finalizers: list[Any]) -> None:
        await write_finalizers(self.claims, pvc, finalizers)


async def write_finalizers(store: Store, obj: dict[str, Any], finalizers: list[Any]) -> None:
    """addFinalizer / removeFinalizer of the protection controllers: an update of the object as read,
    resourceVersion included, by kube-controller-manager; a conflict (409) is raised for the work queue to
    retry with the object read again, and an object gone meanwhile needs nothing."""
    meta = _meta(obj)
    updated = orjson.loads(orjson.dumps(obj))  # the cached object is shared
    if finalizers:
        updated["metadata"]["finalizers"] = finalizers
    else:
        updated["metadata"].pop("finalizers", None)
    try:
        with managing_as_server(store, manager=MANAGER):
            await store.update(str(meta.get("namespace", "")), str(meta.get("name", "")), updated)
    except errors.StatusError as e:
        if e.code != 404:
            raise

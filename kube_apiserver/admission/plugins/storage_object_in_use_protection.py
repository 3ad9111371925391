"""StorageObjectInUseProtection admission (plugin/pkg/admission/storage/storageobjectinuseprotection): every
new PersistentVolumeClaim gets the kubernetes.io/pvc-protection finalizer and every new PersistentVolume the
kubernetes.io/pv-protection one, so that deleting a claim a pod still uses, or a volume still bound, only marks
it Terminating; the protection controllers (controllers/pvc_protection.py, pv_protection.py) take the
finalizer off once nothing uses the object any more.

Create only (upstream's handler answers admission.Create alone), on the objects themselves: the stores call
these plugins for the object and not for its subresources. A dry run is admitted like a real create, so the
object it returns carries the finalizer too."""

from __future__ import annotations

from typing import Any

# volumeutil.PVCProtectionFinalizer and PVProtectionFinalizer (pkg/volume/util)
PVC_PROTECTION_FINALIZER = "kubernetes.io/pvc-protection"
PV_PROTECTION_FINALIZER = "kubernetes.io/pv-protection"


def _add_finalizer(obj: dict[str, Any], finalizer: str) -> None:
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        return  # not an object the plugin can read: validation has the last word
    finalizers = meta.get("finalizers")
    if finalizers is None:
        finalizers = []
    elif not isinstance(finalizers, list):
        return
    if finalizer not in finalizers:
        # appended after the client's own, as upstream does
        meta["finalizers"] = finalizers + [finalizer]


def admit_claim(pvc: dict[str, Any], old: dict[str, Any] | None) -> None:
    """admitPVC: on create of a PersistentVolumeClaim."""
    if old is None:
        _add_finalizer(pvc, PVC_PROTECTION_FINALIZER)


def admit_volume(pv: dict[str, Any], old: dict[str, Any] | None) -> None:
    """admitPV: on create of a PersistentVolume."""
    if old is None:
        _add_finalizer(pv, PV_PROTECTION_FINALIZER)

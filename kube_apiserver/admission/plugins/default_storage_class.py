"""DefaultStorageClass admission (plugin/pkg/admission/storage/storageclass/setdefault): a new
PersistentVolumeClaim that asks for no class (no storageClassName, not even "", and no
volume.beta.kubernetes.io/storage-class annotation) gets the default StorageClass, the one annotated
storageclass.kubernetes.io/is-default-class=true (or its beta twin); of several, the newest, then the
first by name."""

from __future__ import annotations

from typing import Any

from kube_apiserver.admission.plugins import newest
from kube_apiserver.storage.cacher.cacher import Cacher

DEFAULT_CLASS_ANNOTATIONS = (
    "storageclass.kubernetes.io/is-default-class",
    "storageclass.beta.kubernetes.io/is-default-class",
)
BETA_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"


def _meta(obj: dict[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, dict) else {}


def _is_default(storage_class: dict[str, Any]) -> bool:
    annotations = _meta(storage_class).get("annotations") or {}
    return any(annotations.get(a) == "true" for a in DEFAULT_CLASS_ANNOTATIONS)


class DefaultStorageClass:
    def __init__(self, classes: Cacher) -> None:
        self.classes = classes  # the watch cache of storageclasses

    def default_class(self) -> dict[str, Any] | None:
        """GetDefaultClass: of several, the newest."""
        return newest([item.obj for item in self.classes.objects.values() if _is_default(item.obj)])

    async def await_classes(self, pvc: dict[str, Any]) -> None:
        """Before a create: a class made a moment ago is in the cache (admit reads it and cannot wait)."""
        await self.classes.wait_fresh()

    def admit(self, pvc: dict[str, Any], old: dict[str, Any] | None) -> None:
        """On create of a claim."""
        spec = pvc.get("spec")
        if old is not None or not isinstance(spec, dict):
            return
        if spec.get("storageClassName") is not None or BETA_CLASS_ANNOTATION in (_meta(pvc).get("annotations") or {}):
            return  # the claim asked for a class (or for none, with "")
        storage_class = self.default_class()
        if storage_class is not None:
            spec["storageClassName"] = _meta(storage_class).get("name")

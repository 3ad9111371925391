"""DefaultIngressClass admission (plugin/pkg/admission/network/defaultingressclass): a new Ingress that names no
class (no spec.ingressClassName and no kubernetes.io/ingress.class annotation) gets the IngressClass annotated
ingressclass.kubernetes.io/is-default-class=true; of several, the newest, then the first by name."""

from __future__ import annotations

from typing import Any

from kube_apiserver.admission.plugins import newest
from kube_apiserver.storage.cacher.cacher import Cacher

DEFAULT_CLASS_ANNOTATION = "ingressclass.kubernetes.io/is-default-class"
CLASS_ANNOTATION = "kubernetes.io/ingress.class"


def _annotations(obj: dict[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata")
    annotations = meta.get("annotations") if isinstance(meta, dict) else None
    return annotations if isinstance(annotations, dict) else {}


class DefaultIngressClass:
    def __init__(self, classes: Cacher) -> None:
        self.classes = classes  # the watch cache of ingressclasses

    def default_class(self) -> dict[str, Any] | None:
        defaults = [
            i.obj for i in self.classes.objects.values() if _annotations(i.obj).get(DEFAULT_CLASS_ANNOTATION) == "true"
        ]
        return newest(defaults)

    async def await_classes(self, ingress: dict[str, Any]) -> None:
        """Before a create: a class made a moment ago is in the cache (admit reads it and cannot wait)."""
        await self.classes.wait_fresh()

    def admit(self, ingress: dict[str, Any], old: dict[str, Any] | None) -> None:
        """On create of an Ingress."""
        spec = ingress.get("spec")
        if old is not None or not isinstance(spec, dict):
            return
        if spec.get("ingressClassName") is not None or CLASS_ANNOTATION in _annotations(ingress):
            return
        ingress_class = self.default_class()
        if ingress_class is not None:
            spec["ingressClassName"] = (ingress_class.get("metadata") or {}).get("name")

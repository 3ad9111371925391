"""Priority admission (plugin/pkg/admission/priority): a new pod's priority and preemptionPolicy come
from its priorityClassName, or from the global default PriorityClass (priority 0, PreemptLowerPriority
when there is none); an update keeps what create set. At most one PriorityClass is the global default."""

from __future__ import annotations

from typing import Any

from kube_apiserver.admission.plugins import forbidden
from kube_apiserver.runtime import errors
from kube_apiserver.storage.cacher.cacher import Cacher

_GROUP = "scheduling.k8s.io"


def _name(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata")
    return str(meta.get("name") or "") if isinstance(meta, dict) else ""


class Priority:
    def __init__(self, classes: Cacher) -> None:
        self.classes = classes  # the watch cache of priorityclasses

    def _class(self, name: str) -> dict[str, Any] | None:
        item = self.classes.get_cached(f"{self.classes.prefix}{name}")
        return None if item is None else item.obj

    def _default_class(self) -> dict[str, Any] | None:
        """The global default; of several (a race of two creates), the one of lowest value."""
        out: dict[str, Any] | None = None
        for item in self.classes.objects.values():
            pc = item.obj
            if pc.get("globalDefault") is True and (out is None or _value(out) > _value(pc)):
                out = pc
        return out

    async def await_class(self, pod: dict[str, Any]) -> None:
        """Before a pod's create: a class made a moment ago is waited for in the cache (admit_pod reads
        the cache and cannot wait), as NamespaceLifecycle waits for a new namespace."""
        name = (pod.get("spec") or {}).get("priorityClassName") if isinstance(pod.get("spec"), dict) else None
        if isinstance(name, str) and name and self._class(name) is None:
            await self.classes.wait_fresh()

    def admit_pod(self, pod: dict[str, Any], old: dict[str, Any] | None) -> None:
        spec = pod.get("spec")
        if not isinstance(spec, dict):
            return
        if old is not None:
            # create set them and validation keeps them: a client that leaves them out keeps them too
            old_spec = old.get("spec") or {}
            for field in ("priority", "preemptionPolicy"):
                if spec.get(field) is None and old_spec.get(field) is not None:
                    spec[field] = old_spec[field]
            return
        class_name = spec.get("priorityClassName")
        if not class_name:
            pc = self._default_class()
            if pc is None:
                priority, policy = 0, "PreemptLowerPriority"
            else:
                spec["priorityClassName"] = _name(pc)
                priority, policy = _value(pc), pc.get("preemptionPolicy")
        else:
            pc = self._class(str(class_name)) if isinstance(class_name, str) else None
            if pc is None:
                raise _forbidden(pod, f"no PriorityClass with name {class_name} was found")
            priority, policy = _value(pc), pc.get("preemptionPolicy")
        given = spec.get("priority")
        if given is not None and given != priority:
            raise _forbidden(
                pod,
                f"the integer value of priority ({given}) must not be provided in pod spec; priority admission "
                f"controller computed {priority} from the given PriorityClass name",
            )
        spec["priority"] = priority
        if policy is not None:
            given = spec.get("preemptionPolicy")
            if given is not None and given != policy:
                raise _forbidden(
                    pod,
                    f"the string value of PreemptionPolicy ({given}) must not be provided in pod spec; priority "
                    f"admission controller computed {policy} from the given PriorityClass name",
                )
            spec["preemptionPolicy"] = policy

    def validate_class(self, pc: dict[str, Any], old: dict[str, Any] | None) -> None:
        """A second global default is refused, whether created or marked so by an update."""
        if pc.get("globalDefault") is not True:
            return
        current = self._default_class()
        if current is not None and (old is None or _name(current) != _name(pc)):
            raise forbidden(
                _GROUP,
                "priorityclasses",
                pc,
                f"PriorityClass {_name(current)} is already marked as default. Only one default can exist",
            )


def _forbidden(pod: dict[str, Any], text: str) -> errors.StatusError:
    return forbidden("", "pods", pod, text)


def _value(pc: dict[str, Any]) -> int:
    value = pc.get("value")
    return value if isinstance(value, int) and not isinstance(value, bool) else 0

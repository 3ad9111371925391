"""LimitRanger admission (plugin/pkg/admission/limitranger): the LimitRanges of a namespace give a new
pod's containers their default limits and requests (noted in the kubernetes.io/limit-ranger annotation),
then hold containers, pods and PersistentVolumeClaims to their min, max and maxLimitRequestRatio.

Like upstream, pods are admitted on create only (their containers' resources cannot change after), and
claims on create and update. Upstream ranges over Go maps, so the order of several violations is random;
here it follows the LimitRange's items and the resource names in order."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from kube_apiserver.admission.plugins import forbidden
from kube_apiserver.runtime.quantity import QuantityError, canonical_quantity, format_quantity, parse_quantity
from kube_apiserver.storage.cacher.cacher import Cacher

ANNOTATION = "kubernetes.io/limit-ranger"
_MAX_MILLI_VALUE = (2**63 - 1) // 1000  # resource.MaxMilliValue


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _value(text: Any) -> Fraction | None:
    try:
        return parse_quantity(text)[0]
    except (QuantityError, TypeError):
        return None


def _text(text: Any) -> str:
    try:
        return canonical_quantity(text)
    except (QuantityError, TypeError):
        return str(text)


def _common(request: Fraction | None, limit: Fraction | None, enforced: Fraction) -> tuple[int, int, int]:
    """requestLimitEnforcedValues: the three at milli precision when none overflows it, else whole
    units (both rounded up, as Quantity.Value and MilliValue round)."""
    values = [v if v is not None else Fraction(0) for v in (request, limit, enforced)]
    whole = [math.ceil(v) for v in values]
    if all(w <= _MAX_MILLI_VALUE for w in whole):
        return tuple(math.ceil(v * 1000) for v in values)  # type: ignore[return-value]
    return tuple(whole)  # type: ignore[return-value]


def _min(kind: str, name: str, enforced: Any, requests: dict[str, Any], limits: dict[str, Any]) -> str | None:
    if name not in requests:
        return f"minimum {name} usage per {kind} is {_text(enforced)}.  No request is specified"
    req, lim, enf = _common(_value(requests[name]), _value(limits.get(name)), _value(enforced) or Fraction(0))
    if req < enf:
        return f"minimum {name} usage per {kind} is {_text(enforced)}, but request is {_text(requests[name])}"
    if name in limits and lim < enf:
        return f"minimum {name} usage per {kind} is {_text(enforced)}, but limit is {_text(limits[name])}"
    return None


def _max(kind: str, name: str, enforced: Any, requests: dict[str, Any], limits: dict[str, Any]) -> str | None:
    if name not in limits:
        return f"maximum {name} usage per {kind} is {_text(enforced)}.  No limit is specified"
    req, lim, enf = _common(_value(requests.get(name)), _value(limits[name]), _value(enforced) or Fraction(0))
    if lim > enf:
        return f"maximum {name} usage per {kind} is {_text(enforced)}, but limit is {_text(limits[name])}"
    if name in requests and req > enf:
        return f"maximum {name} usage per {kind} is {_text(enforced)}, but request is {_text(requests[name])}"
    return None


def _max_request(kind: str, name: str, enforced: Any, requests: dict[str, Any]) -> str | None:
    """maxRequestConstraint: for claims, which have requests only."""
    if name not in requests:
        return f"maximum {name} usage per {kind} is {_text(enforced)}.  No request is specified"
    req, _, enf = _common(_value(requests[name]), None, _value(enforced) or Fraction(0))
    if req > enf:
        return f"maximum {name} usage per {kind} is {_text(enforced)}, but request is {_text(requests[name])}"
    return None


def _ratio(kind: str, name: str, enforced: Any, requests: dict[str, Any], limits: dict[str, Any]) -> str | None:
    enf_value = _value(enforced) or Fraction(0)
    req, lim, _ = _common(_value(requests.get(name)), _value(limits.get(name)), enf_value)
    head = f"{name} max limit to request ratio per {kind} is {_text(enforced)}"
    if name not in requests or req == 0:
        return f"{head}, but no request is specified or request is 0"
    if name not in limits or lim == 0:
        return f"{head}, but no limit is specified or limit is 0"
    observed = lim / req
    shown = observed
    maximum = float(math.ceil(enf_value))
    if math.ceil(enf_value) <= _MAX_MILLI_VALUE:
        observed *= 1000
        maximum = float(math.ceil(enf_value * 1000))
    if observed > maximum:
        return f"{head}, but provided ratio is {shown:f}"
    return None


def _check(kind: str, item: dict[str, Any], requests: dict[str, Any], limits: dict[str, Any]) -> list[str]:
    out: list[str | None] = []
    out += [_min(kind, k, v, requests, limits) for k, v in sorted(_dict(item.get("min")).items())]
    out += [_max(kind, k, v, requests, limits) for k, v in sorted(_dict(item.get("max")).items())]
    out += [_ratio(kind, k, v, requests, limits) for k, v in sorted(_dict(item.get("maxLimitRequestRatio")).items())]
    return [e for e in out if e]


def _pod_totals(spec: dict[str, Any], field: str) -> dict[str, str]:
    """PodRequests / PodLimits: the containers' sum (with sidecars, the init containers that keep
    running) or, when larger, what an init container needs beside the sidecars started before it; plus
    the overhead. Each sum keeps the format of its first quantity, as Quantity.Add does."""
    fmts: dict[str, str] = {}

    def values(container: Any) -> dict[str, Fraction]:
        out = {}
        for k, q in _dict(_dict(_dict(container).get("resources")).get(field)).items():
            try:
                out[k], fmt = parse_quantity(q)
            except (QuantityError, TypeError):
                continue
            fmts.setdefault(k, fmt)
        return out

    total: dict[str, Fraction] = {}
    for c in _list(spec.get("containers")):
        for k, v in values(c).items():
            total[k] = total.get(k, Fraction(0)) + v
    sidecars: dict[str, Fraction] = {}
    peak: dict[str, Fraction] = {}
    for c in _list(spec.get("initContainers")):
        restartable = _dict(c).get("restartPolicy") == "Always"
        for k, v in values(c).items():
            if restartable:
                sidecars[k] = sidecars.get(k, Fraction(0)) + v
                total[k] = total.get(k, Fraction(0)) + v
                peak[k] = max(peak.get(k, Fraction(0)), sidecars[k])
            else:
                peak[k] = max(peak.get(k, Fraction(0)), v + sidecars.get(k, Fraction(0)))
    for k, v in peak.items():
        total[k] = max(total.get(k, Fraction(0)), v)
    for k, v in values({"resources": {field: spec.get("overhead")}}).items():
        if k in total or field == "requests":  # limits get overhead only where they are set
            total[k] = total.get(k, Fraction(0)) + v
    return {k: format_quantity(v, fmts[k]) for k, v in total.items()}


class LimitRanger:
    def __init__(self, limit_ranges: Cacher) -> None:
        self.limit_ranges = limit_ranges  # the watch cache of limitranges

    def _ranges(self, namespace: str) -> list[list[dict[str, Any]]]:
        """The items of each LimitRange of the namespace, in key order."""
        prefix = f"{self.limit_ranges.prefix}{namespace}/"
        return [
            [_dict(i) for i in _list(_dict(stored.obj.get("spec")).get("limits"))]
            for key, stored in sorted(self.limit_ranges.objects.items())
            if key.startswith(prefix)
        ]

    async def await_ranges(self, obj: dict[str, Any]) -> None:
        """Before a create: LimitRanges made a moment ago are in the cache (admit reads it and cannot wait)."""
        await self.limit_ranges.wait_fresh()

    def admit_pod(self, pod: dict[str, Any], old: dict[str, Any] | None) -> None:
        if old is not None:
            return
        spec = pod.get("spec")
        ranges = self._ranges(str(_dict(pod.get("metadata")).get("namespace") or ""))
        if not ranges or not isinstance(spec, dict):
            return
        # as runLimitFunc runs them: every range's defaults (Admit), then each range's limits (Validate),
        # the first range with violations answering for all of them
        for items in ranges:
            self._default(pod, spec, items)
        for items in ranges:
            problems: list[str] = []
            for item in items:
                if item.get("type") == "Container":
                    for c in _list(spec.get("containers")) + _list(spec.get("initContainers")):
                        res = _dict(_dict(c).get("resources"))
                        problems += _check("Container", item, _dict(res.get("requests")), _dict(res.get("limits")))
                elif item.get("type") == "Pod":
                    problems += _check("Pod", item, _pod_totals(spec, "requests"), _pod_totals(spec, "limits"))
            self._refuse("", "pods", pod, problems)

    def _default(self, pod: dict[str, Any], spec: dict[str, Any], items: list[dict[str, Any]]) -> None:
        """defaultContainerResourceRequirements and mergeContainerResources for one LimitRange: what a
        container lacks of its Container items' default (limits) and defaultRequest (requests), the last
        item winning; the annotation says what this range set (the last range that set something wins)."""
        limits: dict[str, Any] = {}
        requests: dict[str, Any] = {}
        for item in items:
            if item.get("type") == "Container":
                limits.update(_dict(item.get("default")))
                requests.update(_dict(item.get("defaultRequest")))
        if not limits and not requests:
            return
        notes: list[str] = []
        for prefix, field in (("container", "containers"), ("init container", "initContainers")):
            for c in _list(spec.get(field)):
                if not isinstance(c, dict):
                    continue
                res = c.get("resources")
                if res is None:
                    res = c["resources"] = {}
                if not isinstance(res, dict):
                    continue
                for what, defaults in (("request", requests), ("limit", limits)):
                    key = "requests" if what == "request" else "limits"
                    have = res.get(key)
                    if have is None:
                        have = {}
                    if not isinstance(have, dict):
                        continue
                    missing = sorted(k for k in defaults if k not in have)
                    if missing:
                        res[key] = {**have, **{k: defaults[k] for k in missing}}
                        notes.append(f"{', '.join(missing)} {what} for {prefix} {c.get('name', '')}")
        if notes:
            meta = pod.setdefault("metadata", {})
            annotations = meta.get("annotations")
            if not isinstance(annotations, dict):
                annotations = meta["annotations"] = {}
            annotations[ANNOTATION] = "LimitRanger plugin set: " + "; ".join(notes)

    def admit_claim(self, pvc: dict[str, Any], old: dict[str, Any] | None) -> None:
        requests = _dict(_dict(_dict(pvc.get("spec")).get("resources")).get("requests"))
        for items in self._ranges(str(_dict(pvc.get("metadata")).get("namespace") or "")):
            problems: list[str] = []
            for item in items:
                if item.get("type") != "PersistentVolumeClaim":
                    continue
                for k, v in sorted(_dict(item.get("min")).items()):
                    problems += [e for e in [_min("PersistentVolumeClaim", k, v, requests, {})] if e]
                for k, v in sorted(_dict(item.get("max")).items()):
                    problems += [e for e in [_max_request("PersistentVolumeClaim", k, v, requests)] if e]
            self._refuse("", "persistentvolumeclaims", pvc, problems)

    @staticmethod
    def _refuse(group: str, resource: str, obj: dict[str, Any], problems: list[str]) -> None:
        if problems:
            # utilerrors.NewAggregate: one error as it is, several in brackets
            text = problems[0] if len(problems) == 1 else "[" + ", ".join(problems) + "]"
            raise forbidden(group, resource, obj, text)

"""The admission plugins this server runs, one module each; kube-apiserver has them all on by default."""

from __future__ import annotations

from typing import Any

from kube_apiserver.runtime import errors

RUN = frozenset(
    {
        "NamespaceLifecycle",
        "LimitRanger",
        "ServiceAccount",
        "TaintNodesByCondition",
        "Priority",
        "DefaultTolerationSeconds",
        "DefaultStorageClass",
        "StorageObjectInUseProtection",
        "DefaultIngressClass",
        "PodSecurity",
    }
)


def forbidden(group: str, resource: str, obj: dict[str, Any], text: str) -> errors.StatusError:
    """admission.NewForbidden: the object named by its name or, before one is generated, its generateName."""
    meta = obj.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    return errors.new_forbidden(group, resource, str(meta.get("name") or meta.get("generateName") or ""), text)


def newest(objects: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Of several objects marked the default (a StorageClass, an IngressClass), the one the defaulting
    plugins pick: the newest, then the first by name (RFC 3339 timestamps in UTC sort as text)."""

    def meta(obj: dict[str, Any]) -> dict[str, Any]:
        m = obj.get("metadata")
        return m if isinstance(m, dict) else {}

    if not objects:
        return None
    objects = sorted(objects, key=lambda o: str(meta(o).get("name") or ""))
    objects.sort(key=lambda o: str(meta(o).get("creationTimestamp") or ""), reverse=True)
    return objects[0]

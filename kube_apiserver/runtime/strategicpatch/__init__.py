"""Strategic merge patch driven by the 1.33 schemas (k8s.io/apimachinery/pkg/util/strategicpatch),
and the two plain patch formats kube-apiserver accepts beside it: JSON patch (RFC 6902, as
evanphx/json-patch v4 applies it) and JSON merge patch (RFC 7386).

strategic_merge_patch(original, patch, group, version, kind) merges a decoded patch into a decoded
object of a built-in kind; the patch metadata (x-kubernetes-patch-strategy and -merge-key) comes
from the kind's OpenAPI definition, walked along the patch. Errors are PatchError with the HTTP
status kube-apiserver answers with.
"""

from __future__ import annotations

from typing import Any

from kube_apiserver.runtime.strategicpatch.errors import PatchError, err_unsupported_strategic_merge_patch_format
from kube_apiserver.runtime.strategicpatch.merge import merge_map
from kube_apiserver.runtime.strategicpatch.meta import GoType, Registry, schema_for_kind


def has_schema(group: str, version: str, kind: str) -> bool:
    """Whether kind has patch metadata; custom resources have none (and no strategic merge patch)."""
    return schema_for_kind(group, version, kind) is not None


def strategic_merge_patch(
    original: dict[str, Any], patch: dict[str, Any], group: str, version: str, kind: str
) -> dict[str, Any]:
    """Apply patch to original (both changed in place: pass copies) and return the result."""
    schema = schema_for_kind(group, version, kind)
    if schema is None:
        raise err_unsupported_strategic_merge_patch_format()
    return merge_map(original, patch, schema)


def strategic_merge_patch_with_schema(
    original: dict[str, Any], patch: dict[str, Any], schema: GoType
) -> dict[str, Any]:
    """As strategic_merge_patch, with the root type given (from a Registry of other definitions)."""
    return merge_map(original, patch, schema)


__all__ = [
    "GoType",
    "PatchError",
    "Registry",
    "has_schema",
    "strategic_merge_patch",
    "strategic_merge_patch_with_schema",
]

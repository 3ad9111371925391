"""ObjectMeta validation (k8s.io/apimachinery/pkg/api/validation/objectmeta.go, with the finalizer-name
rule that pkg/apis/core/validation adds for the built-in kinds).

The store runs validate_object_meta on every object it writes (create and update) and
validate_object_meta_update on updates only, so the update rules here are the change rules alone:
labels, annotations and owner references of the new object are already checked by the first.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from kube_apiserver.runtime.errors import (
    GoRepr,
    StatusCause,
    field_forbidden,
    field_invalid,
    field_required,
)
from kube_apiserver.runtime.labels import go_quote
from kube_apiserver.runtime.validation.metav1 import validate_annotations, validate_labels
from kube_apiserver.runtime.validation.names import is_qualified_name, mask_trailing_dash, name_is_dns_label

NameValidator = Callable[[str], list[str]]

FIELD_IMMUTABLE_ERROR_MSG = "field is immutable"
IS_NEGATIVE_ERROR_MSG = "must be greater than or equal to 0"

FINALIZER_ORPHAN_DEPENDENTS = "orphan"
FINALIZER_DELETE_DEPENDENTS = "foregroundDeletion"
# helper.IsStandardFinalizerName: the finalizers without a domain that kube itself uses.
STANDARD_FINALIZERS = frozenset({"kubernetes", FINALIZER_ORPHAN_DEPENDENTS, FINALIZER_DELETE_DEPENDENTS})

# BannedOwners: kinds that may not own anything.
_BANNED_OWNERS = {("", "v1", "Event")}


def go_string_slice(values: list[Any]) -> GoRepr:
    """%#v of a []string."""
    if not values:
        return GoRepr("[]string(nil)")
    return GoRepr("[]string{" + ", ".join(go_quote(str(v)) for v in values) + "}")


def validate_nonnegative_field(value: Any, path: str) -> list[StatusCause]:
    if isinstance(value, int) and not isinstance(value, bool) and value < 0:
        return [field_invalid(path, value, IS_NEGATIVE_ERROR_MSG)]
    return []


def validate_immutable_field(new: Any, old: Any, path: str) -> list[StatusCause]:
    """ValidateImmutableField: semantic equality (an absent value equals an empty one)."""
    if _empty(new) and _empty(old):
        return []
    if new != old:
        return [field_invalid(path, new, FIELD_IMMUTABLE_ERROR_MSG)]
    return []


def _empty(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}


def validate_finalizer_name(name: Any, path: str) -> list[StatusCause]:
    if not isinstance(name, str):
        return []
    return [field_invalid(path, name, msg) for msg in is_qualified_name(name)]


def validate_kube_finalizer_name(name: Any, path: str) -> list[StatusCause]:
    """A finalizer without a domain must be one of kube's own."""
    if isinstance(name, str) and "/" not in name and name not in STANDARD_FINALIZERS:
        return [field_invalid(path, name, "name is neither a standard finalizer name nor is it fully qualified")]
    return []


def validate_finalizers(finalizers: Any, path: str) -> list[StatusCause]:
    if not isinstance(finalizers, list):
        return []
    causes: list[StatusCause] = []
    for name in finalizers:
        causes += validate_finalizer_name(name, path)
    if FINALIZER_ORPHAN_DEPENDENTS in finalizers and FINALIZER_DELETE_DEPENDENTS in finalizers:
        detail = f"finalizer {FINALIZER_ORPHAN_DEPENDENTS} and {FINALIZER_DELETE_DEPENDENTS} cannot be both set"
        causes.append(field_invalid(path, go_string_slice(finalizers), detail))
    return causes


def _split_api_version(api_version: str) -> tuple[str, str] | None:
    """schema.ParseGroupVersion: None when it has more than one '/'."""
    if not api_version:
        return "", ""
    parts = api_version.split("/")
    if len(parts) == 1:
        return "", parts[0]
    if len(parts) == 2:
        return parts[0], parts[1]
    return None


def _go_owner_reference(ref: dict[str, Any]) -> str:
    def ptr(v: Any) -> str:
        return "(*bool)(nil)" if v is None else f"&{'true' if v else 'false'}"

    return (
        f"v1.OwnerReference{{APIVersion:{go_quote(str(ref.get('apiVersion', '')))}, "
        f"Kind:{go_quote(str(ref.get('kind', '')))}, Name:{go_quote(str(ref.get('name', '')))}, "
        f'UID:"{ref.get("uid", "")}", Controller:{ptr(ref.get("controller"))}, '
        f"BlockOwnerDeletion:{ptr(ref.get('blockOwnerDeletion'))}}}"
    )


def validate_owner_reference(ref: dict[str, Any], path: str) -> list[StatusCause]:
    causes: list[StatusCause] = []
    api_version = ref.get("apiVersion", "")
    kind = ref.get("kind", "")
    gv = _split_api_version(api_version) if isinstance(api_version, str) else None
    group, version = gv if gv is not None else ("", "")
    if not version:
        causes.append(field_invalid(f"{path}.apiVersion", api_version, "version must not be empty"))
    if not kind:
        causes.append(field_invalid(f"{path}.kind", kind, "kind must not be empty"))
    if not ref.get("name"):
        causes.append(field_invalid(f"{path}.name", ref.get("name", ""), "name must not be empty"))
    if not ref.get("uid"):
        causes.append(field_invalid(f"{path}.uid", ref.get("uid", ""), "uid must not be empty"))
    if (group, version, kind) in _BANNED_OWNERS:
        detail = f"{group}/{version}, Kind={kind} is disallowed from being an owner"
        causes.append(field_invalid(path, GoRepr(_go_owner_reference(ref)), detail))
    return causes


def validate_owner_references(refs: Any, path: str) -> list[StatusCause]:
    if not isinstance(refs, list):
        return []
    causes: list[StatusCause] = []
    first_controller = ""
    for ref in refs:
        if not isinstance(ref, dict):
            continue
        causes += validate_owner_reference(ref, path)
        if ref.get("controller") is True:
            current = f"{ref.get('kind', '')}/{ref.get('name', '')}"
            if first_controller:
                shown = GoRepr("[]v1.OwnerReference{" + ", ".join(_go_owner_reference(r) for r in refs) + "}")
                detail = (
                    'Only one reference can have Controller set to true. Found "true" in references for '
                    f"{first_controller} and {current}"
                )
                causes.append(field_invalid(path, shown, detail))
            else:
                first_controller = current
    return causes


@lru_cache(maxsize=1024)
def _namespace_errors(namespace: str) -> tuple[str, ...]:
    """A namespace's name errors: the few namespaces of a cluster are checked on every write."""
    return tuple(name_is_dns_label(namespace))


def validate_object_meta(
    meta: dict[str, Any],
    namespaced: bool,
    name_fn: NameValidator,
    path: str = "metadata",
    kube_finalizers: bool = True,
) -> list[StatusCause]:
    """ValidateObjectMeta: name (or generateName), namespace, generation, labels, annotations, owner
    references and finalizers. kube_finalizers adds the built-in kinds' rule that a finalizer without
    a domain is one of kube's own (custom resources do not have it)."""
    if not isinstance(meta, dict):
        return []
    causes: list[StatusCause] = []
    generate_name = meta.get("generateName")
    if isinstance(generate_name, str) and generate_name:
        msgs = name_fn(mask_trailing_dash(generate_name))
        if msgs:
            causes += [field_invalid(f"{path}.generateName", generate_name, msg) for msg in msgs]
    name = meta.get("name")
    if not isinstance(name, str) or not name:
        causes.append(field_required(f"{path}.name", "name or generateName is required"))
    else:
        msgs = name_fn(name)
        if msgs:  # (no comprehension, nor path, for a valid name)
            causes += [field_invalid(f"{path}.name", name, msg) for msg in msgs]
    namespace = meta.get("namespace")
    if namespaced:
        if not isinstance(namespace, str) or not namespace:
            causes.append(field_required(f"{path}.namespace"))
        else:
            msgs = _namespace_errors(namespace)
            if msgs:
                causes += [field_invalid(f"{path}.namespace", namespace, msg) for msg in msgs]
    elif namespace:
        causes.append(field_forbidden(f"{path}.namespace", "not allowed on this type"))
    # Every object written comes through here: what the metadata does not have (or has empty) has
    # nothing to check, and its path is not spelled.
    generation = meta.get("generation")
    if generation is not None:
        causes += validate_nonnegative_field(generation, f"{path}.generation")
    if meta.get("labels"):
        causes += validate_labels(meta["labels"], f"{path}.labels")
    if meta.get("annotations"):
        causes += validate_annotations(meta["annotations"], f"{path}.annotations")
    if meta.get("ownerReferences"):
        causes += validate_owner_references(meta["ownerReferences"], f"{path}.ownerReferences")
    finalizers = meta.get("finalizers")
    if finalizers:
        causes += validate_finalizers(finalizers, f"{path}.finalizers")
        if kube_finalizers and isinstance(finalizers, list):
            for i, finalizer in enumerate(finalizers):
                causes += validate_kube_finalizer_name(finalizer, f"{path}.finalizers[{i}]")
    return causes


def _go_time(value: Any) -> Any:
    """metav1.Time prints through its String(): "2006-01-02 15:04:05 +0000 UTC"."""
    if isinstance(value, str) and len(value) >= 20 and value[10] == "T":
        return GoRepr(f"{value[:10]} {value[11:19]} +0000 UTC")
    return value


def validate_object_meta_update(new: dict[str, Any], old: dict[str, Any], path: str = "metadata") -> list[StatusCause]:
    """ValidateObjectMetaUpdate: the change rules (no new finalizers while deleting, a resourceVersion,
    generation never decremented, immutable identity and deletion fields)."""
    if not isinstance(new, dict) or not isinstance(old, dict):
        return []
    causes: list[StatusCause] = []
    if old.get("deletionTimestamp"):
        old_finalizers = set(old.get("finalizers") or [])
        added = sorted({f for f in new.get("finalizers") or [] if isinstance(f, str)} - old_finalizers)
        if added:
            detail = f"no new finalizers can be added if the object is being deleted, found new finalizers {go_string_slice(added)}"
            causes.append(field_forbidden(f"{path}.finalizers", detail))
    if not new.get("resourceVersion"):
        causes.append(field_invalid(f"{path}.resourceVersion", "", "must be specified for an update"))
    new_gen, old_gen = new.get("generation") or 0, old.get("generation") or 0
    if isinstance(new_gen, int) and isinstance(old_gen, int) and new_gen < old_gen:
        causes.append(field_invalid(f"{path}.generation", new_gen, "must not be decremented"))
    for key in ("name", "namespace", "uid"):
        causes += validate_immutable_field(new.get(key, ""), old.get(key, ""), f"{path}.{key}")
    for key in ("creationTimestamp", "deletionTimestamp"):
        if new.get(key) != old.get(key) and not (_empty(new.get(key)) and _empty(old.get(key))):
            causes.append(field_invalid(f"{path}.{key}", _go_time(new.get(key)), FIELD_IMMUTABLE_ERROR_MSG))
    causes += validate_immutable_field(
        new.get("deletionGracePeriodSeconds"),
        old.get("deletionGracePeriodSeconds"),
        f"{path}.deletionGracePeriodSeconds",
    )
    return causes

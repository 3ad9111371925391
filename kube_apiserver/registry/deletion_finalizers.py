"""The garbage collector's finalizers set by a DELETE (registry/store.go, deletionFinalizersForGarbageCollection).

A delete that orphans the object's dependents puts the "orphan" finalizer on it, one that deletes them first
(propagationPolicy=Foreground) the "foregroundDeletion" finalizer: the object then stays, marked for deletion,
until the garbage collector has done that and taken the finalizer off. What asks for which, strongest first:
the delete's orphanDependents, its propagationPolicy, a finalizer already on the object, the kind's default
policy (strategy.default_garbage_collection_policy: the v1 ReplicationControllers and batch/v1 Jobs orphan).
Kinds whose policy is Unsupported (events) never get either; nor does any object with the garbage collector off
(--enable-garbage-collector=false), as nothing would ever take the finalizer off again.
"""

from __future__ import annotations

from typing import Any

from kube_apiserver.runtime.validation.objectmeta import FINALIZER_DELETE_DEPENDENTS, FINALIZER_ORPHAN_DEPENDENTS

GC_FINALIZERS = (FINALIZER_ORPHAN_DEPENDENTS, FINALIZER_DELETE_DEPENDENTS)

# rest.GarbageCollectionPolicy
DELETE_DEPENDENTS = "DeleteDependents"
ORPHAN_DEPENDENTS = "OrphanDependents"
UNSUPPORTED = "Unsupported"


def _from_finalizers(finalizers: list[str], wanted: str, other: str) -> bool | None:
    for f in finalizers:
        if f == wanted:
            return True
        if f == other:
            return False
    return None


def should_orphan_dependents(
    policy: str, finalizers: list[str], propagation: str | None, orphan_dependents: bool | None
) -> bool:
    if policy == UNSUPPORTED:
        return False
    if orphan_dependents is not None:
        return orphan_dependents
    if propagation is not None:
        return propagation == "Orphan"
    found = _from_finalizers(finalizers, FINALIZER_ORPHAN_DEPENDENTS, FINALIZER_DELETE_DEPENDENTS)
    return found if found is not None else policy == ORPHAN_DEPENDENTS


def should_delete_dependents(
    policy: str,
    finalizers: list[str],
    propagation: str | None,
    orphan_dependents: bool | None,
    orphan_false_is_foreground: bool = False,
) -> bool:
    if policy == UNSUPPORTED:
        return False
    if orphan_dependents is not None:
        return orphan_false_is_foreground and not orphan_dependents
    if propagation is not None:
        return propagation == "Foreground"
    return bool(_from_finalizers(finalizers, FINALIZER_DELETE_DEPENDENTS, FINALIZER_ORPHAN_DEPENDENTS))


def deletion_finalizers(
    obj: dict[str, Any],
    policy: str,
    propagation: str | None,
    orphan_dependents: bool | None,
    orphan_false_is_foreground: bool = False,
) -> tuple[bool, list[str]]:
    """Whether a delete of obj changes its finalizers, and the finalizers it leaves: the others as they are,
    then "orphan" or "foregroundDeletion" as asked for."""
    current = list((obj.get("metadata") or {}).get("finalizers") or [])
    new = [f for f in current if f not in GC_FINALIZERS]
    if should_orphan_dependents(policy, current, propagation, orphan_dependents):
        new.append(FINALIZER_ORPHAN_DEPENDENTS)
    if should_delete_dependents(policy, current, propagation, orphan_dependents, orphan_false_is_foreground):
        new.append(FINALIZER_DELETE_DEPENDENTS)
    if set(new) == set(current):
        return False, current
    return True, new

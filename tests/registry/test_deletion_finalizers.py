"""deletionFinalizersForGarbageCollection: which of the garbage collector's finalizers a delete leaves."""

from __future__ import annotations

import pytest

from kube_apiserver.registry.deletion_finalizers import (
    DELETE_DEPENDENTS,
    ORPHAN_DEPENDENTS,
    UNSUPPORTED,
    deletion_finalizers,
)


def _obj(*finalizers: str) -> dict:
    return {"metadata": {"finalizers": list(finalizers)} if finalizers else {}}


@pytest.mark.parametrize(
    ("finalizers", "policy", "propagation", "orphan", "expected"),
    [
        # the kind's default when the delete says nothing
        ((), DELETE_DEPENDENTS, None, None, (False, [])),
        ((), ORPHAN_DEPENDENTS, None, None, (True, ["orphan"])),
        # the delete's policy first
        ((), ORPHAN_DEPENDENTS, "Background", None, (False, [])),
        ((), DELETE_DEPENDENTS, "Foreground", None, (True, ["foregroundDeletion"])),
        ((), DELETE_DEPENDENTS, "Orphan", None, (True, ["orphan"])),
        # orphanDependents, the older form, before all
        ((), ORPHAN_DEPENDENTS, None, False, (False, [])),
        (("foregroundDeletion",), DELETE_DEPENDENTS, None, True, (True, ["orphan"])),
        # a finalizer already there stands for the policy when the delete has none
        (("a", "foregroundDeletion"), ORPHAN_DEPENDENTS, None, None, (False, ["a", "foregroundDeletion"])),
        (("orphan", "b"), DELETE_DEPENDENTS, None, None, (False, ["orphan", "b"])),
        # and is replaced by another policy, the other finalizers kept in their order
        (("a", "orphan", "b"), DELETE_DEPENDENTS, "Foreground", None, (True, ["a", "b", "foregroundDeletion"])),
        (("orphan",), DELETE_DEPENDENTS, "Background", None, (True, [])),
        # events: never
        ((), UNSUPPORTED, "Foreground", None, (False, [])),
        ((), UNSUPPORTED, None, True, (False, [])),
    ],
)
def test_deletion_finalizers(finalizers, policy, propagation, orphan, expected):
    assert deletion_finalizers(_obj(*finalizers), policy, propagation, orphan) == expected


def test_namespaces_take_orphan_dependents_false_as_foreground():
    """The namespace's own Delete: orphanDependents=false leaves foregroundDeletion (the generic store none)."""
    assert deletion_finalizers(_obj(), DELETE_DEPENDENTS, None, False, True) == (True, ["foregroundDeletion"])
    assert deletion_finalizers(_obj(), DELETE_DEPENDENTS, None, False) == (False, [])
    assert deletion_finalizers(_obj(), DELETE_DEPENDENTS, None, True, True) == (True, ["orphan"])

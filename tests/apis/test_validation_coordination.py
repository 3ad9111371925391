"""coordination.k8s.io/v1 Lease validation: kube-apiserver 1.33's messages."""

from __future__ import annotations

from validation_groups_helpers import errors

from kube_apiserver.apis.coordination.validation import validate_lease


def test_lease() -> None:
    assert validate_lease({"spec": {"holderIdentity": "a", "leaseDurationSeconds": 15, "leaseTransitions": 0}}) == []
    assert errors(
        validate_lease({"spec": {"leaseDurationSeconds": 0, "leaseTransitions": -1, "preferredHolder": "b"}})
    ) == [
        "spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0",
        "spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0",
        "spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined",
    ]

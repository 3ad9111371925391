"""Lease strategy (pkg/registry/coordination/lease/strategy.go): spec.strategy and spec.preferredHolder belong
to coordinated leader election (KEP-4355), behind the CoordinatedLeaderElection gate, off by default in 1.33:
they are dropped, unless the stored lease already has them (a field in use is kept, as dropDisabledFields
keeps it)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.registry.strategy import RESTStrategy

# The spec fields of the disabled gate.
_COORDINATED_LEADER_ELECTION_FIELDS = ("strategy", "preferredHolder")


class LeaseStrategy(RESTStrategy):
    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        _drop_disabled(obj, None)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        super().prepare_for_update(new, old)
        _drop_disabled(new, old)


def _drop_disabled(new: dict[str, Any], old: dict[str, Any] | None) -> None:
    spec = new.get("spec")
    if not isinstance(spec, dict):
        return
    old_spec = (old or {}).get("spec")
    old_spec = old_spec if isinstance(old_spec, dict) else {}
    for name in _COORDINATED_LEADER_ELECTION_FIELDS:
        if old_spec.get(name) is None:
            spec.pop(name, None)

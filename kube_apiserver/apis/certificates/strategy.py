"""CertificateSigningRequest strategies (pkg/registry/certificates/certificates/strategy.go): the requester
is recorded from the request, not from the body; the main resource changes neither spec nor status; /status
changes the status but keeps the Approved and Denied conditions as they are; /approval changes the
conditions alone. Every condition gets its lastUpdateTime and lastTransitionTime."""

from __future__ import annotations

import copy
from typing import Any

from kube_apiserver.authentication.user import request_user
from kube_apiserver.registry.strategy import STATUS_METADATA, RESTStrategy
from kube_apiserver.runtime.errors import StatusCause, field_forbidden
from kube_apiserver.runtime.meta import now_rfc3339

# The conditions only /approval may add or change.
APPROVAL_CONDITIONS = ("Approved", "Denied")


class CSRStrategy(RESTStrategy):
    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            spec = obj["spec"] = {}
        for key in ("username", "uid", "groups", "extra"):  # whatever the client said of itself
            spec.pop(key, None)
        user = request_user()
        if user is not None:
            spec.update(user.to_api())  # the same fields, each omitted when empty
        obj["status"] = {}  # no pre-approved requests

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        super().prepare_for_update(new, old)  # the status stays as it was
        if "spec" in old:
            new["spec"] = copy.deepcopy(old["spec"])
        else:
            new.pop("spec", None)

    def prepare_for_subresource_update(
        self, subresource: str, new: dict[str, Any], old: dict[str, Any]
    ) -> dict[str, Any]:
        if subresource == "approval":
            # the old object with the new conditions
            out = self.prepare_for_status_update({**new, "status": old.get("status") or {}}, old, STATUS_METADATA)
            status = out.setdefault("status", {})
            conditions = (new.get("status") or {}).get("conditions") if isinstance(new.get("status"), dict) else None
            if conditions is None:
                status.pop("conditions", None)
            else:
                status["conditions"] = copy.deepcopy(conditions)
            populate_condition_timestamps(out, old)
            return out
        out = super().prepare_for_subresource_update(subresource, new, old)
        if subresource == "status":
            for kind in APPROVAL_CONDITIONS:
                preserve_condition_instances(out, old, kind)
            populate_condition_timestamps(out, old)
        return out

    def validate_subresource_update(
        self, subresource: str, new: dict[str, Any], old: dict[str, Any]
    ) -> list[StatusCause]:
        """/status may not add or change an Approved or Denied condition (only /approval may), nor replace a
        certificate once issued (ValidateCertificateSigningRequestStatusUpdate)."""
        if subresource != "status":
            return []
        errs = []
        for kind in APPROVAL_CONDITIONS:
            old_of = [c for c in _conditions(old) if isinstance(c, dict) and c.get("type") == kind]
            new_of = [c for c in _conditions(new) if isinstance(c, dict) and c.get("type") == kind]
            # removals are validate_csr_update's; changes to the ones kept were undone by preserve_condition_instances
            if len(new_of) > len(old_of):
                errs.append(field_forbidden("status.conditions", f'updates may not add a condition of type "{kind}"'))
        old_cert = (old.get("status") or {}).get("certificate") if isinstance(old.get("status"), dict) else None
        new_cert = (new.get("status") or {}).get("certificate") if isinstance(new.get("status"), dict) else None
        if old_cert and new_cert != old_cert:
            errs.append(field_forbidden("status.certificate", "updates may not modify existing certificate content"))
        return errs


def _conditions(obj: dict[str, Any]) -> list[Any]:
    status = obj.get("status")
    conditions = status.get("conditions") if isinstance(status, dict) else None
    return conditions if isinstance(conditions, list) else []


def preserve_condition_instances(new: dict[str, Any], old: dict[str, Any], kind: str) -> None:
    """The conditions of kind keep their old values when /status neither added nor removed one
    (preserveConditionInstances); a count that changed is left for validation to refuse."""
    new_conditions, old_conditions = _conditions(new), _conditions(old)
    new_at = [i for i, c in enumerate(new_conditions) if isinstance(c, dict) and c.get("type") == kind]
    old_at = [i for i, c in enumerate(old_conditions) if isinstance(c, dict) and c.get("type") == kind]
    if len(new_at) != len(old_at):
        return
    for n, o in zip(new_at, old_at, strict=True):
        new_conditions[n] = copy.deepcopy(old_conditions[o])


def populate_condition_timestamps(new: dict[str, Any], old: dict[str, Any]) -> None:
    """lastUpdateTime now where missing; lastTransitionTime that of the old condition of the same type and
    status where there is one, else now (populateConditionTimestamps)."""
    now = now_rfc3339()
    old_conditions = [c for c in _conditions(old) if isinstance(c, dict)]
    for cond in _conditions(new):
        if not isinstance(cond, dict):
            continue
        if not cond.get("lastUpdateTime"):
            cond["lastUpdateTime"] = now
        if not cond.get("lastTransitionTime"):
            cond["lastTransitionTime"] = next(
                (
                    o["lastTransitionTime"]
                    for o in old_conditions
                    if o.get("type") == cond.get("type")
                    and o.get("status") == cond.get("status")
                    and o.get("lastTransitionTime")
                ),
                now,
            )

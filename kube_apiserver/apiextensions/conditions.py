"""The conditions kube's CRD controllers compute (apiextensions-apiserver/pkg/controller): the naming
controller's NamesAccepted (and the Established it starts from), the establishing controller's
Established, the nonstructuralschema controller's NonStructuralSchema and the apiapproval
controller's KubernetesAPIApprovalPolicyConformant. Pure functions of the CRD (and, for names, of the
names its group's other CRDs hold), so each can be checked on its own.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from kube_apiserver.apiextensions.structural import validate_structural
from kube_apiserver.runtime import meta as metautil

NAMES_ACCEPTED = "NamesAccepted"
ESTABLISHED = "Established"
NON_STRUCTURAL = "NonStructuralSchema"
API_APPROVAL = "KubernetesAPIApprovalPolicyConformant"
APPROVED_ANNOTATION = "api-approved.kubernetes.io"
_APPROVAL_PR = "https://github.com/kubernetes/enhancements/pull/1111"


def find_condition(crd: dict[str, Any], type_: str) -> dict[str, Any] | None:
    for c in (crd.get("status") or {}).get("conditions") or []:
        if isinstance(c, dict) and c.get("type") == type_:
            return c
    return None


def is_condition_true(crd: dict[str, Any], type_: str) -> bool:
    c = find_condition(crd, type_)
    return c is not None and c.get("status") == "True"


def set_condition(conds: list[dict[str, Any]], cond: dict[str, Any]) -> list[dict[str, Any]]:
    """SetCRDCondition: replace the condition of that type, keeping lastTransitionTime unless the
    status changes."""
    out: list[dict[str, Any]] = []
    found = False
    for c in conds:
        if c.get("type") != cond["type"]:
            out.append(c)
            continue
        found = True
        if all(c.get(k) == cond.get(k) for k in ("status", "reason", "message")):
            out.append(c)
        elif c.get("status") == cond.get("status") and c.get("lastTransitionTime"):
            out.append({**cond, "lastTransitionTime": c["lastTransitionTime"]})
        else:
            out.append({**cond, "lastTransitionTime": metautil.now_rfc3339()})
    if not found:
        out.append({**cond, "lastTransitionTime": metautil.now_rfc3339()})
    return out


def remove_condition(conds: list[dict[str, Any]], type_: str) -> list[dict[str, Any]]:
    return [c for c in conds if c.get("type") != type_]


# --- naming ------------------------------------------------------------------------------------------


def used_names(group_crds: Iterable[dict[str, Any]]) -> tuple[set[str], set[str]]:
    """getAcceptedNamesForGroup: the resource names and kinds the group's CRDs (this one included) hold."""
    resources: set[str] = set()
    kinds: set[str] = set()
    for crd in group_crds:
        acc = (crd.get("status") or {}).get("acceptedNames") or {}
        resources.update(str(acc.get(k) or "") for k in ("plural", "singular"))
        resources.update(str(s) for s in acc.get("shortNames") or [])
        kinds.update(str(acc.get(k) or "") for k in ("kind", "listKind"))
    return resources, kinds


def _fresh(requested: Any, accepted: Any, used: set[str]) -> str | None:
    """equalToAcceptedOrFresh: None when the name may be taken, else kube's message."""
    if requested == accepted or requested not in used:
        return None
    return f'"{requested}" is already in use'


def calculate_names_and_conditions(
    crd: dict[str, Any], group_crds: Iterable[dict[str, Any]]
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(acceptedNames, NamesAccepted, Established) as the naming controller computes them. Each name is
    accepted on its own; on a conflict the old accepted one stays and the last conflict found is reported."""
    resources, kinds = used_names(group_crds)
    requested = ((crd.get("spec") or {}).get("names")) or {}
    accepted = ((crd.get("status") or {}).get("acceptedNames")) or {}
    new = dict(accepted)
    problem: tuple[str, str] | None = None
    for field, reason, used in (
        ("plural", "PluralConflict", resources),
        ("singular", "SingularConflict", resources),
    ):
        err = _fresh(requested.get(field), accepted.get(field), used)
        if err:
            problem = (reason, err)
        elif requested.get(field) is not None:
            new[field] = requested.get(field)
    if list(requested.get("shortNames") or []) != list(accepted.get("shortNames") or []):
        mine = set(accepted.get("shortNames") or [])
        errs = []
        for short in requested.get("shortNames") or []:
            if short in mine or short in (accepted.get("plural"), accepted.get("singular")):
                continue
            err = _fresh(short, "", resources)
            if err:
                errs.append(err)
        if errs:
            problem = ("ShortNamesConflict", errs[0] if len(errs) == 1 else "[" + ", ".join(errs) + "]")
        elif requested.get("shortNames") is not None:
            new["shortNames"] = requested.get("shortNames")
        else:
            new.pop("shortNames", None)
    for field, reason in (("kind", "KindConflict"), ("listKind", "ListKindConflict")):
        err = _fresh(requested.get(field), accepted.get(field), kinds)
        if err:
            problem = (reason, err)
        elif requested.get(field) is not None:
            new[field] = requested.get(field)
    if requested.get("categories") is not None:
        new["categories"] = requested.get("categories")
    else:
        new.pop("categories", None)
    if problem is None:
        names_cond = {
            "type": NAMES_ACCEPTED,
            "status": "True",
            "reason": "NoConflicts",
            "message": "no conflicts found",
        }
    else:
        names_cond = {"type": NAMES_ACCEPTED, "status": "False", "reason": problem[0], "message": problem[1]}
    established = find_condition(crd, ESTABLISHED)
    est_cond = (
        {k: established.get(k) for k in ("type", "status", "reason", "message")}
        if established is not None
        else {"type": ESTABLISHED, "status": "False", "reason": "NotAccepted", "message": "not all names are accepted"}
    )
    if est_cond.get("status") != "True" and names_cond["status"] == "True":
        est_cond = {
            "type": ESTABLISHED,
            "status": "False",
            "reason": "Installing",
            "message": "the initial names have been accepted",
        }
    return new, names_cond, est_cond


ESTABLISHED_CONDITION = {
    "type": ESTABLISHED,
    "status": "True",
    "reason": "InitialNamesAccepted",
    "message": "the initial names have been accepted",
}


# --- NonStructuralSchema -------------------------------------------------------------------------------


def non_structural_condition(crd: dict[str, Any]) -> dict[str, Any] | None:
    """The nonstructuralschema controller's condition: every structural violation of every version's
    schema (and a preserveUnknownFields: true), or None when there is none."""
    spec = crd.get("spec") or {}
    causes: list[str] = []
    if spec.get("preserveUnknownFields") is True:
        causes.append("spec.preserveUnknownFields: Invalid value: true: must be false")
    for i, v in enumerate(spec.get("versions") or []):
        schema = ((v or {}).get("schema") or {}).get("openAPIV3Schema") if isinstance(v, dict) else None
        if not isinstance(schema, dict):
            continue
        path = f"spec.versions[{i}].schema.openAPIV3Schema"
        causes += [f"{c.field}: {c.message}" for c in validate_structural(schema, path)]
    if not causes:
        return None
    unique = list(dict.fromkeys(causes))
    message = unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"
    return {"type": NON_STRUCTURAL, "status": "True", "reason": "Violations", "message": message}


# --- API approval --------------------------------------------------------------------------------------


def is_protected_community_group(group: str) -> bool:
    """*.k8s.io and *.kubernetes.io need an api-approved.kubernetes.io annotation."""
    return group in ("k8s.io", "kubernetes.io") or group.endswith((".k8s.io", ".kubernetes.io"))


def api_approval_state(annotations: dict[str, Any] | None) -> tuple[str, str]:
    """GetAPIApprovalState: (Missing | Bypassed | Approved | Invalid, reason)."""
    value = str((annotations or {}).get(APPROVED_ANNOTATION) or "")
    if not value:
        return "Missing", f'protected groups must have approval annotation "{APPROVED_ANNOTATION}", see {_APPROVAL_PR}'
    if value.startswith("unapproved"):
        return "Bypassed", f"not approved: {_go_quote(value)}"
    if _is_request_uri_with_host(value):
        return "Approved", f"approved in {value}"
    return "Invalid", (
        f'protected groups must have approval annotation "{APPROVED_ANNOTATION}" with either a URL or a reason '
        f'starting with "unapproved", see {_APPROVAL_PR}'
    )


def _is_request_uri_with_host(value: str) -> bool:
    """url.ParseRequestURI succeeds with a scheme and a host."""
    if any(c in value for c in " \t\n") or "#" in value:
        return False
    try:
        parts = urlsplit(value)
    except ValueError:
        return False
    return bool(parts.scheme) and bool(parts.netloc) and value.split(":", 1)[0].isascii()


def _go_quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def api_approval_condition(crd: dict[str, Any]) -> dict[str, Any] | None:
    group = str((crd.get("spec") or {}).get("group") or "")
    if not is_protected_community_group(group):
        return None
    state, reason = api_approval_state((crd.get("metadata") or {}).get("annotations"))
    status, why = {
        "Invalid": ("False", "InvalidAnnotation"),
        "Missing": ("False", "MissingAnnotation"),
        "Approved": ("True", "ApprovedAnnotation"),
        "Bypassed": ("False", "UnapprovedAnnotation"),
    }[state]
    return {"type": API_APPROVAL, "status": status, "reason": why, "message": reason}

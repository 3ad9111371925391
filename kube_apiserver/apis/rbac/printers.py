"""Printers for rbac.authorization.k8s.io/v1.

Role bindings have printers.go's printRoleBinding / printClusterRoleBinding; roles and cluster
roles have none upstream, so kube-apiserver serves them with the default NAME / CREATED AT table.
"""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.printing import (
    AGE_COLUMN,
    DEFAULT_TABLE_PRINTER,
    NAME_COLUMN,
    age,
    col,
    d,
    dicts,
    name,
    text,
)
from kube_apiserver.registry.resource_spec import TablePrinter

ROLE_PRINTER = DEFAULT_TABLE_PRINTER
CLUSTER_ROLE_PRINTER = DEFAULT_TABLE_PRINTER


def subjects_strings(subjects: Any) -> tuple[list[str], list[str], list[str]]:
    """rbac.SubjectsStrings: users, groups and "namespace/name" service accounts."""
    users: list[str] = []
    groups: list[str] = []
    service_accounts: list[str] = []
    for subject in dicts(subjects):
        kind = subject.get("kind")
        if kind == "ServiceAccount":
            service_accounts.append(f"{text(subject.get('namespace'))}/{text(subject.get('name'))}")
        elif kind == "User":
            users.append(text(subject.get("name")))
        elif kind == "Group":
            groups.append(text(subject.get("name")))
    return users, groups, service_accounts


def binding_row(obj: dict[str, Any], now: float) -> list[Any]:
    ref = d(obj.get("roleRef"))
    users, groups, service_accounts = subjects_strings(obj.get("subjects"))
    return [
        name(obj),
        f"{text(ref.get('kind'))}/{text(ref.get('name'))}",
        age(obj, now),
        ", ".join(users),
        ", ".join(groups),
        ", ".join(service_accounts),
    ]


def _binding_printer(what: str) -> TablePrinter:
    return TablePrinter(
        columns=(
            NAME_COLUMN,
            col(
                "Role",
                description="RoleRef can reference a Role in the current namespace or a ClusterRole in the global "
                "namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.",
            ),
            AGE_COLUMN,
            col("Users", priority=1, description=f"Users in the {what}"),
            col("Groups", priority=1, description=f"Groups in the {what}"),
            col("ServiceAccounts", priority=1, description=f"ServiceAccounts in the {what}"),
        ),
        row=binding_row,
    )


ROLE_BINDING_PRINTER = _binding_printer("roleBinding")
CLUSTER_ROLE_BINDING_PRINTER = _binding_printer("clusterRoleBinding")

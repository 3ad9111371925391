"""Authorization flags (BuiltInAuthorizationOptions) and the authorizer union they build."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from kube_apiserver.authorization.authorizer import Authorizer, new_authorizer

AUTHORIZATION_MODES = frozenset({"AlwaysAllow", "AlwaysDeny", "Node", "RBAC"})


def _modes(value: str) -> list[str]:
    modes = [m.strip() for m in value.split(",") if m.strip()]
    for m in modes:
        if m not in AUTHORIZATION_MODES:
            raise argparse.ArgumentTypeError(
                f'authorization mode "{m}" is not supported yet (supported: {", ".join(sorted(AUTHORIZATION_MODES))})'
            )
    return modes


@dataclass
class AuthorizationOptions:
    authorization_mode: list[str]

    @classmethod
    def from_namespace(cls, ns: argparse.Namespace) -> AuthorizationOptions:
        return cls(ns.authorization_mode)

    def to_authorizer(self, rbac: Authorizer | None) -> Authorizer:
        return new_authorizer(self.authorization_mode, rbac)


def add_flags(p: argparse.ArgumentParser) -> None:
    a = p.add_argument
    a(
        "--authorization-mode",
        type=_modes,
        default=["Node", "RBAC"],
        help="Ordered list of plug-ins to do authorization on secure port: AlwaysAllow (authenticated users; anonymous users only reach /healthz, /livez, /readyz, /version), AlwaysDeny, RBAC, Node (accepted; has no opinion: the node graph authorizer is not implemented). system:masters is always allowed.",
    )

"""authorizer.Attributes and the simple authorizers (AlwaysAllow, AlwaysDeny) with their union."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from kube_apiserver.authentication.user import ANONYMOUS, UserInfo

ALLOW, DENY, NO_OPINION = "allow", "deny", "no-opinion"


@dataclass(frozen=True)
class Attributes:
    user: UserInfo
    verb: str
    is_resource_request: bool
    path: str = ""
    namespace: str = ""
    api_group: str = ""
    api_version: str = ""
    resource: str = ""
    subresource: str = ""
    name: str = ""


class Authorizer(Protocol):
    def authorize(self, attrs: Attributes) -> tuple[str, str]:
        """(decision, reason)."""
        ...


# What kube's bootstrap policy lets anyone read (system:public-info-viewer, system:discovery).
PUBLIC_PATHS = frozenset({"/healthz", "/livez", "/readyz", "/version", "/version/"})


class AlwaysAllow:
    """--authorization-mode=AlwaysAllow. Anonymous requests only reach the public info paths: until RBAC
    exists, this is what keeps an unauthenticated client from reading or writing anything."""

    def authorize(self, attrs: Attributes) -> tuple[str, str]:
        if attrs.user.name == ANONYMOUS and not (not attrs.is_resource_request and attrs.path in PUBLIC_PATHS):
            return NO_OPINION, ""
        return ALLOW, ""


class AlwaysDeny:
    def authorize(self, attrs: Attributes) -> tuple[str, str]:
        return NO_OPINION, "Everything is forbidden."


class PublicInfo:
    def authorize(self, attrs: Attributes) -> tuple[str, str]:
        if not attrs.is_resource_request and (
            attrs.path in PUBLIC_PATHS or attrs.path.startswith(("/healthz/", "/livez/", "/readyz/"))
        ):
            return ALLOW, ""
        return NO_OPINION, ""


class Union:
    def __init__(self, authorizers: list[Authorizer]) -> None:
        self.authorizers = authorizers

    def authorize(self, attrs: Attributes) -> tuple[str, str]:
        reasons = []
        for a in self.authorizers:
            decision, reason = a.authorize(attrs)
            if decision in (ALLOW, DENY):
                return decision, reason
            if reason:
                reasons.append(reason)
        return NO_OPINION, ", ".join(reasons)


def new_authorizer(modes: list[str], rbac: Authorizer | None = None) -> Authorizer:
    """The union kube builds: system:masters first (always), then each mode in order. rbac is the RBAC
    authorizer (kube_apiserver.authorization.rbac), required when modes name RBAC."""
    from kube_apiserver.authorization.rbac.authorizer import NodeNoOpinion, PrivilegedGroups

    chain: list[Authorizer] = [PrivilegedGroups(), PublicInfo()]
    for mode in modes:
        if mode == "AlwaysAllow":
            chain.append(AlwaysAllow())
        elif mode == "AlwaysDeny":
            chain.append(AlwaysDeny())
        elif mode == "RBAC" and rbac is not None:
            chain.append(rbac)
        elif mode == "Node":
            chain.append(NodeNoOpinion())
        else:
            raise ValueError(f"authorization mode {mode!r} is not implemented yet")
    return Union(chain)

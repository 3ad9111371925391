"""user.Info (k8s.io/apiserver/pkg/authentication/user)."""

from __future__ import annotations

from dataclasses import dataclass, field

ANONYMOUS = "system:anonymous"
ALL_AUTHENTICATED = "system:authenticated"
ALL_UNAUTHENTICATED = "system:unauthenticated"
SYSTEM_PRIVILEGED_GROUP = "system:masters"


@dataclass(frozen=True)
class UserInfo:
    name: str
    uid: str = ""
    groups: tuple[str, ...] = ()
    extra: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def with_authenticated_group(self) -> UserInfo:
        """What the authentication union adds for every authenticated user (group.AuthenticatedGroupAdder)."""
        if ALL_AUTHENTICATED in self.groups or self.name == ANONYMOUS:
            return self
        return UserInfo(self.name, self.uid, (*self.groups, ALL_AUTHENTICATED), self.extra)

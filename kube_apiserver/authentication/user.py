"""user.Info (k8s.io/apiserver/pkg/authentication/user)."""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

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

    def to_api(self) -> dict[str, Any]:
        """authentication.k8s.io/v1 UserInfo, as reviews and audit events carry it: every field omitted when
        empty, extra keys sorted as Go marshals a map."""
        out: dict[str, Any] = {}
        if self.name:
            out["username"] = self.name
        if self.uid:
            out["uid"] = self.uid
        if self.groups:
            out["groups"] = list(self.groups)
        if self.extra:
            out["extra"] = {k: list(self.extra[k]) for k in sorted(self.extra)}
        return out


# The user a request is served for, once authorization let it through (genericapirequest.UserFrom): what
# a strategy records of the requester (a CertificateSigningRequest's spec.username, groups, uid, extra).
_REQUEST_USER: ContextVar[UserInfo | None] = ContextVar("request_user", default=None)


def set_request_user(user: UserInfo) -> None:
    _REQUEST_USER.set(user)


def request_user() -> UserInfo | None:
    return _REQUEST_USER.get()

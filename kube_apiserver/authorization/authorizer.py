"""authorizer.Attributes, the simple authorizers (AlwaysAllow, AlwaysDeny, the system:masters one) and the union
of the configured modes (k8s.io/apiserver/pkg/authorization/{authorizer,authorizerfactory,union}).

Most authorizers decide from memory (RBAC, Node, ABAC) and answer synchronously: `authorize(attrs)` returns
(decision, reason). The webhook authorizer does I/O: it also has `async authorize_async(attrs)` returning
(decision, reason, error). The union is synchronous when all its members are (`union.synchronous`), and the
callers use the plain call then, so the common RBAC path has no await; otherwise they await
`union.authorize_async`. An error (a webhook that could not be asked) does not stop the union: like kube's, it
is collected, and when nobody allowed the request the authorization filter answers 500 with it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from kube_apiserver.authentication.user import SYSTEM_PRIVILEGED_GROUP, UserInfo

ALLOW, DENY, NO_OPINION = "allow", "deny", "no-opinion"
READ_ONLY_VERBS = frozenset({"get", "list", "watch"})


@dataclass(slots=True)
class Attributes:
    """authorizer.AttributesRecord. field_selector / label_selector are the raw query values of a list, watch or
    deletecollection (AuthorizeWithSelectors): the node authorizer limits what a kubelet may list with them."""

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
    field_selector: str = ""
    label_selector: str = ""

    def is_read_only(self) -> bool:
        return self.verb in READ_ONLY_VERBS


class Authorizer(Protocol):
    def authorize(self, attrs: Attributes) -> tuple[str, str]:
        """(decision, reason), from memory."""
        ...


class AsyncAuthorizer(Authorizer, Protocol):
    async def authorize_async(self, attrs: Attributes) -> tuple[str, str, str]:
        """(decision, reason, error): may ask someone else. Its synchronous authorize answers from what it
        already knows (a cache), no opinion otherwise."""
        ...


def is_async(a: Any) -> bool:
    return not getattr(a, "synchronous", True)


class AlwaysAllow:
    """--authorization-mode=AlwaysAllow: every request, as kube's alwaysAllowAuthorizer. Anonymous requests do
    not reach it: with this mode the server turns --anonymous-auth off (BuiltInAuthenticationOptions
    .ApplyAuthorization), see AuthorizationOptions.apply_to_authentication."""

    def authorize(self, attrs: Attributes) -> tuple[str, str]:
        return ALLOW, ""


class AlwaysDeny:
    """--authorization-mode=AlwaysDeny: no opinion with a reason, so the request ends in 403 unless an earlier
    authorizer (system:masters) allowed it."""

    def authorize(self, attrs: Attributes) -> tuple[str, str]:
        return NO_OPINION, "Everything is forbidden."


class PrivilegedGroups:
    """system:masters may do anything (authorizerfactory.NewPrivilegedGroups, first in kube's chain)."""

    def authorize(self, attrs: Attributes) -> tuple[str, str]:
        if SYSTEM_PRIVILEGED_GROUP in attrs.user.groups:
            return ALLOW, ""
        return NO_OPINION, ""


class Union:
    """unionAuthzHandler: the first allow or deny wins with its reason; otherwise no opinion with every reason
    given, one per line."""

    def __init__(self, authorizers: list[Any]) -> None:
        self.authorizers = authorizers
        self.synchronous = not any(is_async(a) for a in authorizers)

    def authorize(self, attrs: Attributes) -> tuple[str, str]:
        reasons: list[str] | None = None
        for a in self.authorizers:
            decision, reason = a.authorize(attrs)
            if decision != NO_OPINION:
                return decision, reason
            if reason:
                if reasons is None:
                    reasons = [reason]
                else:
                    reasons.append(reason)
        return NO_OPINION, "\n".join(reasons) if reasons else ""

    async def authorize_async(self, attrs: Attributes) -> tuple[str, str, str]:
        reasons: list[str] = []
        errors: list[str] = []
        for a in self.authorizers:
            if is_async(a):
                decision, reason, error = await a.authorize_async(attrs)
                if error:
                    errors.append(error)
            else:
                decision, reason = a.authorize(attrs)
                error = ""
            if reason:
                reasons.append(reason)
            if decision != NO_OPINION:
                return decision, reason, error
        return NO_OPINION, "\n".join(reasons), _aggregate(errors)


def _aggregate(errors: list[str]) -> str:
    """utilerrors.NewAggregate(...).Error(): one error as itself, several as a bracketed list."""
    if not errors:
        return ""
    return errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"


async def authorize(authorizer: Any, attrs: Attributes) -> tuple[str, str, str]:
    """(decision, reason, error) from any authorizer, awaiting only when it does I/O."""
    if is_async(authorizer):
        return await authorizer.authorize_async(attrs)
    decision, reason = authorizer.authorize(attrs)
    return decision, reason, ""

"""The request authenticator: client certificate, then bearer token, then anonymous (union + anonymous)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from kube_apiserver.authentication.user import ALL_UNAUTHENTICATED, ANONYMOUS, UserInfo
from kube_apiserver.authentication.x509 import user_from_certificate


class TokenAuthenticator(Protocol):
    async def authenticate_token(self, token: str) -> UserInfo | None:
        """The token's user, or None when this authenticator does not know the token (the next one is tried).
        Async because some look the token up in storage or ask a webhook."""
        ...


class AuthenticationFailed(Exception):
    pass


@dataclass
class RequestAuthenticator:
    client_certs: bool = True
    token_authenticators: list[TokenAuthenticator] = field(default_factory=list)
    anonymous: bool = True

    async def authenticate(self, scope: dict[str, Any], authorization: str) -> UserInfo:
        """The user of the request; raises AuthenticationFailed (→ 401)."""
        if self.client_certs:
            der = ((scope.get("extensions") or {}).get("tls") or {}).get("client_cert_der")
            if der:
                user = user_from_certificate(der)
                if user is not None:
                    return user.with_authenticated_group()
        if authorization:
            scheme, _, token = authorization.partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                for auth in self.token_authenticators:
                    user = await auth.authenticate_token(token.strip())
                    if user is not None:
                        return user.with_authenticated_group()
                raise AuthenticationFailed("invalid bearer token")
        if self.anonymous:
            return UserInfo(ANONYMOUS, "", (ALL_UNAUTHENTICATED,))
        raise AuthenticationFailed("no credentials")

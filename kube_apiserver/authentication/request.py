"""The request authenticator: request header (front proxy), client certificate, then bearer token, then anonymous
(union + anonymous). As in kube's union, an authenticator's error does not stop the next one from trying, but when
none succeeds the errors make the request fail (401) instead of falling back to anonymous."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from kube_apiserver.authentication.cert_pool import CertificatePool
from kube_apiserver.authentication.request_header import RequestHeaderAuthenticator, RequestHeaderError
from kube_apiserver.authentication.user import ALL_UNAUTHENTICATED, ANONYMOUS, UserInfo
from kube_apiserver.authentication.x509 import user_from_certificate


class TokenAuthenticator(Protocol):
    async def authenticate_token(self, token: str) -> UserInfo | None:
        """The token's user, or None when this authenticator does not know the token (the next one is tried).
        Async because some look the token up in storage or ask a webhook. May raise AuthenticationFailed when
        the token is its kind but not valid (kept as the union's error; the next one is still tried)."""
        ...


class AuthenticationFailed(Exception):
    pass


@dataclass
class RequestAuthenticator:
    client_certs: bool = True
    token_authenticators: list[TokenAuthenticator] = field(default_factory=list)
    anonymous: bool = True
    # The front-proxy authenticator, first in the union when --requestheader-* flags configure it.
    request_header: RequestHeaderAuthenticator | None = None
    # The CAs of x509 users, when the TLS layer also accepts other CAs (the request-header CA): a certificate
    # only the front-proxy CA issued is not a user.
    client_ca: CertificatePool | None = None

    async def authenticate(self, scope: dict[str, Any], authorization: str) -> UserInfo:
        """The user of the request; raises AuthenticationFailed (→ 401)."""
        errors: list[str] = []
        if self.request_header is not None:
            try:
                user = self.request_header.authenticate_request(scope)
            except RequestHeaderError as e:
                errors.append(str(e))
            else:
                if user is not None:
                    return user.with_authenticated_group()
        if self.client_certs:
            der = ((scope.get("extensions") or {}).get("tls") or {}).get("client_cert_der")
            if der:
                problem = self.client_ca.verify(der) if self.client_ca is not None else None
                if problem is not None:
                    errors.append(f"verifying certificate failed: {problem}")
                else:
                    user = user_from_certificate(der)
                    if user is not None:
                        return user.with_authenticated_group()
        if authorization:
            scheme, _, token = authorization.partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                for auth in self.token_authenticators:
                    try:
                        user = await auth.authenticate_token(token.strip())
                    except AuthenticationFailed as e:
                        errors.append(str(e))
                        continue
                    if user is not None:
                        return user.with_authenticated_group()
                raise AuthenticationFailed("; ".join([*errors, "invalid bearer token"]))
        if errors:
            raise AuthenticationFailed("; ".join(errors))
        if self.anonymous:
            return UserInfo(ANONYMOUS, "", (ALL_UNAUTHENTICATED,))
        raise AuthenticationFailed("no credentials")

    async def close(self) -> None:
        """Release what the authenticators hold (HTTP sessions to an issuer or a webhook) at shutdown."""
        for auth in self.token_authenticators:
            close = getattr(auth, "close", None)
            if close is not None:
                await close()

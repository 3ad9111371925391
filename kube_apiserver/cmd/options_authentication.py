"""Authentication flags (BuiltInAuthenticationOptions) and the request authenticator they build."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from kube_apiserver.authentication.request import RequestAuthenticator, TokenAuthenticator
from kube_apiserver.authentication.token_file import TokenFileAuthenticator, TokenFileError
from kube_apiserver.cmd.flag_types import bool_flag


class AuthenticationConfigError(ValueError):
    """A flag names a file or value the authenticators cannot use; the server exits with its message."""


@dataclass
class AuthenticationOptions:
    client_ca_file: str
    token_auth_file: str
    anonymous_auth: bool

    @classmethod
    def from_namespace(cls, ns: argparse.Namespace) -> AuthenticationOptions:
        return cls(ns.client_ca_file, ns.token_auth_file, ns.anonymous_auth)

    def to_authenticator(self) -> RequestAuthenticator:
        """The union in kube's order: x509, then the token authenticators, then anonymous.
        Raises AuthenticationConfigError."""
        token_auths: list[TokenAuthenticator] = []
        if self.token_auth_file:
            try:
                token_auths.append(TokenFileAuthenticator.from_file(self.token_auth_file))
            except TokenFileError as e:
                raise AuthenticationConfigError(str(e)) from None
        return RequestAuthenticator(True, token_auths, self.anonymous_auth)


def add_flags(p: argparse.ArgumentParser) -> None:
    a = p.add_argument
    a(
        "--client-ca-file",
        default="",
        help="If set, any request presenting a client certificate signed by one of the authorities in the client-ca-file is authenticated with an identity corresponding to the CommonName of the client certificate. The generated CA is always trusted too.",
    )
    a(
        "--token-auth-file",
        default="",
        help="If set, the file that will be used to secure the secure port of the API server via token authentication.",
    )
    a(
        "--anonymous-auth",
        type=bool_flag,
        default=True,
        help="Enables anonymous requests to the secure port of the API server.",
    )

"""Authentication flags (BuiltInAuthenticationOptions) and the request authenticator they build."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field

from kube_apiserver.authentication.bootstrap_token import BootstrapTokenAuthenticator
from kube_apiserver.authentication.request import RequestAuthenticator, TokenAuthenticator
from kube_apiserver.authentication.serviceaccount import ServiceAccountTokenGetter
from kube_apiserver.authentication.serviceaccount_config import (
    ServiceAccountConfig,
    load_service_account_config,
    validate_issuers,
    validate_max_expiration,
)
from kube_apiserver.authentication.serviceaccount_keys import ServiceAccountKeyError
from kube_apiserver.authentication.token_file import TokenFileAuthenticator, TokenFileError
from kube_apiserver.cmd.flag_types import bool_flag, duration_flag


class AuthenticationConfigError(ValueError):
    """A flag names a file or value the authenticators cannot use; the server exits with its message."""


@dataclass
class ServiceAccountAuthenticationOptions:
    """The --service-account-* flags (ServiceAccountAuthenticationOptions and the issuer's key file)."""

    key_files: list[str] = field(default_factory=list)
    lookup: bool = True
    issuers: list[str] = field(default_factory=list)
    jwks_uri: str = ""
    max_expiration: float = 0.0
    extend_expiration: bool = True
    signing_key_file: str = ""

    @classmethod
    def from_namespace(cls, ns: argparse.Namespace) -> ServiceAccountAuthenticationOptions:
        return cls(
            list(ns.service_account_key_file or []),
            ns.service_account_lookup,
            list(ns.service_account_issuer or []),
            ns.service_account_jwks_uri,
            ns.service_account_max_token_expiration,
            ns.service_account_extend_token_expiration,
            ns.service_account_signing_key_file,
        )

    def validate(self) -> list[str]:
        return validate_issuers(self.issuers) + validate_max_expiration(self.max_expiration)


@dataclass
class AuthenticationOptions:
    client_ca_file: str
    token_auth_file: str
    anonymous_auth: bool
    service_accounts: ServiceAccountAuthenticationOptions = field(default_factory=ServiceAccountAuthenticationOptions)
    api_audiences: list[str] = field(default_factory=list)
    enable_bootstrap_token_auth: bool = False

    @classmethod
    def from_namespace(cls, ns: argparse.Namespace) -> AuthenticationOptions:
        return cls(
            ns.client_ca_file,
            ns.token_auth_file,
            ns.anonymous_auth,
            service_accounts=ServiceAccountAuthenticationOptions.from_namespace(ns),
            api_audiences=[a for value in ns.api_audiences or [] for a in value.split(",") if a],
            enable_bootstrap_token_auth=ns.enable_bootstrap_token_auth,
        )

    def validate(self) -> list[str]:
        return self.service_accounts.validate()

    def service_account_config(self, pki_dir: str) -> ServiceAccountConfig:
        """The issuer and verification keys (made under pki_dir when no signing key is given).
        Raises AuthenticationConfigError."""
        sa = self.service_accounts
        try:
            return load_service_account_config(
                pki_dir=pki_dir,
                issuers=sa.issuers,
                key_files=sa.key_files,
                signing_key_file=sa.signing_key_file,
                api_audiences=self.api_audiences,
                max_expiration_seconds=sa.max_expiration,
                extend_expiration=sa.extend_expiration,
                lookup=sa.lookup,
                jwks_uri=sa.jwks_uri,
            )
        except ServiceAccountKeyError as e:
            raise AuthenticationConfigError(str(e)) from None

    def to_authenticator(
        self,
        service_accounts: ServiceAccountConfig | None = None,
        token_getter: ServiceAccountTokenGetter | None = None,
    ) -> RequestAuthenticator:
        """The union in kube's order: x509, then the token authenticators, then anonymous. The service
        account and bootstrap token authenticators need the token getter (storage). Raises
        AuthenticationConfigError."""
        token_auths: list[TokenAuthenticator] = []
        if self.token_auth_file:
            try:
                token_auths.append(TokenFileAuthenticator.from_file(self.token_auth_file))
            except TokenFileError as e:
                raise AuthenticationConfigError(str(e)) from None
        if service_accounts is not None and token_getter is not None:
            token_auths.extend(service_accounts.authenticators(token_getter))
        if self.enable_bootstrap_token_auth and token_getter is not None:
            token_auths.append(BootstrapTokenAuthenticator(token_getter))
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
    a(
        "--api-audiences",
        action="append",
        default=[],
        help="Identifiers of the API. The service account token authenticator will validate that tokens used against the API are bound to at least one of these audiences. If the --service-account-issuer flag is configured and this flag is not, this field defaults to a single element list containing the issuer URL.",
    )
    a(
        "--enable-bootstrap-token-auth",
        type=bool_flag,
        nargs="?",
        const=True,
        default=False,
        help="Enable to allow secrets of type 'bootstrap.kubernetes.io/token' in the 'kube-system' namespace to be used for TLS bootstrapping authentication.",
    )
    a(
        "--service-account-key-file",
        action="append",
        default=[],
        help="File containing PEM-encoded x509 RSA or ECDSA private or public keys, used to verify ServiceAccount tokens. The specified file can contain multiple keys, and the flag can be specified multiple times with different files. If unspecified, the public half of the signing key is used.",
    )
    a(
        "--service-account-lookup",
        type=bool_flag,
        nargs="?",
        const=True,
        default=True,
        help="If true, validate ServiceAccount tokens exist in etcd as part of authentication.",
    )
    a(
        "--service-account-issuer",
        action="append",
        default=[],
        help='Identifier of the service account token issuer. The issuer will assert this identifier in "iss" claim of issued tokens. This value is a string or URI. It is highly recommended that this value comply with the OpenID spec: https://openid.net/specs/openid-connect-discovery-1_0.html. In practice, this means that service-account-issuer must be an https URL. When this flag is specified multiple times, the first is used to generate tokens and all are used to determine which issuers are accepted. Defaults to https://kubernetes.default.svc.cluster.local.',
    )
    a(
        "--service-account-jwks-uri",
        default="",
        help="Overrides the URI for the JSON Web Key Set in the discovery doc served at /.well-known/openid-configuration. This flag is useful if the discovery doc and key set are served to relying parties from a URL other than the API server's external (as auto-detected or overridden with external-hostname).",
    )
    a(
        "--service-account-max-token-expiration",
        type=duration_flag,
        default=0.0,
        help="The maximum validity duration of a token created by the service account token issuer. If an otherwise valid TokenRequest with a validity duration larger than this value is requested, a token will be issued with a validity duration of this value.",
    )
    a(
        "--service-account-extend-token-expiration",
        type=bool_flag,
        nargs="?",
        const=True,
        default=True,
        help="Turns on projected service account expiration extension during token generation, which helps safe transition from legacy token to bound service account token feature. If this flag is enabled, admission injected tokens would be extended up to 1 year to prevent unexpected failure during transition, ignoring value of service-account-max-token-expiration.",
    )
    a(
        "--service-account-signing-key-file",
        default="",
        help="Path to the file that contains the current private key of the service account token issuer. The issuer will sign issued ID tokens with this private key. If unset, a key is made under --data-dir (pki/sa.key) on first start.",
    )

"""What the service account flags resolve to (ServiceAccountAuthenticationOptions plus the issuer settings
kube-apiserver's Complete() derives): the issuers, the signing key, the verification keys, the API audiences.

Unlike kube-apiserver, nothing is required: without --service-account-signing-key-file the server makes
its own key under the data directory (pki/sa.key, pki/sa.pub) on first start and keeps it, and the issuer
defaults to the one kubeadm clusters use, so that `kubectl create token` works out of the box.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from urllib.parse import urlsplit

from kube_apiserver.authentication.serviceaccount import (
    LEGACY_ISSUER,
    WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS,
    JWTTokenAuthenticator,
    ServiceAccountTokenGetter,
    TokenGenerator,
)
from kube_apiserver.authentication.serviceaccount_keys import (
    PrivateKey,
    ServiceAccountKeyError,
    VerifyingKey,
    ensure_signing_key,
    private_key_from_file,
    public_keys_from_file,
    verifying_keys,
)
from kube_apiserver.authentication.serviceaccount_validators import BoundValidator, LegacyValidator

DEFAULT_ISSUER = "https://kubernetes.default.svc.cluster.local"
MAX_TOKEN_SECONDS = 1 << 32


def validate_issuers(issuers: list[str]) -> list[str]:
    """BuiltInAuthenticationOptions.Validate's issuer checks."""
    problems: list[str] = []
    seen: set[str] = set()
    for issuer in issuers:
        if ":" in issuer:
            try:
                urlsplit(issuer)
            except ValueError as e:
                problems.append(f"service-account-issuer \"{issuer}\" contained a ':' but was not a valid URL: {e}")
                continue
        if issuer == "":
            problems.append("service-account-issuer should not be an empty string")
            continue
        if issuer in seen:
            problems.append(f'service-account-issuer "{issuer}" is already specified')
            continue
        seen.add(issuer)
    return problems


def validate_max_expiration(seconds: float) -> list[str]:
    """The bounds Complete() puts on --service-account-max-token-expiration (0: no maximum)."""
    if seconds and not WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS <= seconds <= MAX_TOKEN_SECONDS:
        return ["the service-account-max-token-expiration must be between 1 hour and 2^32 seconds"]
    return []


@dataclass
class ServiceAccountConfig:
    issuers: tuple[str, ...]
    signing_key: PrivateKey
    keys: list[VerifyingKey]
    api_audiences: tuple[str, ...]
    max_expiration_seconds: int = 0
    extend_expiration: bool = True
    lookup: bool = True
    jwks_uri: str = ""

    def generator(self) -> TokenGenerator:
        """The bound token issuer: the first --service-account-issuer."""
        return TokenGenerator(self.issuers[0], self.signing_key)

    def legacy_generator(self) -> TokenGenerator:
        """The tokens controller's signer of secret-based tokens."""
        return TokenGenerator(LEGACY_ISSUER, self.signing_key)

    def authenticators(self, getter: ServiceAccountTokenGetter) -> list[JWTTokenAuthenticator]:
        """Legacy first, then bound, in the order kube's authenticator config appends them."""
        return [
            JWTTokenAuthenticator(
                (LEGACY_ISSUER,), self.keys, self.api_audiences, LegacyValidator(self.lookup, getter)
            ),
            JWTTokenAuthenticator(self.issuers, self.keys, self.api_audiences, BoundValidator(getter)),
        ]


def load_service_account_config(
    *,
    pki_dir: str,
    issuers: list[str],
    key_files: list[str],
    signing_key_file: str,
    api_audiences: list[str],
    max_expiration_seconds: float = 0,
    extend_expiration: bool = True,
    lookup: bool = True,
    jwks_uri: str = "",
) -> ServiceAccountConfig:
    """Read (or make) the keys. Raises ServiceAccountKeyError with the message the server exits with."""
    if signing_key_file:
        try:
            signing_key = private_key_from_file(signing_key_file)
        except ServiceAccountKeyError as e:
            raise ServiceAccountKeyError(f"failed to parse service-account-issuer-key-file: {e}") from None
    else:
        signing_key = private_key_from_file(ensure_signing_key(pki_dir))
    if key_files:
        public = [k for path in key_files for k in public_keys_from_file(path)]
    else:  # as kube falls back to a key it has (--tls-private-key-file): here the signing key itself
        public = [signing_key.public_key()]
    issuers = issuers or [DEFAULT_ISSUER]
    return ServiceAccountConfig(
        issuers=tuple(issuers),
        signing_key=signing_key,
        keys=verifying_keys(public),
        api_audiences=tuple(api_audiences or issuers),
        max_expiration_seconds=int(max_expiration_seconds),
        extend_expiration=extend_expiration,
        lookup=lookup,
        jwks_uri=jwks_uri,
    )


def default_pki_dir(data_dir: str) -> str:
    return os.path.join(data_dir, "pki")

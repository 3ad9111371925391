"""The flags of the authenticators that trust something outside the server: OIDC (OIDCAuthenticationOptions), the
token webhook (WebHookAuthenticationOptions) and the front proxy (genericoptions.RequestHeaderAuthenticationOptions).

kube keeps them in BuiltInAuthenticationOptions; they are a group of their own here so that apply_to() can add
them to the union AuthenticationOptions.to_authenticator() built, in kube's order: the request-header authenticator
first, OIDC and the webhook after every local token authenticator.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from dataclasses import dataclass, field

from cryptography.hazmat.primitives.serialization import Encoding

from kube_apiserver.authentication.cert_pool import CertificatePool, CertificatePoolError
from kube_apiserver.authentication.kubeconfig_client import KubeconfigError, WebhookClient
from kube_apiserver.authentication.oidc import OIDCAuthenticator, OIDCConfigError, new_options
from kube_apiserver.authentication.request import RequestAuthenticator
from kube_apiserver.authentication.request_header import RequestHeaderAuthenticator
from kube_apiserver.authentication.token_webhook import WebhookConfigError, WebhookTokenAuthenticator
from kube_apiserver.cmd.flag_types import SliceFlag, csv_list, duration_flag
from kube_apiserver.controlplane.cluster_authentication_trust import ClusterAuthenticationInfo


class ExternalAuthenticationError(ValueError):
    """A flag names a file or value these authenticators cannot use; the server exits with its message."""


def _required_claim(value: str) -> tuple[str, str]:
    """cliflag.MapStringStringNoSplit: one key=value per use."""
    key, sep, val = value.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError("malformed pair, expect string=string")
    return key.strip(), val.strip()


@dataclass
class OIDCFlags:
    issuer_url: str = ""
    client_id: str = ""
    ca_file: str = ""
    username_claim: str = "sub"
    username_prefix: str = ""
    groups_claim: str = ""
    groups_prefix: str = ""
    signing_algs: list[str] = field(default_factory=lambda: ["RS256"])
    required_claims: dict[str, str] = field(default_factory=dict)
    flags_set: bool = False  # any --oidc-* flag given, even with its default value


@dataclass
class WebhookFlags:
    config_file: str = ""
    version: str = "v1beta1"
    cache_ttl: float = 120.0


@dataclass
class RequestHeaderFlags:
    client_ca_file: str = ""
    allowed_names: list[str] = field(default_factory=list)
    username_headers: list[str] = field(default_factory=list)
    uid_headers: list[str] = field(default_factory=list)
    group_headers: list[str] = field(default_factory=list)
    extra_headers_prefix: list[str] = field(default_factory=list)

    def validate(self) -> list[str]:
        problems = []
        for flag, values in (
            ("requestheader-username-headers", self.username_headers),
            ("requestheader-uid-headers", self.uid_headers),
            ("requestheader-group-headers", self.group_headers),
            ("requestheader-extra-headers-prefix", self.extra_headers_prefix),
            ("requestheader-allowed-names", self.allowed_names),
        ):
            if any(not v.strip() for v in values):
                problems.append(f'empty value in "{flag}"')
        return problems


_OIDC_DESTS = (
    "oidc_issuer_url",
    "oidc_client_id",
    "oidc_ca_file",
    "oidc_username_claim",
    "oidc_username_prefix",
    "oidc_groups_claim",
    "oidc_groups_prefix",
    "oidc_signing_algs",
    "oidc_required_claim",
)


@dataclass
class ExternalAuthenticationOptions:
    oidc: OIDCFlags = field(default_factory=OIDCFlags)
    webhook: WebhookFlags = field(default_factory=WebhookFlags)
    request_header: RequestHeaderFlags = field(default_factory=RequestHeaderFlags)

    @classmethod
    def from_namespace(cls, ns: argparse.Namespace) -> ExternalAuthenticationOptions:
        # The --oidc-* flags default to None here so that "given" can be told from "left at its default".
        oidc = OIDCFlags(
            issuer_url=ns.oidc_issuer_url or "",
            client_id=ns.oidc_client_id or "",
            ca_file=ns.oidc_ca_file or "",
            username_claim="sub" if ns.oidc_username_claim is None else ns.oidc_username_claim,
            username_prefix=ns.oidc_username_prefix or "",
            groups_claim=ns.oidc_groups_claim or "",
            groups_prefix=ns.oidc_groups_prefix or "",
            signing_algs=["RS256"] if ns.oidc_signing_algs is None else ns.oidc_signing_algs,
            required_claims=dict(ns.oidc_required_claim or []),
            flags_set=any(getattr(ns, d) is not None for d in _OIDC_DESTS),
        )
        webhook = WebhookFlags(
            ns.authentication_token_webhook_config_file,
            ns.authentication_token_webhook_version,
            ns.authentication_token_webhook_cache_ttl,
        )
        request_header = RequestHeaderFlags(
            ns.requestheader_client_ca_file,
            ns.requestheader_allowed_names or [],
            ns.requestheader_username_headers or [],
            ns.requestheader_uid_headers or [],
            ns.requestheader_group_headers or [],
            ns.requestheader_extra_headers_prefix or [],
        )
        return cls(oidc, webhook, request_header)

    def validate(self) -> list[str]:
        problems = []
        if self.oidc.flags_set and (not self.oidc.issuer_url or not self.oidc.client_id):
            problems.append(
                "oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set"
            )
        return problems + self.request_header.validate()

    # --- building the authenticators ---

    def _oidc_authenticator(self) -> OIDCAuthenticator | None:
        o = self.oidc
        if not (o.issuer_url and o.client_id):
            return None
        options = new_options(
            o.issuer_url,
            o.client_id,
            o.username_claim,
            o.username_prefix,
            o.groups_claim,
            o.groups_prefix,
            o.required_claims,
            o.signing_algs,
            o.ca_file,
        )
        authenticator = OIDCAuthenticator(options)
        authenticator.start()  # kube starts discovering the issuer at once, in the background
        return authenticator

    def _webhook_authenticator(self, api_audiences: Sequence[str]) -> WebhookTokenAuthenticator | None:
        w = self.webhook
        if not w.config_file:
            return None
        return WebhookTokenAuthenticator(
            WebhookClient.from_kubeconfig(w.config_file), w.version, w.cache_ttl, api_audiences
        )

    def _request_header_authenticator(self, client_ca_file: str) -> RequestHeaderAuthenticator | None:
        r = self.request_header
        if not r.client_ca_file:
            return None
        ca = CertificatePool.from_file(r.client_ca_file)
        if client_ca_file and not r.allowed_names:
            client_cas = {c.public_bytes(Encoding.DER) for c in CertificatePool.from_file(client_ca_file).certs}
            if any(c.public_bytes(Encoding.DER) in client_cas for c in ca.certs):
                raise ExternalAuthenticationError(
                    "--requestheader-client-ca-file and --client-ca-file contain overlapping certificates; "
                    "--requestheader-allowed-names must be specified to ensure regular client certificates cannot "
                    "set authenticating proxy headers for arbitrary users"
                )
        return RequestHeaderAuthenticator(
            ca, r.username_headers, r.group_headers, r.extra_headers_prefix, r.allowed_names, r.uid_headers
        )

    def cluster_authentication_info(self, client_ca_bundle: str) -> ClusterAuthenticationInfo:
        """What kube-system/extension-apiserver-authentication is to tell aggregated API servers."""
        r = self.request_header
        with open(client_ca_bundle, "rb") as f:
            client_ca = f.read()
        request_header_ca = b""
        if r.client_ca_file:
            with open(r.client_ca_file, "rb") as f:
                request_header_ca = f.read()
        return ClusterAuthenticationInfo(
            client_ca,
            request_header_ca,
            list(r.username_headers),
            list(r.uid_headers),
            list(r.group_headers),
            list(r.extra_headers_prefix),
            list(r.allowed_names),
        )

    def apply_to(
        self,
        authenticator: RequestAuthenticator,
        client_ca_bundle: str,
        client_ca_file: str = "",
        pki_dir: str = "",
        api_audiences: Sequence[str] = (),
    ) -> str:
        """Add these authenticators to the union and return the CA bundle the TLS layer must accept client
        certificates from: the client CA bundle, plus the request-header CA when there is one (kube gives both to
        the TLS config; x509 users are then checked against the client CAs alone). Raises
        ExternalAuthenticationError."""
        try:
            request_header = self._request_header_authenticator(client_ca_file)
            oidc = self._oidc_authenticator()
            webhook = self._webhook_authenticator(api_audiences)
            client_ca = CertificatePool.from_file(client_ca_bundle) if request_header is not None else None
        except (CertificatePoolError, OIDCConfigError, KubeconfigError, WebhookConfigError) as e:
            raise ExternalAuthenticationError(str(e)) from None
        authenticator.token_authenticators.extend(a for a in (oidc, webhook) if a is not None)
        if request_header is None or client_ca is None:
            return client_ca_bundle
        authenticator.request_header = request_header
        authenticator.client_ca = client_ca
        bundle = os.path.join(pki_dir or os.path.dirname(client_ca_bundle), "tls-client-ca-bundle.crt")
        with open(bundle, "wb") as out:
            out.write(client_ca.pem.rstrip() + b"\n" + request_header.ca.pem)
        return bundle


def add_flags(p: argparse.ArgumentParser) -> None:
    a = p.add_argument
    a(
        "--oidc-issuer-url",
        default=None,
        help="The URL of the OpenID issuer, only HTTPS scheme will be accepted. If set, it will be used to verify the OIDC JSON Web Token (JWT).",
    )
    a(
        "--oidc-client-id",
        default=None,
        help="The client ID for the OpenID Connect client, must be set if oidc-issuer-url is set.",
    )
    a(
        "--oidc-ca-file",
        default=None,
        help="If set, the OpenID server's certificate will be verified by one of the authorities in the oidc-ca-file, otherwise the host's root CA set will be used.",
    )
    a(
        "--oidc-username-claim",
        default=None,
        help="The OpenID claim to use as the user name. Note that claims other than the default ('sub') is not guaranteed to be unique and immutable. This flag is experimental, please see the authentication documentation for further details. (default \"sub\")",
    )
    a(
        "--oidc-username-prefix",
        default=None,
        help="If provided, all usernames will be prefixed with this value. If not provided, username claims other than 'email' are prefixed by the issuer URL to avoid clashes. To skip any prefixing, provide the value '-'.",
    )
    a(
        "--oidc-groups-claim",
        default=None,
        help="If provided, the name of a custom OpenID Connect claim for specifying user groups. The claim value is expected to be a string or array of strings. This flag is experimental, please see the authentication documentation for further details.",
    )
    a(
        "--oidc-groups-prefix",
        default=None,
        help="If provided, all groups will be prefixed with this value to prevent conflicts with other authentication strategies.",
    )
    a(
        "--oidc-signing-algs",
        type=csv_list,
        action=SliceFlag,
        default=None,
        help="Comma-separated list of allowed JOSE asymmetric signing algorithms. JWTs with a supported 'alg' header values are: RS256, RS384, RS512, ES256, ES384, ES512, PS256, PS384, PS512. Values are defined by RFC 7518 https://tools.ietf.org/html/rfc7518#section-3.1. (default [RS256])",
    )
    a(
        "--oidc-required-claim",
        type=_required_claim,
        action="append",
        default=None,
        help="A key=value pair that describes a required claim in the ID Token. If set, the claim is verified to be present in the ID Token with a matching value. Repeat this flag to specify multiple claims.",
    )
    a(
        "--authentication-token-webhook-config-file",
        default="",
        help="File with webhook configuration for token authentication in kubeconfig format. The API server will query the remote service to determine authentication for bearer tokens.",
    )
    a(
        "--authentication-token-webhook-version",
        default="v1beta1",
        help='The API version of the authentication.k8s.io TokenReview to send to and expect from the webhook. (default "v1beta1")',
    )
    a(
        "--authentication-token-webhook-cache-ttl",
        type=duration_flag,
        default=120.0,
        help="The duration to cache responses from the webhook token authenticator. (default 2m0s)",
    )
    a(
        "--requestheader-client-ca-file",
        default="",
        help="Root certificate bundle to use to verify client certificates on incoming requests before trusting usernames in headers specified by --requestheader-username-headers. WARNING: generally do not depend on authorization being already done for incoming requests.",
    )
    a(
        "--requestheader-allowed-names",
        type=csv_list,
        action=SliceFlag,
        default=[],
        help="List of client certificate common names to allow to provide usernames in headers specified by --requestheader-username-headers. If empty, any client certificate validated by the authorities in --requestheader-client-ca-file is allowed.",
    )
    a(
        "--requestheader-username-headers",
        type=csv_list,
        action=SliceFlag,
        default=[],
        help="List of request headers to inspect for usernames. X-Remote-User is common.",
    )
    a(
        "--requestheader-uid-headers",
        type=csv_list,
        action=SliceFlag,
        default=[],
        help="List of request headers to inspect for UIDs. X-Remote-Uid is suggested. Requires the RemoteRequestHeaderUID feature to be enabled.",
    )
    a(
        "--requestheader-group-headers",
        type=csv_list,
        action=SliceFlag,
        default=[],
        help="List of request headers to inspect for groups. X-Remote-Group is suggested.",
    )
    a(
        "--requestheader-extra-headers-prefix",
        type=csv_list,
        action=SliceFlag,
        default=[],
        help="List of request header prefixes to inspect. X-Remote-Extra- is suggested.",
    )

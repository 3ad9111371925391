"""OpenID Connect token authentication (apiserver/plugin/pkg/authenticator/token/oidc, the JWT authenticator the
--oidc-* flags configure).

The issuer's discovery document (<issuer>/.well-known/openid-configuration) is fetched in the background at start
and every 10 s until it answers, as kube does for providers that run on the cluster itself; until then tokens of
that issuer are refused. Its jwks_uri gives the signing keys, fetched when first needed and again whenever a token
does not verify with the keys at hand (a new kid after a rotation). Claims are checked as go-oidc and kube check
them (claims.py); the signature with PyJWT.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import ssl
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import jwt
import orjson

from kube_apiserver.authentication.oidc_claims import OIDCError, user_from_claims, verify_standard_claims
from kube_apiserver.authentication.request import AuthenticationFailed
from kube_apiserver.authentication.user import UserInfo

if TYPE_CHECKING:  # aiohttp takes ~0.1 s to import: only servers configured with OIDC pay it
    import aiohttp

log = logging.getLogger(__name__)

ALLOWED_SIGNING_ALGS = ("RS256", "RS384", "RS512", "ES256", "ES384", "ES512", "PS256", "PS384", "PS512")
INIT_RETRY_INTERVAL = 10.0
HTTP_TIMEOUT = 30.0


@dataclass(frozen=True)
class OIDCOptions:
    """The JWT authenticator as the flags configure it (prefixes already defaulted, as ToAuthenticationConfig does)."""

    issuer_url: str
    client_id: str
    username_claim: str = "sub"
    username_prefix: str = ""
    groups_claim: str = ""
    groups_prefix: str = ""
    required_claims: dict[str, str] = field(default_factory=dict)
    signing_algs: tuple[str, ...] = ("RS256",)
    ca_pem: bytes = b""


def _b64_json(part: str) -> Any:
    return orjson.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def split_token(token: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The unverified header and claims of a compact JWS; None when it is not one."""
    parts = token.split(".")
    if len(parts) != 3:
        return None
    try:
        header, claims = _b64_json(parts[0]), _b64_json(parts[1])
    except (ValueError, orjson.JSONDecodeError):
        return None
    if not isinstance(header, dict) or not isinstance(claims, dict):
        return None
    return header, claims


class _HTTP:
    """GETs JSON from the issuer over HTTPS, trusting --oidc-ca-file or else the host's roots."""

    def __init__(self, ca_pem: bytes) -> None:
        self._ssl = ssl.create_default_context(cadata=ca_pem.decode("ascii", "replace") if ca_pem else None)
        self._session: aiohttp.ClientSession | None = None

    async def get_json(self, url: str) -> Any:
        import aiohttp

        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                timeout=aiohttp.ClientTimeout(total=HTTP_TIMEOUT),
                connector=aiohttp.TCPConnector(ssl=self._ssl),
                trust_env=False,
            )
        try:
            async with self._session.get(url, headers={"Accept": "application/json"}) as resp:
                body = await resp.read()
                if resp.status != 200:
                    raise OIDCError(f"{resp.status} {resp.reason}: {body.decode('utf-8', 'replace')}")
        except (TimeoutError, aiohttp.ClientError) as e:
            raise OIDCError(f'Get "{url}": {e or type(e).__name__}') from None
        try:
            return orjson.loads(body)
        except orjson.JSONDecodeError as e:
            raise OIDCError(f"oidc: failed to decode provider discovery object: {e}") from None

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()


class RemoteKeySet:
    """The issuer's JWKS: cached keys first; when none verifies the token, the keys are fetched again (once for
    all the requests waiting on it) and tried once more."""

    def __init__(self, http: _HTTP, jwks_uri: str) -> None:
        self.http = http
        self.jwks_uri = jwks_uri
        self.keys: list[jwt.PyJWK] = []
        self._refreshing: asyncio.Task[list[jwt.PyJWK]] | None = None

    async def _fetch(self) -> list[jwt.PyJWK]:
        try:
            doc = await self.http.get_json(self.jwks_uri)
        except OIDCError as e:
            raise OIDCError(f"fetching keys oidc: get keys failed: {e}") from None
        try:
            keys = jwt.PyJWKSet.from_dict(doc).keys if isinstance(doc, dict) else []
        except jwt.PyJWTError as e:
            raise OIDCError(f"fetching keys oidc: failed to decode keys: {e}") from None
        self.keys = keys
        return keys

    async def refresh(self) -> list[jwt.PyJWK]:
        if self._refreshing is None or self._refreshing.done():
            self._refreshing = asyncio.ensure_future(self._fetch())
        return await asyncio.shield(self._refreshing)

    @staticmethod
    def _verify_with(keys: list[jwt.PyJWK], token: str, kid: str, alg: str) -> bytes | None:
        for key in keys:
            if kid and key.key_id != kid:
                continue
            try:
                return jwt.PyJWS().decode_complete(token, key=key.key, algorithms=[alg])["payload"]
            except (jwt.PyJWTError, ValueError, TypeError):
                continue
        return None

    async def verify_signature(self, token: str, kid: str, alg: str) -> bytes:
        payload = self._verify_with(self.keys, token, kid, alg)
        if payload is None:
            payload = self._verify_with(await self.refresh(), token, kid, alg)
        if payload is None:
            raise OIDCError("failed to verify signature: failed to verify id token signature")
        return payload


class OIDCAuthenticator:
    def __init__(self, options: OIDCOptions) -> None:
        self.options = options
        self._http = _HTTP(options.ca_pem)
        self.key_set: RemoteKeySet | None = None  # set once the discovery document was read
        self._init_task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start discovering the issuer in the background (from inside the event loop); else the first token
        starts it."""
        if self._init_task is None:
            try:
                self._init_task = asyncio.get_running_loop().create_task(self._initialize(), name="oidc-init")
            except RuntimeError:
                pass

    async def _discover(self) -> RemoteKeySet:
        issuer = self.options.issuer_url
        doc = await self._http.get_json(issuer.rstrip("/") + "/.well-known/openid-configuration")
        if not isinstance(doc, dict):
            raise OIDCError("oidc: failed to decode provider discovery object")
        if doc.get("issuer") != issuer:
            raise OIDCError(
                f'oidc: issuer did not match the issuer returned by provider, expected "{issuer}" got "{doc.get("issuer")}"'
            )
        jwks_uri = doc.get("jwks_uri")
        if not isinstance(jwks_uri, str) or not jwks_uri:
            raise OIDCError("oidc: provider discovery object has no jwks_uri")
        return RemoteKeySet(self._http, jwks_uri)

    async def _initialize(self) -> None:
        while True:
            try:
                key_set = await self._discover()
            except OIDCError as e:
                log.error("oidc authenticator: initializing plugin: %s", e)
                await asyncio.sleep(INIT_RETRY_INTERVAL)
                continue
            try:
                await key_set.refresh()  # have the keys at hand for the first token (a failure is retried then)
            except OIDCError as e:
                log.warning("oidc authenticator: %s", e)
            self.key_set = key_set
            return

    async def close(self) -> None:
        if self._init_task is not None:
            self._init_task.cancel()
        await self._http.close()

    async def authenticate_token(self, token: str) -> UserInfo | None:
        """None for a token that is not a JWT of this issuer (another authenticator's); the user, or
        AuthenticationFailed with go-oidc's and kube's reason, for one that is."""
        parsed = split_token(token)
        if parsed is None:
            return None
        header, claims = parsed
        if claims.get("iss") != self.options.issuer_url:
            return None
        self.start()
        if self.key_set is None:
            raise AuthenticationFailed("oidc: authenticator not initialized")
        try:
            await self._verify(token, header, claims)
        except OIDCError as e:
            raise AuthenticationFailed(f"oidc: verify token: {e}") from None
        try:
            return user_from_claims(claims, self.options)
        except OIDCError as e:
            raise AuthenticationFailed(str(e)) from None

    async def _verify(self, token: str, header: dict[str, Any], claims: dict[str, Any]) -> None:
        """go-oidc's IDTokenVerifier.Verify: the cheap claim checks first, then the signature (which may fetch
        keys)."""
        assert self.key_set is not None
        verify_standard_claims(claims, self.options.issuer_url, self.options.client_id, time.time())
        alg = header.get("alg")
        if alg not in self.options.signing_algs:
            raise OIDCError(
                "oidc: id token signed with unsupported algorithm, expected "
                f'{_go_quoted_list(self.options.signing_algs)} got "{alg}"'
            )
        kid = header.get("kid") if isinstance(header.get("kid"), str) else ""
        payload = await self.key_set.verify_signature(token, kid, str(alg))
        if orjson.loads(payload) != claims:
            raise OIDCError("oidc: internal error, payload parsed did not match previous payload")


def _go_quoted_list(items: tuple[str, ...]) -> str:
    return "[" + " ".join(f'"{i}"' for i in items) + "]"


class OIDCConfigError(ValueError):
    """The --oidc-* flags do not make a usable authenticator; the server exits with the message."""


def default_username_prefix(issuer_url: str, username_claim: str, prefix: str) -> str:
    """The flags' legacy rule: no prefix given means the issuer URL and "#" for claims other than email (so that
    names from different issuers cannot collide); "-" means no prefix at all."""
    if prefix == "-":
        return ""
    if prefix == "" and username_claim != "email":
        return issuer_url + "#"
    return prefix


def _issuer_url_problems(url: str) -> list[str]:
    path = "jwt[0].issuer.url"
    if not url:
        return [f"{path}: Required value: URL is required"]
    parts = urlsplit(url)
    problems = []
    if parts.scheme != "https":
        problems.append(f'{path}: Invalid value: "{url}": URL scheme must be https')
    if parts.username is not None or parts.password is not None:
        problems.append(f'{path}: Invalid value: "{url}": URL must not contain a username or password')
    if parts.query:
        problems.append(f'{path}: Invalid value: "{url}": URL must not contain a query')
    if parts.fragment:
        problems.append(f'{path}: Invalid value: "{url}": URL must not contain a fragment')
    return problems


def new_options(
    issuer_url: str,
    client_id: str,
    username_claim: str = "sub",
    username_prefix: str = "",
    groups_claim: str = "",
    groups_prefix: str = "",
    required_claims: dict[str, str] | None = None,
    signing_algs: list[str] | tuple[str, ...] = ("RS256",),
    ca_file: str = "",
) -> OIDCOptions:
    """OIDCOptions from the flags, validated as ValidateAuthenticationConfiguration and oidc.New do; raises
    OIDCConfigError."""
    ca_pem = b""
    problems = _issuer_url_problems(issuer_url)
    if ca_file:
        try:
            with open(ca_file, "rb") as f:
                ca_pem = f.read()
        except OSError as e:
            raise OIDCConfigError(f"open {ca_file}: {(e.strerror or str(e)).lower()}") from None
        try:
            ssl.create_default_context(cadata=ca_pem.decode("ascii", "replace"))
        except (ssl.SSLError, ValueError):
            problems.append(
                'jwt[0].issuer.certificateAuthority: Invalid value: "<omitted>": data does not contain any valid RSA or ECDSA certificates'
            )
    if not username_claim:
        problems.append("jwt[0].claimMappings.username: Required value: claim or expression is required")
    if problems:
        joined = problems[0] if len(problems) == 1 else "[" + ", ".join(problems) + "]"
        raise OIDCConfigError(f"invalid authentication configuration: {joined}")
    algs = tuple(signing_algs) or ("RS256",)
    for alg in algs:
        if alg not in ALLOWED_SIGNING_ALGS:
            raise OIDCConfigError(f'oidc: unsupported signing alg: "{alg}"')
    return OIDCOptions(
        issuer_url=issuer_url,
        client_id=client_id,
        username_claim=username_claim,
        username_prefix=default_username_prefix(issuer_url, username_claim, username_prefix),
        groups_claim=groups_claim,
        groups_prefix=groups_prefix,
        required_claims=dict(required_claims or {}),
        signing_algs=algs,
        ca_pem=ca_pem,
    )

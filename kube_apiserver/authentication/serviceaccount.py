"""Service account tokens (pkg/serviceaccount: jwt.go, claims.go, legacy.go; apiserver's serviceaccount util).

Two kinds of JWT, signed with the issuer key and checked with the verification keys:
  bound tokens (TokenRequest): iss = --service-account-issuer, aud, exp/nbf/iat, jti, and the private claim
    "kubernetes.io" naming the namespace, the service account and an optional bound pod, secret or node;
  legacy tokens (the tokens controller's, kept in kubernetes.io/service-account-token secrets):
    iss = "kubernetes/serviceaccount", no aud and no exp, the "kubernetes.io/serviceaccount/..." claims.
Both are checked against storage: the service account (and bound object) must still exist with the UID
the token names; a legacy token must still be the one in its secret.
"""

from __future__ import annotations

import base64
import re
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Protocol

import jwt
import orjson

from kube_apiserver.authentication.serviceaccount_keys import PrivateKey, VerifyingKey, algorithm_for_key
from kube_apiserver.authentication.serviceaccount_keys import key_id_from_public_key as _key_id
from kube_apiserver.authentication.user import UserInfo

SERVICE_ACCOUNT_USERNAME_PREFIX = "system:serviceaccount:"
SERVICE_ACCOUNT_GROUP_PREFIX = "system:serviceaccounts:"
ALL_SERVICE_ACCOUNTS_GROUP = "system:serviceaccounts"
POD_NAME_KEY = "authentication.kubernetes.io/pod-name"
POD_UID_KEY = "authentication.kubernetes.io/pod-uid"
NODE_NAME_KEY = "authentication.kubernetes.io/node-name"
NODE_UID_KEY = "authentication.kubernetes.io/node-uid"
CREDENTIAL_ID_KEY = "authentication.kubernetes.io/credential-id"
LEGACY_ISSUER = "kubernetes/serviceaccount"
# A pod-bound token asked for this long (what admission injected) is given a year and warned about after.
WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS = 60 * 60 + 7
EXPIRATION_EXTENSION_SECONDS = 24 * 365 * 60 * 60
DEFAULT_LEEWAY = 60.0  # go-jose's jwt.DefaultLeeway
# What go-jose says when no key verifies a signature (kube 1.33 vendors gopkg.in/go-jose/go-jose.v2).
CRYPTO_ERROR = "go-jose/go-jose: error in cryptographic primitive"

_RSA_ALGS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512")
_EC_ALGS = {"ES256", "ES384", "ES512"}


class TokenAuthError(Exception):
    """The token is this authenticator's but not valid; the message is kube's (TokenReview status.error)."""


def make_username(namespace: str, name: str) -> str:
    return SERVICE_ACCOUNT_USERNAME_PREFIX + namespace + ":" + name


def make_group_names(namespace: str) -> tuple[str, str]:
    return (ALL_SERVICE_ACCOUNTS_GROUP, SERVICE_ACCOUNT_GROUP_PREFIX + namespace)


_DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def split_username(username: str) -> tuple[str, str] | None:
    """SplitUsername: (namespace, name) of a service account user name, None when it is not one."""
    if not username.startswith(SERVICE_ACCOUNT_USERNAME_PREFIX):
        return None
    parts = username[len(SERVICE_ACCOUNT_USERNAME_PREFIX) :].split(":")
    if len(parts) != 2:
        return None
    ns, name = parts
    if len(ns) > 63 or not _DNS1123_LABEL.match(ns) or len(name) > 253 or not _DNS1123_SUBDOMAIN.match(name):
        return None
    return ns, name


@dataclass(frozen=True)
class ServiceAccountInfo:
    namespace: str
    name: str
    uid: str
    pod_name: str = ""
    pod_uid: str = ""
    credential_id: str = ""
    node_name: str = ""
    node_uid: str = ""

    def user_info(self) -> UserInfo:
        """ServiceAccountInfo.UserInfo: the pod pair only when both are known, node-uid only with node-name."""
        extra: dict[str, tuple[str, ...]] = {}
        if self.pod_name and self.pod_uid:
            extra[POD_NAME_KEY] = (self.pod_name,)
            extra[POD_UID_KEY] = (self.pod_uid,)
        if self.credential_id:
            extra[CREDENTIAL_ID_KEY] = (self.credential_id,)
        if self.node_name:
            extra[NODE_NAME_KEY] = (self.node_name,)
            if self.node_uid:
                extra[NODE_UID_KEY] = (self.node_uid,)
        return UserInfo(make_username(self.namespace, self.name), self.uid, make_group_names(self.namespace), extra)


def credential_id_for_jti(jti: str) -> str:
    return "JTI=" + jti if jti else ""


@dataclass(frozen=True)
class TokenResponse:
    """authenticator.Response: the user and the audiences the token was accepted for."""

    user: UserInfo
    audiences: tuple[str, ...] = ()


class ServiceAccountTokenGetter(Protocol):
    """What the validators look up (ServiceAccountTokenGetter); each raises the Status error of a failed get."""

    async def get_service_account(self, namespace: str, name: str) -> dict[str, Any]: ...
    async def get_pod(self, namespace: str, name: str) -> dict[str, Any]: ...
    async def get_secret(self, namespace: str, name: str) -> dict[str, Any]: ...
    async def get_node(self, name: str) -> dict[str, Any]: ...
    async def mark_legacy_token_used(self, secret: dict[str, Any]) -> None: ...


class TokenGenerator:
    """JWTTokenGenerator: signs claims with the issuer's key; the header names the key by its ID."""

    def __init__(self, issuer: str, key: PrivateKey) -> None:
        self.issuer = issuer
        self.key = key
        self.algorithm = algorithm_for_key(key)
        self.key_id = _key_id(key.public_key())

    def generate_token(self, public: dict[str, Any], private: dict[str, Any]) -> str:
        """Public claims win over private ones, the issuer over both (go-jose's builder order); keys sorted
        as Go marshals a map."""
        claims = {**private, **public, "iss": self.issuer}
        payload = orjson.dumps(claims, option=orjson.OPT_SORT_KEYS)
        return jwt.api_jws.encode(
            payload, self.key, algorithm=self.algorithm, headers={"kid": self.key_id, "typ": None}, sort_headers=True
        )


def _ref(name: str, uid: str) -> dict[str, str]:
    return {k: v for k, v in (("name", name), ("uid", uid)) if v}  # omitempty


def _meta(obj: dict[str, Any] | None) -> dict[str, Any]:
    meta = (obj or {}).get("metadata")
    return meta if isinstance(meta, dict) else {}


def claims(
    sa: dict[str, Any],
    pod: dict[str, Any] | None,
    secret: dict[str, Any] | None,
    node: dict[str, Any] | None,
    expiration_seconds: int,
    warn_after: int,
    audiences: list[str],
    now: float | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """serviceaccount.Claims: the public and the private claims of a bound token."""
    now_s = int(now if now is not None else time.time())
    sa_meta = _meta(sa)
    ns, name = str(sa_meta.get("namespace", "")), str(sa_meta.get("name", ""))
    public: dict[str, Any] = {
        "sub": make_username(ns, name),
        "iat": now_s,
        "nbf": now_s,
        "exp": now_s + expiration_seconds,
        "jti": str(uuid.uuid4()),
    }
    if audiences:
        public["aud"] = list(audiences)
    k8s: dict[str, Any] = {"serviceaccount": _ref(name, str(sa_meta.get("uid", "")))}
    if ns:
        k8s["namespace"] = ns
    if secret is not None and (node is not None or pod is not None):
        raise ValueError("internal error, token can only be bound to one object type")
    if pod is not None:
        k8s["pod"] = _ref(str(_meta(pod).get("name", "")), str(_meta(pod).get("uid", "")))
        if node is not None:  # ServiceAccountTokenPodNodeInfo: the pod's node too
            k8s["node"] = _ref(str(_meta(node).get("name", "")), str(_meta(node).get("uid", "")))
    elif secret is not None:
        k8s["secret"] = _ref(str(_meta(secret).get("name", "")), str(_meta(secret).get("uid", "")))
    elif node is not None:
        k8s["node"] = _ref(str(_meta(node).get("name", "")), str(_meta(node).get("uid", "")))
    if warn_after:
        k8s["warnafter"] = now_s + warn_after
    return public, {"kubernetes.io": k8s}


def legacy_claims(sa: dict[str, Any], secret: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """LegacyClaims: what the tokens controller puts in a secret's token (no audience, no expiry)."""
    sa_meta = _meta(sa)
    ns, name = str(sa_meta.get("namespace", "")), str(sa_meta.get("name", ""))
    private = {
        "kubernetes.io/serviceaccount/namespace": ns,
        "kubernetes.io/serviceaccount/secret.name": str(_meta(secret).get("name", "")),
        "kubernetes.io/serviceaccount/service-account.name": name,
        "kubernetes.io/serviceaccount/service-account.uid": str(sa_meta.get("uid", "")),
    }
    return {"sub": make_username(ns, name)}, private


def _b64decode(part: str) -> bytes:
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def unverified_parts(token: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The header and payload of a compact JWS, unverified; None when the token is not one."""
    if token.strip().startswith("{"):
        return None
    parts = token.split(".")
    if len(parts) != 3:
        return None
    try:
        header, payload = orjson.loads(_b64decode(parts[0])), orjson.loads(_b64decode(parts[1]))
    except (ValueError, orjson.JSONDecodeError):
        return None
    if not isinstance(header, dict) or not isinstance(payload, dict):
        return None
    return header, payload


def _audiences(value: Any) -> tuple[str, ...]:
    """jwt.Audience: a string or a list of strings."""
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    if value is None:
        return ()
    raise TokenAuthError("json: cannot unmarshal audience claim")


def go_quote_list(values: tuple[str, ...] | list[str]) -> str:
    """Go's %q of a []string: ["a" "b"]."""
    return "[" + " ".join(orjson.dumps(v).decode() for v in values) + "]"


def intersect(a: tuple[str, ...] | list[str], b: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """authenticator.Audiences.Intersect: the items of a that b has, in a's order."""
    bs = set(b)
    return tuple(x for x in a if x in bs)


class Validator(Protocol):
    async def validate(self, token: str, public: dict[str, Any]) -> ServiceAccountInfo: ...


@dataclass
class JWTTokenAuthenticator:
    """jwtTokenAuthenticator: claims tokens of its issuers only; checks signature, issuer, audiences, then
    the validator's rules."""

    issuers: tuple[str, ...]
    keys: list[VerifyingKey]
    implicit_audiences: tuple[str, ...]
    validator: Validator
    _by_kid: dict[str, list[VerifyingKey]] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        for k in self.keys:
            self._by_kid.setdefault(k.key_id, []).append(k)

    async def authenticate_token(self, token: str) -> UserInfo | None:
        """The request path: the API's own audiences are the target."""
        try:
            resp = await self.authenticate_token_audiences(token, None)
        except TokenAuthError:
            return None
        return resp.user if resp is not None else None

    def _verify(self, token: str, header: dict[str, Any]) -> None:
        kid = header.get("kid") if isinstance(header.get("kid"), str) else ""
        keys = self._by_kid.get(kid, []) if kid else self.keys
        if not keys:
            raise TokenAuthError("invalid signature, no keys found")
        alg = header.get("alg")
        for key in keys:
            allowed = _RSA_ALGS if algorithm_for_key(key.key) == "RS256" else _EC_ALGS
            if alg not in allowed:
                continue
            try:
                jwt.api_jws.decode_complete(token, key.key, algorithms=[alg])
                return
            except jwt.InvalidSignatureError:
                continue
            except jwt.PyJWTError:
                continue
        raise TokenAuthError(CRYPTO_ERROR)

    async def authenticate_token_audiences(self, token: str, audiences: list[str] | None) -> TokenResponse | None:
        """AuthenticateToken with the request's target audiences (None: the implicit ones). None when the
        token is not this authenticator's; raises TokenAuthError when it is but does not hold."""
        parts = unverified_parts(token)
        if parts is None or parts[1].get("iss") not in self.issuers:
            return None
        header, public = parts
        self._verify(token, header)
        token_auds = _audiences(public.get("aud"))
        if not token_auds:  # only legacy tokens lack an audience: they are for this API alone
            token_auds = self.implicit_audiences
        requested = tuple(audiences) if audiences is not None else self.implicit_audiences
        auds = intersect(token_auds, requested)
        if not auds and self.implicit_audiences:
            raise TokenAuthError(
                f"token audiences {go_quote_list(token_auds)} is invalid for the target audiences {go_quote_list(requested)}"
            )
        info = await self.validator.validate(token, public)
        return TokenResponse(info.user_info(), auds)

"""The two validators of service account tokens (pkg/serviceaccount claims.go validator and legacy.go).

The JWT authenticator has already checked the signature, the issuer and the audiences; these check the
times (bound tokens) and that what the token names still exists in storage with the same UID.
"""

from __future__ import annotations

import base64
import hmac
import logging
import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from kube_apiserver.authentication.serviceaccount import (
    DEFAULT_LEEWAY,
    ServiceAccountInfo,
    ServiceAccountTokenGetter,
    TokenAuthError,
    credential_id_for_jti,
    split_username,
)
from kube_apiserver.runtime import errors

log = logging.getLogger(__name__)

INVALIDATED = "service account token has been invalidated"
INVALID_SINCE_LABEL_KEY = "kubernetes.io/legacy-token-invalid-since"


def _numeric(value: Any, name: str) -> float | None:
    """jwt.NumericDate: a JSON number or absent."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TokenAuthError(f"json: cannot unmarshal {type(value).__name__} into Go struct field Claims.{name}")
    return float(value)


def validate_times(public: dict[str, Any], now: float) -> None:
    """jwt.Claims.Validate(Expected{Time: now}) with the default leeway, in go-jose's order."""
    nbf, exp, iat = (
        _numeric(public.get("nbf"), "nbf"),
        _numeric(public.get("exp"), "exp"),
        _numeric(public.get("iat"), "iat"),
    )
    if nbf is not None and now + DEFAULT_LEEWAY < nbf:
        raise TokenAuthError("service account token is not valid yet")
    if exp is not None and now - DEFAULT_LEEWAY > exp:
        raise TokenAuthError("service account token has expired")
    if iat is not None and now + DEFAULT_LEEWAY < iat:
        raise TokenAuthError("service account token is issued in the future")


def _deleted_before(obj: dict[str, Any], deadline: float) -> bool:
    ts = (obj.get("metadata") or {}).get("deletionTimestamp")
    if not isinstance(ts, str):
        return False
    try:
        return datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp() < deadline
    except ValueError:
        return False


def _uid(obj: dict[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("uid", ""))


def _ref(k8s: dict[str, Any], key: str) -> dict[str, str] | None:
    """A {name, uid} reference of the private claims; None when absent."""
    value = k8s.get(key)
    if value is None:
        return None
    if not isinstance(value, dict):
        raise TokenAuthError(f"json: cannot unmarshal {type(value).__name__} into Go struct field kubernetes.{key}")
    return {"name": str(value.get("name") or ""), "uid": str(value.get("uid") or "")}


@dataclass
class BoundValidator:
    """validator.Validate of claims.go: expiry, then the service account, the bound secret, pod or node."""

    getter: ServiceAccountTokenGetter

    async def validate(self, token: str, public: dict[str, Any]) -> ServiceAccountInfo:
        now = time.time()
        validate_times(public, now)
        k8s = public.get("kubernetes.io")
        if k8s is None:
            k8s = {}
        if not isinstance(k8s, dict):
            raise TokenAuthError("json: cannot unmarshal kubernetes.io claim")
        invalid_if_deleted_before = now - DEFAULT_LEEWAY
        namespace = str(k8s.get("namespace") or "")
        saref = _ref(k8s, "serviceaccount") or {"name": "", "uid": ""}
        podref, noderef, secref = _ref(k8s, "pod"), _ref(k8s, "node"), _ref(k8s, "secret")
        try:
            sa = await self.getter.get_service_account(namespace, saref["name"])
        except errors.StatusError as e:
            raise TokenAuthError(e.message) from None
        if _uid(sa) != saref["uid"]:
            raise TokenAuthError(f"service account UID ({_uid(sa)}) does not match claim ({saref['uid']})")
        if _deleted_before(sa, invalid_if_deleted_before):
            raise TokenAuthError(f"service account {namespace}/{saref['name']} has been deleted")
        if secref is not None:
            secret = await self._get(self.getter.get_secret(namespace, secref["name"]))
            if secref["uid"] != _uid(secret):
                raise TokenAuthError(
                    f"secret UID ({_uid(secret)}) does not match service account secret ref claim ({secref['uid']})"
                )
            if _deleted_before(secret, invalid_if_deleted_before):
                raise TokenAuthError(INVALIDATED)
        pod_name = pod_uid = ""
        if podref is not None:
            pod = await self._get(self.getter.get_pod(namespace, podref["name"]))
            if podref["uid"] != _uid(pod):
                raise TokenAuthError(
                    f"pod UID ({_uid(pod)}) does not match service account pod ref claim ({podref['uid']})"
                )
            if _deleted_before(pod, invalid_if_deleted_before):
                raise TokenAuthError(INVALIDATED)
            pod_name, pod_uid = podref["name"], podref["uid"]
        node_name = node_uid = ""
        if noderef is not None:
            if podref is None:  # bound to the node itself: it must still be there
                node = await self._get(self.getter.get_node(noderef["name"]))
                if noderef["uid"] != _uid(node):
                    raise TokenAuthError(
                        f"node UID ({_uid(node)}) does not match service account node ref claim ({noderef['uid']})"
                    )
                if _deleted_before(node, invalid_if_deleted_before):
                    raise TokenAuthError(INVALIDATED)
            node_name, node_uid = noderef["name"], noderef["uid"]
        jti = public.get("jti") if isinstance(public.get("jti"), str) else ""
        return ServiceAccountInfo(
            namespace, saref["name"], saref["uid"], pod_name, pod_uid, credential_id_for_jti(jti), node_name, node_uid
        )

    @staticmethod
    async def _get(awaitable: Any) -> dict[str, Any]:
        try:
            return await awaitable
        except errors.StatusError:
            raise TokenAuthError(INVALIDATED) from None


@dataclass
class LegacyValidator:
    """legacyValidator: the claims must be complete and agree with the subject; with lookup, the secret must
    still hold this very token and the service account still have the UID."""

    lookup: bool
    getter: ServiceAccountTokenGetter

    async def validate(self, token: str, public: dict[str, Any]) -> ServiceAccountInfo:
        def claim(key: str) -> str:
            value = public.get(key)
            return value if isinstance(value, str) else ""

        subject = claim("sub")
        if not subject:
            raise TokenAuthError("sub claim is missing")
        namespace = claim("kubernetes.io/serviceaccount/namespace")
        if not namespace:
            raise TokenAuthError("namespace claim is missing")
        secret_name = claim("kubernetes.io/serviceaccount/secret.name")
        if not secret_name:
            raise TokenAuthError("secretName claim is missing")
        sa_name = claim("kubernetes.io/serviceaccount/service-account.name")
        if not sa_name:
            raise TokenAuthError("serviceAccountName claim is missing")
        sa_uid = claim("kubernetes.io/serviceaccount/service-account.uid")
        if not sa_uid:
            raise TokenAuthError("serviceAccountUID claim is missing")
        if split_username(subject) != (namespace, sa_name):
            raise TokenAuthError("sub claim is invalid")
        if self.lookup:
            await self._lookup(token, namespace, secret_name, sa_name, sa_uid)
        return ServiceAccountInfo(namespace, sa_name, sa_uid)

    async def _lookup(self, token: str, namespace: str, secret_name: str, sa_name: str, sa_uid: str) -> None:
        try:
            secret = await self.getter.get_secret(namespace, secret_name)
        except errors.StatusError:
            raise TokenAuthError("Token has been invalidated") from None
        if (secret.get("metadata") or {}).get("deletionTimestamp"):
            raise TokenAuthError("Token has been invalidated")
        data = secret.get("data") if isinstance(secret.get("data"), dict) else {}
        if not hmac.compare_digest(_decoded(data.get("token")), token.encode()):
            raise TokenAuthError("Token does not match server's copy")
        try:
            sa = await self.getter.get_service_account(namespace, sa_name)
        except errors.StatusError as e:
            raise TokenAuthError(e.message) from None
        if (sa.get("metadata") or {}).get("deletionTimestamp"):
            raise TokenAuthError(f"ServiceAccount {namespace}/{sa_name} has been deleted")
        if _uid(sa) != sa_uid:
            raise TokenAuthError(f"ServiceAccount UID ({_uid(sa)}) does not match claim ({sa_uid})")
        labels = (secret.get("metadata") or {}).get("labels") or {}
        if isinstance(labels, dict) and labels.get(INVALID_SINCE_LABEL_KEY):
            await self.getter.mark_legacy_token_used(secret)
            raise TokenAuthError(
                f"the token in secret {namespace}/{secret_name} for service account {namespace}/{sa_name} has been "
                "marked invalid. Use tokens from the TokenRequest API or manually created secret-based tokens, or "
                f"remove the '{INVALID_SINCE_LABEL_KEY}' label from the secret to temporarily allow use of this token"
            )
        await self.getter.mark_legacy_token_used(secret)


def _decoded(value: Any) -> bytes:
    """A secret's data value (base64 in the stored JSON)."""
    if not isinstance(value, str):
        return b""
    try:
        return base64.b64decode(value, validate=True)
    except ValueError:
        return b""

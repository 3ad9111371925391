"""Bootstrap tokens (plugin/pkg/auth/authenticator/token/bootstrap and k8s.io/cluster-bootstrap).

A token "<id>.<secret>" authenticates when kube-system holds the Secret bootstrap-token-<id> of type
bootstrap.kubernetes.io/token whose token-id and token-secret match, that is not expired and is marked
usage-bootstrap-authentication=true. The user is system:bootstrap:<id>, in system:bootstrappers plus the
secret's auth-extra-groups. Anything short of that is "not my token" (no error), as upstream.
"""

from __future__ import annotations

import base64
import hmac
import logging
import re
from datetime import datetime
from typing import Any

from kube_apiserver.authentication.user import UserInfo
from kube_apiserver.runtime import errors

log = logging.getLogger(__name__)

SECRET_TYPE_BOOTSTRAP_TOKEN = "bootstrap.kubernetes.io/token"
BOOTSTRAP_TOKEN_SECRET_PREFIX = "bootstrap-token-"
BOOTSTRAP_USER_PREFIX = "system:bootstrap:"
BOOTSTRAP_DEFAULT_GROUP = "system:bootstrappers"
TOKEN_ID_KEY = "token-id"
TOKEN_SECRET_KEY = "token-secret"
EXPIRATION_KEY = "expiration"
USAGE_AUTHENTICATION_KEY = "usage-bootstrap-authentication"
EXTRA_GROUPS_KEY = "auth-extra-groups"

_TOKEN = re.compile(r"^([a-z0-9]{6})\.([a-z0-9]{16})$")
_GROUP = re.compile(r"^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$")


def parse_token(token: str) -> tuple[str, str] | None:
    """tokens.ParseToken: (id, secret), None when the token is not of the form."""
    m = _TOKEN.match(token)
    return (m.group(1), m.group(2)) if m else None


def get_data(secret: dict[str, Any], key: str) -> str:
    """secrets.GetData: a data value decoded, "" when absent."""
    data = secret.get("data") if isinstance(secret.get("data"), dict) else {}
    value = data.get(key)
    if not isinstance(value, str):
        return ""
    try:
        return base64.b64decode(value, validate=True).decode("utf-8", "replace")
    except ValueError:
        return ""


def has_expired(secret: dict[str, Any], now: datetime) -> bool:
    """secrets.HasExpired: an unparseable expiration counts as expired."""
    expiration = get_data(secret, EXPIRATION_KEY)
    if not expiration:
        return False
    try:
        exp = datetime.fromisoformat(expiration.replace("Z", "+00:00"))
    except ValueError:
        log.info("Unparseable expiration time (%s) in bootstrap token Secret. Treating as expired.", expiration)
        return True
    if exp.tzinfo is None:  # RFC 3339 requires an offset
        return True
    return exp <= now


def get_groups(secret: dict[str, Any]) -> list[str]:
    """secrets.GetGroups: system:bootstrappers plus the extra groups, deduplicated and sorted; raises
    ValueError on a group outside system:bootstrappers:."""
    groups = {BOOTSTRAP_DEFAULT_GROUP}
    extra = get_data(secret, EXTRA_GROUPS_KEY)
    if extra:
        for group in extra.split(","):
            if not _GROUP.match(group):
                raise ValueError(f"bootstrap group {group!r} is invalid (must match {_GROUP.pattern})")
            groups.add(group)
    return sorted(groups)


class BootstrapTokenAuthenticator:
    """bootstrap.TokenAuthenticator over the kube-system secrets (read through the token getter)."""

    def __init__(self, getter: Any) -> None:
        self.getter = getter

    async def authenticate_token(self, token: str) -> UserInfo | None:
        parsed = parse_token(token)
        if parsed is None:
            return None
        token_id, token_secret = parsed
        try:
            secret = await self.getter.get_secret("kube-system", BOOTSTRAP_TOKEN_SECRET_PREFIX + token_id)
        except errors.StatusError:
            return None
        if (secret.get("metadata") or {}).get("deletionTimestamp"):
            return None
        if secret.get("type") != SECRET_TYPE_BOOTSTRAP_TOKEN or not isinstance(secret.get("data"), dict):
            return None
        if not hmac.compare_digest(get_data(secret, TOKEN_SECRET_KEY).encode(), token_secret.encode()):
            return None
        if get_data(secret, TOKEN_ID_KEY) != token_id:
            return None
        if has_expired(secret, datetime.now().astimezone()):
            return None
        if get_data(secret, USAGE_AUTHENTICATION_KEY) != "true":
            return None
        try:
            groups = get_groups(secret)
        except ValueError:
            return None
        return UserInfo(BOOTSTRAP_USER_PREFIX + token_id, "", tuple(groups))

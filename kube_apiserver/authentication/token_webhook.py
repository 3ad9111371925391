"""Webhook token authentication (plugin/pkg/authenticator/token/webhook, wrapped in token/cache).

A bearer token the local authenticators do not know is sent to a remote service as a TokenReview (the version of
--authentication-token-webhook-version); status.authenticated with status.user names the user. Answers, yes and
no alike, are cached by token for --authentication-token-webhook-cache-ttl; failures to reach the remote are not.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from kube_apiserver.authentication.kubeconfig_client import WebhookClient, WebhookError
from kube_apiserver.authentication.request import AuthenticationFailed
from kube_apiserver.authentication.user import UserInfo

log = logging.getLogger(__name__)

SUPPORTED_VERSIONS = ("v1", "v1beta1")
_CACHE_SIZE = 16384


class WebhookConfigError(ValueError):
    pass


def check_version(version: str) -> None:
    if version not in SUPPORTED_VERSIONS:
        raise WebhookConfigError(
            f'unsupported authentication webhook version "{version}", supported versions are "v1", "v1beta1"'
        )


def token_review_request(token: str, version: str, audiences: Sequence[str] = ()) -> dict[str, Any]:
    """The TokenReview the remote receives, as the rest client encodes it (empty fields as Go's JSON has them)."""
    spec: dict[str, Any] = {"token": token}
    if audiences:
        spec["audiences"] = list(audiences)
    return {
        "kind": "TokenReview",
        "apiVersion": f"authentication.k8s.io/{version}",
        "metadata": {"creationTimestamp": None},
        "spec": spec,
        "status": {"user": {}},
    }


def _strings(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def user_from_review(review: dict[str, Any]) -> tuple[UserInfo | None, str, list[str]]:
    """(the user when status.authenticated, status.error, status.audiences) of the remote's answer."""
    status = review.get("status")
    status = status if isinstance(status, dict) else {}
    error = status.get("error") if isinstance(status.get("error"), str) else ""
    audiences = _strings(status.get("audiences"))
    if status.get("authenticated") is not True:
        return None, error, audiences
    u = status.get("user")
    u = u if isinstance(u, dict) else {}
    extra_in = u.get("extra")
    extra = {str(k): tuple(_strings(v)) for k, v in extra_in.items()} if isinstance(extra_in, dict) else {}
    user = UserInfo(
        str(u.get("username") or ""),
        str(u.get("uid") or ""),
        tuple(_strings(u.get("groups"))),
        extra,
    )
    return user, error, audiences


class WebhookTokenAuthenticator:
    def __init__(
        self,
        client: WebhookClient,
        version: str = "v1beta1",
        cache_ttl: float = 120.0,
        api_audiences: Sequence[str] = (),
    ) -> None:
        check_version(version)
        self.client = client
        self.version = version
        self.cache_ttl = cache_ttl
        # The request's audiences (the server's --api-audiences) are asked for and checked against the answer's;
        # an answer without audiences is taken to mean the server's own (implicit audiences).
        self.api_audiences = tuple(api_audiences)
        self._cache: OrderedDict[bytes, tuple[float, UserInfo | None]] = OrderedDict()
        self._inflight: dict[bytes, asyncio.Future[UserInfo | None]] = {}

    async def close(self) -> None:
        await self.client.close()

    async def authenticate_token(self, token: str) -> UserInfo | None:
        """The remote's user; None when it says not authenticated. Raises AuthenticationFailed when it could not be
        asked or answered with status.error (neither is cached)."""
        if self.cache_ttl <= 0:
            return await self._review(token)
        key = hashlib.sha256(token.encode()).digest()
        hit = self._cache.get(key)
        now = time.monotonic()
        if hit is not None:
            if hit[0] > now:
                return hit[1]
            del self._cache[key]
        pending = self._inflight.get(key)
        if pending is not None:  # one review per token at a time, as the cache's singleflight does
            return await asyncio.shield(pending)
        fut: asyncio.Future[UserInfo | None] = asyncio.get_running_loop().create_future()
        self._inflight[key] = fut
        try:
            user = await self._review(token)
        except asyncio.CancelledError:
            fut.cancel()
            raise
        except Exception as e:
            fut.set_exception(e)
            fut.exception()  # retrieved: waiters re-raise it, nobody else has to
            raise
        finally:
            del self._inflight[key]
        fut.set_result(user)
        self._cache[key] = (time.monotonic() + self.cache_ttl, user)
        if len(self._cache) > _CACHE_SIZE:
            self._cache.popitem(last=False)
        return user

    async def _review(self, token: str) -> UserInfo | None:
        try:
            answer = await self.client.post(token_review_request(token, self.version, self.api_audiences))
        except WebhookError as e:
            log.error("Failed to make webhook authenticator request: %s", e)
            raise AuthenticationFailed(str(e)) from None
        user, error, audiences = user_from_review(answer)
        if self.api_audiences:
            got = audiences or list(self.api_audiences)
            if not set(self.api_audiences) & set(got):
                return None
        if user is None:
            if error:
                raise AuthenticationFailed(error)
            return None
        return user

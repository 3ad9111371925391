"""The webhook authorizer (k8s.io/apiserver/plugin/pkg/authorizer/webhook): asks a remote service with a
SubjectAccessReview (authorization.k8s.io v1 or v1beta1, --authorization-webhook-version) and caches the
answer by its spec, allowed answers for --authorization-webhook-cache-authorized-ttl and the others for
--authorization-webhook-cache-unauthorized-ttl. A failed call is no opinion with the error: the error is
logged, and the union hands it on (the request gets 500 unless another authorizer allowed it)."""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from typing import Any

import orjson

from kube_apiserver.authentication.kubeconfig_client import WebhookClient, WebhookError
from kube_apiserver.authorization.authorizer import ALLOW, DENY, NO_OPINION, Attributes

log = logging.getLogger(__name__)
CACHE_SIZE = 8192  # kube's LRU expiring cache size
MAX_CONTROLLED_ATTR_CACHE_SIZE = 10000
VERSIONS = ("v1", "v1beta1")


def sar_spec(attrs: Attributes, version: str) -> dict[str, Any]:
    """The SubjectAccessReview spec of a request, empty fields left out as the Go types' omitempty does."""
    user = attrs.user
    spec: dict[str, Any] = {}
    if attrs.is_resource_request:
        ra = {
            "namespace": attrs.namespace,
            "verb": attrs.verb,
            "group": attrs.api_group,
            "version": attrs.api_version,
            "resource": attrs.resource,
            "subresource": attrs.subresource,
            "name": attrs.name,
        }
        spec["resourceAttributes"] = {k: v for k, v in ra.items() if v}
    else:
        spec["nonResourceAttributes"] = {k: v for k, v in (("path", attrs.path), ("verb", attrs.verb)) if v}
    if user.name:
        spec["user"] = user.name
    if user.groups:
        # v1beta1 names the field "group"
        spec["groups" if version == "v1" else "group"] = list(user.groups)
    if user.extra:
        spec["extra"] = {k: list(v) for k, v in user.extra.items()}
    if user.uid:
        spec["uid"] = user.uid
    return spec


def _should_cache(attrs: Attributes) -> bool:
    size = (
        sum(
            len(s)
            for s in (
                attrs.namespace,
                attrs.verb,
                attrs.api_group,
                attrs.api_version,
                attrs.resource,
                attrs.subresource,
            )
        )
        + len(attrs.name)
        + len(attrs.path)
    )
    return size < MAX_CONTROLLED_ATTR_CACHE_SIZE


class WebhookAuthorizer:
    synchronous = False

    def __init__(
        self,
        client: WebhookClient,
        version: str = "v1beta1",
        authorized_ttl: float = 300.0,
        unauthorized_ttl: float = 30.0,
        name: str = "default",
    ) -> None:
        if version not in VERSIONS:
            raise ValueError(f"unsupported authorization webhook version {version!r}")
        self.client = client
        self.version = version
        self.authorized_ttl = authorized_ttl
        self.unauthorized_ttl = unauthorized_ttl
        self.name = name
        self._cache: OrderedDict[bytes, tuple[float, dict[str, Any]]] = OrderedDict()

    # --- the response cache ---

    def _cached(self, key: bytes) -> dict[str, Any] | None:
        entry = self._cache.get(key)
        if entry is None:
            return None
        expires, status = entry
        if expires < time.monotonic():
            del self._cache[key]
            return None
        self._cache.move_to_end(key)
        return status

    def _remember(self, key: bytes, status: dict[str, Any], attrs: Attributes) -> None:
        ttl = self.authorized_ttl if status.get("allowed") is True else self.unauthorized_ttl
        if ttl <= 0 or not _should_cache(attrs):
            return
        self._cache[key] = (time.monotonic() + ttl, status)
        self._cache.move_to_end(key)
        while len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)

    # --- authorizing ---

    def authorize(self, attrs: Attributes) -> tuple[str, str]:
        """From the cache only (used where the caller cannot wait, e.g. RBAC escalation checks)."""
        status = self._cached(orjson.dumps(sar_spec(attrs, "v1")))
        if status is None:
            return NO_OPINION, ""
        decision, reason, _ = _decision(status)
        return decision, reason

    async def authorize_async(self, attrs: Attributes) -> tuple[str, str, str]:
        spec = sar_spec(attrs, self.version)
        key = orjson.dumps(sar_spec(attrs, "v1"))
        status = self._cached(key)
        if status is None:
            review = {
                "apiVersion": f"authorization.k8s.io/{self.version}",
                "kind": "SubjectAccessReview",
                "metadata": {"creationTimestamp": None},
                "spec": spec,
                "status": {"allowed": False},
            }
            try:
                answer = await self.client.post(review)
            except WebhookError as e:
                log.error("Failed calling webhook, failing open %s: %s", self.name, e)
                return NO_OPINION, "", str(e)
            raw = answer.get("status")
            status = raw if isinstance(raw, dict) else {}
            self._remember(key, status, attrs)
        return _decision(status)


def _decision(status: dict[str, Any]) -> tuple[str, str, str]:
    allowed, denied = status.get("allowed") is True, status.get("denied") is True
    reason = status.get("reason") if isinstance(status.get("reason"), str) else ""
    if allowed and denied:
        return DENY, reason, "webhook subject access review returned both allow and deny response"
    if denied:
        return DENY, reason, ""
    if allowed:
        return ALLOW, reason, ""
    return NO_OPINION, reason, ""

"""The service account token getter over the API server's own storage (serviceaccountcontroller's
NewGetterFromClient: the informer caches, falling back to the API)."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import Any

from kube_apiserver.runtime import errors

log = logging.getLogger(__name__)

LAST_USED_LABEL_KEY = "kubernetes.io/legacy-token-last-used"

StoreKey = tuple[str, str, str]


class StoreTokenGetter:
    """Reads from the stores of the server chain; bind() is called once the chain exists (the
    authenticator is made before the storage)."""

    def __init__(self, stores: dict[StoreKey, Any] | None = None) -> None:
        self.stores: dict[StoreKey, Any] = stores or {}

    def bind(self, stores: dict[StoreKey, Any]) -> None:
        self.stores = stores

    async def _get(self, resource: str, namespace: str, name: str) -> dict[str, Any]:
        store = self.stores.get(("", "v1", resource))
        if store is None:
            raise errors.new_service_unavailable("the server is starting")
        return (await store.get(namespace, name)).obj

    async def get_service_account(self, namespace: str, name: str) -> dict[str, Any]:
        return await self._get("serviceaccounts", namespace, name)

    async def get_pod(self, namespace: str, name: str) -> dict[str, Any]:
        return await self._get("pods", namespace, name)

    async def get_secret(self, namespace: str, name: str) -> dict[str, Any]:
        return await self._get("secrets", namespace, name)

    async def get_node(self, name: str) -> dict[str, Any]:
        return await self._get("nodes", "", name)

    async def mark_legacy_token_used(self, secret: dict[str, Any]) -> None:
        """patchSecretWithLastUsedDate: label the secret with today's date (UTC) unless it says today or
        tomorrow already (a clock a little ahead elsewhere); failures are only logged."""
        now = datetime.now(UTC)
        today, tomorrow = now.strftime("%Y-%m-%d"), (now + timedelta(days=1)).strftime("%Y-%m-%d")
        meta = secret.get("metadata") or {}
        labels = meta.get("labels") if isinstance(meta.get("labels"), dict) else {}
        if labels.get(LAST_USED_LABEL_KEY) in (today, tomorrow):
            return
        store = self.stores.get(("", "v1", "secrets"))
        if store is None:
            return
        uid = meta.get("uid")

        def label(obj: dict[str, Any]) -> dict[str, Any]:
            m = obj.setdefault("metadata", {})
            if m.get("uid") != uid:  # the patch carries the UID as a precondition
                raise errors.new_conflict("", "secrets", str(m.get("name", "")), "the UID has changed")
            if not isinstance(m.get("labels"), dict):
                m["labels"] = {}
            m["labels"][LAST_USED_LABEL_KEY] = today
            return obj

        try:
            await store.patch(str(meta.get("namespace", "")), str(meta.get("name", "")), label)
        except errors.StatusError as e:
            log.error(
                "Failed to label legacy service account token %s/%s with last-used date, err: %s",
                meta.get("name"),
                meta.get("namespace"),
                e,
            )

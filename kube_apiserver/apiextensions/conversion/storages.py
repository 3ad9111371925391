"""The storage each served version of a CRD gets, by its conversion strategy (the CRD handler's
getOrCreateServingInfoFor builds one converter per CRD and one storage per version with it).

None: the shared watch cache seen through a VersionedStorage that rewrites apiVersion (cheap, in
place). Webhook: a converted watch cache per served version (ConvertedCacher), kept while the CRD's
spec is unchanged (the CRD handler re-installs a CRD on every write, status ones included; kube
rebuilds a CRD's storage only when its spec or accepted names change) and shut down otherwise,
which ends its watches as kube's storage teardown does.
"""

from __future__ import annotations

from typing import Any

import orjson

from kube_apiserver.apiextensions.conversion.backend import ConvertingBackend
from kube_apiserver.apiextensions.conversion.cache import ConvertedCacher
from kube_apiserver.apiextensions.conversion.client import WebhookClient, client_config_for_crd
from kube_apiserver.apiextensions.conversion.converter import conversion_strategy, valid_versions
from kube_apiserver.apiextensions.conversion.service import ServiceResolver, StoreLookup
from kube_apiserver.apiextensions.conversion.webhook import WebhookConverter
from kube_apiserver.apiextensions.customresource import CustomResourceStorage
from kube_apiserver.storage.cacher.cacher import Cacher


class _Webhooked:
    """The converted caches of one CRD spec, and the converter they share."""

    def __init__(self, crd: dict[str, Any], shared: Cacher, resolver: ServiceResolver) -> None:
        spec = crd.get("spec") or {}
        self.shared = shared
        self.fingerprint = orjson.dumps(spec, option=orjson.OPT_SORT_KEYS)
        webhook = (spec.get("conversion") or {}).get("webhook") or {}
        versions = webhook.get("conversionReviewVersions") if isinstance(webhook, dict) else None
        self.converter = WebhookConverter(
            WebhookClient(client_config_for_crd(crd), resolver), versions if isinstance(versions, list) else []
        )
        self.valid = valid_versions(crd)
        self.caches: dict[str, ConvertedCacher] = {}

    def shutdown(self) -> None:
        for cache in self.caches.values():
            cache.shutdown()
        self.caches.clear()


class CustomResourceStorages:
    """Held by the CRD handler: hands out the storage of each served version of each CRD."""

    def __init__(self, lookup: StoreLookup, *, watch_cache_size: int = 10_000) -> None:
        self.resolver = ServiceResolver(lookup)
        self.watch_cache_size = watch_cache_size
        self._webhooked: dict[str, _Webhooked] = {}  # CRD name → its converted caches

    async def storage_for(
        self,
        crd: dict[str, Any],
        shared: Cacher,
        api_version: str,
        storage_api_version: str,
        schemas: dict[str, dict[str, Any]],
    ) -> Cacher | CustomResourceStorage:
        name = (crd.get("metadata") or {}).get("name", "")
        if conversion_strategy(crd) != "Webhook":
            self.drop(name)
            return CustomResourceStorage(shared, api_version, storage_api_version, schemas)
        entry = self._webhooked.get(name)
        fingerprint = orjson.dumps(crd.get("spec") or {}, option=orjson.OPT_SORT_KEYS)
        if entry is None or entry.fingerprint != fingerprint or entry.shared is not shared:
            self.drop(name)
            entry = self._webhooked[name] = _Webhooked(crd, shared, self.resolver)
        cache = entry.caches.get(api_version)
        if cache is None:
            backend = ConvertingBackend(shared, api_version, storage_api_version, schemas, entry.converter, entry.valid)
            cache = entry.caches[api_version] = ConvertedCacher(backend, history_size=self.watch_cache_size)
            await cache.start()
        return cache

    def drop(self, name: str) -> None:
        """The CRD went away or changed: its converted caches stop."""
        entry = self._webhooked.pop(name, None)
        if entry is not None:
            entry.shutdown()

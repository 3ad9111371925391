"""The tokens controller (pkg/controller/serviceaccount/tokens_controller.go, run by kube-controller-manager):
a Secret of type kubernetes.io/service-account-token naming a service account in its
kubernetes.io/service-account.name annotation gets data token (a legacy token signed with the issuer key),
ca.crt (the cluster CA) and namespace, and the service account's UID annotation. A token secret whose
service account does not exist is deleted, and so are the token secrets of a deleted service account.

Work goes through one queue and one task; the writes' after-write hooks feed it.
"""

from __future__ import annotations

import asyncio
import base64
import logging
from typing import Any

from kube_apiserver.authentication.serviceaccount import TokenGenerator, legacy_claims
from kube_apiserver.registry.store import DeleteOptions, Store
from kube_apiserver.runtime import errors
from kube_apiserver.storage.interface import ListOptions, Preconditions

log = logging.getLogger(__name__)

SECRET_TYPE_SERVICE_ACCOUNT_TOKEN = "kubernetes.io/service-account-token"
SERVICE_ACCOUNT_NAME_KEY = "kubernetes.io/service-account.name"
SERVICE_ACCOUNT_UID_KEY = "kubernetes.io/service-account.uid"
TOKEN_KEY, ROOT_CA_KEY, NAMESPACE_KEY = "token", "ca.crt", "namespace"
RETRY_DELAY = 0.5


def _meta(obj: dict[str, Any] | None) -> dict[str, Any]:
    meta = (obj or {}).get("metadata")
    return meta if isinstance(meta, dict) else {}


def _annotations(obj: dict[str, Any]) -> dict[str, Any]:
    ann = _meta(obj).get("annotations")
    return ann if isinstance(ann, dict) else {}


def _data(obj: dict[str, Any]) -> dict[str, Any]:
    data = obj.get("data")
    return data if isinstance(data, dict) else {}


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def _decoded(value: Any) -> bytes:
    if not isinstance(value, str):
        return b""
    try:
        return base64.b64decode(value)
    except ValueError:
        return b""


def is_service_account_token(secret: dict[str, Any], sa: dict[str, Any]) -> bool:
    """serviceaccount.IsServiceAccountToken: the type, the name annotation, and the UID one if set."""
    if secret.get("type") != SECRET_TYPE_SERVICE_ACCOUNT_TOKEN:
        return False
    ann = _annotations(secret)
    if ann.get(SERVICE_ACCOUNT_NAME_KEY) != _meta(sa).get("name"):
        return False
    uid = ann.get(SERVICE_ACCOUNT_UID_KEY)
    return not uid or uid == _meta(sa).get("uid")


class TokensController:
    def __init__(self, secrets: Store, service_accounts: Store, generator: TokenGenerator, root_ca: bytes) -> None:
        self.secrets = secrets
        self.service_accounts = service_accounts
        self.generator = generator
        self.root_ca = root_ca
        self.queue: asyncio.Queue[tuple[str, str, str, str]] = asyncio.Queue()
        self.pending: set[tuple[str, str, str, str]] = set()
        self.task: asyncio.Task[None] | None = None
        secrets.after_write.append(self._on_secret)
        service_accounts.after_write.append(self._on_service_account)

    def _enqueue(self, item: tuple[str, str, str, str]) -> None:
        if item not in self.pending:
            self.pending.add(item)
            self.queue.put_nowait(item)

    def _on_secret(self, old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
        if new is not None and new.get("type") == SECRET_TYPE_SERVICE_ACCOUNT_TOKEN:
            meta = _meta(new)
            self._enqueue(("secret", str(meta.get("namespace", "")), str(meta.get("name", "")), ""))

    def _on_service_account(self, old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
        if new is None and old is not None:  # deleted: its tokens go too
            meta = _meta(old)
            self._enqueue(("sa", str(meta.get("namespace", "")), str(meta.get("name", "")), str(meta.get("uid", ""))))

    async def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._run())

    async def _list_existing(self) -> None:
        """The token secrets already stored, retried while secrets cannot be listed (e.g. a value that the
        configured encryption cannot read): the controller waits, the server does not fail to start."""
        while True:
            try:
                listed = await self.secrets.list("", ListOptions())
            except errors.StatusError as e:
                log.warning("listing secrets: %s; retrying", e)
                await asyncio.sleep(RETRY_DELAY)
                continue
            for item in listed.items:
                self._on_secret(None, item.obj)
            return

    async def _run(self) -> None:
        await self._list_existing()
        while True:
            item = await self.queue.get()
            self.pending.discard(item)
            kind, namespace, name, uid = item
            try:
                if kind == "secret":
                    await self.sync_secret(namespace, name)
                else:
                    await self.delete_tokens(namespace, name, uid)
            except errors.StatusError as e:
                log.warning("syncing %s %s/%s: %s; retrying", kind, namespace, name, e)
                asyncio.get_running_loop().call_later(RETRY_DELAY, self._enqueue, item)
            except Exception:  # noqa: BLE001 - a controller must outlive a bad object
                log.exception("syncing %s %s/%s", kind, namespace, name)

    async def _get(self, store: Store, namespace: str, name: str) -> dict[str, Any] | None:
        try:
            return (await store.get(namespace, name)).obj
        except errors.StatusError as e:
            if e.code == 404:
                return None
            raise

    async def sync_secret(self, namespace: str, name: str) -> None:
        secret = await self._get(self.secrets, namespace, name)
        if secret is None or secret.get("type") != SECRET_TYPE_SERVICE_ACCOUNT_TOKEN:
            return
        if _meta(secret).get("deletionTimestamp"):
            return
        ann = _annotations(secret)
        sa_name, sa_uid = ann.get(SERVICE_ACCOUNT_NAME_KEY), ann.get(SERVICE_ACCOUNT_UID_KEY)
        if not isinstance(sa_name, str) or not sa_name:
            return
        sa = await self._get(self.service_accounts, namespace, sa_name)
        if sa is None or (sa_uid and sa_uid != _meta(sa).get("uid")):
            log.info("syncSecret(%s/%s), service account does not exist, deleting token", namespace, name)
            await self._delete(namespace, name, str(_meta(secret).get("uid", "")))
            return
        if self._needs(secret):
            await self._populate(namespace, name, sa)

    def _needs(self, secret: dict[str, Any]) -> bool:
        """secretUpdateNeeded: a CA that differs, or no namespace, or no token."""
        data = _data(secret)
        needs_ca = bool(self.root_ca) and _decoded(data.get(ROOT_CA_KEY)) != self.root_ca
        return needs_ca or not _decoded(data.get(NAMESPACE_KEY)) or not _decoded(data.get(TOKEN_KEY))

    async def _populate(self, namespace: str, name: str, sa: dict[str, Any]) -> None:
        def fill(secret: dict[str, Any]) -> dict[str, Any]:
            if not self._needs(secret):
                return secret
            data = _data(secret)
            secret["data"] = data
            if self.root_ca and _decoded(data.get(ROOT_CA_KEY)) != self.root_ca:
                data[ROOT_CA_KEY] = _b64(self.root_ca)
            if not _decoded(data.get(NAMESPACE_KEY)):
                data[NAMESPACE_KEY] = _b64(namespace.encode())
            if not _decoded(data.get(TOKEN_KEY)):
                public, private = legacy_claims(sa, secret)
                data[TOKEN_KEY] = _b64(self.generator.generate_token(public, private).encode())
            meta = secret.setdefault("metadata", {})
            if not isinstance(meta.get("annotations"), dict):
                meta["annotations"] = {}
            meta["annotations"][SERVICE_ACCOUNT_NAME_KEY] = _meta(sa).get("name", "")
            meta["annotations"][SERVICE_ACCOUNT_UID_KEY] = _meta(sa).get("uid", "")
            return secret

        try:
            await self.secrets.patch(namespace, name, fill)
        except errors.StatusError as e:
            if e.code not in (404, 409):  # gone, or changed: a later event brings it back
                raise

    async def _delete(self, namespace: str, name: str, uid: str) -> None:
        """deleteToken: with the UID as precondition; NotFound and Conflict need no retry."""
        try:
            await self.secrets.delete(namespace, name, DeleteOptions(preconditions=Preconditions(uid=uid or None)))
        except errors.StatusError as e:
            if e.code not in (404, 409):
                raise

    async def delete_tokens(self, namespace: str, sa_name: str, sa_uid: str) -> None:
        sa = {"metadata": {"name": sa_name, "uid": sa_uid}}
        current = await self._get(self.service_accounts, namespace, sa_name)
        if current is not None and _meta(current).get("uid") == sa_uid:
            return  # it is back (the same one): nothing to clean up
        listed = await self.secrets.list(namespace, ListOptions())
        for item in listed.items:
            if is_service_account_token(item.obj, sa):
                await self._delete(namespace, str(_meta(item.obj).get("name", "")), str(_meta(item.obj).get("uid", "")))

"""The cluster authentication trust controller (pkg/controlplane/controller/clusterauthenticationtrust).

Keeps kube-system/extension-apiserver-authentication telling aggregated API servers how to authenticate the
requests this server forwards to them: client-ca-file (the client CAs), and, when a front proxy is configured,
requestheader-client-ca-file with the header names as JSON lists. What is already in the ConfigMap (another
server's, an older CA) is kept: lists and CA bundles are unions, expired CAs dropped. Written at start, again every
minute if someone changed or deleted it.
"""

from __future__ import annotations

import asyncio
import datetime
import json
import logging
from dataclasses import dataclass, field
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding

from kube_apiserver.registry.fieldmanager import managing_as_server
from kube_apiserver.runtime import errors

log = logging.getLogger(__name__)

CONFIGMAP_NAMESPACE = "kube-system"
CONFIGMAP_NAME = "extension-apiserver-authentication"
RESYNC_INTERVAL = 60.0
HOOK_NAME = "start-cluster-authentication-info-controller"


@dataclass
class ClusterAuthenticationInfo:
    client_ca: bytes = b""  # PEM
    request_header_ca: bytes = b""  # PEM; empty when no front proxy is configured
    username_headers: list[str] = field(default_factory=list)
    uid_headers: list[str] = field(default_factory=list)
    group_headers: list[str] = field(default_factory=list)
    extra_header_prefixes: list[str] = field(default_factory=list)
    allowed_names: list[str] = field(default_factory=list)


def _json_list(value: str) -> list[str]:
    """A list the ConfigMap holds; a malformed one is an error of the sync, as jsonDeserializeStringSlice's."""
    if not value:
        return []
    out = json.loads(value)
    if not isinstance(out, list):
        raise ValueError(f"not a JSON list of strings: {value!r}")
    return [str(v) for v in out]


def info_from_data(data: dict[str, str]) -> ClusterAuthenticationInfo:
    return ClusterAuthenticationInfo(
        client_ca=data.get("client-ca-file", "").encode(),
        request_header_ca=data.get("requestheader-client-ca-file", "").encode(),
        username_headers=_json_list(data.get("requestheader-username-headers", "")),
        uid_headers=_json_list(data.get("requestheader-uid-headers", "")),
        group_headers=_json_list(data.get("requestheader-group-headers", "")),
        extra_header_prefixes=_json_list(data.get("requestheader-extra-headers-prefix", "")),
        allowed_names=_json_list(data.get("requestheader-allowed-names", "")),
    )


def _unique(lhs: list[str], rhs: list[str]) -> list[str]:
    return list(dict.fromkeys([*lhs, *rhs]))


def combine_cert_lists(lhs: bytes, rhs: bytes) -> bytes:
    """Both bundles' certificates, unexpired (five minutes of slack), each once, in order, as PEM."""
    certs: list[x509.Certificate] = []
    for pem in (lhs, rhs):
        if pem.strip():
            certs.extend(x509.load_pem_x509_certificates(pem))
    cutoff = datetime.datetime.now(datetime.UTC) - datetime.timedelta(minutes=5)
    seen: set[bytes] = set()
    out = b""
    for cert in certs:
        der = cert.public_bytes(Encoding.DER)
        if cert.not_valid_after_utc <= cutoff or der in seen:
            continue
        seen.add(der)
        out += cert.public_bytes(Encoding.PEM)
    return out


def combined(lhs: ClusterAuthenticationInfo, rhs: ClusterAuthenticationInfo) -> ClusterAuthenticationInfo:
    return ClusterAuthenticationInfo(
        client_ca=combine_cert_lists(lhs.client_ca, rhs.client_ca),
        request_header_ca=combine_cert_lists(lhs.request_header_ca, rhs.request_header_ca),
        username_headers=_unique(lhs.username_headers, rhs.username_headers),
        uid_headers=_unique(lhs.uid_headers, rhs.uid_headers),
        group_headers=_unique(lhs.group_headers, rhs.group_headers),
        extra_header_prefixes=_unique(lhs.extra_header_prefixes, rhs.extra_header_prefixes),
        allowed_names=_unique(lhs.allowed_names, rhs.allowed_names),
    )


def _json(values: list[str]) -> str:
    return json.dumps(values, separators=(",", ":"))


def configmap_data(info: ClusterAuthenticationInfo) -> dict[str, str]:
    """getConfigMapDataFor: the request-header keys only with a request-header CA; uid headers only when set."""
    data: dict[str, str] = {}
    if info.client_ca:
        data["client-ca-file"] = info.client_ca.decode()
    if not info.request_header_ca:
        return data
    data["requestheader-username-headers"] = _json(info.username_headers)
    if info.uid_headers:
        data["requestheader-uid-headers"] = _json(info.uid_headers)
    data["requestheader-group-headers"] = _json(info.group_headers)
    data["requestheader-extra-headers-prefix"] = _json(info.extra_header_prefixes)
    data["requestheader-client-ca-file"] = info.request_header_ca.decode()
    data["requestheader-allowed-names"] = _json(info.allowed_names)
    return data


class ClusterAuthenticationTrustController:
    def __init__(self, required: ClusterAuthenticationInfo, stores: dict[tuple[str, str, str], Any]) -> None:
        self.required = required
        self.configmaps = stores[("", "v1", "configmaps")]
        self.namespaces = stores[("", "v1", "namespaces")]
        self.task: asyncio.Task[None] | None = None

    async def _create_namespace_if_needed(self) -> None:
        try:
            await self.namespaces.get("", CONFIGMAP_NAMESPACE)
            return
        except errors.StatusError as e:
            if e.code != 404:
                raise
        try:
            ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": CONFIGMAP_NAMESPACE}}
            with managing_as_server(self.namespaces):
                await self.namespaces.create("", ns)
        except errors.StatusError as e:
            if e.code != 409:
                raise

    async def sync(self) -> None:
        """syncConfigMap: merge what is there with what this server requires, write when it differs."""
        try:
            current: dict[str, Any] | None = (await self.configmaps.get(CONFIGMAP_NAMESPACE, CONFIGMAP_NAME)).obj
        except errors.StatusError as e:
            if e.code != 404:
                raise
            current = None
        existing = dict((current or {}).get("data") or {})
        data = configmap_data(combined(info_from_data(existing), self.required))
        if current is not None and existing == data:
            return
        await self._create_namespace_if_needed()
        if current is None:
            obj = {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": CONFIGMAP_NAME, "namespace": CONFIGMAP_NAMESPACE},
                "data": data,
            }
            try:
                with managing_as_server(self.configmaps):
                    await self.configmaps.create(CONFIGMAP_NAMESPACE, obj)
            except errors.StatusError as e:
                if e.code != 409:
                    raise
            return

        def set_data(old: dict[str, Any]) -> dict[str, Any]:
            old["data"] = data
            return old

        with managing_as_server(self.configmaps):
            await self.configmaps.patch(CONFIGMAP_NAMESPACE, CONFIGMAP_NAME, set_data)


def install_cluster_authentication_trust(
    server: Any, stores: dict[tuple[str, str, str], Any], required: ClusterAuthenticationInfo
) -> ClusterAuthenticationTrustController:
    """Register the post-start hook: the first sync before it reports done, later ones in the background."""
    controller = ClusterAuthenticationTrustController(required, stores)

    async def start() -> None:
        try:
            await controller.sync()
        except Exception:  # noqa: BLE001 - readiness does not wait on this ConfigMap; the loop retries
            log.exception("syncing %s/%s failed", CONFIGMAP_NAMESPACE, CONFIGMAP_NAME)

        async def resync() -> None:
            while True:
                await asyncio.sleep(RESYNC_INTERVAL)
                try:
                    await controller.sync()
                except Exception:  # noqa: BLE001
                    log.exception("syncing %s/%s failed", CONFIGMAP_NAMESPACE, CONFIGMAP_NAME)

        controller.task = asyncio.get_running_loop().create_task(resync(), name=HOOK_NAME)

    server.add_post_start_hook(HOOK_NAME, start)
    return controller

"""The kube-apiserver identity Lease (APIServerIdentity, on by default): pkg/controlplane/apiserver's
start-kube-apiserver-identity-lease-controller and -garbage-collector post-start hooks.

The server keeps a Lease named after its identity in kube-system, labelled as a kube-apiserver identity
and with its host name, and renews it every 10 s (component-helpers' lease controller). Clients count
the apiservers of a control plane by these leases. The collector deletes identity leases that expired (a
server gone for good): at start, then hourly.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import logging
import socket
import struct
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from kube_apiserver.registry.fieldmanager import managing_as_server
from kube_apiserver.registry.store import DeleteOptions, Store
from kube_apiserver.runtime import errors
from kube_apiserver.runtime import meta as metautil
from kube_apiserver.runtime.gotime import TimeParseError, parse
from kube_apiserver.storage.interface import ListOptions

log = logging.getLogger(__name__)

IDENTITY_LABEL = "apiserver.kubernetes.io/identity"  # IdentityLeaseComponentLabelKey
HOSTNAME_LABEL = "kubernetes.io/hostname"
KUBE_APISERVER = "kube-apiserver"
LEASE_NAMESPACE = "kube-system"
LEASE_DURATION_SECONDS = 3600  # IdentityLeaseDurationSeconds
RENEW_INTERVAL = 10.0  # IdentityLeaseRenewIntervalPeriod
GC_PERIOD = 3600.0  # IdentityLeaseGCPeriod
_RETRY = 1.0


def apiserver_id(hostname: str, component: str = KUBE_APISERVER) -> str:
    """The generic server's APIServerID: "apiserver-" and the base32 of the first 16 bytes of the SHA-256 of
    the host name and the component, each prefixed by its uint16 length (cryptobyte's length prefix)."""
    data = b"".join(struct.pack(">H", len(part)) + part for part in (hostname.encode(), component.encode()))
    digest = hashlib.sha256(data).digest()[:16]
    return "apiserver-" + base64.b32encode(digest).decode().rstrip("=").lower()


class IdentityLeaseController:
    """lease.NewController for the identity lease: created when missing, its renewTime moved every
    RENEW_INTERVAL, the identity and host name labels asserted at each write."""

    def __init__(self, leases: Store, hostname: str | None = None, interval: float = RENEW_INTERVAL) -> None:
        self.leases = leases
        self.hostname = hostname if hostname is not None else socket.gethostname()
        self.name = apiserver_id(self.hostname)
        self.holder = f"{self.name}_{uuid.uuid4()}"
        self.interval = interval
        self.task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """The post-start hook: the controller runs in the background (kube-system may not exist yet on a
        first start: the bootstrap controller makes it; until then the write is retried every second)."""
        self.task = asyncio.get_running_loop().create_task(self._run(), name="identity lease")

    async def _run(self) -> None:
        while True:
            try:
                await self.sync()
                delay = self.interval
            except errors.StatusError as e:
                log.debug("identity lease %s: %s; retrying", self.name, e)
                delay = _RETRY
            await asyncio.sleep(delay)

    def _assert_labels(self, lease: dict[str, Any]) -> dict[str, Any]:
        """labelAPIServerHeartbeatFunc, and the renewal."""
        meta = metautil.metadata(lease)
        labels = meta.get("labels") if isinstance(meta.get("labels"), dict) else {}
        meta["labels"] = {**labels, IDENTITY_LABEL: KUBE_APISERVER, HOSTNAME_LABEL: self.hostname}
        spec = lease.get("spec") if isinstance(lease.get("spec"), dict) else {}
        spec["renewTime"] = metautil.now_rfc3339_micro()
        lease["spec"] = spec
        return lease

    async def sync(self) -> None:
        try:
            with managing_as_server(self.leases):
                await self.leases.patch(LEASE_NAMESPACE, self.name, self._assert_labels)
            return
        except errors.StatusError as e:
            if e.code != 404:
                raise
        lease = {
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": {"name": self.name, "namespace": LEASE_NAMESPACE},
            "spec": {"holderIdentity": self.holder, "leaseDurationSeconds": LEASE_DURATION_SECONDS},
        }
        try:
            with managing_as_server(self.leases):
                await self.leases.create(LEASE_NAMESPACE, self._assert_labels(lease))
        except errors.StatusError as e:
            if e.code != 409:  # created meanwhile: the next sync renews it
                raise


def _expired(lease: dict[str, Any], now: datetime) -> bool:
    """isLeaseExpired: renewTime (or acquireTime) plus leaseDurationSeconds is past."""
    spec = lease.get("spec") if isinstance(lease.get("spec"), dict) else {}
    stamp = spec.get("renewTime") or spec.get("acquireTime")
    duration = spec.get("leaseDurationSeconds")
    if not isinstance(stamp, str) or not isinstance(duration, int):
        return False
    try:
        renewed = parse(stamp, micro=True)
    except (TimeParseError, ValueError):
        return False
    return renewed + timedelta(seconds=duration) < now


class IdentityLeaseGC:
    """apiserverleasegc: the kube-system leases labelled as kube-apiserver identities that expired are
    deleted, at start and every GC_PERIOD."""

    def __init__(self, leases: Store, period: float = GC_PERIOD) -> None:
        self.leases = leases
        self.period = period
        self.task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._run(), name="identity lease gc")

    async def _run(self) -> None:
        while True:
            try:
                await self.collect()
            except errors.StatusError as e:
                log.warning("identity lease gc: %s", e)
            await asyncio.sleep(self.period)

    async def collect(self) -> None:
        now = datetime.now(UTC)
        listed = await self.leases.list(LEASE_NAMESPACE, ListOptions())
        for item in listed.items:
            lease = item.obj
            meta = lease.get("metadata") or {}
            if (meta.get("labels") or {}).get(IDENTITY_LABEL) != KUBE_APISERVER or not _expired(lease, now):
                continue
            try:
                await self.leases.delete(LEASE_NAMESPACE, meta.get("name", ""), DeleteOptions())
            except errors.StatusError as e:
                if e.code != 404:
                    raise

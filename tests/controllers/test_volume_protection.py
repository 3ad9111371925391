"""The pvc-protection and pv-protection controllers: upstream's podUsesPVC and isPodTerminated, and the
controllers on the real SQLite storage and watch caches (a claim goes once no scheduled pod uses it, a volume
once it is not Bound; one without the finalizer gets it)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from kube_apiserver.admission.plugins.storage_object_in_use_protection import (
    PV_PROTECTION_FINALIZER,
    PVC_PROTECTION_FINALIZER,
)
from kube_apiserver.apis.core.persistentvolume_strategy import PersistentVolumeStrategy
from kube_apiserver.apis.core.pod_strategy import PodStrategy
from kube_apiserver.apis.core.resources import RESOURCES as CORE
from kube_apiserver.apis.scheme import build_scheme
from kube_apiserver.controllers.pv_protection import PVProtectionController
from kube_apiserver.controllers.pvc_protection import (
    PVCProtectionController,
    claims_of,
    is_pod_terminated,
    pod_uses_pvc,
)
from kube_apiserver.registry.store import DeleteOptions, Store, key_root
from kube_apiserver.registry.strategy import RESTStrategy
from kube_apiserver.runtime import errors
from kube_apiserver.storage.cacher.cacher import Cacher
from kube_apiserver.storage.sqlite.store import SQLiteStorage

POD_UID = "0b0e6a1e-0000-4000-8000-000000000001"


def pod(*volumes: dict, node: str = "n1", phase: str = "Running", **meta: Any) -> dict:
    spec: dict[str, Any] = {"volumes": list(volumes)}
    if node:
        spec["nodeName"] = node
    return {
        "metadata": {"name": "p", "namespace": "ns", "uid": POD_UID, **meta},
        "spec": spec,
        "status": {"phase": phase},
    }


def claim_volume(name: str) -> dict:
    return {"name": "v", "persistentVolumeClaim": {"claimName": name}}


def ephemeral_volume(name: str = "scratch") -> dict:
    return {"name": name, "ephemeral": {"volumeClaimTemplate": {"spec": {}}}}


def pvc(name: str, owner_uid: str | None = None) -> dict:
    meta: dict[str, Any] = {"name": name, "namespace": "ns"}
    if owner_uid:
        meta["ownerReferences"] = [
            {"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": owner_uid, "controller": True}
        ]
    return {"metadata": meta}


def test_only_a_scheduled_pod_uses_its_claims():
    assert pod_uses_pvc(pod(claim_volume("data")), pvc("data"))
    assert not pod_uses_pvc(pod(claim_volume("data"), node=""), pvc("data"))
    assert not pod_uses_pvc(pod(claim_volume("other")), pvc("data"))


def test_a_finished_pod_still_uses_its_claim():
    # upstream's podUsesPVC does not look at the phase for persistentVolumeClaim volumes
    for phase in ("Succeeded", "Failed"):
        assert pod_uses_pvc(pod(claim_volume("data"), phase=phase), pvc("data"))


def test_ephemeral_claims_are_used_while_the_pod_controls_them_and_runs():
    used = pod(ephemeral_volume())
    assert pod_uses_pvc(used, pvc("p-scratch", owner_uid=POD_UID))
    assert not pod_uses_pvc(used, pvc("p-scratch"))  # not the claim made for it
    assert not pod_uses_pvc(used, pvc("p-scratch", owner_uid="another"))
    shut_down = pod(ephemeral_volume(), deletionTimestamp="2025-01-01T00:00:00Z", deletionGracePeriodSeconds=0)
    assert not pod_uses_pvc(shut_down, pvc("p-scratch", owner_uid=POD_UID))
    graceful = pod(ephemeral_volume(), deletionTimestamp="2025-01-01T00:00:00Z", deletionGracePeriodSeconds=30)
    assert pod_uses_pvc(graceful, pvc("p-scratch", owner_uid=POD_UID))


def test_claims_of_a_pod():
    assert claims_of(pod(claim_volume("data"), ephemeral_volume(), {"name": "e", "emptyDir": {}})) == [
        "data",
        "p-scratch",
    ]


def test_is_pod_terminated():
    assert is_pod_terminated(pod(phase="Succeeded")) and is_pod_terminated(pod(phase="Failed"))
    assert not is_pod_terminated(pod(phase="Running"))
    deleting = pod(phase="Running", deletionTimestamp="2025-01-01T00:00:00Z")
    assert is_pod_terminated(deleting)  # no container reported running
    deleting["status"]["containerStatuses"] = [{"name": "c", "state": {"running": {}}}]
    assert not is_pod_terminated(deleting)
    deleting["status"]["containerStatuses"] = [{"name": "c", "state": {"terminated": {"exitCode": 0}}}]
    deleting["status"]["initContainerStatuses"] = [{"name": "i", "state": {"waiting": {}}}]
    assert is_pod_terminated(deleting)


# --- the controllers on real stores ---

SPECS = {s.resource: s for s in CORE if s.resource in ("pods", "persistentvolumeclaims", "persistentvolumes")}
STRATEGIES = {"pods": PodStrategy, "persistentvolumes": PersistentVolumeStrategy}


def run(tmp_path: Any, body: Callable[[dict[str, Store]], Awaitable[None]]) -> None:
    async def main() -> None:
        sqlite = SQLiteStorage(str(tmp_path / "state.db"))
        await sqlite.start()
        scheme = build_scheme()
        cachers = []
        stores: dict[str, Store] = {}
        try:
            for resource, spec in SPECS.items():
                cacher = Cacher(sqlite, key_root(spec))
                await cacher.start()
                cachers.append(cacher)
                stores[resource] = Store(spec, cacher, STRATEGIES.get(resource, RESTStrategy)(spec, scheme))
            await PVCProtectionController(stores["persistentvolumeclaims"], stores["pods"]).start()
            await PVProtectionController(stores["persistentvolumes"]).start()
            await asyncio.wait_for(body(stores), 30)
        finally:
            for c in cachers:
                await c.close()
            await sqlite.close()

    asyncio.run(main())


async def eventually(check: Callable[[], Awaitable[bool]], timeout: float = 5.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not await check():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.02)


async def gone(store: Store, namespace: str, name: str) -> bool:
    try:
        await store.get(namespace, name)
    except errors.StatusError as e:
        return e.code == 404
    return False


def new_claim(name: str, finalizers: list[str] | None = None) -> dict:
    meta: dict[str, Any] = {"name": name}
    if finalizers is not None:
        meta["finalizers"] = finalizers
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": meta,
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
    }


def new_pod(name: str, claim: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {
            "nodeName": "n1",
            "containers": [{"name": "c", "image": "busybox"}],
            "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": claim}}],
        },
    }


def test_claim_goes_once_its_pod_is_gone(tmp_path):
    async def body(stores: dict[str, Store]) -> None:
        claims, pods = stores["persistentvolumeclaims"], stores["pods"]
        await claims.create("ns", new_claim("data", [PVC_PROTECTION_FINALIZER]))
        await pods.create("ns", new_pod("user", "data"))
        await claims.delete("ns", "data", DeleteOptions())
        await asyncio.sleep(0.3)
        held = (await claims.get("ns", "data")).obj["metadata"]
        assert held["deletionTimestamp"] and held["finalizers"] == [PVC_PROTECTION_FINALIZER]
        await pods.delete("ns", "user", DeleteOptions(grace_period_seconds=0))
        await eventually(lambda: gone(claims, "ns", "data"))

    run(tmp_path, body)


def test_missing_finalizers_are_added(tmp_path):
    async def body(stores: dict[str, Store]) -> None:
        claims, volumes = stores["persistentvolumeclaims"], stores["persistentvolumes"]
        await claims.create("ns", new_claim("bare", ["example.com/keep"]))
        pv = {
            "apiVersion": "v1",
            "kind": "PersistentVolume",
            "metadata": {"name": "v"},
            "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/x"}},
        }
        await volumes.create("", pv)

        async def protected() -> bool:
            c = (await claims.get("ns", "bare")).obj["metadata"].get("finalizers")
            v = (await volumes.get("", "v")).obj["metadata"].get("finalizers")
            return c == ["example.com/keep", PVC_PROTECTION_FINALIZER] and v == [PV_PROTECTION_FINALIZER]

        await eventually(protected)
        # the volume, not bound, goes when deleted
        await volumes.delete("", "v", DeleteOptions())
        await eventually(lambda: gone(volumes, "", "v"))

    run(tmp_path, body)


def test_switched_off_by_their_kube_controller_manager_names():
    from kube_apiserver.controlplane.instance import _volume_protection_controllers

    stores: Any = {
        ("", "v1", "persistentvolumeclaims"): object(),
        ("", "v1", "pods"): object(),
        ("", "v1", "persistentvolumes"): object(),
    }
    kinds = [type(c) for c in _volume_protection_controllers(stores, frozenset())]
    assert kinds == [PVCProtectionController, PVProtectionController]
    off = frozenset({"persistentvolumeclaim-protection-controller", "persistentvolume-protection-controller"})
    assert _volume_protection_controllers(stores, off) == []

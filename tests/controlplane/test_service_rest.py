"""The Service REST on the real SQLite storage and watch caches: allocation under concurrent creates,
no leak when a write fails, dry runs, type changes, deletion (also by finalizer removal), the
IPAddress objects, and the state rebuilt after a restart."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from kube_apiserver.apis.core.resources import RESOURCES as CORE
from kube_apiserver.apis.networking.resources import RESOURCES as NETWORKING
from kube_apiserver.apis.scheme import build_scheme
from kube_apiserver.controlplane.service_rest import IPADDRESSES, ServiceREST
from kube_apiserver.registry.store import DeleteOptions, Store, key_root
from kube_apiserver.registry.strategy import RESTStrategy
from kube_apiserver.runtime import errors
from kube_apiserver.storage.cacher.cacher import Cacher
from kube_apiserver.storage.sqlite.store import SQLiteStorage

SVC_SPEC = next(s for s in CORE if s.resource == "services")
IP_SPEC = next(s for s in NETWORKING if s.resource == "ipaddresses")


class Env:
    def __init__(self, rest: ServiceREST, ips: Store) -> None:
        self.rest = rest
        self.ips = ips

    @property
    def alloc(self) -> Any:
        return self.rest.allocators()

    async def ipaddresses(self) -> dict[str, dict[str, Any]]:
        await self.ips.storage.wait_fresh()
        return {o.obj["metadata"]["name"]: o.obj for o in self.ips.storage.objects.values()}


def run(
    tmp_path: Any, body: Callable[..., Awaitable[None]], *, ports: tuple[int, int] = (30000, 30099), restarts: int = 0
) -> None:
    """Run body(env) on fresh stores; with restarts, body(env, reopen) where reopen() gives a new Env
    on the same database (a server restart)."""

    async def main() -> None:
        sqlite = SQLiteStorage(str(tmp_path / "state.db"))
        await sqlite.start()
        cachers: list[Cacher] = []

        async def open_env() -> Env:
            svc_cacher, ip_cacher = Cacher(sqlite, key_root(SVC_SPEC)), Cacher(sqlite, key_root(IP_SPEC))
            await svc_cacher.start()
            await ip_cacher.start()
            cachers.extend((svc_cacher, ip_cacher))
            scheme = build_scheme()
            stores: dict[tuple[str, str, str], Store] = {}
            stores[IPADDRESSES] = Store(IP_SPEC, ip_cacher, RESTStrategy(IP_SPEC, scheme))
            rest = ServiceREST(
                SVC_SPEC,
                svc_cacher,
                scheme,
                service_cluster_ip_range="10.0.0.0/24",
                service_node_port_range=ports,
                stores=stores,
            )
            stores[("", "v1", "services")] = rest
            return Env(rest, stores[IPADDRESSES])

        try:
            env = await open_env()
            coro = body(env, open_env) if restarts else body(env)
            await asyncio.wait_for(coro, 60)
        finally:
            for c in cachers:
                await c.close()
            await sqlite.close()

    asyncio.run(main())


def svc(name: str, type_: str = "ClusterIP", **spec: Any) -> dict[str, Any]:
    spec.setdefault("ports", [{"port": 80}])
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name}, "spec": {"type": type_, **spec}}


def set_type(type_: str, **extra: Any) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def fn(obj: dict[str, Any]) -> dict[str, Any]:
        obj["spec"]["type"] = type_
        obj["spec"].update(extra)
        return obj

    return fn


def test_concurrent_creates_get_distinct_ips_and_ports(tmp_path):
    async def body(env: Env) -> None:
        created = await asyncio.gather(*(env.rest.create(f"ns{i % 3}", svc(f"s{i}", "NodePort")) for i in range(60)))
        ips = [c.obj["spec"]["clusterIP"] for c in created]
        ports = [c.obj["spec"]["ports"][0]["nodePort"] for c in created]
        assert len(set(ips)) == 60 and len(set(ports)) == 60
        assert all(30000 <= p <= 30099 for p in ports)
        ipas = await env.ipaddresses()
        assert set(ipas) == set(ips)
        for c in created:
            meta = c.obj["metadata"]
            parent = ipas[c.obj["spec"]["clusterIP"]]["spec"]["parentRef"]
            assert parent == {"resource": "services", "namespace": meta["namespace"], "name": meta["name"]}

    run(tmp_path, body)


def test_a_failed_create_leaks_nothing(tmp_path):
    async def body(env: Env) -> None:
        # Allocation succeeds, then validation fails: the IP and the port go back.
        bad = svc("Bad_Name", "NodePort", ports=[{"port": 80, "nodePort": 30005}], clusterIP="10.0.0.20")
        with pytest.raises(errors.StatusError) as e:
            await env.rest.create("default", bad)
        assert e.value.code == 422 and e.value.message.startswith('Service "Bad_Name" is invalid: metadata.name')
        assert env.alloc.node_ports.used == set() and env.alloc.ip_allocators["IPv4"].owners == {}
        # Storage refuses the write (the name is taken): same.
        await env.rest.create("default", svc("a", "NodePort", ports=[{"port": 80, "nodePort": 30001}]))
        with pytest.raises(errors.StatusError) as e:
            await env.rest.create("default", svc("a", "NodePort", ports=[{"port": 80, "nodePort": 30002}]))
        assert e.value.code == 409
        assert env.alloc.node_ports.used == {30001} and len(env.alloc.ip_allocators["IPv4"].owners) == 1
        assert len(await env.ipaddresses()) == 1

    run(tmp_path, body)


def test_exhausted_node_port_range_is_a_500_and_releases_the_ip(tmp_path):
    async def body(env: Env) -> None:
        for name in ("a", "b", "c"):
            await env.rest.create("default", svc(name, "NodePort"))
        with pytest.raises(errors.StatusError) as e:
            await env.rest.create("default", svc("d", "NodePort"))
        assert e.value.code == 500
        assert e.value.message == "Internal error occurred: failed to allocate a nodePort: range is full"
        assert len(env.alloc.ip_allocators["IPv4"].owners) == 3

    run(tmp_path, body, ports=(30000, 30002))


def test_dry_run_reserves_nothing(tmp_path):
    async def body(env: Env) -> None:
        out = await env.rest.create(
            "default", svc("a", "NodePort", ports=[{"name": "a", "port": 80}, {"name": "b", "port": 81}]), dry_run=True
        )
        spec = out.obj["spec"]
        assert spec["clusterIP"] == "10.0.0.0" and spec["clusterIPs"] == ["10.0.0.0"]
        assert [p["nodePort"] for p in spec["ports"]] == [32769, 32770]
        assert spec["ipFamilies"] == ["IPv4"] and spec["ipFamilyPolicy"] == "SingleStack"
        assert env.alloc.node_ports.used == set() and env.alloc.ip_allocators["IPv4"].owners == {}
        assert await env.ipaddresses() == {}
        await env.rest.create("default", svc("b", "NodePort", ports=[{"port": 80, "nodePort": 30007}]))
        # A dry-run update that would free the port frees nothing.
        await env.rest.patch("default", "b", set_type("ClusterIP"), dry_run=True)
        assert env.alloc.node_ports.used == {30007}

    run(tmp_path, body)


def test_type_changes_allocate_and_release(tmp_path):
    async def body(env: Env) -> None:
        created = await env.rest.create("default", svc("a", "ExternalName", ports=[], externalName="example.com"))
        assert "clusterIP" not in created.obj["spec"] and "ipFamilies" not in created.obj["spec"]
        assert await env.ipaddresses() == {}
        out = (await env.rest.patch("default", "a", set_type("NodePort", ports=[{"port": 80}]))).obj["spec"]
        ip, port = out["clusterIP"], out["ports"][0]["nodePort"]
        assert out["clusterIPs"] == [ip] and env.alloc.node_ports.used == {port}
        assert out["externalTrafficPolicy"] == "Cluster"
        assert set(await env.ipaddresses()) == {ip}
        out = (await env.rest.patch("default", "a", set_type("ClusterIP"))).obj["spec"]
        assert "nodePort" not in out["ports"][0] and "externalTrafficPolicy" not in out
        assert out["clusterIP"] == ip and env.alloc.node_ports.used == set()
        out = (await env.rest.patch("default", "a", set_type("ExternalName"))).obj["spec"]
        assert "clusterIP" not in out and "clusterIPs" not in out and "ipFamilyPolicy" not in out
        assert env.alloc.ip_allocators["IPv4"].owners == {} and await env.ipaddresses() == {}

    run(tmp_path, body)


def test_update_keeps_allocated_values_and_refuses_changes(tmp_path):
    async def body(env: Env) -> None:
        created = await env.rest.create("default", svc("a", "NodePort", ports=[{"name": "http", "port": 80}]))
        spec = created.obj["spec"]
        # A PUT of the original manifest, without what was allocated, keeps it.
        out, _ = await env.rest.update("default", "a", svc("a", "NodePort", ports=[{"name": "http", "port": 80}]))
        assert out.obj["spec"]["clusterIPs"] == spec["clusterIPs"]
        assert out.obj["spec"]["ports"][0]["nodePort"] == spec["ports"][0]["nodePort"]

        def change_ip(obj: dict[str, Any]) -> dict[str, Any]:
            # a lower-band IP (.1-.16 of the /24): a's random clusterIP, from the upper band, is never it
            obj["spec"]["clusterIP"] = "10.0.0.9"
            return obj

        with pytest.raises(errors.StatusError) as e:
            await env.rest.patch("default", "a", change_ip)
        assert e.value.message == (
            'Service "a" is invalid: spec.clusterIPs[0]: Invalid value: []string{"10.0.0.9"}: may not change once set'
        )
        assert not env.alloc.ip_allocators["IPv4"].has("10.0.0.9")
        # A PUT of a missing Service creates it, with allocations.
        out, created_now = await env.rest.update("default", "new", svc("new", "NodePort"))
        assert created_now and out.obj["spec"]["clusterIP"] and out.obj["spec"]["ports"][0]["nodePort"]

    run(tmp_path, body)


def test_delete_and_finalizer_removal_release(tmp_path):
    async def body(env: Env) -> None:
        a = (await env.rest.create("default", svc("a", "NodePort"))).obj["spec"]
        await env.rest.delete("default", "a", DeleteOptions())
        assert env.alloc.node_ports.used == set() and await env.ipaddresses() == {}
        held = svc(
            "b", "NodePort", ports=[{"port": 80, "nodePort": a["ports"][0]["nodePort"]}], clusterIP=a["clusterIP"]
        )
        held["metadata"]["finalizers"] = ["example.com/hold"]
        await env.rest.create("default", held)
        res = await env.rest.delete("default", "b", DeleteOptions())
        assert not res.deleted and env.alloc.node_ports.used == {a["ports"][0]["nodePort"]}

        def unhold(obj: dict[str, Any]) -> dict[str, Any]:
            obj["metadata"]["finalizers"] = []
            return obj

        await env.rest.patch("default", "b", unhold)
        assert env.alloc.node_ports.used == set() and env.alloc.ip_allocators["IPv4"].owners == {}
        assert await env.ipaddresses() == {}

    run(tmp_path, body)


def test_foreign_ipaddress_blocks_its_ip(tmp_path):
    async def body(env: Env) -> None:
        ipa = {
            "apiVersion": "networking.k8s.io/v1",
            "kind": "IPAddress",
            "metadata": {"name": "10.0.0.30"},
            "spec": {"parentRef": {"resource": "gateways", "name": "gw", "namespace": "default"}},
        }
        await env.ips.create("", ipa)
        with pytest.raises(errors.StatusError) as e:
            await env.rest.create("default", svc("a", clusterIP="10.0.0.30"))
        assert "failed to allocate IP 10.0.0.30: provided IP is already allocated" in e.value.message
        assert (await env.ipaddresses())["10.0.0.30"]["spec"]["parentRef"]["resource"] == "gateways"

    run(tmp_path, body)


def test_restart_rebuilds_allocations_and_repairs_ipaddresses(tmp_path):
    async def body(env: Env, reopen: Callable[[], Awaitable[Env]]) -> None:
        a = (await env.rest.create("default", svc("a", "NodePort"))).obj["spec"]
        b = (await env.rest.create("default", svc("b", clusterIP="10.0.0.14"))).obj["spec"]
        # An IPAddress lost (deleted by hand) and a stale one left behind. The stale one is in the
        # lower band of the /24 (.1-.16), which random allocation uses only once the upper band is full:
        # a's random clusterIP can never be it.
        await env.ips.delete("", "10.0.0.14", DeleteOptions())
        stale = {
            "apiVersion": "networking.k8s.io/v1",
            "kind": "IPAddress",
            "metadata": {
                "name": "10.0.0.12",
                "labels": {
                    "ipaddress.kubernetes.io/ip-family": "IPv4",
                    "ipaddress.kubernetes.io/managed-by": "ipallocator.k8s.io",
                },
            },
            "spec": {"parentRef": {"resource": "services", "namespace": "default", "name": "gone"}},
        }
        await env.ips.create("", stale)
        env2 = await reopen()
        assert env2.alloc.node_ports.used == {a["ports"][0]["nodePort"]}
        assert set(env2.alloc.ip_allocators["IPv4"].owners) == {a["clusterIP"], b["clusterIP"]}
        with pytest.raises(errors.StatusError) as e:
            await env2.rest.create(
                "default", svc("c", "NodePort", ports=[{"port": 80, "nodePort": a["ports"][0]["nodePort"]}])
            )
        assert "provided port is already allocated" in e.value.message
        assert set(await env2.ipaddresses()) == {a["clusterIP"], "10.0.0.14"}

    run(tmp_path, body, restarts=1)

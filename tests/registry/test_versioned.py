"""A Store serving a version other than the storage version (registry/versioned.py), on the real SQLite
storage and watch cache: writes are stored in the storage version, reads, selectors and watch events
are in the served version, conversions are made once and shared, and the storage version's own path
is the cacher's, untouched."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
import pytest

from kube_apiserver.apis.autoscaling.conversion import CONVERTERS as AUTOSCALING
from kube_apiserver.apis.autoscaling.resources import RESOURCES as HPA_SPECS
from kube_apiserver.apis.core.conversion import CONVERTERS as CORE
from kube_apiserver.apis.events.conversion import CONVERTERS as EVENTS
from kube_apiserver.registry.resource_spec import ResourceSpec
from kube_apiserver.registry.store import DeleteOptions, Store, key_root
from kube_apiserver.registry.strategy import RESTStrategy
from kube_apiserver.registry.versioned import VersionedStorage
from kube_apiserver.runtime.scheme import Scheme
from kube_apiserver.storage.cacher.cacher import Cacher
from kube_apiserver.storage.interface import ADDED, DELETED, MODIFIED, ListOptions
from kube_apiserver.storage.sqlite.store import SQLiteStorage

V2_SPEC = next(s for s in HPA_SPECS if s.version == "v2")
V1_SPEC = next(s for s in HPA_SPECS if s.version == "v1")


def conversion_scheme() -> Scheme:
    scheme = Scheme()
    for group, table in (("autoscaling", AUTOSCALING), ("", CORE), ("events.k8s.io", EVENTS)):
        for ((version, kind), to), fn in table.items():
            scheme.add_converter((group, version, kind), to, fn)
    return scheme


def hpa_v1(name: str, cpu: int = 60, **labels: str) -> dict[str, Any]:
    return {
        "apiVersion": "autoscaling/v1",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name, "labels": dict(labels)},
        "spec": {
            "scaleTargetRef": {"kind": "Deployment", "name": "web", "apiVersion": "apps/v1"},
            "minReplicas": 1,
            "maxReplicas": 5,
            "targetCPUUtilizationPercentage": cpu,
        },
    }


class Pair:
    """The v2 (storage) and v1 Stores of one HPA storage."""

    def __init__(self, cacher: Cacher, scheme: Scheme) -> None:
        self.cacher = cacher
        self.view = VersionedStorage(cacher, "autoscaling/v1", "autoscaling/v2", scheme)
        self.v2 = Store(V2_SPEC, cacher, RESTStrategy(V2_SPEC, scheme))
        self.v1 = Store(V1_SPEC, self.view, RESTStrategy(V1_SPEC, scheme))


def run(tmp_path: Any, body: Callable[[Pair], Awaitable[None]]) -> None:
    async def main() -> None:
        sqlite = SQLiteStorage(str(tmp_path / "state.db"))
        await sqlite.start()
        cacher = Cacher(sqlite, key_root(V2_SPEC))
        await cacher.start()
        try:
            await asyncio.wait_for(body(Pair(cacher, conversion_scheme())), 30)
        finally:
            await cacher.close()
            await sqlite.close()

    asyncio.run(main())


async def next_events(watcher: Any, n: int) -> list[Any]:
    return [await asyncio.wait_for(watcher.queue.get(), 5) for _ in range(n)]


def test_write_as_v1_is_stored_as_v2_and_read_in_both(tmp_path):
    async def body(p: Pair) -> None:
        created = await p.v1.create("default", hpa_v1("a"))
        assert created.obj["apiVersion"] == "autoscaling/v1"
        assert created.obj["spec"]["targetCPUUtilizationPercentage"] == 60
        assert orjson.loads(created.raw) == created.obj
        stored = p.cacher.storage  # the bytes in the database are autoscaling/v2
        raw = (await stored.get(p.v1.key("default", "a"))).obj
        assert raw["apiVersion"] == "autoscaling/v2"
        assert raw["spec"]["metrics"] == [
            {
                "type": "Resource",
                "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}},
            }
        ]
        as_v2 = await p.v2.get("default", "a")
        meta1, meta2 = created.obj["metadata"], as_v2.obj["metadata"]
        for k in ("uid", "resourceVersion", "creationTimestamp"):
            assert meta1[k] == meta2[k]
        assert "generation" not in meta1 and "generation" not in meta2  # an HPA has none (1.33)
        assert as_v2.revision == created.revision

    run(tmp_path, body)


def test_storage_version_reads_are_the_cached_bytes_and_served_ones_are_converted_once(tmp_path):
    async def body(p: Pair) -> None:
        await p.v1.create("default", hpa_v1("a"))
        key = p.v1.key("default", "a")
        await p.cacher.wait_fresh()
        assert p.v2.storage.get_cached(key) is p.cacher.objects[key]  # the fast path: no conversion
        first = p.view.get_cached(key)
        assert first is p.view.get_cached(key)  # the served form is made once per stored state
        assert (await p.v1.get("default", "a")) is first
        listed = p.view.list_cached(p.v1.list_prefix("default"), ListOptions())
        assert listed.items == [first] and listed.items[0] is first

    run(tmp_path, body)


def test_update_through_v1_keeps_v2_only_fields(tmp_path):
    async def body(p: Pair) -> None:
        obj = {
            "apiVersion": "autoscaling/v2",
            "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "b"},
            "spec": {
                "scaleTargetRef": {"kind": "Deployment", "name": "web"},
                "minReplicas": 1,
                "maxReplicas": 5,
                "metrics": [
                    {
                        "type": "Pods",
                        "pods": {"metric": {"name": "pps"}, "target": {"type": "AverageValue", "averageValue": "1k"}},
                    }
                ],
                "behavior": {"scaleDown": {"stabilizationWindowSeconds": 30}},
            },
        }
        await p.v2.create("default", obj)
        as_v1 = (await p.v1.get("default", "b")).obj
        assert "autoscaling.alpha.kubernetes.io/metrics" in as_v1["metadata"]["annotations"]
        as_v1["spec"]["maxReplicas"] = 9
        updated, created = await p.v1.update("default", "b", orjson.loads(orjson.dumps(as_v1)))
        assert not created and updated.obj["spec"]["maxReplicas"] == 9
        v2 = (await p.v2.get("default", "b")).obj
        assert v2["spec"]["maxReplicas"] == 9
        assert v2["spec"]["metrics"] == obj["spec"]["metrics"]
        assert v2["spec"]["behavior"] == obj["spec"]["behavior"]
        assert "annotations" not in v2["metadata"]
        assert "generation" not in v2["metadata"]

    run(tmp_path, body)


def test_an_unchanged_update_through_v1_writes_nothing(tmp_path):
    async def body(p: Pair) -> None:
        created = await p.v1.create("default", hpa_v1("c"))
        again, _ = await p.v1.update("default", "c", orjson.loads(created.raw))
        assert again.revision == created.revision
        assert again is p.view.get_cached(p.v1.key("default", "c"))

    run(tmp_path, body)


def test_patch_applies_to_the_served_version(tmp_path):
    async def body(p: Pair) -> None:
        await p.v1.create("default", hpa_v1("d"))

        def patch(obj: dict[str, Any]) -> dict[str, Any]:
            assert obj["apiVersion"] == "autoscaling/v1"
            obj["spec"]["targetCPUUtilizationPercentage"] = 35
            return obj

        patched = await p.v1.patch("default", "d", patch)
        assert patched.obj["spec"]["targetCPUUtilizationPercentage"] == 35
        metrics = (await p.v2.get("default", "d")).obj["spec"]["metrics"]
        assert metrics[0]["resource"]["target"]["averageUtilization"] == 35

    run(tmp_path, body)


def test_watch_events_are_converted_once_per_version_and_selected_in_it(tmp_path):
    async def body(p: Pair) -> None:
        def cpu_60(obj: dict[str, Any]) -> bool:  # a field only the v1 shape has
            return (obj.get("spec") or {}).get("targetCPUUtilizationPercentage") == 60

        w1a, _ = await p.v1.watch("default", None, None)
        w1b, _ = await p.v1.watch("default", None, None)
        w1sel, _ = await p.v1.watch("default", None, cpu_60)
        w2, _ = await p.v2.watch("default", None, None)
        await p.v1.create("default", hpa_v1("e", cpu=60))
        await p.v1.create("default", hpa_v1("f", cpu=70))
        (a1, a2), (b1, b2), (s1,), (c1, c2) = await asyncio.gather(
            next_events(w1a, 2), next_events(w1b, 2), next_events(w1sel, 1), next_events(w2, 2)
        )
        assert a1 is b1 and a2 is b2  # one converted event, frames and all, for every v1 watcher
        assert s1 is a1 and s1.object.obj["metadata"]["name"] == "e"
        assert a1.type == ADDED and a1.object.obj["apiVersion"] == "autoscaling/v1"
        assert c1.object.obj["apiVersion"] == "autoscaling/v2"
        assert c1 is p.cacher.history[-2]  # the storage version's watchers get the cacher's own event
        assert a1.object.revision == c1.object.revision

        # Leaving the v1 selection is a DELETED for that watcher.
        def to_50(obj: dict[str, Any]) -> dict[str, Any]:
            obj["spec"]["targetCPUUtilizationPercentage"] = 50
            return obj

        await p.v1.patch("default", "e", to_50)
        (m,) = await next_events(w1a, 1)
        (gone,) = await next_events(w1sel, 1)
        assert m.type == MODIFIED and m.prev is not None
        assert m.prev.obj["spec"]["targetCPUUtilizationPercentage"] == 60
        assert gone.type == DELETED and gone.object.obj["spec"]["targetCPUUtilizationPercentage"] == 60
        assert gone.object.obj["apiVersion"] == "autoscaling/v1"
        for w in (w1a, w1b, w1sel, w2):
            w.stop()
        assert p.view.watchers == set()

    run(tmp_path, body)


def test_watch_from_a_resource_version_replays_history_in_the_served_version(tmp_path):
    async def body(p: Pair) -> None:
        first = await p.v2.create(
            "default",
            {
                "apiVersion": "autoscaling/v2",
                "kind": "HorizontalPodAutoscaler",
                "metadata": {"name": "g"},
                "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 3},
            },
        )
        await p.v2.delete("default", "g", DeleteOptions())
        _, initial = await p.v1.watch("default", first.revision - 1, None)
        assert [(e.type, e.object.obj["apiVersion"]) for e in initial] == [
            (ADDED, "autoscaling/v1"),
            (DELETED, "autoscaling/v1"),
        ]
        assert initial[0].object.obj["spec"]["maxReplicas"] == 3
        assert initial[1].object.revision > first.revision

    run(tmp_path, body)


def test_list_at_an_old_revision_reads_the_storage_in_the_served_version(tmp_path):
    async def body(p: Pair) -> None:
        first = await p.v1.create("default", hpa_v1("h", cpu=60))
        await p.v1.create("default", hpa_v1("i", cpu=70))

        def cpu_60(obj: dict[str, Any]) -> bool:
            return (obj.get("spec") or {}).get("targetCPUUtilizationPercentage") == 60

        old = await p.view.get_list(p.v1.list_prefix("default"), ListOptions(revision=first.revision))
        assert [i.obj["metadata"]["name"] for i in old.items] == ["h"]
        assert old.items[0].obj["apiVersion"] == "autoscaling/v1"
        now = await p.view.storage.get_list(p.v1.list_prefix("default"), ListOptions(predicate=cpu_60))
        assert [i.obj["metadata"]["name"] for i in now.items] == ["h"]

    run(tmp_path, body)


def test_delete_through_v1_answers_in_v1(tmp_path):
    async def body(p: Pair) -> None:
        await p.v1.create("default", hpa_v1("j"))
        result = await p.v1.delete("default", "j", DeleteOptions())
        assert result.deleted and result.obj["apiVersion"] == "autoscaling/v1"
        assert p.cacher.get_cached(p.v1.key("default", "j")) is None

    run(tmp_path, body)


@pytest.mark.parametrize(
    ("spec_group", "resource", "storage_key", "root"),
    [
        ("events.k8s.io", "events", "events", "/registry/events/"),
        ("", "events", "", "/registry/events/"),
        ("autoscaling", "horizontalpodautoscalers", "", "/registry/autoscaling/horizontalpodautoscalers/"),
        ("extensions", "ingresses", "ingresses.networking.k8s.io", "/registry/networking.k8s.io/ingresses/"),
    ],
)
def test_key_root_of_cohabitating_resources(spec_group, resource, storage_key, root):
    assert key_root(ResourceSpec(spec_group, "v1", resource, "X", True, storage_key=storage_key)) == root

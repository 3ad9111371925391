"""Large lists written from the watch cache's joined runs (storage/cacher/joined_runs.py): whatever changed
between two lists (an object updated, deleted, or created between others, in one namespace or another),
every list, whole, by namespace or by page, holds each object as a GET returns it, for kubectl, the Python
client and raw HTTPS."""

from __future__ import annotations

import json
import uuid

import pytest
from e2e_helpers import without_root_ca

PAYLOAD = "r" * 1024


def _post_configmaps(server, ns: str, names: list[str]) -> None:
    for name in names:
        body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"v": PAYLOAD}}
        r = server.request("POST", f"/api/v1/namespaces/{ns}/configmaps", json=body)
        assert r.status_code == 201, r.text


def _get_list(server, path: str) -> dict:
    r = server.request("GET", path, headers={"Accept": "application/json"})
    assert r.status_code == 200, r.text
    # the whole body is known before it is written: its length is sent
    assert int(r.headers["Content-Length"]) == len(r.content) > 64 * 1024
    return r.json()


def _as_got(server, ns: str, resource_path: str, names: list[str]) -> dict[str, dict]:
    out = {}
    for name in names:
        obj = server.request("GET", f"{resource_path}/{name}").json()
        obj.pop("kind"), obj.pop("apiVersion")
        out[name] = obj
    return out


@pytest.fixture
def two_namespaces(server, ns):
    other = f"{ns[:50]}-b"
    server.create_namespace(other)
    yield ns, other
    server.request("DELETE", f"/api/v1/namespaces/{other}")


def test_lists_follow_every_change_between_them(server, two_namespaces, core_v1):
    ns, other = two_namespaces
    names = [f"cm-{i:03}" for i in range(150)]
    _post_configmaps(server, ns, names)
    _post_configmaps(server, other, names)

    def check() -> None:
        expected = {n: _as_got(server, n, f"/api/v1/namespaces/{n}/configmaps", current[n]) for n in (ns, other)}
        everywhere = _get_list(server, "/api/v1/configmaps")
        assert everywhere["kind"] == "ConfigMapList"
        for n in (ns, other):
            # (each namespace also holds the kube-root-ca.crt its publisher puts there)
            mine = without_root_ca(i for i in everywhere["items"] if i["metadata"]["namespace"] == n)
            assert [i["metadata"]["name"] for i in mine] == current[n]
            assert {i["metadata"]["name"]: i for i in mine} == expected[n]
            listed = _get_list(server, f"/api/v1/namespaces/{n}/configmaps")["items"]
            assert [i for i in listed if i["metadata"]["name"].startswith("cm-")] == list(expected[n].values())
        # kubectl and the Python client read the same
        out = json.loads(server.kubectl("-n", ns, "get", "configmaps", "-o", "json").stdout)
        got = {i["metadata"]["name"]: i for i in out["items"] if i["metadata"]["name"].startswith("cm-")}
        assert list(got) == current[ns]
        assert all(
            got[k]["metadata"]["resourceVersion"] == v["metadata"]["resourceVersion"] for k, v in expected[ns].items()
        )
        items = core_v1.list_namespaced_config_map(other).items
        by_name = {i.metadata.name: i for i in items if i.metadata.name.startswith("cm-")}
        assert list(by_name) == current[other]
        assert {k: i.metadata.labels for k, i in by_name.items()} == {
            k: v["metadata"].get("labels") for k, v in expected[other].items()
        }
        # pages from any start: each item as it is now
        seen, token = [], ""
        while True:
            page = server.request(
                "GET", f"/api/v1/namespaces/{ns}/configmaps?limit=37" + (f"&continue={token}" if token else "")
            ).json()
            seen += [i["metadata"]["name"] for i in page["items"] if i["metadata"]["name"].startswith("cm-")]
            token = page["metadata"].get("continue", "")
            if not token:
                break
        assert seen == current[ns]

    current = {ns: list(names), other: list(names)}
    check()
    check()  # the second time from runs made by the first
    # an update in the middle, at the start and at the end; a delete; a create between two others
    server.kubectl("-n", ns, "label", "configmap", "cm-070", "changed=yes")
    server.kubectl("-n", ns, "label", "configmap", "cm-000", "changed=first")
    server.kubectl("-n", other, "annotate", "configmap", "cm-149", "changed=last")
    server.kubectl("-n", ns, "delete", "configmap", "cm-071")
    current[ns].remove("cm-071")
    _post_configmaps(server, ns, ["cm-0705"])
    current[ns].insert(current[ns].index("cm-070") + 1, "cm-0705")
    server.kubectl("-n", other, "delete", "configmap", "cm-100", "cm-101", "cm-102")
    for n in ("cm-100", "cm-101", "cm-102"):
        current[other].remove(n)
    check()
    # everything changes: no run is left whole
    for n in (ns, other):
        server.kubectl("-n", n, "label", "configmaps", "--all", f"round={uuid.uuid4().hex[:6]}")
    check()

"""Durability and process lifecycle: restarts keep every object, SIGKILL loses no acknowledged write, SIGTERM exits
promptly. Each test runs its own server."""

from __future__ import annotations

import gc
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import requests
from conftest import free_port
from e2e_helpers import wait_until


def _cm(name: str, data: dict | None = None) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data or {}}


def _admin_session(srv) -> requests.Session:
    """A keep-alive session of its own, as a long-lived client would hold."""
    s = requests.Session()
    s.trust_env = False
    s.verify = str(srv.ca_file)
    s.cert = (str(srv.cert_file), str(srv.key_file))
    return s


def _items(srv, path: str) -> dict[str, dict]:
    r = srv.request("GET", path)
    assert r.status_code == 200, r.text[:300]
    return {i["metadata"]["name"]: i for i in r.json()["items"]}


def test_restart_keeps_objects_and_resource_version_grows(server_factory):
    srv = server_factory()
    ca_before = srv.ca_file.read_bytes()
    srv.create_namespace("keep")
    base = "/api/v1/namespaces/keep/configmaps"
    for i in range(20):
        assert srv.request("POST", base, json=_cm(f"c{i:02d}", {"i": str(i)})).status_code == 201
    r = srv.request("PUT", f"{base}/c03", json=_cm("c03", {"i": "updated"}))
    assert r.status_code == 200, r.text
    assert srv.request("DELETE", f"{base}/c04").status_code == 200
    dep = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "d"},
        "spec": {
            "selector": {"matchLabels": {"a": "b"}},
            "template": {
                "metadata": {"labels": {"a": "b"}},
                "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]},
            },
        },
    }
    assert srv.request("POST", "/apis/apps/v1/namespaces/keep/deployments", json=dep).status_code == 201
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "data": {"k": "dmFsdWU="}}
    assert srv.request("POST", "/api/v1/namespaces/keep/secrets", json=secret).status_code == 201

    before_cms = _items(srv, base)
    before_deploy = srv.request("GET", "/apis/apps/v1/namespaces/keep/deployments/d").json()
    before_secret = srv.request("GET", "/api/v1/namespaces/keep/secrets/s").json()
    list_rv = int(srv.request("GET", base).json()["metadata"]["resourceVersion"])
    namespaces_before = set(_items(srv, "/api/v1/namespaces"))

    assert srv.stop() == 0
    srv.start()

    assert srv.ca_file.read_bytes() == ca_before, "the generated CA must survive a restart"
    after_cms = _items(srv, base)
    assert after_cms == before_cms
    assert "c04" not in after_cms and after_cms["c03"]["data"] == {"i": "updated"}
    assert srv.request("GET", "/apis/apps/v1/namespaces/keep/deployments/d").json() == before_deploy
    assert srv.request("GET", "/api/v1/namespaces/keep/secrets/s").json() == before_secret
    assert set(_items(srv, "/api/v1/namespaces")) == namespaces_before
    assert int(srv.request("GET", base).json()["metadata"]["resourceVersion"]) >= list_rv

    r = srv.request("POST", base, json=_cm("after-restart"))
    assert r.status_code == 201
    new_rv = int(r.json()["metadata"]["resourceVersion"])
    assert new_rv > list_rv
    assert new_rv > max(int(o["metadata"]["resourceVersion"]) for o in before_cms.values())
    # Updates after restart still honour optimistic concurrency against pre-restart versions.
    stale = before_cms["c05"]
    fresh = json.loads(json.dumps(stale))
    fresh["data"] = {"i": "after restart"}
    assert srv.request("PUT", f"{base}/c05", json=fresh).status_code == 200
    stale["data"] = {"i": "stale"}
    r = srv.request("PUT", f"{base}/c05", json=stale)
    assert r.status_code == 409 and r.json()["reason"] == "Conflict"

    # Watching from the pre-restart revision either replays what happened since or says 410: never silently skips.
    with srv.request("GET", f"{base}?watch=true&resourceVersion={list_rv}&timeoutSeconds=3", stream=True) as w:
        if w.status_code == 410:
            return
        assert w.status_code == 200
        events = []
        for line in w.iter_lines():
            if line:
                events.append(json.loads(line))
                if len(events) >= 3 or events[-1]["type"] == "ERROR":
                    break
    if events and events[0]["type"] == "ERROR":
        assert events[0]["object"]["code"] == 410
    else:
        assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [
            ("ADDED", "after-restart"),
            ("MODIFIED", "c05"),
        ], events


def test_kill_9_loses_no_acknowledged_write(server_factory):
    srv = server_factory()
    srv.create_namespace("crash")
    base = f"{srv.url}/api/v1/namespaces/crash/configmaps"
    acked: dict[str, int] = {}
    lock = threading.Lock()
    stop = threading.Event()
    errors: list[str] = []

    def writer(tid: int) -> None:
        s = _admin_session(srv)
        i = 0
        try:
            while not stop.is_set():
                name = f"w{tid}-{i}"
                i += 1
                try:
                    r = s.post(base, json=_cm(name, {"t": str(tid)}), timeout=5)
                except requests.RequestException:
                    if stop.is_set():
                        return
                    continue  # the server is going down; keep trying until told to stop
                if r.status_code == 201:
                    with lock:
                        acked[name] = int(r.json()["metadata"]["resourceVersion"])
                elif r.status_code != 201:
                    errors.append(f"{r.status_code} {r.text[:200]}")
        finally:
            s.close()

    threads = [threading.Thread(target=writer, args=(t,), daemon=True) for t in range(8)]
    started = time.monotonic()
    for t in threads:
        t.start()
    try:
        # Mid-stream: once writes are flowing (or after ~1 s), pull the plug.
        wait_until(lambda: len(acked) >= 80 or time.monotonic() - started > 1.0, timeout=10, message="writes")
        srv.proc.send_signal(signal.SIGKILL)
        srv.proc.wait(10)
        time.sleep(0.2)  # let in-flight client calls fail
    finally:
        stop.set()
        for t in threads:
            t.join(10)
    srv.kill()
    assert not errors, errors[:5]
    with lock:
        acked_now = dict(acked)
    assert len(acked_now) >= 20, f"only {len(acked_now)} writes acknowledged before the kill"

    srv.start()
    present = _items(srv, "/api/v1/namespaces/crash/configmaps")
    missing = sorted(set(acked_now) - set(present))
    assert not missing, f"{len(missing)} acknowledged writes lost after kill -9, e.g. {missing[:5]}"
    for name, rv in acked_now.items():
        assert int(present[name]["metadata"]["resourceVersion"]) == rv
    # The revision counter continues above everything that was acknowledged.
    r = srv.request("POST", "/api/v1/namespaces/crash/configmaps", json=_cm("after-crash"))
    assert r.status_code == 201
    assert int(r.json()["metadata"]["resourceVersion"]) > max(acked_now.values())


def test_sigterm_exits_cleanly(server_factory):
    srv = server_factory()
    srv.create_namespace("bye")
    started = time.monotonic()
    assert srv.stop() == 0
    assert time.monotonic() - started < 5


def test_sigterm_ends_open_watches(server_factory):
    srv = server_factory()
    session = _admin_session(srv)
    resp = session.get(f"{srv.url}/api/v1/namespaces?watch=true&timeoutSeconds=120", stream=True, timeout=30)
    assert resp.status_code == 200
    lines: list[bytes] = []
    done = threading.Event()

    def read():
        try:
            for line in resp.iter_lines():
                lines.append(line)
        except requests.RequestException:
            pass
        finally:
            # As a client does when its watch ends (leaving the connection idle is the keep-alive case below).
            resp.close()
            session.close()
            done.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    wait_until(lambda: len(lines) >= 4, timeout=10, message="the initial namespaces")
    started = time.monotonic()
    srv.proc.send_signal(signal.SIGTERM)
    assert done.wait(5), "the watch stream did not end on SIGTERM"
    # Sockets of finished responses stay open until the response objects are collected.
    resp = None
    gc.collect()
    try:
        srv.proc.wait(10)
    except subprocess.TimeoutExpired:
        srv.kill()
        raise
    assert srv.proc.returncode == 0
    elapsed = time.monotonic() - started
    assert elapsed < 5, f"server took {elapsed:.1f}s to exit after its watch ended"
    srv.kill()


def test_sigterm_with_idle_keepalive_connection_exits_promptly(server_factory):
    srv = server_factory()
    s = _admin_session(srv)
    try:
        assert s.get(f"{srv.url}/api/v1/namespaces", timeout=10).status_code == 200  # stays pooled, idle
        started = time.monotonic()
        srv.proc.send_signal(signal.SIGTERM)
        try:
            srv.proc.wait(15)
        except subprocess.TimeoutExpired:
            srv.kill()
            raise
        elapsed = time.monotonic() - started
    finally:
        s.close()
    srv.kill()
    assert elapsed < 5, f"server took {elapsed:.1f}s to exit with an idle keep-alive connection open"


def test_shutdown_delay_keeps_serving_with_readyz_failing(server_factory):
    """--shutdown-delay-duration: after SIGTERM the server goes on serving for the delay, /readyz failing its
    shutdown check (so a load balancer takes it out of rotation), and only then stops listening."""
    srv = server_factory("--shutdown-delay-duration=3s")
    s = _admin_session(srv)
    try:
        started = time.monotonic()
        srv.proc.send_signal(signal.SIGTERM)
        time.sleep(0.5)
        r = s.get(f"{srv.url}/readyz?verbose", timeout=5)
        assert r.status_code == 500 and "[-]shutdown failed: reason withheld" in r.text, r.text
        assert s.get(f"{srv.url}/api/v1/namespaces", timeout=5).status_code == 200
        assert srv.proc.wait(15) == 0
        assert time.monotonic() - started >= 2.5
    finally:
        s.close()
        srv.kill()


def _writer_pid(srv) -> int:
    """The server's SQLite writer process (its only child)."""
    children = Path(f"/proc/{srv.proc.pid}/task/{srv.proc.pid}/children").read_text().split()
    assert len(children) == 1, children
    return int(children[0])


def test_a_killed_storage_writer_is_replaced_and_no_write_is_lost(server_factory):
    """kill -9 of the SQLite writer process: the server starts another one, and kubectl goes on working.
    A write the kill cut short is answered 503 ServiceUnavailable, never 500, and every write that was
    answered 201 is there."""
    srv = server_factory()
    created = []
    for i in range(5):
        srv.kubectl("create", "configmap", f"before-{i}", "--from-literal=i=" + str(i))
        created.append(f"before-{i}")
    first = _writer_pid(srv)
    os.kill(first, signal.SIGKILL)
    wait_until(lambda: _writer_pid(srv) != first, message="a new writer")
    statuses = []
    for i in range(5):
        r = srv.request("POST", "/api/v1/namespaces/default/configmaps", json=_cm(f"after-{i}"))
        statuses.append(r.status_code)
        if r.status_code == 201:
            created.append(f"after-{i}")
        else:
            assert r.json()["reason"] == "ServiceUnavailable", r.text
    assert statuses[-1] == 201 and set(statuses) <= {201, 503}, statuses
    out = srv.kubectl("get", "configmaps", "-o", "name").stdout.split()
    assert {f"configmap/{n}" for n in created} <= set(out)
    srv.restart()
    out = srv.kubectl("get", "configmaps", "-o", "name").stdout.split()
    assert {f"configmap/{n}" for n in created} <= set(out)


def test_a_second_server_on_the_same_data_dir_exits_with_one_line(server_factory, tmp_path):
    """Two servers must never write one database: the second one says so and exits 1 (after waiting
    10 s, the time an orphaned writer of a killed server may need to finish its last transaction)."""
    srv = server_factory()
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "kube_apiserver",
            "--data-dir",
            str(srv.data_dir),
            "--secure-port",
            str(free_port()),
            "--bind-address",
            "127.0.0.1",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert res.returncode == 1, res.stderr
    db = srv.data_dir / "state.db"
    assert res.stderr.strip().splitlines()[-1] == (
        f"Error: {db} is in use by another kube-apiserver: its lock {db}.lock is held"
    )
    srv.kubectl("create", "configmap", "still-served")  # the first server is unaffected

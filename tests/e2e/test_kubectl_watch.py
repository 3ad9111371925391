"""kubectl get -w: the initial list, then one line per change, as users watch their objects."""

from __future__ import annotations

import subprocess

import pytest
import yaml
from e2e_helpers import LineReader


def _cm(name: str, data: dict | None = None) -> str:
    return yaml.safe_dump({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data or {}})


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def _cells(line: str) -> list[str]:
    return line.split()


@pytest.mark.parametrize("version", [None, "1.27"], ids=["kubectl-1.33", "kubectl-1.27"])
def test_get_watch_prints_changes(server, ns, version):
    server.kubectl("-n", ns, "create", "-f", "-", input=_cm("before", {"a": "1"}))
    proc = server.kubectl_popen("-n", ns, "get", "configmaps", "-w", "--request-timeout=60s", version=version)
    try:
        out = LineReader(proc.stdout)
        out.wait_for(lambda line: _cells(line)[:3] == ["NAME", "DATA", "AGE"], message="the header")
        out.wait_for(lambda line: _cells(line)[:2] == ["before", "1"], message="the existing object")

        server.kubectl("-n", ns, "create", "-f", "-", input=_cm("during", {"a": "1"}))
        out.wait_for(lambda line: _cells(line)[:2] == ["during", "1"], message="the created object")

        server.kubectl("-n", ns, "patch", "configmap", "during", "--type=merge", "-p", '{"data":{"b":"2"}}')
        out.wait_for(lambda line: _cells(line)[:2] == ["during", "2"], message="the modified object")

        server.kubectl("-n", ns, "delete", "configmap", "before")
        # kubectl prints the deleted object's last state too: a second "before" line.
        out.wait_for(
            lambda line: sum(_cells(x)[:1] == ["before"] for x in out.snapshot()) >= 2, message="the deleted object"
        )
        assert proc.poll() is None, proc.stderr.read()
        lines = out.snapshot()
        assert sum(1 for x in lines if x.startswith("NAME")) == 1, lines  # one header only
    finally:
        _stop(proc)


def test_get_watch_output_watch_events(server, ns):
    proc = server.kubectl_popen("-n", ns, "get", "configmaps", "-w", "--output-watch-events", "--request-timeout=60s")
    try:
        out = LineReader(proc.stdout)
        # With no objects the header comes with the first event.
        server.kubectl("-n", ns, "create", "-f", "-", input=_cm("ev", {"a": "1"}))
        out.wait_for(lambda line: _cells(line)[:3] == ["ADDED", "ev", "1"], message="ADDED")
        server.kubectl("-n", ns, "label", "configmap", "ev", "x=y")
        out.wait_for(lambda line: _cells(line)[:3] == ["MODIFIED", "ev", "1"], message="MODIFIED")
        server.kubectl("-n", ns, "delete", "configmap", "ev")
        out.wait_for(lambda line: _cells(line)[:3] == ["DELETED", "ev", "1"], message="DELETED")
        header = out.snapshot()[0]
        assert _cells(header)[:4] == ["EVENT", "NAME", "DATA", "AGE"], out.snapshot()
    finally:
        _stop(proc)


def test_get_watch_single_object_as_json(server, ns):
    server.kubectl("-n", ns, "create", "-f", "-", input=_cm("one", {"a": "1"}))
    proc = server.kubectl_popen("-n", ns, "get", "configmap", "one", "-w", "-o", 'jsonpath={.data}{"\\n"}')
    try:
        out = LineReader(proc.stdout)
        out.wait_for(lambda line: line == '{"a":"1"}', message="the initial state")
        server.kubectl("-n", ns, "patch", "configmap", "one", "--type=merge", "-p", '{"data":{"a":"2"}}')
        out.wait_for(lambda line: line == '{"a":"2"}', message="the patched state")
    finally:
        _stop(proc)


def test_get_watch_ends_at_request_timeout(server, ns):
    # --request-timeout bounds the watch: kubectl exits on its own.
    res = server.kubectl("-n", ns, "get", "configmaps", "-w", "--request-timeout=2s", timeout=30, check=False)
    assert res.returncode in (0, 1), res.stderr
    assert "panic" not in res.stderr

"""The audit backends: the log line formats, lumberjack-style rotation, truncation, batching."""

from __future__ import annotations

import gzip
import os
import re
import threading
import time

import orjson

from kube_apiserver.audit.backend import BatchConfig, BufferedBackend, TruncateBackend, TruncateConfig
from kube_apiserver.audit.log import LogBackend, event_string
from kube_apiserver.audit.rotate import MEGABYTE, RotatingFile
from kube_apiserver.audit.webhook import WebhookBackend, WebhookTarget

EVENT = {
    "level": "Metadata",
    "auditID": "0b8d5c39-3cc3-4b4c-9c39-9e2c5f1e3f0a",
    "stage": "ResponseComplete",
    "requestURI": "/api/v1/namespaces/default/pods?limit=500",
    "verb": "list",
    "user": {"username": "alice", "groups": ["dev", "system:authenticated"]},
    "impersonatedUser": {"username": "bob", "groups": ["system:authenticated"]},
    "sourceIPs": ["10.0.0.1", "127.0.0.1"],
    "userAgent": 'kubectl/v1.33.1 "quoted"',
    "objectRef": {"resource": "pods", "namespace": "default", "apiVersion": "v1"},
    "responseStatus": {"metadata": {}, "code": 200},
    "requestReceivedTimestamp": "2025-01-02T03:04:05.123450Z",
    "stageTimestamp": "2025-01-02T03:04:05.200000Z",
}


class Sink:
    def __init__(self) -> None:
        self.batches: list[list[dict]] = []

    def process_events(self, events):
        self.batches.append(list(events))
        return True

    def run(self) -> None:
        pass

    def shutdown(self) -> None:
        pass


def test_legacy_line(monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    assert event_string(EVENT) == (
        '2025-01-02T03:04:05.12345Z AUDIT: id="0b8d5c39-3cc3-4b4c-9c39-9e2c5f1e3f0a" stage="ResponseComplete" '
        'ip="10.0.0.1" method="list" user="alice" groups="\\"dev\\",\\"system:authenticated\\"" as="bob" '
        'asgroups="\\"system:authenticated\\"" user-agent="kubectl/v1.33.1 \\"quoted\\"" namespace="default" '
        'uri="/api/v1/namespaces/default/pods?limit=500" response="200"'
    )
    bare = {k: v for k, v in EVENT.items() if k not in ("impersonatedUser", "objectRef", "responseStatus")}
    bare["user"] = {}
    line = event_string(bare)
    assert 'user="<none>" groups="<none>" as="<self>" asgroups="<lookup>"' in line
    assert line.endswith('namespace="<none>" uri="/api/v1/namespaces/default/pods?limit=500" response="<deferred>"')


def test_json_line_has_type_meta_first(tmp_path):
    path = tmp_path / "audit.log"
    backend = LogBackend(RotatingFile(str(path)), "json", "audit.k8s.io/v1")
    assert backend.process_events([EVENT, EVENT]) is True
    lines = path.read_bytes().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(b'{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":')
    assert orjson.loads(lines[0]) == {"kind": "Event", "apiVersion": "audit.k8s.io/v1", **EVENT}
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"


def _backups(directory) -> list[str]:
    return sorted(p for p in os.listdir(directory) if p != "audit.log")


def _wait(predicate, timeout: float = 5.0):
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)
    return value


def test_rotation_by_size(tmp_path):
    path = tmp_path / "audit.log"
    f = RotatingFile(str(path), max_size=1, max_backups=2, compress=True)
    chunk = b"x" * (400 * 1024 - 1) + b"\n"
    for _ in range(2):
        f.write(chunk)
    assert _backups(tmp_path) == []
    f.write(chunk)  # would exceed 1 MiB: the file is rotated first
    assert path.stat().st_size == len(chunk)
    # the mill compresses the backup in the background
    (backup,) = _wait(
        lambda: [p for p in _backups(tmp_path) if p.endswith(".gz")] == _backups(tmp_path) and _backups(tmp_path)
    )
    assert re.fullmatch(r"audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log\.gz", backup), backup
    assert gzip.decompress((tmp_path / backup).read_bytes()) == chunk * 2
    # more backups than max_backups: the oldest go
    for _ in range(3):
        time.sleep(0.002)
        f._rotate()
    _wait(lambda: len(_backups(tmp_path)) == 2 and all(p.endswith(".gz") for p in _backups(tmp_path)))
    assert backup not in _backups(tmp_path)
    f.close()


def test_write_larger_than_max_fails(tmp_path):
    f = RotatingFile(str(tmp_path / "a.log"), max_size=1)
    try:
        f.write(b"x" * (MEGABYTE + 1))
    except ValueError as e:
        assert str(e) == f"write length {MEGABYTE + 1} exceeds maximum file size {MEGABYTE}"
    else:
        raise AssertionError("no error")


def test_existing_file_is_appended(tmp_path):
    path = tmp_path / "a.log"
    path.write_bytes(b"old\n")
    f = RotatingFile(str(path))
    f.write(b"new\n")
    f.close()
    assert path.read_bytes() == b"old\nnew\n"


def test_truncate():
    sink = Sink()
    big = {**EVENT, "level": "Request", "requestObject": {"data": "x" * 5000}, "annotations": {"a": "b"}}
    huge = {**EVENT, "level": "Metadata", "userAgent": "y" * 1000}
    backend = TruncateBackend(sink, TruncateConfig(max_batch_size=1300, max_event_size=1000), "log")
    backend.process_events([EVENT, big, huge, EVENT])
    flat = [ev for batch in sink.batches for ev in batch]
    assert len(flat) == 3  # the huge Metadata event has nothing to cut: dropped
    assert "requestObject" not in flat[1]
    assert flat[1]["annotations"] == {"a": "b", "audit.k8s.io/truncated": "true"}
    assert [len(b) for b in sink.batches] == [2, 1]  # split at max_batch_size bytes


def test_buffered_batches_and_flushes_on_shutdown():
    sink = Sink()
    backend = BufferedBackend(sink, BatchConfig(100, 3, 10.0, False, 0, 0, False), "webhook")
    backend.run()
    backend.process_events([{"auditID": str(i)} for i in range(7)])
    deadline = time.monotonic() + 5
    while sum(len(b) for b in sink.batches) < 6 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert [len(b) for b in sink.batches] == [3, 3]  # the 7th waits for more (max wait 10 s)...
    backend.shutdown()
    assert [len(b) for b in sink.batches] == [3, 3, 1]  # ...until the shutdown flushes it


def test_buffered_drops_when_full():
    sink = Sink()
    gate = threading.Event()

    class Slow(Sink):
        def process_events(self, events):
            gate.wait(5)
            return super().process_events(events)

    slow = Slow()
    backend = BufferedBackend(slow, BatchConfig(2, 1, 0.0, False, 0, 0, False), "log")
    backend.run()
    backend.process_events([{"auditID": str(i)} for i in range(10)])
    gate.set()
    backend.shutdown()
    got = [ev["auditID"] for b in slow.batches for ev in b]
    assert 1 <= len(got) <= 3 and got == [str(i) for i in range(len(got))]
    assert sink.batches == []


def test_webhook_event_list():
    backend = WebhookBackend(WebhookTarget("https://127.0.0.1:1/audit", None, {}), "audit.k8s.io/v1", 0.01)
    body = orjson.loads(backend.body([EVENT, EVENT]))
    assert list(body) == ["kind", "apiVersion", "metadata", "items"]
    assert body["kind"] == "EventList" and body["apiVersion"] == "audit.k8s.io/v1" and body["metadata"] == {}
    assert body["items"] == [EVENT, EVENT]  # items carry no TypeMeta

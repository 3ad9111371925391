"""Watch delivery under load: many watches of one resource while writers create, update and delete, and a
watch whose client stops reading for a while. Every watch must see every event once, in resourceVersion order,
whichever way the server wrote it (straight into the connection, or through the send that waits for a slow
client)."""

from __future__ import annotations

import http.client
import json
import socket
import ssl
from concurrent.futures import ThreadPoolExecutor

from e2e_helpers import is_root_ca

WATCHERS = 24


def _context(server) -> ssl.SSLContext:
    ctx = ssl.create_default_context(cafile=str(server.ca_file))
    ctx.load_cert_chain(str(server.cert_file), str(server.key_file))
    return ctx


def _open_watch(server, path: str, rcvbuf: int | None = None) -> tuple[http.client.HTTPSConnection, object]:
    """A watch over its own TLS connection; rcvbuf shrinks the socket's receive buffer (before connecting,
    so the TCP window stays small) for a client that reads slowly."""
    raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    raw.settimeout(30)
    raw.connect(("127.0.0.1", server.port))
    conn = http.client.HTTPSConnection("127.0.0.1", server.port, context=_context(server), timeout=30)
    conn.sock = _context(server).wrap_socket(raw, server_hostname="127.0.0.1")
    conn.request("GET", path, headers={"Accept": "application/json"})
    resp = conn.getresponse()
    assert resp.status == 200, resp.read()
    assert resp.getheader("Transfer-Encoding") == "chunked"
    return conn, resp


def _read_events(resp, until) -> list[dict]:
    """The events of the stream, less those of the namespace's kube-root-ca.crt (its publisher makes it when
    the namespace is made: before the watch starts, or after), until until(events)."""
    events: list[dict] = []
    while not until(events):
        line = resp.readline()
        assert line, f"the stream ended after {len(events)} events"
        if line.strip() and not is_root_ca(event := json.loads(line)):
            events.append(event)
    return events


def _summary(events: list[dict]) -> list[tuple[str, str, int]]:
    return [
        (e["type"], e["object"]["metadata"]["name"], int(e["object"]["metadata"]["resourceVersion"])) for e in events
    ]


def _cm(name: str, size: int = 16) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"v": "x" * size}}


def test_every_watch_gets_every_event_in_order(server, ns):
    path = f"/api/v1/namespaces/{ns}/configmaps?watch=true&resourceVersion=0&timeoutSeconds=60"
    watches = [_open_watch(server, path) for _ in range(WATCHERS)]
    base = f"/api/v1/namespaces/{ns}/configmaps"

    def write(k: int) -> None:  # each writer: create, update, delete its own objects
        for i in range(15):
            name = f"w{k}-{i}"
            r = server.request("POST", base, json=_cm(name))
            assert r.status_code == 201, r.text
            r = server.request(
                "PATCH",
                f"{base}/{name}",
                data='{"data":{"v":"y"}}',
                headers={"Content-Type": "application/merge-patch+json"},
            )
            assert r.status_code == 200, r.text
            if i % 3 == 0:
                assert server.request("DELETE", f"{base}/{name}").status_code == 200

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(write, range(4)))
    expected = 4 * 15 * 2 + 4 * 5  # creates and patches of every object, deletes of every third

    seen = []
    try:
        for _, resp in watches:
            seen.append(_summary(_read_events(resp, lambda ev: len(ev) >= expected)))
    finally:
        for conn, _ in watches:
            conn.close()
    first = seen[0]
    assert len(first) == expected
    revisions = [rv for _, _, rv in first]
    assert revisions == sorted(revisions) and len(set(revisions)) == expected, "out of order or repeated"
    assert sorted(t for t, _, _ in first) == ["ADDED"] * 60 + ["DELETED"] * 20 + ["MODIFIED"] * 60
    for other in seen[1:]:
        assert other == first  # every watch: the same events, the same order


def test_slow_reader_loses_nothing(server, ns):
    """A client that stops reading: the connection backs up (the server's transport pauses) while ~5 MB of
    events are committed; once it reads again, every event arrives once and in order."""
    path = f"/api/v1/namespaces/{ns}/configmaps?watch=true&timeoutSeconds=120"
    conn, resp = _open_watch(server, path, rcvbuf=4096)
    base = f"/api/v1/namespaces/{ns}/configmaps"
    count, size = 300, 16 * 1024

    def write(k: int) -> None:
        for i in range(k, count, 4):
            r = server.request("POST", base, json=_cm(f"slow-{i:03d}", size))
            assert r.status_code == 201, r.text

    try:
        with ThreadPoolExecutor(4) as pool:
            list(pool.map(write, range(4)))
        # the server is still serving others while this watch is backed up
        assert server.request("GET", "/readyz").text == "ok"
        events = _read_events(resp, lambda ev: len(ev) >= count)
    finally:
        conn.close()
    summary = _summary(events)
    assert all(t == "ADDED" for t, _, _ in summary)
    assert sorted(n for _, n, _ in summary) == [f"slow-{i:03d}" for i in range(count)]
    revisions = [rv for _, _, rv in summary]
    assert revisions == sorted(revisions) and len(set(revisions)) == count
    assert all(len(e["object"]["data"]["v"]) == size for e in events)

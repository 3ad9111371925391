"""Loading a webhook's kubeconfig (current context, relative files, -data fields, errors) and the client's retry
policy (DefaultShouldRetry with exponential backoff) against a loopback HTTP server."""

from __future__ import annotations

import asyncio
import base64
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from kube_apiserver.authentication.kubeconfig_client import (
    Backoff,
    ClientConfig,
    KubeconfigError,
    WebhookClient,
    WebhookError,
    load_kubeconfig,
)

KUBECONFIG = """apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: {server}
    certificate-authority-data: {ca}
- name: unused
  cluster:
    server: https://unused.example
users:
- name: u
  user:
    tokenFile: token.txt
contexts:
- name: ctx
  context: {{cluster: c, user: u}}
current-context: {current}
"""


def test_load_current_context(tmp_path):
    (tmp_path / "token.txt").write_text("s3cret\n")
    ca = base64.b64encode(b"not checked here").decode()
    path = tmp_path / "cfg"
    path.write_text(KUBECONFIG.format(server="http://127.0.0.1:1/review", ca=ca, current="ctx"))
    cfg = load_kubeconfig(str(path))
    assert cfg.server == "http://127.0.0.1:1/review"
    assert cfg.ca_data == b"not checked here"
    assert cfg.token == "s3cret"
    assert cfg.headers()["Authorization"] == "Bearer s3cret"


@pytest.mark.parametrize(
    ("current", "server", "message"),
    [
        ("", "https://x", "invalid configuration: no configuration has been provided"),
        ("nope", "https://x", "invalid configuration: context was not found for specified context: nope"),
        ("ctx", "''", 'invalid configuration: cluster "c" has no server defined'),
    ],
)
def test_load_errors(tmp_path, current, server, message):
    (tmp_path / "token.txt").write_text("t")
    path = tmp_path / "cfg"
    path.write_text(KUBECONFIG.format(server=server, ca="", current=current))
    with pytest.raises(KubeconfigError) as e:
        load_kubeconfig(str(path))
    assert str(e.value) == message


def test_missing_file(tmp_path):
    with pytest.raises(KubeconfigError) as e:
        load_kubeconfig(str(tmp_path / "missing"))
    assert str(e.value) == f"stat {tmp_path / 'missing'}: no such file or directory"


def test_missing_referenced_file(tmp_path):
    path = tmp_path / "cfg"
    path.write_text(KUBECONFIG.format(server="https://x", ca="", current="ctx").replace("token.txt", "gone.txt"))
    with pytest.raises(KubeconfigError, match="gone.txt"):
        load_kubeconfig(str(path))


class _Flaky(BaseHTTPRequestHandler):
    codes: list[int] = []
    seen: list[dict] = []

    def log_message(self, *a):
        pass

    def do_POST(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.seen.append({"body": body, "auth": self.headers.get("Authorization")})
        code = self.codes.pop(0) if self.codes else 200
        out = json.dumps({"ok": True} if code == 200 else {"kind": "Status", "message": f"failed with {code}"}).encode()
        self.send_response(code)
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)


@pytest.fixture
def flaky():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Flaky)
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    _Flaky.seen = []
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def _client(httpd, steps=5):
    url = f"http://127.0.0.1:{httpd.server_address[1]}/hook"
    return WebhookClient(ClientConfig(url, token="tok"), backoff=Backoff(0.01, 1.5, 0.2, steps))


def test_retries_transient_failures(flaky):
    _Flaky.codes = [500, 429, 504]

    async def go():
        c = _client(flaky)
        try:
            return await c.post({"x": 1})
        finally:
            await c.close()

    assert asyncio.run(go()) == {"ok": True}
    assert len(_Flaky.seen) == 4
    assert _Flaky.seen[0] == {"body": {"x": 1}, "auth": "Bearer tok"}


def test_no_retry_for_client_errors_and_gives_up(flaky):
    async def go(codes, steps):
        _Flaky.codes = list(codes)
        _Flaky.seen = []
        c = _client(flaky, steps)
        try:
            with pytest.raises(WebhookError) as e:
                await c.post({})
            return e.value
        finally:
            await c.close()

    err = asyncio.run(go([403], 5))
    assert (err.code, str(err), len(_Flaky.seen)) == (403, "failed with 403", 1)
    err = asyncio.run(go([500, 500, 500], 3))
    assert (err.code, len(_Flaky.seen)) == (500, 3)


def test_refused_is_not_retried():
    async def go():
        c = WebhookClient(ClientConfig("http://127.0.0.1:1/x"), backoff=Backoff(5, 1, 0, 5))
        try:
            with pytest.raises(WebhookError) as e:
                await asyncio.wait_for(c.post({}), 3)  # a retry would wait 5 s
            return e.value
        finally:
            await c.close()

    assert asyncio.run(go()).code == -1

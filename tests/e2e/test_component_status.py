"""componentstatuses, probed on each get and list as a lone kube-apiserver probes them: the scheduler
(https://127.0.0.1:10259/healthz) and the controller manager (:10257), certificates not verified."""

from __future__ import annotations

import json
import ssl
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from authn_helpers import CA, write_pair
from e2e_helpers import parse_table


class _Healthz(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        body = b"ok" if self.path == "/healthz" else b"not found"
        self.send_response(200 if self.path == "/healthz" else 404)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def scheduler_healthz(tmp_path):
    """A healthy "scheduler" on its secure port, with a certificate no one trusts."""
    cert, key = write_pair(tmp_path, "scheduler", CA("somebody-else").issue("scheduler", server=True))
    try:
        httpd = ThreadingHTTPServer(("127.0.0.1", 10259), _Healthz)
    except OSError:
        pytest.skip("port 10259 is taken on this machine")
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(str(cert), str(key))
    httpd.socket = ctx.wrap_socket(httpd.socket, server_side=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield
    httpd.shutdown()
    httpd.server_close()


def test_components_are_probed(server, scheduler_healthz):
    rows = {r["NAME"]: r for r in parse_table(server.kubectl("get", "componentstatuses").stdout)}
    assert rows["scheduler"]["STATUS"] == "Healthy" and rows["scheduler"]["MESSAGE"] == "ok"
    manager = rows["controller-manager"]
    assert manager["STATUS"] == "Unhealthy"
    assert manager["MESSAGE"] == (
        'Get "https://127.0.0.1:10257/healthz": dial tcp 127.0.0.1:10257: connect: connection refused'
    )
    one = json.loads(server.kubectl("get", "cs", "scheduler", "-o", "json").stdout)
    assert one["metadata"] == {"name": "scheduler"}
    assert one["conditions"] == [{"type": "Healthy", "status": "True", "message": "ok"}]
    listed = server.request("GET", "/api/v1/componentstatuses?fieldSelector=metadata.name%3Dcontroller-manager")
    assert [i["metadata"]["name"] for i in listed.json()["items"]] == ["controller-manager"]
    res = server.kubectl("get", "cs", "no-such-component", check=False)
    assert 'componentstatuses "no-such-component" not found' in res.stderr

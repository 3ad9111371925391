"""Fixtures that run the real server as a subprocess and drive it the way users do: kubectl, the official Python
client and raw HTTPS."""

from __future__ import annotations

import base64
import gc
import itertools
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
import warnings
from pathlib import Path

import pytest
import requests
import urllib3
import yaml

READY_TIMEOUT = 10.0
STOP_TIMEOUT = 10.0
KUBECTL_TIMEOUT = 60.0


def _session() -> requests.Session:
    # trust_env would let REQUESTS_CA_BUNDLE override our CA and proxies intercept loopback.
    s = requests.Session()
    s.trust_env = False
    return s


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def kubectl_binary(version: str | None = None) -> str:
    default = shutil.which("kubectl")
    if default is None:
        pytest.skip("kubectl is not installed")
    if version is None:
        return default
    path = Path(os.path.realpath(default)).parent / f"kubectl.{version}"
    if not path.exists():
        pytest.skip(f"{path} is not installed")
    return str(path)


class Server:
    """One kube_apiserver subprocess with its own data directory."""

    def __init__(self, data_dir: Path, extra_args: tuple[str, ...] = ()):
        self.data_dir = Path(data_dir)
        self.extra_args = tuple(extra_args)
        self.port = free_port()
        self.proc: subprocess.Popen | None = None
        self.log_path = self.data_dir.parent / f"{self.data_dir.name}-server.log"
        self._log = None
        self._certs_dir = Path(tempfile.mkdtemp(prefix="e2e-certs-"))
        self.session = _session()

    # -- lifecycle -----------------------------------------------------------------------------------------------

    @property
    def kubeconfig(self) -> Path:
        return self.data_dir / "admin.kubeconfig"

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    def start(self) -> Server:
        assert self.proc is None or self.proc.poll() is not None, "server already running"
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._log = open(self.log_path, "ab")  # closed in _reap
        cmd = [
            sys.executable,
            "-m",
            "kube_apiserver",
            "--data-dir",
            str(self.data_dir),
            "--secure-port",
            str(self.port),
            "--bind-address",
            "127.0.0.1",
            *self.extra_args,
        ]
        self.proc = subprocess.Popen(cmd, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self._wait_ready()
        self._load_credentials()
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + READY_TIMEOUT
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode} before ready:\n{self.log_tail()}")
            try:
                # The CA is only known once the server has written the kubeconfig.
                with _session() as s, warnings.catch_warnings():
                    warnings.simplefilter("ignore", urllib3.exceptions.InsecureRequestWarning)
                    r = s.get(f"{self.url}/readyz", verify=False, timeout=1)
                    r.close()
                if r.status_code == 200 and r.text == "ok":
                    return
            except requests.RequestException:
                pass
            if time.monotonic() > deadline:
                self.kill()
                raise RuntimeError(f"server not ready within {READY_TIMEOUT}s:\n{self.log_tail()}")
            time.sleep(0.05)

    def _load_credentials(self) -> None:
        cfg = yaml.safe_load(self.kubeconfig.read_text())
        user = cfg["users"][0]["user"]
        cluster = cfg["clusters"][0]["cluster"]
        self.ca_file = self._certs_dir / "ca.crt"
        self.cert_file = self._certs_dir / "client.crt"
        self.key_file = self._certs_dir / "client.key"
        self.ca_file.write_bytes(base64.b64decode(cluster["certificate-authority-data"]))
        self.cert_file.write_bytes(base64.b64decode(user["client-certificate-data"]))
        self.key_file.write_bytes(base64.b64decode(user["client-key-data"]))
        self.session = _session()
        self.session.verify = str(self.ca_file)
        self.session.cert = (str(self.cert_file), str(self.key_file))
        # No keep-alive for the tests' own plumbing: an idle connection left in some pool would hold up the
        # server's SIGTERM shutdown (test_durability checks that case on purpose).
        self.session.headers["Connection"] = "close"

    def stop(self, timeout: float = STOP_TIMEOUT) -> int:
        """SIGTERM, then SIGKILL after timeout; returns the exit code. Raises if it had to kill."""
        if self.proc is None or self.proc.poll() is not None:
            return self._reap()
        # Responses caught in reference cycles keep their sockets open until collected.
        self.session.close()
        gc.collect()
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
            self._reap()
            raise AssertionError(f"server did not exit within {timeout}s of SIGTERM:\n{self.log_tail()}") from None
        return self._reap()

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self._reap()

    def restart(self) -> Server:
        self.stop()
        return self.start()

    def _reap(self) -> int | None:
        if self._log is not None:
            self._log.close()
            self._log = None
        self.session.close()
        return None if self.proc is None else self.proc.returncode

    def cleanup(self) -> None:
        self.kill()
        shutil.rmtree(self._certs_dir, ignore_errors=True)

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "<no log>"

    # -- clients -------------------------------------------------------------------------------------------------

    def kubectl(
        self,
        *args: str,
        version: str | None = None,
        input: str | None = None,
        check: bool = True,
        timeout: float = KUBECTL_TIMEOUT,
    ) -> subprocess.CompletedProcess:
        cmd = [kubectl_binary(version), "--kubeconfig", str(self.kubeconfig), *args]
        res = subprocess.run(cmd, input=input, capture_output=True, text=True, timeout=timeout)
        if check and res.returncode != 0:
            raise AssertionError(
                f"{' '.join(cmd[1:])} exited {res.returncode}\nstdout:\n{res.stdout}\nstderr:\n{res.stderr}"
            )
        return res

    def kubectl_popen(self, *args: str, version: str | None = None) -> subprocess.Popen:
        cmd = [kubectl_binary(version), "--kubeconfig", str(self.kubeconfig), *args]
        return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)

    def request(self, method: str, path: str, **kw) -> requests.Response:
        """An HTTPS request as the admin user (client certificate)."""
        kw.setdefault("timeout", 30)
        return self.session.request(method, self.url + path, **kw)

    def anonymous(self, method: str, path: str, **kw) -> requests.Response:
        kw.setdefault("timeout", 30)
        with _session() as s:
            return s.request(method, self.url + path, verify=str(self.ca_file), **kw)

    def api_client(self):
        from kubernetes import config

        return config.new_client_from_config(config_file=str(self.kubeconfig))

    def create_namespace(self, name: str) -> None:
        body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
        r = self.request("POST", "/api/v1/namespaces", json=body)
        assert r.status_code == 201, r.text


def _start(data_dir: Path, extra_args=()) -> Server:
    # A port picked by free_port() may be taken by someone else before the server binds it: retry with another.
    last: Exception | None = None
    for _ in range(3):
        server = Server(data_dir, extra_args)
        try:
            return server.start()
        except RuntimeError as e:
            server.cleanup()
            last = e
    raise last


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """The shared server for the whole e2e session; tests keep to their own namespace."""
    srv = _start(tmp_path_factory.mktemp("apiserver") / "data")
    try:
        yield srv
    finally:
        try:
            code = srv.stop()
            assert code is not None, "server did not exit"
        finally:
            srv.cleanup()


@pytest.fixture
def server_factory(tmp_path):
    """Start servers of one's own (restart, kill -9, special flags); all are stopped at the end of the test."""
    started: list[Server] = []
    counter = itertools.count()

    def make(*extra_args: str, data_dir: Path | None = None) -> Server:
        srv = _start(data_dir or tmp_path / f"data{next(counter)}", extra_args)
        started.append(srv)
        return srv

    yield make
    for srv in started:
        try:
            srv.stop()
        finally:
            srv.cleanup()


@pytest.fixture
def own_server(server_factory) -> Server:
    return server_factory()


def _ns_name(nodeid: str) -> str:
    base = re.sub(r"[^a-z0-9-]+", "-", nodeid.split("::")[-1].lower()).strip("-")
    return f"{base[:40].strip('-')}-{uuid.uuid4().hex[:6]}"


@pytest.fixture
def ns(server, request) -> str:
    """A fresh namespace on the shared server, named after the test, made the way users make one."""
    name = _ns_name(request.node.nodeid)
    server.kubectl("create", "namespace", name)
    yield name
    # Not waiting: the namespace controller empties it in the background.
    server.request("DELETE", f"/api/v1/namespaces/{name}")


@pytest.fixture(scope="session")
def api_client(server):
    client = server.api_client()
    yield client
    client.close()


@pytest.fixture(scope="session")
def core_v1(api_client):
    from kubernetes import client

    return client.CoreV1Api(api_client)


@pytest.fixture(scope="session")
def apps_v1(api_client):
    from kubernetes import client

    return client.AppsV1Api(api_client)

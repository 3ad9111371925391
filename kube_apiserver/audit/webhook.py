"""The webhook backend (plugin/pkg/audit/webhook): each batch is POSTed as an audit.k8s.io/v1 EventList to the
server of a kubeconfig file (client certificate, CA, bearer token or basic auth as the kubeconfig says), with
kube's retry on any error: 5 attempts, waiting initial_backoff x 1.5^n (+<=20% jitter) in between.

process_events blocks while it sends: it runs on the sender threads of a BufferedBackend, never on the loop.
"""

from __future__ import annotations

import base64
import http.client
import logging
import os
import random
import ssl
import tempfile
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import orjson
import yaml

from kube_apiserver.audit.backend import Event, handle_plugin_error
from kube_apiserver.version import GIT_VERSION

log = logging.getLogger("kube_apiserver.audit")

PLUGIN_NAME = "webhook"
DEFAULT_INITIAL_BACKOFF = 10.0
REQUEST_TIMEOUT = 30.0
_BACKOFF_FACTOR, _BACKOFF_JITTER, _BACKOFF_STEPS = 1.5, 0.2, 5
USER_AGENT = f"kube-apiserver/{GIT_VERSION} (linux/amd64) kubernetes/$Format"


class WebhookConfigError(ValueError):
    """The kubeconfig cannot be used (the server exits with "initializing audit webhook: <message>")."""


@dataclass
class WebhookTarget:
    url: str
    ssl_context: ssl.SSLContext | None
    headers: dict[str, str]


def _read(base_dir: str, path: str) -> bytes:
    full = path if os.path.isabs(path) else os.path.join(base_dir, path)
    try:
        with open(full, "rb") as f:
            return f.read()
    except OSError as e:
        raise WebhookConfigError(f"open {full}: {(e.strerror or str(e)).lower()}") from None


def _data(entry: dict[str, Any], key: str, base_dir: str) -> bytes | None:
    if entry.get(f"{key}-data"):
        try:
            return base64.b64decode(entry[f"{key}-data"])
        except ValueError:
            raise WebhookConfigError(f"illegal base64 data in {key}-data") from None
    if entry.get(key):
        return _read(base_dir, entry[key])
    return None


def _named(items: Any, name: str, what: str) -> dict[str, Any]:
    for item in items or []:
        if isinstance(item, dict) and item.get("name") == name:
            return item.get(what) or {}
    raise WebhookConfigError(f'invalid configuration: no {what} "{name}" found')


def load_kubeconfig(path: str) -> WebhookTarget:
    """The current context's cluster and user of a kubeconfig file (clientcmd, as webhook.LoadKubeconfig)."""
    try:
        with open(path, "rb") as f:
            cfg = yaml.safe_load(f) or {}
    except OSError as e:
        raise WebhookConfigError(f"stat {path}: {(e.strerror or str(e)).lower()}") from None
    except yaml.YAMLError as e:
        raise WebhookConfigError(f'error loading config file "{path}": {e}') from None
    if not isinstance(cfg, dict):
        raise WebhookConfigError(f'error loading config file "{path}": not a kubeconfig')
    base_dir = os.path.dirname(os.path.abspath(path))
    context_name = cfg.get("current-context") or ""
    if context_name:
        context = _named(cfg.get("contexts"), context_name, "context")
        cluster = _named(cfg.get("clusters"), context.get("cluster", ""), "cluster")
        user = _named(cfg.get("users"), context["user"], "user") if context.get("user") else {}
    else:  # no context: the only cluster and user there are
        clusters, users = cfg.get("clusters") or [], cfg.get("users") or []
        cluster = (clusters[0].get("cluster") or {}) if clusters else {}
        user = (users[0].get("user") or {}) if users else {}
    server = cluster.get("server") or ""
    if not server:
        raise WebhookConfigError("invalid configuration: no configuration has been provided")
    parts = urlsplit(server)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise WebhookConfigError(f'host must be a URL or a host:port pair: "{server}"')
    headers = {"Content-Type": "application/json", "Accept": "application/json, */*", "User-Agent": USER_AGENT}
    token = user.get("token") or ""
    if not token and user.get("tokenFile"):
        token = _read(base_dir, user["tokenFile"]).decode().strip()
    if token:
        headers["Authorization"] = f"Bearer {token}"
    elif user.get("username"):
        creds = f"{user['username']}:{user.get('password', '')}".encode()
        headers["Authorization"] = "Basic " + base64.b64encode(creds).decode()
    ctx = None
    if parts.scheme == "https":
        ctx = _ssl_context(cluster, user, base_dir)
    return WebhookTarget(server, ctx, headers)


def _ssl_context(cluster: dict[str, Any], user: dict[str, Any], base_dir: str) -> ssl.SSLContext:
    ctx = ssl.create_default_context()
    if cluster.get("insecure-skip-tls-verify"):
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
    else:
        ca = _data(cluster, "certificate-authority", base_dir)
        if ca is not None:
            ctx = ssl.create_default_context(cadata=ca.decode("ascii", "replace"))
    cert = _data(user, "client-certificate", base_dir)
    key = _data(user, "client-key", base_dir)
    if cert is not None and key is not None:
        # ssl loads a certificate chain from files only: hand it private temporary ones
        with tempfile.TemporaryDirectory(prefix="audit-webhook-") as tmp:
            cert_path, key_path = os.path.join(tmp, "tls.crt"), os.path.join(tmp, "tls.key")
            for p, data in ((cert_path, cert), (key_path, key)):
                fd = os.open(p, os.O_CREAT | os.O_WRONLY, 0o600)
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
            try:
                ctx.load_cert_chain(cert_path, key_path)
            except ssl.SSLError as e:
                raise WebhookConfigError(f"tls: failed to find any PEM data in certificate input: {e}") from None
    elif cert is not None or key is not None:
        raise WebhookConfigError("client-cert-data and client-key-data must both be specified")
    return ctx


class WebhookError(Exception):
    pass


class WebhookBackend:
    def __init__(self, target: WebhookTarget, group_version: str, initial_backoff: float) -> None:
        self.target = target
        self.initial_backoff = initial_backoff
        self._list_prefix = (
            b'{"kind":"EventList","apiVersion":"' + group_version.encode() + b'","metadata":{},"items":['
        )
        parts = urlsplit(target.url)
        self._https = parts.scheme == "https"
        self._host = parts.hostname or ""
        self._port = parts.port
        self._path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")

    def body(self, events: list[Event]) -> bytes:
        return self._list_prefix + b",".join(orjson.dumps(ev) for ev in events) + b"]}"

    def process_events(self, events: list[Event]) -> bool:
        body = self.body(events)
        delay = self.initial_backoff
        last: Exception | None = None
        for attempt in range(_BACKOFF_STEPS):
            if attempt:
                time.sleep(delay * (1 + random.random() * _BACKOFF_JITTER))
                delay *= _BACKOFF_FACTOR
            try:
                self._post(body)
                return True
            except (OSError, WebhookError, http.client.HTTPException) as e:
                last = e
        handle_plugin_error(PLUGIN_NAME, last, events)
        return False

    def _post(self, body: bytes) -> None:
        if self._https:
            conn: http.client.HTTPConnection = http.client.HTTPSConnection(
                self._host, self._port, timeout=REQUEST_TIMEOUT, context=self.target.ssl_context
            )
        else:
            conn = http.client.HTTPConnection(self._host, self._port, timeout=REQUEST_TIMEOUT)
        try:
            conn.request("POST", self._path, body, {**self.target.headers, "Content-Length": str(len(body))})
            resp = conn.getresponse()
            data = resp.read()
            if not 200 <= resp.status <= 206:
                raise WebhookError(f"the server responded with the status code {resp.status}: {data[:200]!r}")
        finally:
            conn.close()

    def run(self) -> None:
        pass

    def shutdown(self) -> None:
        pass

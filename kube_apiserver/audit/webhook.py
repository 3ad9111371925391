"""The webhook backend (plugin/pkg/audit/webhook): each batch is POSTed as an audit.k8s.io/v1 EventList to the
server of a kubeconfig file (client certificate, CA, bearer token or basic auth as the kubeconfig says), with
kube's retry on any error: 5 attempts, waiting initial_backoff x 1.5^n (+<=20% jitter) in between.

process_events blocks while it sends: it runs on the sender threads of a BufferedBackend, never on the loop.
"""

from __future__ import annotations

import http.client
import logging
import random
import ssl
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

import orjson

from kube_apiserver.audit.backend import Event, handle_plugin_error
from kube_apiserver.authentication import kubeconfig_client
from kube_apiserver.version import GIT_VERSION

log = logging.getLogger("kube_apiserver.audit")

PLUGIN_NAME = "webhook"
DEFAULT_INITIAL_BACKOFF = 10.0
REQUEST_TIMEOUT = 30.0
_BACKOFF_FACTOR, _BACKOFF_JITTER, _BACKOFF_STEPS = 1.5, 0.2, 5
USER_AGENT = f"kube-apiserver/{GIT_VERSION} (linux/amd64) kubernetes/$Format"


@dataclass
class WebhookTarget:
    url: str
    ssl_context: ssl.SSLContext | None
    headers: dict[str, str]


def load_kubeconfig(path: str) -> WebhookTarget:
    """The current context's server and credentials (webhook.LoadKubeconfig), read by the kubeconfig client the
    authentication and authorization webhooks share. Raises KubeconfigError."""
    config = kubeconfig_client.load_kubeconfig(path)
    return WebhookTarget(config.server, config.ssl_context(), {**config.headers(), "User-Agent": USER_AGENT})


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

"""A JSON client for a remote service named by a kubeconfig file (k8s.io/apiserver/pkg/util/webhook GenericWebhook).

The token-authentication webhook, the authorization webhook and the audit webhook all name their remote service
with a kubeconfig file: the current context's cluster (server URL, CA, insecure-skip-tls-verify, tls-server-name)
and user (client certificate and key, bearer token or token file, basic auth). Requests are POSTed to the exact
server URL, retried with exponential backoff when the failure is transient, as DefaultShouldRetry judges it.
"""

from __future__ import annotations

import asyncio
import base64
import os
import random
import ssl
import tempfile
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import orjson
import yaml

if TYPE_CHECKING:  # aiohttp takes ~0.1 s to import: only servers configured with a webhook pay it
    import aiohttp

DEFAULT_REQUEST_TIMEOUT = 30.0  # webhooks' rest.Config timeout, so a stuck remote does not hang a request


class KubeconfigError(ValueError):
    """The kubeconfig cannot be read or names no usable server; the server exits with the message."""


class WebhookError(Exception):
    """A request failed: the remote could not be reached, or it answered with an error status."""

    def __init__(self, message: str, code: int = 0, retry_after: bool = False) -> None:
        super().__init__(message)
        self.code = code
        self.retry_after = retry_after


@dataclass(frozen=True)
class Backoff:
    """wait.Backoff: the first wait, the factor of each next one, the jitter, and the number of attempts."""

    duration: float = 0.5
    factor: float = 1.5
    jitter: float = 0.2
    steps: int = 5


DEFAULT_BACKOFF = Backoff()  # options.DefaultAuthWebhookRetryBackoff


@dataclass(frozen=True)
class ClientConfig:
    """What a rest.Config built from a kubeconfig holds for one remote."""

    server: str
    ca_data: bytes = b""
    insecure: bool = False
    tls_server_name: str = ""
    cert_data: bytes = b""
    key_data: bytes = b""
    token: str = ""
    username: str = ""
    password: str = ""

    def ssl_context(self) -> ssl.SSLContext | None:
        if urlsplit(self.server).scheme != "https":
            return None
        ctx = ssl.create_default_context(cadata=self.ca_data.decode("ascii", "replace") if self.ca_data else None)
        if self.insecure:
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
        if self.cert_data and self.key_data:
            load_cert_chain_from_memory(ctx, self.cert_data, self.key_data)
        return ctx

    def headers(self) -> dict[str, str]:
        h = {"Content-Type": "application/json", "Accept": "application/json, */*"}
        if self.token:
            h["Authorization"] = f"Bearer {self.token}"
        elif self.username or self.password:
            h["Authorization"] = "Basic " + base64.b64encode(f"{self.username}:{self.password}".encode()).decode()
        return h


def load_cert_chain_from_memory(ctx: ssl.SSLContext, cert_pem: bytes, key_pem: bytes) -> None:
    """ssl takes a client certificate only from files: write both to a private temporary file, load, remove."""
    fd, path = tempfile.mkstemp(prefix="kubeconfig-client-", suffix=".pem")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(cert_pem.rstrip() + b"\n" + key_pem)
        try:
            ctx.load_cert_chain(path)
        except ssl.SSLError as e:
            raise KubeconfigError(f"unable to load client certificate and key: {e.reason or e}") from None
    finally:
        os.unlink(path)


def _data_or_file(section: dict[str, Any], key: str, base_dir: str, what: str) -> bytes:
    data = section.get(f"{key}-data")
    if data:
        try:
            return base64.b64decode(str(data), validate=True)
        except ValueError:
            raise KubeconfigError(f"{what}: illegal base64 data in {key}-data") from None
    path = section.get(key)
    if not path:
        return b""
    path = os.path.join(base_dir, os.path.expanduser(str(path)))
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise KubeconfigError(f"unable to read {key} {path} for {what} due to open {path}: {e.strerror}") from None


def _named(items: Any, name: str, kind: str) -> dict[str, Any]:
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and item.get("name") == name:
            value = item.get(kind)
            return value if isinstance(value, dict) else {}
    return {}


def load_kubeconfig(path: str) -> ClientConfig:
    """The remote the current context names (clientcmd with ExplicitPath, no overrides). Relative file names in the
    kubeconfig are relative to its directory. Raises KubeconfigError."""
    try:
        with open(path, "rb") as f:
            cfg = yaml.safe_load(f)
    except OSError as e:
        raise KubeconfigError(f"stat {path}: {e.strerror.lower() if e.strerror else e}") from None
    except yaml.YAMLError as e:
        raise KubeconfigError(f'error loading config file "{path}": {e}') from None
    if not isinstance(cfg, dict):
        raise KubeconfigError("invalid configuration: no configuration has been provided")
    base_dir = os.path.dirname(os.path.abspath(path))
    current = str(cfg.get("current-context") or "")
    if not current:
        raise KubeconfigError("invalid configuration: no configuration has been provided")
    context = _named(cfg.get("contexts"), current, "context")
    if not context:
        raise KubeconfigError(f"invalid configuration: context was not found for specified context: {current}")
    cluster_name, user_name = str(context.get("cluster") or ""), str(context.get("user") or "")
    cluster = _named(cfg.get("clusters"), cluster_name, "cluster")
    user = _named(cfg.get("users"), user_name, "user")
    server = str(cluster.get("server") or "")
    if not server:
        raise KubeconfigError(f'invalid configuration: cluster "{cluster_name}" has no server defined')
    if urlsplit(server).scheme not in ("http", "https"):
        raise KubeconfigError(f'invalid configuration: cluster "{cluster_name}" server "{server}" is not a URL')
    token = str(user.get("token") or "")
    if not token and user.get("tokenFile"):
        token_path = os.path.join(base_dir, str(user["tokenFile"]))
        try:
            with open(token_path) as f:
                token = f.read().strip()
        except OSError as e:
            raise KubeconfigError(f"open {token_path}: {e.strerror}") from None
    cert = _data_or_file(user, "client-certificate", base_dir, f'user "{user_name}"')
    key = _data_or_file(user, "client-key", base_dir, f'user "{user_name}"')
    if bool(cert) != bool(key):
        raise KubeconfigError(
            f"invalid configuration: client-cert-data and client-key-data must be specified for {user_name} to use the clientCert authentication method."
        )
    config = ClientConfig(
        server=server,
        ca_data=_data_or_file(cluster, "certificate-authority", base_dir, f'cluster "{cluster_name}"'),
        insecure=cluster.get("insecure-skip-tls-verify") is True,
        tls_server_name=str(cluster.get("tls-server-name") or ""),
        cert_data=cert,
        key_data=key,
        token=token,
        username=str(user.get("username") or ""),
        password=str(user.get("password") or ""),
    )
    try:
        config.ssl_context()  # a bad CA or key pair is a startup error, not a failure of every request
    except ssl.SSLError as e:
        raise KubeconfigError(f'unable to load the TLS configuration of cluster "{cluster_name}": {e}') from None
    return config


def _should_retry(err: WebhookError) -> bool:
    """DefaultShouldRetry: a reset connection, 500 (InternalError), 504 (Timeout), 429, or a Retry-After."""
    return err.code in (0, 429, 500, 504) or err.retry_after


class WebhookClient:
    """POSTs JSON to one remote. The aiohttp session (one pool of keep-alive connections) is made on first use,
    inside the server's event loop."""

    def __init__(
        self, config: ClientConfig, timeout: float = DEFAULT_REQUEST_TIMEOUT, backoff: Backoff = DEFAULT_BACKOFF
    ) -> None:
        self.config = config
        self.timeout = timeout
        self.backoff = backoff
        self._ssl = config.ssl_context()
        self._headers = config.headers()
        self._session: aiohttp.ClientSession | None = None

    @classmethod
    def from_kubeconfig(cls, path: str, **kw: Any) -> WebhookClient:
        return cls(load_kubeconfig(path), **kw)

    def _get_session(self) -> aiohttp.ClientSession:
        import aiohttp

        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                timeout=aiohttp.ClientTimeout(total=self.timeout),
                connector=aiohttp.TCPConnector(ssl=self._ssl if self._ssl is not None else False),
                trust_env=False,
            )
        return self._session

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()

    async def _post_once(self, body: bytes) -> dict[str, Any]:
        import aiohttp

        kw: dict[str, Any] = {}
        if self.config.tls_server_name:
            kw["server_hostname"] = self.config.tls_server_name
        try:
            async with self._get_session().post(self.config.server, data=body, headers=self._headers, **kw) as resp:
                data = await resp.read()
                if not 200 <= resp.status <= 206:
                    raise WebhookError(_status_message(resp.status, data), resp.status, "Retry-After" in resp.headers)
        except aiohttp.ClientConnectorError as e:  # refused, unreachable, bad certificate: not transient
            raise WebhookError(f'Post "{self.config.server}": {e}', -1) from None
        except (aiohttp.ServerDisconnectedError, aiohttp.ClientOSError) as e:  # a reset connection: retried
            raise WebhookError(f'Post "{self.config.server}": {e or type(e).__name__}') from None
        except (TimeoutError, aiohttp.ClientError) as e:
            raise WebhookError(f'Post "{self.config.server}": {e or type(e).__name__}', -1) from None
        try:
            obj = orjson.loads(data)
        except orjson.JSONDecodeError:
            raise WebhookError("the response from the webhook is not JSON", resp.status) from None
        if not isinstance(obj, dict):
            raise WebhookError("the response from the webhook is not a JSON object", resp.status)
        return obj

    async def post(self, obj: dict[str, Any]) -> dict[str, Any]:
        """The remote's answer (a JSON object); raises WebhookError once retries are spent
        (webhook.WithExponentialBackoff)."""
        body = orjson.dumps(obj)
        wait = self.backoff.duration
        for attempt in range(max(self.backoff.steps, 1)):
            try:
                return await self._post_once(body)
            except WebhookError as e:
                if attempt + 1 >= self.backoff.steps or not _should_retry(e):
                    raise
            await asyncio.sleep(wait * (1 + random.random() * self.backoff.jitter))
            wait *= self.backoff.factor
        raise AssertionError("unreachable")


def _status_message(code: int, body: bytes) -> str:
    """The rest client's error for a non-2xx answer: the Status's message when it is one."""
    try:
        status = orjson.loads(body)
    except orjson.JSONDecodeError:
        status = None
    if isinstance(status, dict) and status.get("kind") == "Status" and isinstance(status.get("message"), str):
        return status["message"]
    text = body.decode("utf-8", "replace").strip()
    return f'an error on the server ("{text[:200]}") has prevented the request from succeeding (code {code})'

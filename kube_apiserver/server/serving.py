"""Secure serving on uvicorn (httptools), with the verified client certificate handed to the app.

uvicorn has no ASGI TLS extension yet, so a small subclass of its httptools protocol reads the peer
certificate once per connection (after the handshake) and puts it in scope["extensions"]["tls"].
Client certificates are optional (CERT_OPTIONAL): bearer tokens share the port.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import socket
import ssl
from collections.abc import Callable
from typing import Any

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from kube_apiserver.endpoints.request import STREAM_WRITER

log = logging.getLogger(__name__)


_COALESCE_MAX = 64 * 1024


class _CoalescingWriter:
    """The transport as one response cycle sees it: uvicorn writes the status line and headers, then
    the body, in two writes; over TLS each is its own record and its own send. The head of a response
    with a Content-Length is held until the body (or the end of the response) so it goes out in one
    write."""

    __slots__ = ("_transport", "_head", "_on_response")

    def __init__(self, transport: asyncio.Transport, on_response: Callable[[], None]) -> None:
        self._transport = transport
        self._head: bytes | None = None
        self._on_response = on_response

    def write(self, data: bytes) -> None:
        if self._head is not None:
            head, self._head = self._head, None
            if len(data) > _COALESCE_MAX:  # copying a large body costs more than one more TLS record
                self._transport.write(head)
            else:
                data = head + data
        elif data[:9] == b"HTTP/1.1 " and b"\r\ncontent-length:" in data:
            # only a head with a length (no 100 Continue, no chunked stream: a watch's head goes out
            # at once, its first event may be long in coming); uvicorn writes header names lower case
            self._head = data
            return
        self._transport.write(data)

    def flush(self) -> None:
        if self._head is not None:
            head, self._head = self._head, None
            self._transport.write(head)

    def on_response(self) -> None:
        self.flush()  # a HEAD response has no body write
        self._on_response()

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def is_closing(self) -> bool:
        return self._transport.is_closing()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class ConnectionWriter:
    """Writes parts of a started response body straight to the connection, outside the ASGI send.

    For the watch fan-out: one event goes to hundreds of watches, and an awaited ASGI send per watch (a task
    switch, the send wrappers of the filter chain, uvicorn's checks) costs more than the TLS write itself;
    and for the pieces of a large list. Chunks go to a chunked response (write, write_joined), parts of a
    body with a Content-Length to such a response (write_body, which counts them as uvicorn's send does).
    It refuses whenever the plain send must be used instead: before the response head went out (through
    the chain, so every filter sees it), for the other kind of response, after the end, once the client is
    gone, and (write) while the transport is paused because the client is not reading: the ASGI send waits
    for it to drain, as write_joined and write_body do; this writer never buffers on its own."""

    __slots__ = ("_cycle", "_transport")

    def __init__(self, cycle: Any, transport: asyncio.Transport) -> None:
        self._cycle = cycle
        # the connection's own transport: the cycle's _CoalescingWriter holds back only heads with a length
        self._transport = transport

    def write(self, body: bytes) -> bool:
        cycle = self._cycle
        if (
            cycle.flow.write_paused
            or cycle.disconnected
            or not cycle.response_started
            or cycle.response_complete
            or not cycle.chunked_encoding
        ):
            return False
        self._transport.write(b"%x\r\n%b\r\n" % (len(body), body))
        return True

    async def write_joined(self, parts: list[bytes], separator: bytes) -> int:
        cycle = self._cycle
        if cycle.flow.write_paused and not cycle.disconnected:
            await cycle.flow.drain()  # what the ASGI send does for a client that is not reading
        if cycle.disconnected or not cycle.response_started or cycle.response_complete or not cycle.chunked_encoding:
            return 0
        size = sum(map(len, parts)) + len(separator) * (len(parts) - 1)
        if not size:
            return 0  # an empty chunk would end the response
        # the framing goes on the first and last parts (small next to the piece), so the piece is copied once
        parts[0] = b"%x\r\n%b" % (size, parts[0])
        parts[-1] += b"\r\n"
        self._transport.write(separator.join(parts))
        return size

    async def write_body(self, body: bytes) -> bool:
        cycle = self._cycle
        if cycle.flow.write_paused and not cycle.disconnected:
            await cycle.flow.drain()
        if (
            cycle.disconnected
            or not cycle.response_started
            or cycle.response_complete
            or cycle.chunked_encoding is not False
            or cycle.scope["method"] == "HEAD"
            or len(body) >= cycle.expected_content_length  # the end goes through the send, which ends the cycle
        ):
            return False
        cycle.expected_content_length -= len(body)
        cycle.transport.write(body)  # the cycle's own writer: a head it still holds goes out first
        return True


class ClientCertHttpToolsProtocol(HttpToolsProtocol):
    _tls_extension: dict[str, Any] | None = None

    def on_headers_complete(self) -> None:
        super().on_headers_complete()
        cycle = self.cycle
        if cycle is not None:
            writer = _CoalescingWriter(self.transport, cycle.on_response)
            cycle.transport = writer  # type: ignore[assignment]
            cycle.on_response = writer.on_response
            extensions = self.scope.get("extensions")
            if extensions is None:
                extensions = self.scope["extensions"] = {}  # type: ignore[typeddict-unknown-key]
            extensions[STREAM_WRITER] = ConnectionWriter(cycle, self.transport)  # type: ignore[literal-required]

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        ssl_object = transport.get_extra_info("ssl_object")
        if ssl_object is not None:
            der = ssl_object.getpeercert(binary_form=True)
            self._tls_extension = {"client_cert_der": der, "tls_version": ssl_object.version()}

    def shutdown(self) -> None:
        # An idle connection is closed at once, as Go's Server.Shutdown does: a TLS close would wait
        # for the client's close_notify (up to 30 s) and hold the whole shutdown.
        if self.cycle is None or self.cycle.response_complete:
            self.transport.abort()
        else:
            super().shutdown()

    def _unsupported_upgrade_warning(self) -> None:
        # An Upgrade (kubectl exec/attach/port-forward ask for WebSocket or SPDY) is answered as plain HTTP by
        # the handler, with the Status kube gives; uvicorn would log two warnings for every such request.
        log.debug("upgrade request answered without upgrading")

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._tls_extension is not None:
            self.scope["extensions"] = {"tls": self._tls_extension}  # type: ignore[typeddict-unknown-key]


# When no --tls-cipher-suites are given: the TLS 1.2 suites with forward secrecy and AEAD, as Go's defaults
# prefer (TLS 1.3 suites are always on).
DEFAULT_CIPHERS = "ECDHE+AESGCM:ECDHE+CHACHA20"
CERT_RELOAD_INTERVAL = 1.0


def _file_bytes(path: str) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


class SecureServer:
    def __init__(
        self,
        app: Any,
        host: str,
        port: int,
        cert_file: str | None,
        key_file: str | None,
        client_ca_file: str | None,
        on_shutdown: Any,
        shutdown_delay: float = 0.0,
        min_version: ssl.TLSVersion = ssl.TLSVersion.TLSv1_2,
        ciphers: str | None = None,
    ) -> None:
        kwargs: dict[str, Any] = {}
        self.cert_file, self.key_file, self.client_ca_file = cert_file, key_file, client_ca_file
        if cert_file:
            kwargs.update(ssl_certfile=cert_file, ssl_keyfile=key_file, ssl_ciphers=ciphers or DEFAULT_CIPHERS)
            if client_ca_file:
                kwargs.update(ssl_cert_reqs=ssl.CERT_OPTIONAL, ssl_ca_certs=client_ca_file)

            def context_factory(config: uvicorn.Config, default: Any) -> ssl.SSLContext:
                ctx: ssl.SSLContext = default()
                ctx.minimum_version = min_version
                return ctx

            kwargs["ssl_context_factory"] = context_factory
        self.config = uvicorn.Config(
            app,
            host=host,
            port=port,
            http=ClientCertHttpToolsProtocol,
            loop="none",
            lifespan="off",
            ws="none",
            log_level="warning",
            access_log=False,
            timeout_keep_alive=120,
            timeout_graceful_shutdown=10,
            server_header=False,
            proxy_headers=False,
            date_header=True,
            **kwargs,
        )
        self.server = uvicorn.Server(self.config)
        self.on_shutdown = on_shutdown
        self.shutdown_delay = shutdown_delay

    def bind(self) -> None:
        """Listen before anything else, so a taken port is a clean error, not a traceback."""
        host, port = self.config.host, self.config.port
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as e:
            sock.close()
            raise OSError(e.errno, f"failed to listen on {host}:{port}: {e.strerror}") from None
        sock.listen(2048)
        sock.set_inheritable(True)
        self.sock = sock

    async def reload_certificates(self, interval: float = CERT_RELOAD_INTERVAL) -> None:
        """Serve the certificate files' new contents when they change, as kube's dynamic certificate
        controllers do: the serving pair for new connections, and the client CAs (added to the trusted
        ones: OpenSSL cannot forget a CA of a live context). A pair that does not load is logged and the
        old one kept."""
        ctx = self.config.ssl
        if ctx is None or not self.cert_file:
            return
        pair = (_file_bytes(self.cert_file), _file_bytes(self.key_file or self.cert_file))
        ca = _file_bytes(self.client_ca_file) if self.client_ca_file else None
        while True:
            await asyncio.sleep(interval)
            new_pair = (_file_bytes(self.cert_file), _file_bytes(self.key_file or self.cert_file))
            if new_pair != pair and None not in new_pair:
                pair = new_pair
                try:
                    ctx.load_cert_chain(self.cert_file, self.key_file)
                    log.warning("loaded the new serving certificate from %s", self.cert_file)
                except (ssl.SSLError, OSError) as e:
                    log.error("failed to load the serving certificate %s: %s", self.cert_file, e)
            if self.client_ca_file:
                new_ca = _file_bytes(self.client_ca_file)
                if new_ca is not None and new_ca != ca:
                    ca = new_ca
                    try:
                        ctx.load_verify_locations(cafile=self.client_ca_file)
                        log.warning("loaded the client CA bundle %s", self.client_ca_file)
                    except (ssl.SSLError, OSError) as e:
                        log.error("failed to load the client CA bundle %s: %s", self.client_ca_file, e)

    async def serve(self, started: asyncio.Event) -> None:
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        # SIGTERM and SIGINT are ours (the drain and --shutdown-delay-duration come before the listener
        # closes): uvicorn's serve() would otherwise put its own handler in place of the loop's for its
        # whole run, stop serving at once and raise the signal again once done
        self.server.install_signal_handlers = lambda: None  # type: ignore[method-assign]
        self.server.capture_signals = contextlib.nullcontext  # type: ignore[method-assign]
        serve_task = asyncio.create_task(self.server.serve(sockets=[self.sock]))
        while not self.server.started:
            if serve_task.done():
                await serve_task
                raise SystemExit(1)
            await asyncio.sleep(0.005)
        started.set()
        await stop.wait()
        # Drain: readyz fails first, watches end cleanly, in-flight requests finish, then we stop.
        await self.on_shutdown()
        if self.shutdown_delay:
            await asyncio.sleep(self.shutdown_delay)
        self.server.should_exit = True
        await serve_task

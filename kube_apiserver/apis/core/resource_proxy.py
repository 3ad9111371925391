"""pods/proxy, services/proxy and nodes/proxy: the API server as an HTTP proxy (ProxyREST of
pkg/registry/core/{pod,service,node}; their ResourceLocation functions pick the backend).

A pod is reached at its first pod IP, a service at one of its Endpoints addresses, a node at its
kubelet (or another port of the node's address). The request is forwarded over HTTP/1.1 and the
answer streamed back; a backend that cannot be dialed is kube's 503 "error trying to reach service".
Upgrade requests (websockets through the proxy) are forwarded as plain requests.
"""

from __future__ import annotations

import asyncio
import ipaddress
import random
import socket
import ssl
from typing import Any

import h11

from kube_apiserver.apis.core.pod_streaming import connection_info, go_dial_error
from kube_apiserver.apis.core.pod_subresources import StoreKey, get_pod
from kube_apiserver.endpoints.handlers.scope import RequestScope
from kube_apiserver.endpoints.installer import Handler
from kube_apiserver.endpoints.request import Request
from kube_apiserver.registry.store import Store
from kube_apiserver.runtime import errors
from kube_apiserver.runtime.labels import go_quote

PROXY_VERBS = ("create", "get", "update", "patch", "delete", "options")
_HOP_BY_HOP = {
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "trailers",
    "transfer-encoding",
    "upgrade",
    "host",
    "content-length",
    # credentials of the API server's own client never travel on (the authentication filter drops them)
    "authorization",
}
_CONNECT_TIMEOUT = 30.0


def split_scheme_name_port(id_: str) -> tuple[str, str, str, bool]:
    """utilnet.SplitSchemeNamePort: "name", "name:port" or "scheme:name:port"."""
    parts = id_.split(":")
    if len(parts) == 1:
        scheme, name, port = "", parts[0], ""
    elif len(parts) == 2:
        scheme, name, port = "", parts[0], parts[1]
    elif len(parts) == 3:
        scheme, name, port = parts
    else:
        return "", "", "", False
    if name and scheme in ("http", "https", ""):
        return scheme, name, port, True
    return "", "", "", False


def is_global_unicast(ip: str) -> bool:
    """Go's net.IP.IsGlobalUnicast (private ranges count as global unicast)."""
    try:
        addr = ipaddress.ip_address(ip)
    except ValueError:
        return False
    if addr.is_unspecified or addr.is_loopback or addr.is_multicast or addr.is_link_local:
        return False
    return not (isinstance(addr, ipaddress.IPv4Address) and addr == ipaddress.IPv4Address("255.255.255.255"))


def _join_host_port(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _sub_path(req: Request, resource: str, name: str) -> str:
    """What follows .../{resource}/{name}/proxy, as an absolute path."""
    marker = f"/{resource}/{name}/proxy"
    idx = req.path.find(marker)
    rest = req.path[idx + len(marker) :] if idx >= 0 else ""
    return rest if rest.startswith("/") else "/" + rest


class ResourceProxy:
    def __init__(self, stores: dict[StoreKey, Store]) -> None:
        self.pods = stores[("", "v1", "pods")]
        self.nodes = stores[("", "v1", "nodes")]
        self.services = stores[("", "v1", "services")]
        self.endpoints = stores[("", "v1", "endpoints")]

    # --- locations ---

    async def pod_location(self, ns: str, id_: str) -> tuple[str, str, int]:
        """pod.ResourceLocation: the pod's first IP, at the given port or the first declared one."""
        scheme, name, port, valid = split_scheme_name_port(id_)
        if not valid:
            raise errors.new_bad_request(f"invalid pod request {go_quote(id_)}")
        pod = await get_pod(self.pods, ns, name)
        if not port:
            for c in (pod.get("spec") or {}).get("containers") or []:
                ports = c.get("ports") if isinstance(c, dict) else None
                if isinstance(ports, list) and ports and isinstance(ports[0], dict):
                    port = str(ports[0].get("containerPort", ""))
                    break
        pod_ips = (pod.get("status") or {}).get("podIPs") or []
        ip = str(pod_ips[0].get("ip", "")) if pod_ips and isinstance(pod_ips[0], dict) else ""
        if not is_global_unicast(ip):
            raise errors.new_bad_request("address not allowed")
        return scheme, ip, self._port(scheme, port)

    async def service_location(self, ns: str, id_: str) -> tuple[str, str, int]:
        """service REST.ResourceLocation: an address of the service's Endpoints serving the port."""
        scheme, svc_name, port_name, valid = split_scheme_name_port(id_)
        if not valid:
            raise errors.new_bad_request(f"invalid service request {go_quote(id_)}")
        if port_name.isascii() and port_name.lstrip("-").isdigit():
            number = int(port_name)
            svc = (await self.services.get(ns, svc_name)).obj
            for sp in (svc.get("spec") or {}).get("ports") or []:
                if isinstance(sp, dict) and sp.get("port") == number:
                    port_name = str(sp.get("name", ""))
                    break
            else:
                raise errors.new_service_unavailable(f"no service port {number} found for service {go_quote(svc_name)}")
        eps = (await self.endpoints.get(ns, svc_name)).obj
        subsets = [s for s in eps.get("subsets") or [] if isinstance(s, dict)]
        if not subsets:
            raise errors.new_service_unavailable(f"no endpoints available for service {go_quote(svc_name)}")
        start = random.randrange(len(subsets))
        for i in range(len(subsets)):
            subset = subsets[(start + i) % len(subsets)]
            addresses = [a for a in subset.get("addresses") or [] if isinstance(a, dict)]
            if not addresses:
                continue
            for ep_port in subset.get("ports") or []:
                if not isinstance(ep_port, dict) or ep_port.get("name", "") != port_name:
                    continue
                first = random.randrange(len(addresses))
                for j in range(len(addresses)):
                    addr = addresses[(first + j) % len(addresses)]
                    if await self._valid_address(ns, addr):
                        return scheme or "http", str(addr.get("ip", "")), int(ep_port.get("port", 0))
        raise errors.new_service_unavailable(f"no endpoints available for service {go_quote(id_)}")

    async def _valid_address(self, ns: str, addr: dict[str, Any]) -> bool:
        """isValidAddress: the address names a pod of this namespace that has that IP."""
        ref = addr.get("targetRef")
        if not isinstance(ref, dict) or ref.get("namespace") != ns:
            return False
        try:
            pod = await get_pod(self.pods, ns, str(ref.get("name", "")))
        except errors.StatusError:
            return False
        ips = [p.get("ip") for p in (pod.get("status") or {}).get("podIPs") or [] if isinstance(p, dict)]
        return addr.get("ip") in ips

    async def node_location(self, id_: str) -> tuple[str, str, int]:
        """node.ResourceLocation: the kubelet, or another port of the node's address."""
        scheme, name, port, valid = split_scheme_name_port(id_)
        if not valid:
            raise errors.new_bad_request(f"invalid node request {go_quote(id_)}")
        info = await connection_info(self.nodes, name)
        try:
            infos = await asyncio.get_running_loop().getaddrinfo(info.hostname, None, type=socket.SOCK_STREAM)
        except socket.gaierror:
            raise errors.new_bad_request(f"lookup {info.hostname}: no such host") from None
        if not infos:
            raise errors.new_bad_request("no addresses for hostname")
        if not all(is_global_unicast(str(i[4][0])) for i in infos):
            raise errors.new_bad_request("address not allowed")
        if not port or port == info.port:
            return info.scheme, info.hostname, int(info.port)
        return scheme, info.hostname, self._port(scheme, port)

    @staticmethod
    def _port(scheme: str, port: str) -> int:
        if not port:
            return 443 if scheme == "https" else 80
        try:
            return int(port)
        except ValueError:
            raise errors.new_service_unavailable(
                f'error trying to reach service: dial tcp: lookup port "{port}": unknown port'
            ) from None

    # --- handlers ---

    def handlers(self, resource: str) -> dict[tuple[str, str], Handler]:
        async def proxy(scope: RequestScope) -> None:
            name = scope.info.name
            if resource == "pods":
                scheme, host, port = await self.pod_location(scope.info.namespace, name)
            elif resource == "services":
                scheme, host, port = await self.service_location(scope.info.namespace, name)
            else:
                scheme, host, port = await self.node_location(name)
            await forward(scope.req, scheme or "http", host, port, _sub_path(scope.req, resource, name))

        return {("proxy", verb): proxy for verb in PROXY_VERBS}


async def forward(req: Request, scheme: str, host: str, port: int, path: str) -> None:
    """Send the request to the backend and stream its answer back (the UpgradeAwareHandler's
    reverse proxy, without its HTML link rewriting)."""
    host_port = _join_host_port(host, port)
    context = None
    if scheme == "https":
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE  # as the API server's proxy transport
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port, ssl=context), _CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ssl.SSLError) as e:
        raise errors.new_service_unavailable(f"error trying to reach service: {go_dial_error(host_port, e)}") from None
    try:
        await _exchange(req, reader, writer, host_port, path)
    finally:
        writer.close()


async def _exchange(
    req: Request, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, host_port: str, path: str
) -> None:
    body = await req.body()
    conn = h11.Connection(h11.CLIENT)
    headers = [(k, v) for k, v in req.headers.items() if k not in _HOP_BY_HOP and not k.startswith("impersonate-")]
    headers.append(("host", host_port))
    headers.append(("connection", "close"))
    headers.append(("content-length", str(len(body))))
    client = req.scope.get("client")
    if client:
        prior = req.header("x-forwarded-for")
        headers = [(k, v) for k, v in headers if k != "x-forwarded-for"]
        headers.append(("x-forwarded-for", f"{prior}, {client[0]}" if prior else str(client[0])))
    query = req.scope.get("query_string", b"")
    target = path + ("?" + query.decode("latin-1") if query else "")
    started = False
    try:
        writer.write(conn.send(h11.Request(method=req.method, target=target, headers=headers)))
        if body:
            writer.write(conn.send(h11.Data(data=body)))
        writer.write(conn.send(h11.EndOfMessage()))
        await writer.drain()
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                conn.receive_data(await reader.read(65536))
                continue
            if isinstance(event, h11.Response):
                out = [
                    (k, v)
                    for k, v in event.headers
                    if k.decode("latin-1").lower() not in _HOP_BY_HOP or k.lower() == b"content-length"
                ]
                await req.send({"type": "http.response.start", "status": event.status_code, "headers": out})
                started = True
            elif isinstance(event, h11.Data):
                await req.send({"type": "http.response.body", "body": bytes(event.data), "more_body": True})
            elif isinstance(event, (h11.EndOfMessage, h11.ConnectionClosed)):
                break
    except (OSError, h11.ProtocolError, asyncio.IncompleteReadError) as e:
        if not started:
            raise errors.new_service_unavailable(f"error trying to reach service: {e}") from None
    if started:
        await req.send({"type": "http.response.body", "body": b""})

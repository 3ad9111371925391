"""pods/log, pods/exec, pods/attach and pods/portforward (pkg/registry/core/pod/rest: LogREST,
ExecREST, AttachREST, PortForwardREST; the locations in pkg/registry/core/pod/strategy.go).

Each of them is served by the kubelet of the pod's node, which this server does not run. What can be
answered here is answered as kube-apiserver does: a missing pod, a bad container name, a pod with no
node (logs: an empty 204, the others: 400), a missing node, a node with no address. Past that kube
dials the kubelet; so does this server, to report the dial error kube would give; a kubelet that
answers cannot be spoken to from here (no kubelet client), which is said in a 503.
"""

from __future__ import annotations

import asyncio
import errno
import socket
from dataclasses import dataclass
from urllib.parse import urlencode

from kube_apiserver.apis.core.pod_subresources import get_pod, unknown_error, validate_container
from kube_apiserver.endpoints.handlers.scope import RequestScope
from kube_apiserver.endpoints.installer import Handler
from kube_apiserver.endpoints.request import Request
from kube_apiserver.registry.store import Store
from kube_apiserver.runtime import errors
from kube_apiserver.runtime.errors import StatusCause

# kube-apiserver's --kubelet-preferred-address-types default, and the kubelet's port.
PREFERRED_ADDRESS_TYPES = ("Hostname", "InternalDNS", "InternalIP", "ExternalDNS", "ExternalIP")
DEFAULT_KUBELET_PORT = 10250
# --kubelet-timeout
KUBELET_TIMEOUT = 5.0


@dataclass
class ConnectionInfo:
    scheme: str
    hostname: str
    port: str

    @property
    def host_port(self) -> str:
        """net.JoinHostPort."""
        return f"[{self.hostname}]:{self.port}" if ":" in self.hostname else f"{self.hostname}:{self.port}"


async def connection_info(nodes: Store, node_name: str) -> ConnectionInfo:
    """NodeConnectionInfoGetter.GetConnectionInfo: where the node's kubelet listens."""
    node = (await nodes.get("", node_name)).obj
    status = node.get("status") if isinstance(node.get("status"), dict) else {}
    addresses = [a for a in status.get("addresses") or [] if isinstance(a, dict)]
    host = ""
    for kind in PREFERRED_ADDRESS_TYPES:
        host = next((str(a.get("address", "")) for a in addresses if a.get("type") == kind), "")
        if host:
            break
    else:
        known = " ".join(f"{{{a.get('type', '')} {a.get('address', '')}}}" for a in addresses)
        raise unknown_error(f"no preferred addresses found; known addresses: [{known}]")
    endpoint = ((status.get("daemonEndpoints") or {}).get("kubeletEndpoint") or {}).get("Port")
    port = endpoint if isinstance(endpoint, int) and not isinstance(endpoint, bool) and endpoint > 0 else 0
    return ConnectionInfo("https", host, str(port or DEFAULT_KUBELET_PORT))


def go_dial_error(host_port: str, exc: BaseException) -> str:
    """The text of the *net.OpError Go's dialer gives for what asyncio raised."""
    if isinstance(exc, (TimeoutError, asyncio.TimeoutError)):
        return f"dial tcp {host_port}: i/o timeout"
    if isinstance(exc, socket.gaierror):
        host = host_port.rsplit(":", 1)[0].strip("[]")
        return f"dial tcp: lookup {host}: no such host"
    if isinstance(exc, OSError) and exc.errno is not None:
        text = {
            errno.ECONNREFUSED: "connection refused",
            errno.EHOSTUNREACH: "no route to host",
            errno.ENETUNREACH: "network is unreachable",
            errno.ECONNRESET: "connection reset by peer",
        }.get(exc.errno, (exc.strerror or str(exc)).lower())
        return f"dial tcp {host_port}: connect: {text}"
    return f"dial tcp {host_port}: {exc}"


async def dial(host: str, port: int, timeout: float = KUBELET_TIMEOUT) -> str | None:
    """Open (and close) a TCP connection: None when something listens, else Go's dial error text."""
    host_port = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    try:
        _, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
    except (OSError, TimeoutError) as e:
        return go_dial_error(host_port, e)
    writer.close()
    try:
        await writer.wait_closed()
    except OSError:
        pass
    return None


def no_kubelet_client(what: str) -> errors.StatusError:
    return errors.new_service_unavailable(f"{what}: this API server has no kubelet client to stream from the kubelet")


def is_upgrade_request(req: Request) -> bool:
    """httpstream.IsUpgradeRequest: a Connection header naming Upgrade."""
    return "upgrade" in req.header("connection").lower()


# --- pods/log ---


def validate_pod_log_options(req: Request) -> list[StatusCause]:
    """ValidatePodLogOptions."""
    causes = []
    tail, limit, since = (
        req.int64("tailLines"),
        req.int64("limitBytes"),
        req.int64("sinceSeconds"),
    )
    if tail is not None and tail < 0:
        causes.append(errors.field_invalid("tailLines", tail, "must be greater than or equal to 0"))
    if limit is not None and limit < 1:
        causes.append(errors.field_invalid("limitBytes", limit, "must be greater than 0"))
    if since is not None and req.params("sinceTime"):
        causes.append(errors.field_forbidden("[]", "at most one of `sinceTime` or `sinceSeconds` may be specified"))
    elif since is not None and since < 1:
        causes.append(errors.field_invalid("sinceSeconds", since, "must be greater than 0"))
    return causes


def _log_query(req: Request) -> str:
    params: list[tuple[str, str]] = []
    for flag in ("follow", "previous", "timestamps"):
        if req.flag(flag):
            params.append((flag, "true"))
    for key in ("sinceSeconds", "sinceTime", "tailLines", "limitBytes"):
        if req.params(key):
            params.append((key, req.params(key)[0]))
    return urlencode(sorted(params))


class PodStreaming:
    def __init__(self, pods: Store, nodes: Store) -> None:
        self.pods = pods
        self.nodes = nodes

    async def log(self, scope: RequestScope) -> None:
        req, name, ns = scope.req, scope.info.name, scope.info.namespace
        causes = validate_pod_log_options(req)
        if causes:
            raise errors.new_invalid("", "PodLogOptions", name, causes)
        pod = await get_pod(self.pods, ns, name)
        container = validate_container(req.param("container"), pod)
        node_name = (pod.get("spec") or {}).get("nodeName")
        if not node_name:
            # No location: LocationStreamer has nothing to stream and the handler answers 204.
            await req.send({"type": "http.response.start", "status": 204, "headers": []})
            await req.send({"type": "http.response.body", "body": b""})
            return
        info = await connection_info(self.nodes, node_name)
        query = _log_query(req)
        url = f"{info.scheme}://{info.host_port}/containerLogs/{ns}/{name}/{container}" + (f"?{query}" if query else "")
        failure = await dial(info.hostname, int(info.port))
        if failure is not None:
            raise unknown_error(f'Get "{url}": {failure}')
        raise no_kubelet_client(f'Get "{url}"')

    async def stream(self, scope: RequestScope, path: str) -> None:
        """exec, attach (with a container) and portForward: an upgraded connection to the kubelet."""
        name, ns = scope.info.name, scope.info.namespace
        pod = await get_pod(self.pods, ns, name)
        if path != "portForward":
            validate_container(scope.req.param("container"), pod)
        node_name = (pod.get("spec") or {}).get("nodeName")
        if not node_name:
            raise errors.new_bad_request(f"pod {name} does not have a host assigned")
        info = await connection_info(self.nodes, node_name)
        if not is_upgrade_request(scope.req):
            raise errors.new_bad_request("Upgrade request required")
        failure = await dial(info.hostname, int(info.port))
        if failure is not None:
            raise unknown_error(f"error dialing backend: {failure}")
        raise no_kubelet_client("error dialing backend")


def streaming_handlers(pods: Store, nodes: Store) -> dict[tuple[str, str], Handler]:
    rest = PodStreaming(pods, nodes)

    def connect(path: str) -> Handler:
        async def handler(scope: RequestScope) -> None:
            await rest.stream(scope, path)

        return handler

    out: dict[tuple[str, str], Handler] = {("log", "get"): rest.log}
    for sub, path in (("exec", "exec"), ("attach", "attach"), ("portforward", "portForward")):
        out[(sub, "get")] = out[(sub, "create")] = connect(path)
    return out

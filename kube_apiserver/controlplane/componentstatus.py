"""componentstatuses (pkg/registry/core/componentstatus): not stored, but probed on every get and list.

kube-apiserver probes the servers it knows of: the scheduler and the controller manager on this host
(https://127.0.0.1:10259/healthz and :10257, certificates not verified), and each etcd server. This server
has no etcd, so it lists the two components; where neither runs, `kubectl get cs` shows them Unhealthy
with the dial error, as a lone kube-apiserver does. Unlike upstream (a 500 "Component not found"), a name
it does not know is a 404.
"""

from __future__ import annotations

import asyncio
from typing import Any

import orjson

from kube_apiserver.endpoints.handlers.list import selection
from kube_apiserver.endpoints.handlers.scope import RequestScope, include_object, write_object
from kube_apiserver.endpoints.negotiation import YAML, encode_transformed, negotiate
from kube_apiserver.endpoints.request import send_bytes
from kube_apiserver.endpoints.table import to_table
from kube_apiserver.runtime import errors
from kube_apiserver.runtime.serializer import encode_yaml

# name → (host, port, path): GetServersToValidate's components on their secure ports
SERVERS = {
    "scheduler": ("127.0.0.1", 10259, "/healthz"),
    "controller-manager": ("127.0.0.1", 10257, "/healthz"),
}
PROBE_TIMEOUT = 20.0  # probeTimeOut


async def probe(host: str, port: int, path: str, timeout: float = PROBE_TIMEOUT) -> tuple[bool, str]:
    """The HTTP prober: (healthy, message). 2xx/3xx is healthy with the body as message; another code is
    'HTTP probe failed with statuscode: N'; a failure to connect is the Go client's error text."""
    import aiohttp  # (~0.1 s to import: paid by the first `kubectl get cs`, not at start)

    url = f"https://{host}:{port}{path}"
    try:
        async with (
            aiohttp.ClientSession(
                timeout=aiohttp.ClientTimeout(total=timeout),
                connector=aiohttp.TCPConnector(ssl=False),  # InsecureSkipVerify, as kube probes them
                trust_env=False,
            ) as session,
            session.get(url) as response,
        ):
            body = await response.text(errors="replace")
            code = response.status
    except TimeoutError:
        return False, f'Get "{url}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)'
    except aiohttp.ClientConnectorError as e:
        if isinstance(e.os_error, ConnectionRefusedError):
            return False, f'Get "{url}": dial tcp {host}:{port}: connect: connection refused'
        return False, f'Get "{url}": dial tcp {host}:{port}: {e.os_error.strerror or e.os_error}'
    except aiohttp.ClientError as e:
        return False, f'Get "{url}": {e or type(e).__name__}'
    if 200 <= code < 400:
        return True, body
    return False, f"HTTP probe failed with statuscode: {code}"


async def component_status(name: str) -> dict[str, Any]:
    healthy, message = await probe(*SERVERS[name])
    condition = {"type": "Healthy", "status": "True" if healthy else "False", "message": message}
    return {"kind": "ComponentStatus", "apiVersion": "v1", "metadata": {"name": name}, "conditions": [condition]}


async def get_component_status(scope: RequestScope) -> None:
    name = scope.info.name
    if name not in SERVERS:
        raise errors.new_not_found(scope.spec.group, scope.spec.resource, name)
    await write_object(scope, 200, await component_status(name))


async def list_component_statuses(scope: RequestScope) -> None:
    predicate = selection(scope)  # (label and field selectors refused as for any list)
    statuses = await asyncio.gather(*(component_status(name) for name in SERVERS))
    items = [s for s in statuses if predicate is None or predicate(s)]
    out = negotiate(scope.req.header("accept"), table=True)
    if out.form == "table":
        table = to_table(scope.spec, items, list_meta={}, include=include_object(scope), version=out.version)
        await send_bytes(scope.req.send, 200, encode_transformed(out, table), out.content_type)
        return
    body = {"kind": "ComponentStatusList", "apiVersion": "v1", "metadata": {}, "items": items}
    if out.form == "yaml":
        await send_bytes(scope.req.send, 200, encode_yaml(body), YAML)
        return
    await send_bytes(scope.req.send, 200, orjson.dumps(body))


HANDLERS = {("", "get"): get_component_status, ("", "list"): list_component_statuses}

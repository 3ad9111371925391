"""The EndpointSlice printer (printers.go printEndpointSlice)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.printing import (
    AGE_COLUMN,
    NAME_COLUMN,
    age,
    col,
    dicts,
    list_with_more,
    lst,
    name,
    num,
    text,
)
from kube_apiserver.registry.resource_spec import TablePrinter


def format_ports(ports: Any) -> str:
    """formatDiscoveryPorts: port numbers (or names, or "*"), at most 3."""
    listed: list[str] = []
    limit = 3
    more = False
    count = 0
    for port in dicts(ports):
        if len(listed) < limit:
            if port.get("port") is not None:
                listed.append(str(num(port.get("port"))))
            elif port.get("name") is not None:
                listed.append(text(port.get("name")))
            else:
                listed.append("*")
        elif len(listed) == limit:
            more = True
        count += 1
    return list_with_more(listed, more, count, limit)


def format_endpoints(endpoints: Any) -> str:
    """formatDiscoveryEndpoints: addresses of all endpoints, at most 3."""
    listed: list[str] = []
    limit = 3
    more = False
    count = 0
    for endpoint in dicts(endpoints):
        for address in lst(endpoint.get("addresses")):
            if len(listed) < limit:
                listed.append(text(address))
            elif len(listed) == limit:
                more = True
            count += 1
    return list_with_more(listed, more, count, limit)


def endpoint_slice_row(obj: dict[str, Any], now: float) -> list[Any]:
    return [
        name(obj),
        text(obj.get("addressType")),
        format_ports(obj.get("ports")),
        format_endpoints(obj.get("endpoints")),
        age(obj, now),
    ]


ENDPOINT_SLICE_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col("AddressType", description="addressType specifies the type of address carried by this EndpointSlice."),
        col("Ports", description="ports specifies the list of network ports exposed by each endpoint in this slice."),
        col("Endpoints", description="endpoints is a list of unique endpoints in this slice."),
        AGE_COLUMN,
    ),
    row=endpoint_slice_row,
)

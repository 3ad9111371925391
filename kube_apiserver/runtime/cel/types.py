"""The CEL types Kubernetes adds (kubernetes.Quantity, kubernetes.URL, net.IP, net.CIDR,
kubernetes.NamedFormat) and the descriptor pools that carry them.

cel-expr-python cannot hand a Python object to CEL as an opaque value, but it can hand it a protobuf
message: each Kubernetes type is a one-field message whose full name is the CEL type name Kubernetes
uses, so type(quantity('1')) prints kubernetes.Quantity and the checker resolves overloads on it. The
field holds a canonical form, which makes message equality the semantic equality Kubernetes defines
(quantity('1') == quantity('1000m')).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import cache, lru_cache
from typing import Any

from cel_expr_python import cel
from google.protobuf import (
    descriptor_pb2,
    descriptor_pool,
    duration_pb2,
    message_factory,
    struct_pb2,
    timestamp_pb2,
)

_F = descriptor_pb2.FieldDescriptorProto

# (package, message) → the CEL type name is "<package>.<message>"
_OPAQUE = (
    ("kubernetes", "Quantity"),
    ("kubernetes", "URL"),
    ("net", "IP"),
    ("net", "CIDR"),
    ("kubernetes", "NamedFormat"),
    ("kubernetes", "NamedFormatResult"),
)


def _well_known_files() -> list[descriptor_pb2.FileDescriptorProto]:
    files = []
    for module in (struct_pb2, timestamp_pb2, duration_pb2):
        fdp = descriptor_pb2.FileDescriptorProto()
        module.DESCRIPTOR.CopyToProto(fdp)
        files.append(fdp)
    return files


def _opaque_files() -> list[descriptor_pb2.FileDescriptorProto]:
    files = []
    for package in sorted({p for p, _ in _OPAQUE}):
        fdp = descriptor_pb2.FileDescriptorProto(name=f"k8s_cel_{package}.proto", package=package, syntax="proto3")
        for pkg, name in _OPAQUE:
            if pkg == package:
                msg = fdp.message_type.add(name=name)
                msg.field.add(name="value", number=1, type=_F.TYPE_STRING, label=_F.LABEL_OPTIONAL)
        files.append(fdp)
    return files


def new_pool() -> descriptor_pool.DescriptorPool:
    """A pool with the well-known types and Kubernetes' CEL types; schema types are added per compilation."""
    pool = descriptor_pool.DescriptorPool()
    for fdp in _well_known_files() + _opaque_files():
        pool.Add(fdp)
    return pool


@lru_cache(maxsize=1)
def shared_pool() -> descriptor_pool.DescriptorPool:
    """The pool of the runtime environment: values created by library functions come from here."""
    return new_pool()


@cache
def message_class(full_name: str) -> Any:
    return message_factory.GetMessageClass(shared_pool().FindMessageTypeByName(full_name))


QUANTITY = "kubernetes.Quantity"
URL = "kubernetes.URL"
IP = "net.IP"
CIDR = "net.CIDR"
NAMED_FORMAT = "kubernetes.NamedFormat"
FORMAT_RESULT = "kubernetes.NamedFormatResult"

QuantityType = cel.Type(QUANTITY)
URLType = cel.Type(URL)
IPType = cel.Type(IP)
CIDRType = cel.Type(CIDR)
NamedFormatType = cel.Type(NAMED_FORMAT)
FormatResultType = cel.Type(FORMAT_RESULT)


def wrap(full_name: str, value: str) -> Any:
    return message_class(full_name)(value=value)


def unwrap(message: Any) -> str:
    return str(getattr(message, "value", ""))


def timestamp(text: str) -> Any:
    """An RFC 3339 string as the google.protobuf.Timestamp CEL reads as a timestamp."""
    ts = timestamp_pb2.Timestamp()
    ts.FromJsonString(text)
    return ts


def duration(seconds: int, nanos: int = 0) -> Any:
    return duration_pb2.Duration(seconds=seconds, nanos=nanos)


def to_cel(value: Any) -> Any:
    """A value a Python function returns, as cel-expr-python accepts it back (it hands timestamps and
    durations to Python as datetime and timedelta, but takes only their protobuf forms)."""
    if isinstance(value, datetime):
        ts = timestamp_pb2.Timestamp()
        ts.FromDatetime(value)
        return ts
    if isinstance(value, timedelta):
        d = duration_pb2.Duration()
        d.FromTimedelta(value)
        return d
    return value

"""Command-line flags, named as kube-apiserver's (cmd/kube-apiserver/app/options)."""

from __future__ import annotations

import argparse
import ipaddress
import sys
from dataclasses import dataclass
from typing import NoReturn

from kube_apiserver.server.filters.timeout import parse_go_duration


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line and exit code 2, as a bad flag does in kube
        sys.stderr.write(f"Error: {message}\n")
        raise SystemExit(2)


def _bool(value: str) -> bool:
    v = value.lower()
    if v in ("true", "1", "t"):
        return True
    if v in ("false", "0", "f"):
        return False
    raise argparse.ArgumentTypeError(f'invalid boolean "{value}"')


def _duration(value: str) -> float:
    try:
        return parse_go_duration(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f'invalid duration "{value}"') from None


def _port(value: str) -> int:
    if not value.isdigit() or not 0 < int(value) < 65536:
        raise argparse.ArgumentTypeError(f'"{value}" is not a valid port (1-65535)')
    return int(value)


def _ip(value: str) -> str:
    try:
        return str(ipaddress.ip_address(value))
    except ValueError:
        raise argparse.ArgumentTypeError(f'"{value}" is not a valid IP address') from None


def _cidr(value: str) -> str:
    try:
        net = ipaddress.ip_network(value, strict=False)
    except ValueError:
        raise argparse.ArgumentTypeError(f'"{value}" is not a valid CIDR') from None
    if net.num_addresses < 4:
        raise argparse.ArgumentTypeError(f'service IP range "{value}" is too small')
    return str(net)


def _port_range(value: str) -> tuple[int, int]:
    try:
        lo, hi = (int(p) for p in value.split("-", 1))
    except ValueError:
        raise argparse.ArgumentTypeError(f'"{value}" is not a port range such as 30000-32767') from None
    if not 0 < lo <= hi < 65536:
        raise argparse.ArgumentTypeError(f'"{value}" is not a valid port range')
    return lo, hi


def _positive(value: str) -> int:
    if not value.lstrip("-").isdigit() or int(value) < 0:
        raise argparse.ArgumentTypeError(f'"{value}" must be a non-negative integer')
    return int(value)


def _modes(value: str) -> list[str]:
    modes = [m.strip() for m in value.split(",") if m.strip()]
    known = {"AlwaysAllow", "AlwaysDeny", "Node", "RBAC"}
    for m in modes:
        if m not in known:
            raise argparse.ArgumentTypeError(
                f'authorization mode "{m}" is not supported yet (supported: {", ".join(sorted(known))})'
            )
    return modes


@dataclass
class Options:
    data_dir: str
    secure_port: int
    bind_address: str
    advertise_address: str | None
    service_cluster_ip_range: str
    service_node_port_range: tuple[int, int]
    token_auth_file: str
    client_ca_file: str
    tls_cert_file: str
    tls_private_key_file: str
    anonymous_auth: bool
    authorization_mode: list[str]
    max_requests_inflight: int
    max_mutating_requests_inflight: int
    request_timeout: float
    min_request_timeout: int
    cors_allowed_origins: list[str]
    storage_backend: str
    etcd_compaction_interval: float
    default_watch_cache_size: int
    shutdown_delay_duration: float
    v: int


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="kube-apiserver", description="A Kubernetes 1.33 API server on embedded SQLite.")
    a = p.add_argument
    a(
        "--data-dir",
        default="./kube-apiserver-data",
        help="Directory for all state: the database, generated certificates and admin.kubeconfig.",
    )
    a(
        "--secure-port",
        type=_port,
        default=6443,
        help="The port on which to serve HTTPS with authentication and authorization.",
    )
    a(
        "--bind-address",
        type=_ip,
        default="0.0.0.0",
        help="The IP address on which to listen for the --secure-port port.",
    )
    a(
        "--advertise-address",
        type=_ip,
        default=None,
        help="The IP address on which to advertise the apiserver to members of the cluster (the kubernetes Service's endpoints). Defaults to --bind-address, or 127.0.0.1 when that is unspecified.",
    )
    a(
        "--service-cluster-ip-range",
        type=_cidr,
        default="10.0.0.0/24",
        help="A CIDR notation IP range from which to assign service cluster IPs.",
    )
    a(
        "--service-node-port-range",
        type=_port_range,
        default=(30000, 32767),
        help="A port range to reserve for services with NodePort visibility.",
    )
    a(
        "--token-auth-file",
        default="",
        help="If set, the file that will be used to secure the secure port of the API server via token authentication.",
    )
    a(
        "--client-ca-file",
        default="",
        help="If set, any request presenting a client certificate signed by one of the authorities in the client-ca-file is authenticated with an identity corresponding to the CommonName of the client certificate. The generated CA is always trusted too.",
    )
    a(
        "--tls-cert-file",
        default="",
        help="File containing the default x509 Certificate for HTTPS. If not provided, a certificate is generated under --data-dir.",
    )
    a(
        "--tls-private-key-file",
        default="",
        help="File containing the default x509 private key matching --tls-cert-file.",
    )
    a(
        "--anonymous-auth",
        type=_bool,
        default=True,
        help="Enables anonymous requests to the secure port of the API server.",
    )
    a(
        "--authorization-mode",
        type=_modes,
        default=["Node", "RBAC"],
        help="Ordered list of plug-ins to do authorization on secure port: AlwaysAllow (authenticated users; anonymous users only reach /healthz, /livez, /readyz, /version), AlwaysDeny, RBAC, Node (accepted; has no opinion: the node graph authorizer is not implemented). system:masters is always allowed.",
    )
    a(
        "--max-requests-inflight",
        type=_positive,
        default=400,
        help="The maximum number of non-mutating requests in flight at a given time.",
    )
    a(
        "--max-mutating-requests-inflight",
        type=_positive,
        default=200,
        help="The maximum number of mutating requests in flight at a given time.",
    )
    a(
        "--request-timeout",
        type=_duration,
        default=60.0,
        help="The duration a handler must keep a request open before timing it out (default 1m0s).",
    )
    a(
        "--min-request-timeout",
        type=_positive,
        default=1800,
        help="The minimum number of seconds a watch stays open; each watch lasts a random time between this and twice it.",
    )
    a(
        "--cors-allowed-origins",
        type=lambda v: [o for o in v.split(",") if o],
        default=[],
        help="List of allowed origins for CORS, comma separated (regular expressions).",
    )
    a(
        "--storage-backend",
        choices=["sqlite"],
        default="sqlite",
        help="The storage backend for persistence. Options: 'sqlite' (embedded, the default).",
    )
    a(
        "--etcd-compaction-interval",
        type=_duration,
        default=300.0,
        help="The interval of compaction requests: history older than the previous interval's revision is dropped (default 5m0s).",
    )
    a(
        "--default-watch-cache-size",
        type=_positive,
        default=10000,
        help="The number of recent events each resource's watch cache keeps for watches that resume from a resourceVersion.",
    )
    a(
        "--shutdown-delay-duration",
        type=_duration,
        default=0.0,
        help="Time to delay the termination, during which /readyz fails and requests are still served.",
    )
    a("-v", "--v", type=_positive, default=0, help="Number for the log level verbosity.")
    return p


def parse(argv: list[str] | None = None) -> Options:
    ns = build_parser().parse_args(argv)
    if bool(ns.tls_cert_file) != bool(ns.tls_private_key_file):
        _Parser().error("--tls-cert-file and --tls-private-key-file must be given together")
    return Options(**vars(ns))

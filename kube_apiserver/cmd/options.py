"""Command-line flags, named as kube-apiserver's (cmd/kube-apiserver/app/options)."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from types import ModuleType
from typing import Any, ClassVar, NoReturn

from kube_apiserver.cmd import (
    options_admission,
    options_audit,
    options_authentication,
    options_authentication_external,
    options_authorization,
    options_encryption,
    options_flowcontrol,
    options_serving,
)
from kube_apiserver.cmd.flag_types import (
    MapFlag,
    SliceFlag,
    bool_flag,
    cidr_flag,
    duration_flag,
    ip_flag,
    map_string_bool_flag,
    map_string_string_flag,
    port_flag,
    port_range_flag,
    positive_flag,
)
from kube_apiserver.cmd.options_authentication import AuthenticationOptions
from kube_apiserver.cmd.options_authentication_external import ExternalAuthenticationOptions
from kube_apiserver.cmd.options_authorization import AuthorizationOptions
from kube_apiserver.cmd.options_encryption import EncryptionOptions
from kube_apiserver.cmd.options_serving import SecureServingOptions
from kube_apiserver.version import version_info


class _VersionAction(argparse.Action):
    """verflag: --version prints "Kubernetes <gitVersion>", --version=raw the whole version.Info, then exits."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: Any, values: Any, option: Any = None) -> None:
        value = str(values).lower()
        if value in ("false", "0"):
            return
        info = version_info()
        if value == "raw":
            sys.stdout.write(json.dumps(info, indent=2) + "\n")
        elif value in ("true", "1"):
            sys.stdout.write(f"Kubernetes {info['gitVersion']}\n")
        else:
            parser.error(f'invalid argument "{values}" for "--version" flag: invalid syntax')
        raise SystemExit(0)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line and exit code 2, as a bad flag does in kube
        if message.startswith(_UNRECOGNIZED):
            # pflag names the first flag it does not know
            first = message[len(_UNRECOGNIZED) :].split()[0]
            if first.startswith("--"):
                message = f"unknown flag: {first.split('=', 1)[0]}"
            elif first.startswith("-") and len(first) > 1:
                message = f"unknown shorthand flag: '{first[1]}' in {first}"
            else:  # the command's Args check
                args = " ".join(f'"{a}"' for a in message[len(_UNRECOGNIZED) :].split() if not a.startswith("-"))
                message = f'"kube-apiserver" does not take any arguments, got [{args}]'
        sys.stderr.write(f"Error: {message}\n")
        raise SystemExit(2)


_UNRECOGNIZED = "unrecognized arguments: "


@dataclass
class Options:
    data_dir: str
    secure_port: int
    bind_address: str
    advertise_address: str | None
    service_cluster_ip_range: str
    service_node_port_range: tuple[int, int]
    max_requests_inflight: int
    max_mutating_requests_inflight: int
    request_timeout: float
    min_request_timeout: int
    cors_allowed_origins: list[str]
    storage_backend: str
    etcd_compaction_interval: float
    default_watch_cache_size: int
    shutdown_delay_duration: float
    namespace_deletion_grace_period: float
    enable_garbage_collector: bool
    allow_privileged: bool
    cert_dir: str
    etcd_servers: list[str]
    feature_gates: dict[str, bool]
    runtime_config: dict[str, str]
    profiling: bool
    livez_grace_period: float
    event_ttl: float
    v: int
    # The option groups, each in its own module as kube's ServerRunOptions holds them.
    secure_serving: SecureServingOptions
    authentication: AuthenticationOptions
    external_authentication: ExternalAuthenticationOptions
    authorization: AuthorizationOptions
    encryption: EncryptionOptions
    flow_control: options_flowcontrol.FlowControlOptions
    audit: options_audit.AuditOptions
    admission: options_admission.AdmissionOptions

    # The flags of each group: parse() moves them off the flat namespace into the group's options.
    GROUPS: ClassVar[tuple[tuple[str, ModuleType, Any], ...]] = (
        ("secure_serving", options_serving, SecureServingOptions),
        ("authentication", options_authentication, AuthenticationOptions),
        ("external_authentication", options_authentication_external, ExternalAuthenticationOptions),
        ("authorization", options_authorization, AuthorizationOptions),
        ("encryption", options_encryption, EncryptionOptions),
        ("flow_control", options_flowcontrol, options_flowcontrol.FlowControlOptions),
        ("audit", options_audit, options_audit.AuditOptions),
        ("admission", options_admission, options_admission.AdmissionOptions),
    )


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
        type=port_flag,
        default=6443,
        help="The port on which to serve HTTPS with authentication and authorization.",
    )
    a(
        "--bind-address",
        type=ip_flag,
        default="0.0.0.0",
        help="The IP address on which to listen for the --secure-port port.",
    )
    a(
        "--advertise-address",
        type=ip_flag,
        default=None,
        help="The IP address on which to advertise the apiserver to members of the cluster (the kubernetes Service's endpoints). Defaults to --bind-address, or 127.0.0.1 when that is unspecified.",
    )
    a(
        "--service-cluster-ip-range",
        type=cidr_flag,
        default="10.0.0.0/24",
        help="A CIDR notation IP range from which to assign service cluster IPs.",
    )
    a(
        "--service-node-port-range",
        type=port_range_flag,
        default=(30000, 32767),
        help="A port range to reserve for services with NodePort visibility.",
    )
    a(
        "--max-requests-inflight",
        type=positive_flag,
        default=400,
        help="The maximum number of non-mutating requests in flight at a given time.",
    )
    a(
        "--max-mutating-requests-inflight",
        type=positive_flag,
        default=200,
        help="The maximum number of mutating requests in flight at a given time.",
    )
    a(
        "--request-timeout",
        type=duration_flag,
        default=60.0,
        help="The duration a handler must keep a request open before timing it out (default 1m0s).",
    )
    a(
        "--min-request-timeout",
        type=positive_flag,
        default=1800,
        help="The minimum number of seconds a watch stays open; each watch lasts a random time between this and twice it.",
    )
    a(
        "--cors-allowed-origins",
        type=lambda v: [o for o in v.split(",") if o],
        action=SliceFlag,
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
        type=duration_flag,
        default=300.0,
        help="The interval of compaction requests: history older than the previous interval's revision is dropped (default 5m0s).",
    )
    a(
        "--default-watch-cache-size",
        type=positive_flag,
        default=10000,
        help="The number of recent events each resource's watch cache keeps for watches that resume from a resourceVersion.",
    )
    a(
        "--shutdown-delay-duration",
        type=duration_flag,
        default=0.0,
        help="Time to delay the termination, during which /readyz fails and requests are still served.",
    )
    a(
        "--namespace-deletion-grace-period",
        type=duration_flag,
        default=5.0,
        help="Time the namespace controller waits after a namespace's deletion before removing its content, as kube-controller-manager's does (5s); 0s for test suites that wait for namespaces to go.",
    )
    a(
        "--enable-garbage-collector",
        type=bool_flag,
        nargs="?",
        const=True,
        default=True,
        help="Enables the generic garbage collector: dependents are deleted with their owners (ownerReferences), "
        "and a delete may leave the orphan or foregroundDeletion finalizer for it. Here the collector runs "
        "in-process, as kube-controller-manager's does beside kube-apiserver.",
    )
    a(
        "--allow-privileged",
        type=bool_flag,
        nargs="?",
        const=True,
        default=True,
        help="If true, allow privileged containers. Unlike kube-apiserver (false), true by default here, as every "
        "cluster installer sets it.",
    )
    a(
        "--cert-dir",
        default="",
        help="The directory where the TLS certs are located: its apiserver.crt and apiserver.key serve HTTPS "
        "when there, unless --tls-cert-file and --tls-private-key-file are given (else the certificates "
        "generated under --data-dir/pki).",
    )
    a(
        "--etcd-servers",
        type=lambda v: [u for u in v.split(",") if u],
        action=SliceFlag,
        default=[],
        help="List of etcd servers to connect with (scheme://ip:port), comma separated. Accepted for the "
        "command lines written for kube-apiserver; this server keeps its state in SQLite under --data-dir "
        "(a warning says so at start).",
    )
    a(
        "--feature-gates",
        type=map_string_bool_flag,
        action=MapFlag,
        default={},
        help="A set of key=value pairs that describe feature gates for alpha/experimental features. WatchList "
        "(on here) can be switched; the others are accepted and keep kube-apiserver 1.33's defaults (a warning "
        "lists them).",
    )
    a(
        "--runtime-config",
        type=map_string_string_flag,
        action=MapFlag,
        default={},
        help="A set of key=value pairs that enable or disable built-in APIs. Accepted; this server serves the "
        "1.33 GA APIs (a warning lists the ones asked for).",
    )
    a(
        "--profiling",
        type=bool_flag,
        nargs="?",
        const=True,
        default=True,
        help="Enable profiling via web interface host:port/debug/pprof/ (not served here).",
    )
    a(
        "--livez-grace-period",
        type=duration_flag,
        default=0.0,
        help="The maximum time the apiserver takes to start: until then /livez counts post-start hooks not yet "
        "finished as passing.",
    )
    a(
        "--event-ttl",
        type=duration_flag,
        default=3600.0,
        help="Amount of time to retain events (default 1h0m0s).",
    )
    a(
        "--version",
        nargs="?",
        const="true",
        default=argparse.SUPPRESS,
        action=_VersionAction,
        help="--version, --version=raw prints version information and quits.",
    )
    a("-v", "--v", type=positive_flag, default=0, help="Number for the log level verbosity.")
    for _, module, _ in Options.GROUPS:
        module.add_flags(p)
    return p


def parse(argv: list[str] | None = None) -> Options:
    parser = build_parser()
    ns = parser.parse_args(argv)
    flat = vars(ns)
    groups = {}
    for attr, module, options_class in Options.GROUPS:
        group_parser = argparse.ArgumentParser(add_help=False)
        module.add_flags(group_parser)
        dests = [action.dest for action in group_parser._actions]
        options = options_class.from_namespace(argparse.Namespace(**{d: flat.pop(d) for d in dests}))
        for problem in getattr(options, "validate", list)():
            parser.error(problem)
        groups[attr] = options
    return Options(**flat, **groups)

"""Audit flags (genericoptions.AuditOptions): the policy file, the log backend and the webhook backend, each with
its mode (blocking, blocking-strict, batch), batching and truncating options, as kube-apiserver 1.33 has them."""

from __future__ import annotations

import argparse
import logging
from dataclasses import dataclass

from kube_apiserver.audit.backend import (
    Backend,
    BatchConfig,
    BufferedBackend,
    IgnoreErrors,
    TruncateBackend,
    TruncateConfig,
    Union,
)
from kube_apiserver.audit.log import ALLOWED_FORMATS, FORMAT_JSON, LogBackend, new_writer
from kube_apiserver.audit.policy import GROUP_VERSION, PolicyError, PolicyRuleEvaluator, load_policy_from_file
from kube_apiserver.audit.webhook import DEFAULT_INITIAL_BACKOFF, WebhookBackend, load_kubeconfig
from kube_apiserver.authentication.kubeconfig_client import KubeconfigError
from kube_apiserver.cmd.flag_types import bool_flag, duration_flag

log = logging.getLogger("kube_apiserver.audit")

MODE_BATCH, MODE_BLOCKING, MODE_BLOCKING_STRICT = "batch", "blocking", "blocking-strict"
ALLOWED_MODES = (MODE_BATCH, MODE_BLOCKING, MODE_BLOCKING_STRICT)
KNOWN_GROUP_VERSIONS = (GROUP_VERSION,)


class AuditConfigError(ValueError):
    """The policy file or the webhook kubeconfig cannot be used; the server exits with the message."""


def _int(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f'strconv.ParseInt: parsing "{value}": invalid syntax') from None


def _float(value: str) -> float:
    try:
        return float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f'strconv.ParseFloat: parsing "{value}": invalid syntax') from None


def _duration(value: str) -> float:
    return 0.0 if value == "0" else duration_flag(value)


@dataclass
class BatchOptions:
    mode: str
    config: BatchConfig

    def validate(self, plugin: str) -> list[str]:
        """validateBackendBatchOptions."""
        if self.mode not in ALLOWED_MODES:
            return [f'invalid audit {plugin} mode {self.mode}, allowed modes are "{",".join(ALLOWED_MODES)}"']
        if self.mode != MODE_BATCH:
            return []
        c = self.config
        if c.buffer_size <= 0:
            return [f"invalid audit batch {plugin} buffer size {c.buffer_size}, must be a positive number"]
        if c.max_batch_size <= 0:
            return [f"invalid audit batch {plugin} max batch size {c.max_batch_size}, must be a positive number"]
        if c.throttle_enable:
            if c.throttle_qps <= 0:
                return [f"invalid audit batch {plugin} throttle QPS {c.throttle_qps:g}, must be a positive number"]
            if c.throttle_burst <= 0:
                return [f"invalid audit batch {plugin} throttle burst {c.throttle_burst}, must be a positive number"]
        return []


@dataclass
class TruncateOptions:
    enabled: bool
    config: TruncateConfig

    def validate(self, plugin: str) -> list[str]:
        c = self.config
        if c.max_event_size <= 0:
            return [f"invalid audit truncate {plugin} max event size {c.max_event_size}, must be a positive number"]
        if c.max_batch_size < c.max_event_size:
            return [
                f"invalid audit truncate {plugin} max batch size {c.max_batch_size}, must be greater than "
                f"max event size ({c.max_event_size})"
            ]
        return []

    def wrap(self, delegate: Backend, plugin: str) -> Backend:
        return TruncateBackend(delegate, self.config, plugin) if self.enabled else delegate


def _validate_group_version(gv: str) -> list[str]:
    if gv.count("/") > 1 or gv.startswith("/") or gv.endswith("/"):
        return [f"unexpected GroupVersion string: {gv}"]
    if gv not in KNOWN_GROUP_VERSIONS:
        return [
            "invalid group version, allowed versions are [" + " ".join(f'"{v}"' for v in KNOWN_GROUP_VERSIONS) + "]"
        ]
    return []


@dataclass
class AuditOptions:
    policy_file: str
    log_path: str
    log_max_age: int
    log_max_backups: int
    log_max_size: int
    log_format: str
    log_compress: bool
    log_version: str
    log_batch: BatchOptions
    log_truncate: TruncateOptions
    webhook_config_file: str
    webhook_initial_backoff: float
    webhook_version: str
    webhook_batch: BatchOptions
    webhook_truncate: TruncateOptions

    @classmethod
    def from_namespace(cls, ns: argparse.Namespace) -> AuditOptions:
        def batch(plugin: str, async_delegate: bool) -> BatchOptions:
            get = lambda name: getattr(ns, f"audit_{plugin}_{name}")  # noqa: E731
            return BatchOptions(
                get("mode"),
                BatchConfig(
                    get("batch_buffer_size"),
                    get("batch_max_size"),
                    get("batch_max_wait"),
                    get("batch_throttle_enable"),
                    get("batch_throttle_qps"),
                    get("batch_throttle_burst"),
                    async_delegate,
                ),
            )

        def truncate(plugin: str) -> TruncateOptions:
            get = lambda name: getattr(ns, f"audit_{plugin}_truncate_{name}")  # noqa: E731
            return TruncateOptions(get("enabled"), TruncateConfig(get("max_batch_size"), get("max_event_size")))

        return cls(
            ns.audit_policy_file,
            ns.audit_log_path,
            ns.audit_log_maxage,
            ns.audit_log_maxbackup,
            ns.audit_log_maxsize,
            ns.audit_log_format,
            ns.audit_log_compress,
            ns.audit_log_version,
            batch("log", False),  # asynchronous log writers only contend for the file
            truncate("log"),
            ns.audit_webhook_config_file,
            ns.audit_webhook_initial_backoff,
            ns.audit_webhook_version,
            batch("webhook", True),
            truncate("webhook"),
        )

    def validate(self) -> list[str]:
        problems: list[str] = []
        if self.log_path:
            problems += self.log_batch.validate("log")
            problems += self.log_truncate.validate("log")
            problems += _validate_group_version(self.log_version)
            if self.log_format not in ALLOWED_FORMATS:
                problems.append(
                    f'invalid audit log format {self.log_format}, allowed formats are "{",".join(ALLOWED_FORMATS)}"'
                )
            for flag, value in (
                ("--audit-log-maxage", self.log_max_age),
                ("--audit-log-maxbackup", self.log_max_backups),
                ("--audit-log-maxsize", self.log_max_size),
            ):
                if value < 0:
                    problems.append(f"{flag} {value} can't be a negative number")
        if self.webhook_config_file:
            problems += self.webhook_batch.validate("webhook")
            problems += self.webhook_truncate.validate("webhook")
            problems += _validate_group_version(self.webhook_version)
        return problems

    def to_config(self) -> tuple[PolicyRuleEvaluator | None, Backend | None]:
        """ApplyTo: the policy evaluator and the backend (None, None without a policy file: nothing is audited).
        Raises AuditConfigError."""
        evaluator = None
        if self.policy_file:
            try:
                evaluator = PolicyRuleEvaluator(load_policy_from_file(self.policy_file))
            except PolicyError as e:
                raise AuditConfigError(f"loading audit policy file: {e}") from None
        backends: list[Backend] = []
        if self.log_path:
            if evaluator is None:
                log.info("No audit policy file provided, no events will be recorded for log backend")
            else:
                writer = new_writer(
                    self.log_path, self.log_max_age, self.log_max_backups, self.log_max_size, self.log_compress
                )
                backend = _wrap_mode(LogBackend(writer, self.log_format, self.log_version), self.log_batch, "log")
                backends.append(self.log_truncate.wrap(backend, "log"))
        if self.webhook_config_file:
            if evaluator is None:
                log.info("No audit policy file provided, no events will be recorded for webhook backend")
            else:
                try:
                    target = load_kubeconfig(self.webhook_config_file)
                except KubeconfigError as e:
                    raise AuditConfigError(f"initializing audit webhook: {e}") from None
                webhook = WebhookBackend(target, self.webhook_version, self.webhook_initial_backoff)
                backend = _wrap_webhook_mode(webhook, self.webhook_batch)
                backends.append(self.webhook_truncate.wrap(backend, "webhook"))
        if not backends:
            return evaluator, None
        return evaluator, backends[0] if len(backends) == 1 else Union(backends)


def _wrap_mode(delegate: Backend, batch: BatchOptions, plugin: str) -> Backend:
    if batch.mode == MODE_BLOCKING_STRICT:
        return delegate
    if batch.mode == MODE_BLOCKING:
        return IgnoreErrors(delegate)
    return BufferedBackend(delegate, batch.config, plugin)


def _wrap_webhook_mode(delegate: Backend, batch: BatchOptions) -> Backend:
    """The webhook's POST can take seconds (and its retries minutes): it never runs on the event loop. In the
    blocking modes each event is sent on its own at once, but the request does not wait for the webhook (kube's
    blocking modes hold the request until the webhook answers)."""
    if batch.mode == MODE_BATCH:
        return BufferedBackend(delegate, batch.config, "webhook")
    immediate = BatchConfig(batch.config.buffer_size, 1, 0.0, False, 0.0, 0, True)
    return BufferedBackend(delegate, immediate, "webhook")


def _add_batch_flags(a: argparse._ActionsContainer, plugin: str, mode: str, batch: BatchConfig) -> None:
    a(
        f"--audit-{plugin}-mode",
        default=mode,
        help="Strategy for sending audit events. Blocking indicates sending events should block server responses. "
        "Batch causes the backend to buffer and write events asynchronously. Known modes are "
        + ",".join(ALLOWED_MODES)
        + ".",
    )
    a(
        f"--audit-{plugin}-batch-buffer-size",
        type=_int,
        default=batch.buffer_size,
        help="The size of the buffer to store events before batching and writing. Only used in batch mode.",
    )
    a(
        f"--audit-{plugin}-batch-max-size",
        type=_int,
        default=batch.max_batch_size,
        help="The maximum size of a batch. Only used in batch mode.",
    )
    a(
        f"--audit-{plugin}-batch-max-wait",
        type=_duration,
        default=batch.max_batch_wait,
        help="The amount of time to wait before force writing the batch that hadn't reached the max size. "
        "Only used in batch mode.",
    )
    a(
        f"--audit-{plugin}-batch-throttle-enable",
        type=bool_flag,
        nargs="?",
        const=True,
        default=batch.throttle_enable,
        help="Whether batching throttling is enabled. Only used in batch mode.",
    )
    a(
        f"--audit-{plugin}-batch-throttle-qps",
        type=_float,
        default=batch.throttle_qps,
        help="Maximum average number of batches per second. Only used in batch mode.",
    )
    a(
        f"--audit-{plugin}-batch-throttle-burst",
        type=_int,
        default=batch.throttle_burst,
        help="Maximum number of requests sent at the same moment if ThrottleQPS was not utilized before. "
        "Only used in batch mode.",
    )


def _add_truncate_flags(a: argparse._ActionsContainer, plugin: str) -> None:
    defaults = TruncateConfig()
    a(
        f"--audit-{plugin}-truncate-enabled",
        type=bool_flag,
        nargs="?",
        const=True,
        default=False,
        help="Whether event and batch truncating is enabled.",
    )
    a(
        f"--audit-{plugin}-truncate-max-batch-size",
        type=_int,
        default=defaults.max_batch_size,
        help="Maximum size of the batch sent to the underlying backend. Actual serialized size can be several "
        "hundreds of bytes greater. If a batch exceeds this limit, it is split into several batches of smaller size.",
    )
    a(
        f"--audit-{plugin}-truncate-max-event-size",
        type=_int,
        default=defaults.max_event_size,
        help="Maximum size of the audit event sent to the underlying backend. If the size of an event is greater "
        "than this number, first request and response are removed, and if this doesn't reduce the size enough, "
        "event is discarded.",
    )


def add_flags(p: argparse.ArgumentParser) -> None:
    a = p.add_argument
    a("--audit-policy-file", default="", help="Path to the file that defines the audit policy configuration.")
    a(
        "--audit-log-path",
        default="",
        help="If set, all requests coming to the apiserver will be logged to this file.  '-' means standard out.",
    )
    a(
        "--audit-log-maxage",
        type=_int,
        default=0,
        help="The maximum number of days to retain old audit log files based on the timestamp encoded in their filename.",
    )
    a("--audit-log-maxbackup", type=_int, default=0, help="The maximum number of old audit log files to retain.")
    a(
        "--audit-log-maxsize",
        type=_int,
        default=0,
        help="The maximum size in megabytes of the audit log file before it gets rotated.",
    )
    a(
        "--audit-log-format",
        default=FORMAT_JSON,
        help='Format of saved audits. "legacy" indicates 1-line text format for each event. "json" indicates '
        "structured json format. Known formats are " + ",".join(ALLOWED_FORMATS) + ".",
    )
    a(
        "--audit-log-compress",
        type=bool_flag,
        nargs="?",
        const=True,
        default=False,
        help="If set, the rotated log files will be compressed using gzip.",
    )
    a(
        "--audit-log-version",
        default=GROUP_VERSION,
        help="API group and version used for serializing audit events written to log.",
    )
    # the log backend does not batch by default: one event per write, no throttling
    _add_batch_flags(a, "log", MODE_BLOCKING, BatchConfig(10000, 1, 0.0, False, 0.0, 0, False))
    _add_truncate_flags(a, "log")
    a(
        "--audit-webhook-config-file",
        default="",
        help="Path to a kubeconfig formatted file that defines the audit webhook configuration.",
    )
    a(
        "--audit-webhook-initial-backoff",
        type=_duration,
        default=DEFAULT_INITIAL_BACKOFF,
        help="The amount of time to wait before retrying the first failed request.",
    )
    a(
        "--audit-webhook-version",
        default=GROUP_VERSION,
        help="API group and version used for serializing audit events written to webhook.",
    )
    _add_batch_flags(a, "webhook", MODE_BATCH, BatchConfig())
    _add_truncate_flags(a, "webhook")

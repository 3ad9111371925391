"""The --audit-* flags: kube's defaults, its validation messages (one line, exit code 2), and what they build."""

from __future__ import annotations

import pytest

from kube_apiserver.audit.backend import BufferedBackend, IgnoreErrors, TruncateBackend, Union
from kube_apiserver.audit.log import LogBackend
from kube_apiserver.cmd.options import parse
from kube_apiserver.cmd.options_audit import AuditConfigError


def error_of(capsys, *argv: str) -> str:
    with pytest.raises(SystemExit) as e:
        parse(list(argv))
    assert e.value.code == 2
    return capsys.readouterr().err.strip()


def test_defaults():
    a = parse([]).audit
    assert (a.policy_file, a.log_path, a.webhook_config_file) == ("", "", "")
    assert (a.log_max_age, a.log_max_backups, a.log_max_size, a.log_compress) == (0, 0, 0, False)
    assert (a.log_format, a.log_version, a.webhook_version) == ("json", "audit.k8s.io/v1", "audit.k8s.io/v1")
    assert a.log_batch.mode == "blocking" and a.webhook_batch.mode == "batch"
    log, hook = a.log_batch.config, a.webhook_batch.config
    assert (log.buffer_size, log.max_batch_size, log.max_batch_wait, log.throttle_enable) == (10000, 1, 0.0, False)
    assert (hook.buffer_size, hook.max_batch_size, hook.max_batch_wait) == (10000, 400, 30.0)
    assert (hook.throttle_enable, hook.throttle_qps, hook.throttle_burst) == (True, 10.0, 15)
    assert a.webhook_initial_backoff == 10.0
    assert not a.log_truncate.enabled
    assert (a.log_truncate.config.max_batch_size, a.log_truncate.config.max_event_size) == (10485760, 102400)
    assert a.to_config() == (None, None)  # no policy file: no auditing


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--audit-log-maxage", "-1"], "Error: --audit-log-maxage -1 can't be a negative number"),
        (["--audit-log-maxsize", "-5"], "Error: --audit-log-maxsize -5 can't be a negative number"),
        (["--audit-log-format", "xml"], 'Error: invalid audit log format xml, allowed formats are "legacy,json"'),
        (
            ["--audit-log-mode", "fast"],
            'Error: invalid audit log mode fast, allowed modes are "batch,blocking,blocking-strict"',
        ),
        (
            ["--audit-log-mode", "batch", "--audit-log-batch-max-size", "0"],
            "Error: invalid audit batch log max batch size 0, must be a positive number",
        ),
        (
            ["--audit-log-truncate-max-event-size", "0"],
            "Error: invalid audit truncate log max event size 0, must be a positive number",
        ),
        (
            ["--audit-log-truncate-max-batch-size", "10"],
            "Error: invalid audit truncate log max batch size 10, must be greater than max event size (102400)",
        ),
        (
            ["--audit-log-version", "audit.k8s.io/v1beta1"],
            'Error: invalid group version, allowed versions are ["audit.k8s.io/v1"]',
        ),
    ],
)
def test_log_validation(capsys, argv, message):
    assert error_of(capsys, "--audit-log-path", "/tmp/audit.log", *argv) == message


def test_webhook_validation(capsys):
    assert error_of(capsys, "--audit-webhook-config-file", "x", "--audit-webhook-batch-throttle-qps", "0") == (
        "Error: invalid audit batch webhook throttle QPS 0, must be a positive number"
    )
    # not validated while the backend is off, as in kube
    assert parse(["--audit-webhook-mode", "fast"]).audit.webhook_batch.mode == "fast"
    assert "invalid" in error_of(capsys, "--audit-log-maxage", "x")


def test_backends_built(tmp_path):
    policy = tmp_path / "p.yaml"
    policy.write_text("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n")
    log = str(tmp_path / "a.log")
    evaluator, backend = parse(["--audit-policy-file", str(policy), "--audit-log-path", log]).audit.to_config()
    assert evaluator is not None
    assert isinstance(backend, IgnoreErrors) and isinstance(backend.delegate, LogBackend)
    opts = parse(
        ["--audit-policy-file", str(policy), "--audit-log-path", log, "--audit-log-mode=batch"]
        + ["--audit-log-truncate-enabled", "--audit-log-compress=true"]
    ).audit
    assert opts.log_compress is True
    _, backend = opts.to_config()
    assert isinstance(backend, TruncateBackend) and isinstance(backend.delegate, BufferedBackend)
    # a log path without a policy file records nothing
    assert parse(["--audit-log-path", log]).audit.to_config() == (None, None)


def test_config_errors(tmp_path):
    with pytest.raises(AuditConfigError) as e:
        parse(["--audit-policy-file", str(tmp_path / "none.yaml")]).audit.to_config()
    assert str(e.value) == (
        f'loading audit policy file: failed to read file path "{tmp_path}/none.yaml": '
        f"open {tmp_path}/none.yaml: no such file or directory"
    )
    policy = tmp_path / "p.yaml"
    policy.write_text("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n")
    with pytest.raises(AuditConfigError) as e:
        parse(
            ["--audit-policy-file", str(policy), "--audit-webhook-config-file", str(tmp_path / "k")]
        ).audit.to_config()
    assert str(e.value).startswith("initializing audit webhook: ")
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: 'http://127.0.0.1:9'}\n"
        "contexts:\n- name: x\n  context: {cluster: c}\ncurrent-context: x\n"
    )
    _, backend = parse(
        ["--audit-policy-file", str(policy), "--audit-webhook-config-file", str(kubeconfig), "--audit-log-path", "-"]
    ).audit.to_config()
    assert isinstance(backend, Union) and len(backend.backends) == 2

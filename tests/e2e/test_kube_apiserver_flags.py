"""kube-apiserver flags that tooling passes (envtest's default arguments among them): each accepted and, where
this server has the concept, in effect: --cert-dir's serving certificate, --allow-privileged=false,
--disable-admission-plugins=NamespaceLifecycle, --event-ttl, --livez-grace-period; --etcd-servers,
--feature-gates and --runtime-config are taken with a warning. --version prints the version."""

from __future__ import annotations

import json
import socket
import ssl
import subprocess
import sys

from authn_helpers import CA, write_pair
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from e2e_helpers import wait_until


def _served_certificate(port: int) -> bytes:
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    with socket.create_connection(("127.0.0.1", port)) as raw, ctx.wrap_socket(raw) as tls:
        der = tls.getpeercert(binary_form=True)
    return x509.load_der_x509_certificate(der).public_bytes(serialization.Encoding.PEM)


def test_envtest_arguments_are_accepted_and_take_effect(server_factory, tmp_path):
    cert_dir = tmp_path / "certs"
    cert_dir.mkdir()
    ca = CA("envtest-like")  # as envtest does: its own CA's serving certificate in --cert-dir
    pair = ca.issue("apiserver", server=True)
    write_pair(cert_dir, "apiserver", pair)
    pem = pair[0]
    srv = server_factory(
        "--allow-privileged=false",
        "--disable-admission-plugins=ServiceAccount,NamespaceLifecycle",
        f"--cert-dir={cert_dir}",
        "--authorization-mode=RBAC",
        "--etcd-servers=http://127.0.0.1:2379",
        "--feature-gates=SomeGate=true",
        "--runtime-config=api/all=true",
        "--profiling=false",
        "--event-ttl=2s",
        "--livez-grace-period=0s",
    )
    assert _served_certificate(srv.port) == pem  # --cert-dir's certificate serves HTTPS
    srv.session.verify = str(ca.write(tmp_path, "envtest-ca"))
    log = srv.log_tail(200)
    assert "--etcd-servers=http://127.0.0.1:2379 is not used" in log
    assert "--feature-gates=SomeGate=true" in log and "--runtime-config=api/all=true" in log
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "priv"},
        "spec": {"containers": [{"name": "c", "image": "nginx", "securityContext": {"privileged": True}}]},
    }
    r = srv.request("POST", "/api/v1/namespaces/default/pods", json=pod)
    assert r.status_code == 422
    assert r.json()["details"]["causes"] == [
        {
            "reason": "FieldValueForbidden",
            "message": "Forbidden: disallowed by cluster policy",
            "field": "spec.containers[0].securityContext.privileged",
        }
    ]
    # without NamespaceLifecycle, a namespace that does not exist does not stop a create
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}
    assert srv.request("POST", "/api/v1/namespaces/no-such-namespace/configmaps", json=cm).status_code == 201
    event = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": "short-lived"},
        "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default"},
        "reason": "Test",
    }
    assert srv.request("POST", "/api/v1/namespaces/default/events", json=event).status_code == 201
    wait_until(
        lambda: srv.request("GET", "/api/v1/namespaces/default/events/short-lived").status_code == 404,
        timeout=15,
        message="the event to expire after --event-ttl",
    )


def test_flag_names_are_checked():
    def run(*args: str) -> subprocess.CompletedProcess:
        cmd = [sys.executable, "-m", "kube_apiserver", "--data-dir", "/nonexistent/never-used", *args]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=60)

    res = run("--enable-admission-plugins=NoSuchPlugin")
    assert res.returncode == 2
    assert res.stderr.strip() == 'Error: enable-admission-plugins plugin "NoSuchPlugin" is unknown'
    res = run("--enable-admission-plugins=Priority", "--disable-admission-plugins=Priority")
    assert (
        res.stderr.strip() == "Error: [Priority] in enable-admission-plugins and disable-admission-plugins overlapped"
    )
    res = run("--no-such-flag=1")
    assert (res.returncode, res.stderr) == (2, "Error: unknown flag: --no-such-flag\n")  # pflag's words
    assert run("stray").stderr == 'Error: "kube-apiserver" does not take any arguments, got ["stray"]\n'
    res = run("--version")
    assert (res.returncode, res.stdout) == (0, "Kubernetes v1.33.0\n")
    assert json.loads(run("--version=raw").stdout)["gitVersion"] == "v1.33.0"
    help_text = run("--help").stdout
    assert "--insecure-port" not in help_text  # envtest looks for it to decide whether to pass it


def test_boot_sequence_checks_are_on_every_health_path(server_factory):
    """/livez lists the post-start hooks and autoregister-completion (as /healthz and /readyz do); an exclude
    that names no check is warned of."""
    srv = server_factory("--livez-grace-period=1h")
    for path in ("/healthz", "/livez", "/readyz"):
        out = srv.request("GET", path + "?verbose").text
        assert "[+]autoregister-completion ok" in out, out
    assert srv.request("GET", "/livez/autoregister-completion").text == "ok"
    out = srv.request("GET", "/readyz?verbose&exclude=nothing-like-this").text
    assert 'warn: some health checks cannot be excluded: no matches for "nothing-like-this"' in out
    # only the paths themselves and their checks are served: a trailing slash names no check
    for path in ("/healthz/", "/livez/", "/readyz/"):
        assert srv.request("GET", path).status_code == 404, path

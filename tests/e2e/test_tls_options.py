"""TLS options: --tls-min-version, --tls-cipher-suites, and serving certificate files reloaded when they change."""

from __future__ import annotations

import shutil
import socket
import ssl
import warnings

import pytest
from e2e_helpers import wait_until

from kube_apiserver.server.certs import ensure_certificates


def _handshake(port: int, *, max_version: ssl.TLSVersion | None = None, ciphers: str | None = None, tls1: bool = False):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    if tls1:
        ctx.minimum_version = ssl.TLSVersion.TLSv1
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    if max_version is not None:
        ctx.maximum_version = max_version
    if ciphers is not None:
        ctx.set_ciphers(ciphers)
    with socket.create_connection(("127.0.0.1", port), timeout=5) as raw, ctx.wrap_socket(raw) as tls:
        return tls.version(), tls.cipher()[0], tls.getpeercert(binary_form=True)


def test_min_version_tls13(server_factory):
    srv = server_factory("--tls-min-version", "VersionTLS13")
    assert _handshake(srv.port)[0] == "TLSv1.3"
    with pytest.raises(ssl.SSLError):
        _handshake(srv.port, max_version=ssl.TLSVersion.TLSv1_2)
    assert srv.kubectl("get", "namespaces", "default").returncode == 0


def test_default_min_version_is_tls12(own_server):
    version, _, _ = _handshake(own_server.port, max_version=ssl.TLSVersion.TLSv1_2)
    assert version == "TLSv1.2"
    # a client that could speak TLS 1.1 (security level 0 lets OpenSSL offer it) is refused by the server
    with pytest.raises(ssl.SSLError), warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        _handshake(own_server.port, max_version=ssl.TLSVersion.TLSv1_1, ciphers="DEFAULT:@SECLEVEL=0", tls1=True)


def test_cipher_suites(server_factory):
    srv = server_factory("--tls-cipher-suites", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384")
    tls12 = ssl.TLSVersion.TLSv1_2
    assert _handshake(srv.port, max_version=tls12)[1] == "ECDHE-ECDSA-AES256-GCM-SHA384"
    with pytest.raises(ssl.SSLError):
        _handshake(srv.port, max_version=tls12, ciphers="ECDHE-ECDSA-AES128-GCM-SHA256")
    assert _handshake(srv.port)[0] == "TLSv1.3"  # TLS 1.3 suites are not configurable, as in Go


def test_serving_certificate_reloaded(server_factory, tmp_path):
    data_dir = tmp_path / "data"
    pki = ensure_certificates(str(data_dir / "pki"), ["localhost"], ["127.0.0.1"])
    cert, key = tmp_path / "tls.crt", tmp_path / "tls.key"
    shutil.copy(pki.serving_cert, cert)
    shutil.copy(pki.serving_key, key)
    srv = server_factory("--tls-cert-file", str(cert), "--tls-private-key-file", str(key), data_dir=data_dir)
    first = _handshake(srv.port)[2]

    # a new pair from the same CA, written over the files in place
    alt = tmp_path / "alt"
    alt.mkdir()
    shutil.copy(pki.ca_cert, alt / "ca.crt")
    shutil.copy(pki.ca_key, alt / "ca.key")
    new = ensure_certificates(str(alt), ["localhost"], ["127.0.0.1"])
    shutil.copy(new.serving_key, key)
    shutil.copy(new.serving_cert, cert)
    new_der = ssl.PEM_cert_to_DER_cert(
        open(new.serving_cert).read().split("-----END CERTIFICATE-----")[0] + "-----END CERTIFICATE-----\n"
    )
    assert new_der != first

    wait_until(lambda: _handshake(srv.port)[2] == new_der, timeout=10, interval=0.2, message="the new certificate")
    assert srv.kubectl("get", "namespaces", "default").returncode == 0  # same CA: clients keep trusting it


def test_bad_flag_values(tmp_path):
    import subprocess
    import sys

    for args, message in (
        (["--tls-min-version", "VersionTLS9"], 'Error: argument --tls-min-version: unknown tls version "VersionTLS9"'),
        (
            ["--tls-cipher-suites", "TLS_FOO"],
            "Error: argument --tls-cipher-suites: Cipher suite TLS_FOO not supported or doesn't exist",
        ),
    ):
        proc = subprocess.run([sys.executable, "-m", "kube_apiserver", *args], capture_output=True, text=True)
        assert proc.returncode == 2
        assert proc.stderr.strip() == message

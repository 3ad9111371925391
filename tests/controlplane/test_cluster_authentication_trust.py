"""kube-system/extension-apiserver-authentication's content: what this server requires merged with what is there,
as the cluster authentication trust controller writes it."""

from __future__ import annotations

import datetime

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from kube_apiserver.controlplane.cluster_authentication_trust import (
    ClusterAuthenticationInfo,
    combine_cert_lists,
    combined,
    configmap_data,
    info_from_data,
)


def ca_pem(cn: str, days: float = 1) -> bytes:
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=2))
        .not_valid_after(now + datetime.timedelta(days=days))
        .sign(key, hashes.SHA256())
    )
    return cert.public_bytes(serialization.Encoding.PEM)


def test_client_ca_only():
    a = ca_pem("a")
    assert configmap_data(ClusterAuthenticationInfo(client_ca=a)) == {"client-ca-file": a.decode()}


def test_request_header_keys():
    a, p = ca_pem("a"), ca_pem("p")
    info = ClusterAuthenticationInfo(a, p, ["X-Remote-User"], [], ["X-Remote-Group"], ["X-Remote-Extra-"], [])
    assert configmap_data(info) == {
        "client-ca-file": a.decode(),
        "requestheader-username-headers": '["X-Remote-User"]',
        "requestheader-group-headers": '["X-Remote-Group"]',
        "requestheader-extra-headers-prefix": '["X-Remote-Extra-"]',
        "requestheader-client-ca-file": p.decode(),
        "requestheader-allowed-names": "[]",
    }


def test_merge_with_existing():
    a, b, p, old = ca_pem("a"), ca_pem("b"), ca_pem("p"), ca_pem("expired", days=-1)
    existing = {
        "client-ca-file": (b + old).decode(),
        "requestheader-client-ca-file": p.decode(),
        "requestheader-username-headers": '["X-Other-User"]',
        "requestheader-allowed-names": '["proxy-a"]',
    }
    required = ClusterAuthenticationInfo(a + b, p, ["X-Remote-User", "X-Other-User"], [], [], [], ["proxy-b"])
    data = configmap_data(combined(info_from_data(existing), required))
    assert data["client-ca-file"] == (b + a).decode()  # existing first, each once, the expired one dropped
    assert data["requestheader-client-ca-file"] == p.decode()
    assert data["requestheader-username-headers"] == '["X-Other-User","X-Remote-User"]'
    assert data["requestheader-allowed-names"] == '["proxy-a","proxy-b"]'
    # this server has no front proxy, but the ConfigMap had one: its keys stay
    data = configmap_data(combined(info_from_data(existing), ClusterAuthenticationInfo(client_ca=a)))
    assert data["requestheader-username-headers"] == '["X-Other-User"]'


def test_combine_cert_lists_empty():
    assert combine_cert_lists(b"", b"") == b""

"""Generated certificates (the self-signed serving cert of secure serving, plus a CA and an admin
client certificate), made once under the data dir and reused after. ECDSA P-256: fast to make,
and what kubectl and the Python client accept."""

from __future__ import annotations

import datetime
import ipaddress
import os
import socket
from dataclasses import dataclass

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


@dataclass
class CertPaths:
    ca_cert: str
    ca_key: str
    serving_cert: str
    serving_key: str
    admin_cert: str
    admin_key: str


def _write(path: str, data: bytes, private: bool = False) -> None:
    tmp = path + ".tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600 if private else 0o644)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def _cert(
    subject: x509.Name,
    key: ec.EllipticCurvePrivateKey,
    issuer: x509.Name,
    issuer_key: ec.EllipticCurvePrivateKey,
    *,
    ca: bool = False,
    sans: list[x509.GeneralName] | None = None,
    usage: list[x509.ObjectIdentifier] | None = None,
    days: int = 365,
) -> x509.Certificate:
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=days))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=not ca,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=ca,
                crl_sign=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
    )
    if sans:
        builder = builder.add_extension(x509.SubjectAlternativeName(sans), critical=False)
    if usage:
        builder = builder.add_extension(x509.ExtendedKeyUsage(usage), critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


def ensure_certificates(directory: str, hosts: list[str], ips: list[str]) -> CertPaths:
    """Create what is missing under directory; existing files are reused as they are."""
    os.makedirs(directory, exist_ok=True)
    p = CertPaths(
        *(
            os.path.join(directory, n)
            for n in ("ca.crt", "ca.key", "apiserver.crt", "apiserver.key", "admin.crt", "admin.key")
        )
    )
    if os.path.exists(p.ca_cert) and os.path.exists(p.ca_key):
        ca_key = serialization.load_pem_private_key(open(p.ca_key, "rb").read(), None)
        ca_cert = x509.load_pem_x509_certificate(open(p.ca_cert, "rb").read())
        assert isinstance(ca_key, ec.EllipticCurvePrivateKey)
    else:
        ca_key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kubernetes-ca")])
        ca_cert = _cert(name, ca_key, name, ca_key, ca=True, days=3650)
        _write(p.ca_key, _key_pem(ca_key), private=True)
        _write(p.ca_cert, ca_cert.public_bytes(serialization.Encoding.PEM))
    if not (os.path.exists(p.serving_cert) and os.path.exists(p.serving_key)):
        key = ec.generate_private_key(ec.SECP256R1())
        names: list[x509.GeneralName] = [x509.DNSName(h) for h in dict.fromkeys(hosts)]
        names += [x509.IPAddress(ipaddress.ip_address(i)) for i in dict.fromkeys(ips)]
        cert = _cert(
            x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kube-apiserver")]),
            key,
            ca_cert.subject,
            ca_key,
            sans=names,
            usage=[ExtendedKeyUsageOID.SERVER_AUTH],
        )
        _write(p.serving_key, _key_pem(key), private=True)
        _write(
            p.serving_cert,
            cert.public_bytes(serialization.Encoding.PEM) + ca_cert.public_bytes(serialization.Encoding.PEM),
        )
    if not (os.path.exists(p.admin_cert) and os.path.exists(p.admin_key)):
        p_key = ec.generate_private_key(ec.SECP256R1())
        subject = x509.Name(
            [
                x509.NameAttribute(NameOID.ORGANIZATION_NAME, "system:masters"),
                x509.NameAttribute(NameOID.COMMON_NAME, "kubernetes-admin"),
            ]
        )
        cert = _cert(subject, p_key, ca_cert.subject, ca_key, usage=[ExtendedKeyUsageOID.CLIENT_AUTH])
        _write(p.admin_key, _key_pem(p_key), private=True)
        _write(p.admin_cert, cert.public_bytes(serialization.Encoding.PEM))
    return p


def default_hosts(service_ip: str, advertise: str, bind: str) -> tuple[list[str], list[str]]:
    hosts = [
        "localhost",
        socket.gethostname(),
        "kubernetes",
        "kubernetes.default",
        "kubernetes.default.svc",
        "kubernetes.default.svc.cluster.local",
    ]
    ips = ["127.0.0.1", "::1", service_ip]
    for ip in (advertise, bind):
        if ip and ip not in ("0.0.0.0", "::"):
            ips.append(ip)
    return hosts, ips


def write_kubeconfig(
    path: str, server: str, ca_cert: str, client_cert: str, client_key: str, user: str = "kubernetes-admin"
) -> None:
    import base64

    def b64(f: str) -> str:
        return base64.b64encode(open(f, "rb").read()).decode()

    text = f"""apiVersion: v1
kind: Config
clusters:
- cluster:
    certificate-authority-data: {b64(ca_cert)}
    server: {server}
  name: kubernetes
contexts:
- context:
    cluster: kubernetes
    user: {user}
  name: {user}@kubernetes
current-context: {user}@kubernetes
preferences: {{}}
users:
- name: {user}
  user:
    client-certificate-data: {b64(client_cert)}
    client-key-data: {b64(client_key)}
"""
    _write(path, text.encode(), private=True)

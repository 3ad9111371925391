"""Secure serving flags (SecureServingOptions): certificate files, TLS versions and cipher suites; port and
address stay in options.py. The certificate files are reloaded when they change (kube's dynamic serving cert)."""

from __future__ import annotations

import argparse
import ssl
from dataclasses import dataclass, field

from kube_apiserver.cmd.flag_types import SliceFlag

# Go's crypto/tls names of TLS 1.2 suites (what --tls-cipher-suites takes) and OpenSSL's for the same suite.
CIPHER_SUITES: dict[str, str] = {
    "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256": "ECDHE-ECDSA-AES128-GCM-SHA256",
    "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384": "ECDHE-ECDSA-AES256-GCM-SHA384",
    "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256": "ECDHE-RSA-AES128-GCM-SHA256",
    "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384": "ECDHE-RSA-AES256-GCM-SHA384",
    "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256": "ECDHE-ECDSA-CHACHA20-POLY1305",
    "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305": "ECDHE-ECDSA-CHACHA20-POLY1305",
    "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256": "ECDHE-RSA-CHACHA20-POLY1305",
    "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305": "ECDHE-RSA-CHACHA20-POLY1305",
    "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA": "ECDHE-ECDSA-AES128-SHA",
    "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA": "ECDHE-ECDSA-AES256-SHA",
    "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA": "ECDHE-RSA-AES128-SHA",
    "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA": "ECDHE-RSA-AES256-SHA",
    "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256": "ECDHE-ECDSA-AES128-SHA256",
    "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256": "ECDHE-RSA-AES128-SHA256",
    "TLS_RSA_WITH_AES_128_GCM_SHA256": "AES128-GCM-SHA256",
    "TLS_RSA_WITH_AES_256_GCM_SHA384": "AES256-GCM-SHA384",
    "TLS_RSA_WITH_AES_128_CBC_SHA": "AES128-SHA",
    "TLS_RSA_WITH_AES_256_CBC_SHA": "AES256-SHA",
    "TLS_RSA_WITH_AES_128_CBC_SHA256": "AES128-SHA256",
    "TLS_RSA_WITH_3DES_EDE_CBC_SHA": "DES-CBC3-SHA",
    "TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA": "ECDHE-RSA-DES-CBC3-SHA",
    "TLS_RSA_WITH_RC4_128_SHA": "RC4-SHA",
    "TLS_ECDHE_RSA_WITH_RC4_128_SHA": "ECDHE-RSA-RC4-SHA",
    "TLS_ECDHE_ECDSA_WITH_RC4_128_SHA": "ECDHE-ECDSA-RC4-SHA",
}
# TLS 1.3 suites: Go accepts their names and always offers them (they are not configurable there either).
TLS13_SUITES = frozenset({"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"})
TLS_VERSIONS: dict[str, ssl.TLSVersion] = {
    "VersionTLS10": ssl.TLSVersion.TLSv1,
    "VersionTLS11": ssl.TLSVersion.TLSv1_1,
    "VersionTLS12": ssl.TLSVersion.TLSv1_2,
    "VersionTLS13": ssl.TLSVersion.TLSv1_3,
}


def _tls_version(value: str) -> str:
    if value not in TLS_VERSIONS:
        raise argparse.ArgumentTypeError(f'unknown tls version "{value}"')
    return value


def _cipher_suites(value: str) -> list[str]:
    names = [n.strip() for n in value.split(",") if n.strip()]
    for name in names:
        if name not in CIPHER_SUITES and name not in TLS13_SUITES:
            raise argparse.ArgumentTypeError(f"Cipher suite {name} not supported or doesn't exist")
    return names


@dataclass
class SecureServingOptions:
    tls_cert_file: str
    tls_private_key_file: str
    tls_min_version: str = ""
    tls_cipher_suites: list[str] = field(default_factory=list)

    @classmethod
    def from_namespace(cls, ns: argparse.Namespace) -> SecureServingOptions:
        return cls(ns.tls_cert_file, ns.tls_private_key_file, ns.tls_min_version or "", ns.tls_cipher_suites)

    def min_version(self) -> ssl.TLSVersion:
        """kube-apiserver's default minimum is TLS 1.2."""
        return TLS_VERSIONS[self.tls_min_version or "VersionTLS12"]

    def openssl_ciphers(self) -> str | None:
        """The OpenSSL cipher list for TLS 1.2 and below, or None for the default."""
        names = [CIPHER_SUITES[n] for n in self.tls_cipher_suites if n in CIPHER_SUITES]
        return ":".join(dict.fromkeys(names)) or None

    def validate(self) -> list[str]:
        if bool(self.tls_cert_file) != bool(self.tls_private_key_file):
            return ["--tls-cert-file and --tls-private-key-file must be given together"]
        return []


def add_flags(p: argparse.ArgumentParser) -> None:
    a = p.add_argument
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
        "--tls-min-version",
        type=_tls_version,
        default=None,
        help="Minimum TLS version supported. Possible values: VersionTLS10, VersionTLS11, VersionTLS12, VersionTLS13 (default VersionTLS12).",
    )
    a(
        "--tls-cipher-suites",
        type=_cipher_suites,
        action=SliceFlag,
        default=[],
        help="Comma-separated list of cipher suites for the server (Go's names, e.g. TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256). If omitted, the default OpenSSL suites of TLS 1.2 and 1.3 are used.",
    )

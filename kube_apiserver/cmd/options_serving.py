"""Secure serving flags (SecureServingOptions): the certificate files; port and address stay in options.py."""

from __future__ import annotations

import argparse
from dataclasses import dataclass


@dataclass
class SecureServingOptions:
    tls_cert_file: str
    tls_private_key_file: str

    @classmethod
    def from_namespace(cls, ns: argparse.Namespace) -> SecureServingOptions:
        return cls(ns.tls_cert_file, ns.tls_private_key_file)

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

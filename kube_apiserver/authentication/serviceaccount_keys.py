"""Service account token keys (k8s.io/client-go/util/keyutil and pkg/serviceaccount/jwt.go's key handling).

Keys are the `cryptography` objects: an RSA key signs RS256, an ECDSA key ES256/ES384/ES512 by its curve.
A key's ID is derived one way from its public half (base64url of the SHA-256 of its DER SubjectPublicKeyInfo),
so verifiers can pick the key for a token's `kid` header and nobody can get the key back from the ID.
"""

from __future__ import annotations

import base64
import hashlib
import os
from dataclasses import dataclass
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

PrivateKey = rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey
PublicKey = rsa.RSAPublicKey | ec.EllipticCurvePublicKey

_EC_ALGORITHMS = {"secp256r1": ("ES256", "P-256"), "secp384r1": ("ES384", "P-384"), "secp521r1": ("ES512", "P-521")}


class ServiceAccountKeyError(ValueError):
    """A key file that cannot be read or holds no usable key; the message is the one kube prints."""


@dataclass(frozen=True)
class VerifyingKey:
    """A public key with its derived ID (serviceaccount.PublicKey)."""

    key_id: str
    key: PublicKey


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def key_id_from_public_key(key: PublicKey) -> str:
    """keyIDFromPublicKey."""
    der = key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return _b64url(hashlib.sha256(der).digest())


def algorithm_for_key(key: PrivateKey | PublicKey) -> str:
    """The JWS algorithm a key signs with: RS256 for every RSA size (as kube), ES* by the curve."""
    if isinstance(key, rsa.RSAPrivateKey | rsa.RSAPublicKey):
        return "RS256"
    alg = _EC_ALGORITHMS.get(key.curve.name)
    if alg is None:
        raise ServiceAccountKeyError("unknown private key curve, must be 256, 384, or 521")
    return alg[0]


def _pem_blocks(data: bytes) -> list[bytes]:
    blocks, rest = [], data
    while True:
        start = rest.find(b"-----BEGIN ")
        if start < 0:
            return blocks
        end_marker = rest.find(b"-----END ", start)
        if end_marker < 0:
            return blocks
        end = rest.find(b"-----", end_marker + 9)
        if end < 0:
            return blocks
        blocks.append(rest[start : end + 5] + b"\n")
        rest = rest[end + 5 :]


def _public_from_block(block: bytes) -> PublicKey | None:
    """One PEM block as a public key: a private key's public half, a public key, or a certificate's key."""
    obj: Any = None
    for load in (
        lambda b: serialization.load_pem_private_key(b, password=None),
        serialization.load_pem_public_key,
        lambda b: x509.load_pem_x509_certificate(b).public_key(),
    ):
        try:
            obj = load(block)
            break
        except (ValueError, TypeError):
            continue
    if isinstance(obj, rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey):
        obj = obj.public_key()
    if isinstance(obj, rsa.RSAPublicKey | ec.EllipticCurvePublicKey):
        return obj
    return None


def public_keys_from_file(path: str) -> list[PublicKey]:
    """keyutil.PublicKeysFromFile: every RSA or ECDSA key in the file (private keys give their public half)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ServiceAccountKeyError(f"open {path}: {e.strerror.lower() if e.strerror else e}") from None
    keys = [k for k in (_public_from_block(b) for b in _pem_blocks(data)) if k is not None]
    if not keys:
        raise ServiceAccountKeyError(
            f"error reading public key file {path}: data does not contain any valid RSA or ECDSA public keys"
        )
    return keys


def private_key_from_file(path: str) -> PrivateKey:
    """keyutil.PrivateKeyFromFile: the first RSA or ECDSA private key of the file."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ServiceAccountKeyError(f"open {path}: {e.strerror.lower() if e.strerror else e}") from None
    for block in _pem_blocks(data):
        try:
            key = serialization.load_pem_private_key(block, password=None)
        except (ValueError, TypeError):
            continue
        if isinstance(key, rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey):
            algorithm_for_key(key)  # refuses curves JWS has no algorithm for
            return key
    raise ServiceAccountKeyError(
        f"error reading private key file {path}: data does not contain a valid RSA or ECDSA private key"
    )


def ensure_signing_key(pki_dir: str) -> str:
    """The generated issuer key pki/sa.key (with its public half pki/sa.pub, as kubeadm lays them out):
    made on first start, reused afterwards so tokens outlive a restart. Returns the private key's path."""
    key_path = os.path.join(pki_dir, "sa.key")
    pub_path = os.path.join(pki_dir, "sa.pub")
    if os.path.exists(key_path):
        if not os.path.exists(pub_path):
            _write(pub_path, _public_pem(private_key_from_file(key_path)), private=False)
        return key_path
    os.makedirs(pki_dir, exist_ok=True)
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption()
    )
    _write(key_path, pem, private=True)
    _write(pub_path, _public_pem(key), private=False)
    return key_path


def _public_pem(key: PrivateKey) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


def _write(path: str, data: bytes, private: bool) -> None:
    tmp = path + ".tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600 if private else 0o644)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def verifying_keys(keys: list[PublicKey]) -> list[VerifyingKey]:
    """StaticPublicKeysGetter's keys, each with its ID (duplicates kept: they verify alike)."""
    return [VerifyingKey(key_id_from_public_key(k), k) for k in keys]


def _int_b64(value: int, length: int | None = None) -> str:
    raw = value.to_bytes(length or max(1, (value.bit_length() + 7) // 8), "big")
    return _b64url(raw)


def public_jwk(key: VerifyingKey) -> dict[str, str]:
    """The key as go-jose writes a public JSONWebKey: use, kty, kid, crv, alg, then the key's numbers."""
    k = key.key
    if isinstance(k, rsa.RSAPublicKey):
        nums = k.public_numbers()
        return {
            "use": "sig",
            "kty": "RSA",
            "kid": key.key_id,
            "alg": "RS256",
            "n": _int_b64(nums.n),
            "e": _int_b64(nums.e),
        }
    alg, crv = _EC_ALGORITHMS[k.curve.name]
    size = (k.curve.key_size + 7) // 8
    nums = k.public_numbers()
    return {
        "use": "sig",
        "kty": "EC",
        "kid": key.key_id,
        "crv": crv,
        "alg": alg,
        "x": _int_b64(nums.x, size),
        "y": _int_b64(nums.y, size),
    }

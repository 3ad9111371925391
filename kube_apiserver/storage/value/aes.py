"""The aescbc, aesgcm and secretbox providers (value/encrypt/aes, value/encrypt/secretbox).

Stored layouts, after the "k8s:enc:<provider>:v1:<key>:" prefix, as kube-apiserver writes them:
aescbc: a 16-byte IV, then AES-CBC with PKCS#7 padding; aesgcm: a 12-byte nonce, then AES-GCM with the
storage key as authenticated data (a value copied to another key does not decrypt); secretbox: a 24-byte
nonce, then XSalsa20-Poly1305."""

from __future__ import annotations

import os

import nacl.exceptions
import nacl.secret
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from kube_apiserver.storage.value.transformer import TransformError

_BLOCK = 16


class AESCBCTransformer:
    def __init__(self, secret: bytes) -> None:
        self._algorithm = algorithms.AES(secret)

    def to_storage(self, data: bytes, key: str) -> bytes:
        iv = os.urandom(_BLOCK)
        padder = padding.PKCS7(_BLOCK * 8).padder()
        encryptor = Cipher(self._algorithm, modes.CBC(iv)).encryptor()
        return iv + encryptor.update(padder.update(data) + padder.finalize()) + encryptor.finalize()

    def from_storage(self, data: bytes, key: str) -> bytes:
        if len(data) < 2 * _BLOCK or len(data) % _BLOCK:
            raise TransformError(key, "the stored data is not a multiple of the block size")
        decryptor = Cipher(self._algorithm, modes.CBC(data[:_BLOCK])).decryptor()
        padded = decryptor.update(data[_BLOCK:]) + decryptor.finalize()
        unpadder = padding.PKCS7(_BLOCK * 8).unpadder()
        try:
            return unpadder.update(padded) + unpadder.finalize()
        except ValueError:
            raise TransformError(key, "invalid PKCS7 data (empty or not padded)") from None


class AESGCMTransformer:
    _NONCE = 12

    def __init__(self, secret: bytes) -> None:
        self._aead = AESGCM(secret)

    def to_storage(self, data: bytes, key: str) -> bytes:
        nonce = os.urandom(self._NONCE)
        return nonce + self._aead.encrypt(nonce, data, key.encode())

    def from_storage(self, data: bytes, key: str) -> bytes:
        if len(data) < self._NONCE:
            raise TransformError(key, "the stored data was shorter than the required size")
        try:
            return self._aead.decrypt(data[: self._NONCE], data[self._NONCE :], key.encode())
        except InvalidTag:
            raise TransformError(key, "cipher: message authentication failed") from None


class SecretboxTransformer:
    def __init__(self, secret: bytes) -> None:
        self._box = nacl.secret.SecretBox(secret)

    def to_storage(self, data: bytes, key: str) -> bytes:
        return bytes(self._box.encrypt(data))  # nonce + box

    def from_storage(self, data: bytes, key: str) -> bytes:
        if len(data) < nacl.secret.SecretBox.NONCE_SIZE:
            raise TransformError(key, "the stored data was shorter than the required size")
        try:
            return self._box.decrypt(data)
        except nacl.exceptions.CryptoError:
            raise TransformError(key, "output array was not large enough for encryption") from None

"""The transformer a storage applies to every value it writes and reads (value.Transformer).

Encrypted values carry a prefix naming their provider and key, "k8s:enc:<provider>:v1:<key name>:", so a
value written under an earlier key or provider is still read after the configuration changes, as long as
that key is still listed; the first provider of a resource's list writes."""

from __future__ import annotations

from typing import Protocol

from kube_apiserver.storage.errors import StorageError

ENCRYPTED_PREFIX = b"k8s:enc:"


class TransformError(StorageError):
    """A stored value that the configured providers cannot read (500 Internal error at the API)."""

    def __init__(self, key: str, reason: str) -> None:
        super().__init__(key, f'unable to transform key "{key}": {reason}')


class Transformer(Protocol):
    def to_storage(self, data: bytes, key: str) -> bytes:
        """The value to store for data at key (key is the authenticated data of AEAD providers)."""
        ...

    def from_storage(self, data: bytes, key: str) -> bytes:
        """The plain value of what is stored at key; raises TransformError."""
        ...

    def is_stale(self, data: bytes) -> bool:
        """Whether a stored value was written other than this transformer writes now (an older key or
        provider): such a value is rewritten by an update even when the object did not change, which is
        how `kubectl replace` moves every secret to a new key."""
        ...


class IdentityTransformer:
    """Values stored as they are. It refuses encrypted values rather than handing ciphertext on as JSON."""

    def to_storage(self, data: bytes, key: str) -> bytes:
        return data

    def from_storage(self, data: bytes, key: str) -> bytes:
        if data[:8] == ENCRYPTED_PREFIX:
            raise TransformError(key, "identity transformer tried to read encrypted data")
        return data

    def is_stale(self, data: bytes) -> bool:
        return False


IDENTITY = IdentityTransformer()


class PrefixTransformers:
    """One resource's provider list: writes with the first, reads with whichever matches the value's prefix
    (identity matches anything that is not encrypted)."""

    def __init__(self, providers: list[tuple[bytes, Transformer]]) -> None:
        self.providers = providers
        self._write_prefix, self._writer = providers[0]

    def to_storage(self, data: bytes, key: str) -> bytes:
        return self._write_prefix + self._writer.to_storage(data, key)

    def from_storage(self, data: bytes, key: str) -> bytes:
        for prefix, transformer in self.providers:
            if prefix:
                if data.startswith(prefix):
                    return transformer.from_storage(data[len(prefix) :], key)
            elif data[:8] != ENCRYPTED_PREFIX:
                return data
        raise TransformError(key, "no matching prefix found")

    def is_stale(self, data: bytes) -> bool:
        if self._write_prefix:
            return not data.startswith(self._write_prefix)
        return data[:8] == ENCRYPTED_PREFIX

"""--encryption-provider-config: an apiserver.config.k8s.io/v1 EncryptionConfiguration read into one
transformer per group-resource (apiserver/pkg/server/options/encryptionconfig).

Each entry of `resources` lists resources ("secrets", "deployments.apps", "*.apps", "*." for every core
resource, "*.*" for all) and an ordered provider list; a resource takes the first entry naming it."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from typing import Any

import yaml

from kube_apiserver.storage.value.aes import AESCBCTransformer, AESGCMTransformer, SecretboxTransformer
from kube_apiserver.storage.value.transformer import IDENTITY, PrefixTransformers, Transformer

API_VERSION = "apiserver.config.k8s.io/v1"
KIND = "EncryptionConfiguration"
_AES_KEY_SIZES = (16, 24, 32)
_SECRETBOX_KEY_SIZES = (32,)
_PROVIDERS = ("kms", "aesgcm", "aescbc", "secretbox", "identity")
_KEYED: dict[str, tuple[tuple[int, ...], Callable[[bytes], Transformer]]] = {
    "aesgcm": (_AES_KEY_SIZES, AESGCMTransformer),
    "aescbc": (_AES_KEY_SIZES, AESCBCTransformer),
    "secretbox": (_SECRETBOX_KEY_SIZES, SecretboxTransformer),
}


class EncryptionConfigError(ValueError):
    pass


def _go_ints(sizes: tuple[int, ...]) -> str:
    return "[" + " ".join(str(s) for s in sizes) + "]"


def _validate_keys(keys: Any, path: str, sizes: tuple[int, ...], errs: list[str]) -> None:
    if not isinstance(keys, list) or not keys:
        errs.append(f"{path}: Required value: at least one keys is required")
        return
    for i, key in enumerate(keys):
        kp = f"{path}[{i}]"
        key = key if isinstance(key, dict) else {}
        if not key.get("name"):
            errs.append(f"{kp}.name: Required value: name is a mandatory field for a key")
        secret = key.get("secret")
        if not secret:
            errs.append(f"{kp}.secret: Required value: secret is a mandatory field for a key")
            continue
        try:
            raw = base64.b64decode(str(secret), validate=True)
        except (binascii.Error, ValueError):
            errs.append(f'{kp}.secret: Invalid value: "REDACTED": secrets must be base64 encoded')
            continue
        if len(raw) not in sizes:
            errs.append(
                f'{kp}.secret: Invalid value: "REDACTED": secret is not of the expected length, '
                f"got {len(raw)}, expected one of {_go_ints(sizes)}"
            )


def validate(config: Any) -> list[str]:
    """ValidateEncryptionConfiguration's errors, in its words."""
    if not isinstance(config, dict):
        return ["resources: Required value: EncryptionConfiguration can't be nil"]
    resources = config.get("resources")
    if not isinstance(resources, list) or not resources:
        return ["resources: Required value: at least one resources is required"]
    errs: list[str] = []
    for i, entry in enumerate(resources):
        entry = entry if isinstance(entry, dict) else {}
        rp, pp = f"resources[{i}].resources", f"resources[{i}].providers"
        if not entry.get("resources"):
            errs.append(f"{rp}: Required value: at least one {rp} is required")
        for j, name in enumerate(entry.get("resources") or []):
            if not isinstance(name, str) or not name or name != name.lower():
                errs.append(f'{rp}[{j}]: Invalid value: "{name}": resource name must be lowercase and not empty')
        providers = entry.get("providers")
        if not isinstance(providers, list) or not providers:
            errs.append(f"{pp}: Required value: at least one {pp} is required")
            continue
        for j, provider in enumerate(providers):
            path = f"{pp}[{j}]"
            found = [p for p in _PROVIDERS if isinstance(provider, dict) and provider.get(p) is not None]
            if not found:
                errs.append(
                    f"{path}: Invalid value: {provider!r}: provider does not contain any of the expected "
                    "providers: KMS, AESGCM, AESCBC, Secretbox, Identity"
                )
                continue
            if len(found) > 1:
                errs.append(
                    f"{path}: Invalid value: {provider!r}: more than one provider specified in a single element, "
                    "should split into different list elements"
                )
                continue
            name = found[0]
            if name == "kms":
                # KMS needs a gRPC plugin on a unix socket: not something this server can talk to yet.
                errs.append(f"{path}.kms: Unsupported value: the kms provider is not supported by this server")
            elif name in _KEYED:
                _validate_keys(provider[name].get("keys"), f"{path}.{name}.keys", _KEYED[name][0], errs)
    return errs


def _build(providers: list[dict[str, Any]]) -> Transformer:
    built: list[tuple[bytes, Transformer]] = []
    for provider in providers:
        name = next(p for p in _PROVIDERS if provider.get(p) is not None)
        if name == "identity":
            built.append((b"", IDENTITY))
            continue
        make = _KEYED[name][1]
        for key in provider[name]["keys"]:
            prefix = f"k8s:enc:{name}:v1:{key['name']}:".encode()
            built.append((prefix, make(base64.b64decode(key["secret"]))))
    if len(built) == 1 and built[0][1] is IDENTITY:
        return IDENTITY
    return PrefixTransformers(built)


class EncryptionConfig:
    """Transformers by group-resource, resolved from storage keys."""

    def __init__(self, entries: list[tuple[list[str], Transformer]], dotless_groups: frozenset[str]) -> None:
        self.entries = entries
        self.dotless_groups = dotless_groups  # built-in groups without a dot (apps, batch, ...)
        self._by_root: dict[str, Transformer] = {}

    def transformer_for(self, group: str, resource: str) -> Transformer:
        qualified = f"{resource}.{group}" if group else resource
        for names, transformer in self.entries:
            for name in names:
                if name in ("*.*", qualified, f"*.{group}"):  # "*." is the core group's wildcard
                    return transformer
        return IDENTITY

    def for_key(self, key: str) -> Transformer:
        """The transformer of a storage key: /registry/<resource>/... for core, /registry/<group>/<resource>/..."""
        parts = key.split("/", 4)  # "", "registry", first, second, rest
        if len(parts) < 4:
            return IDENTITY
        first, second = parts[2], parts[3]
        grouped = "." in first or first in self.dotless_groups
        root = f"{first}/{second}" if grouped else first
        transformer = self._by_root.get(root)
        if transformer is None:
            transformer = self.transformer_for(first, second) if grouped else self.transformer_for("", first)
            self._by_root[root] = transformer
        return transformer


def load(path: str, dotless_groups: frozenset[str]) -> EncryptionConfig:
    """Raises EncryptionConfigError with kube-apiserver's message."""
    where = f'error while parsing encryption provider configuration file "{path}"'
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise EncryptionConfigError(f"{where}: could not read file: {e.strerror}") from None
    try:
        config = yaml.safe_load(data)
    except yaml.YAMLError as e:
        raise EncryptionConfigError(f"{where}: error while parsing file: {e}") from None
    if not isinstance(config, dict) or config.get("kind") != KIND or config.get("apiVersion") != API_VERSION:
        got = (config or {}).get("kind") if isinstance(config, dict) else None
        raise EncryptionConfigError(
            f"{where}: error while parsing file: got unexpected config type: {got or '<none>'} "
            f"(want {KIND} of {API_VERSION})"
        )
    errs = validate(config)
    if errs:
        raise EncryptionConfigError(f"{where}: error while parsing file: " + ", ".join(errs))
    entries = [(list(e["resources"]), _build(e["providers"])) for e in config["resources"]]
    return EncryptionConfig(entries, dotless_groups)


class ReloadingEncryptionConfig:
    """--encryption-provider-config-automatic-reload: the file is checked for changes and a valid new
    configuration replaces the old one; an invalid one is logged and the old one kept, as kube-apiserver does."""

    def __init__(self, path: str, dotless_groups: frozenset[str]) -> None:
        self.path = path
        self.dotless_groups = dotless_groups
        self.current = load(path, dotless_groups)
        self._content = self._read()
        self.last_error = ""

    def _read(self) -> bytes:
        try:
            with open(self.path, "rb") as f:
                return f.read()
        except OSError:
            return b""

    def for_key(self, key: str) -> Transformer:
        return self.current.for_key(key)

    def reload_if_changed(self) -> bool:
        """True when a new configuration took effect."""
        content = self._read()
        if content == self._content:
            return False
        self._content = content
        try:
            self.current = load(self.path, self.dotless_groups)
        except EncryptionConfigError as e:
            self.last_error = str(e)
            return False
        self.last_error = ""
        return True

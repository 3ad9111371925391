"""Encryption at rest flags (EtcdOptions' encryption provider part) and the per-key transformer they build."""

from __future__ import annotations

import argparse
import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass

from kube_apiserver.cmd.flag_types import bool_flag
from kube_apiserver.storage.value import encryptionconfig
from kube_apiserver.storage.value.transformer import Transformer

log = logging.getLogger(__name__)


@dataclass
class EncryptionOptions:
    encryption_provider_config: str
    encryption_provider_config_automatic_reload: bool
    reloading: encryptionconfig.ReloadingEncryptionConfig | None = None

    @classmethod
    def from_namespace(cls, ns: argparse.Namespace) -> EncryptionOptions:
        return cls(ns.encryption_provider_config, ns.encryption_provider_config_automatic_reload)

    def to_transformer_for(self) -> Callable[[str], Transformer] | None:
        """The storage's transformer of each key, or None when nothing is encrypted.
        Raises encryptionconfig.EncryptionConfigError."""
        if not self.encryption_provider_config:
            return None
        from kube_apiserver.apis import builtin_resources

        dotless = frozenset(s.group for s in builtin_resources() if s.group and "." not in s.group)
        if self.encryption_provider_config_automatic_reload:
            self.reloading = encryptionconfig.ReloadingEncryptionConfig(self.encryption_provider_config, dotless)
            return self.reloading.for_key
        return encryptionconfig.load(self.encryption_provider_config, dotless).for_key

    async def run_reloader(self, interval: float = 1.0) -> None:
        """Checks the file for changes while the server runs (only with automatic reload)."""
        reloading = self.reloading
        if reloading is None:
            return
        while True:
            await asyncio.sleep(interval)
            if reloading.reload_if_changed():
                log.warning("encryption provider configuration reloaded from %s", reloading.path)
            elif reloading.last_error:
                log.error("failed to reload the encryption provider configuration: %s", reloading.last_error)
                reloading.last_error = ""


def add_flags(p: argparse.ArgumentParser) -> None:
    a = p.add_argument
    a(
        "--encryption-provider-config",
        default="",
        help="The file containing configuration for encryption providers to be used for storing secrets in the database (an apiserver.config.k8s.io/v1 EncryptionConfiguration).",
    )
    a(
        "--encryption-provider-config-automatic-reload",
        type=bool_flag,
        default=False,
        help="Determines if the file set by --encryption-provider-config should be automatically reloaded if the disk contents change. The file is checked every second; an invalid new configuration is logged and the previous one kept.",
    )

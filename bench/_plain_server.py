"""kube_apiserver serving plain HTTP, for bench/get_tls_vs_plain.py only: the same command and the same app,
with the TLS part of the secure server left out (kube-apiserver itself has no insecure port)."""

from __future__ import annotations

import sys

from kube_apiserver.cmd import app
from kube_apiserver.server import serving

_Secure = serving.SecureServer


class _PlainServer(_Secure):
    def __init__(
        self, app_: object, host: str, port: int, cert_file: str | None, key_file: str | None, *rest: object
    ) -> None:
        super().__init__(app_, host, port, None, None, *rest)


app.SecureServer = _PlainServer  # type: ignore[misc]

if __name__ == "__main__":
    app.main(sys.argv[1:])

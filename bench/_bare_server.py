"""The ceiling server: a bare uvicorn + httptools (+ uvloop) ASGI app answering every request with fixed bytes,
over the same TLS setup as kube_apiserver (its serving certificate; client certificates optional, same CA).

    python bench/_bare_server.py PORT CERT KEY [CLIENT_CA] [BODY_FILE]
"""

from __future__ import annotations

import ssl
import sys

import uvicorn

PIECE = 64 * 1024


def main() -> None:
    port, cert, key = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    ca = sys.argv[4] if len(sys.argv) > 4 and sys.argv[4] else None
    body = b"ok"
    ctype = b"text/plain"
    if len(sys.argv) > 5:
        with open(sys.argv[5], "rb") as f:
            body = f.read()
        ctype = b"application/json"
    headers = [(b"content-type", ctype), (b"content-length", str(len(body)).encode())]

    # a large body goes out in pieces of 64 KiB, as kube_apiserver writes a large list: written whole it
    # is encrypted whole before the client sees its first byte (about twice slower for 14 MB)
    view = memoryview(body)
    pieces = [view[i : i + PIECE] for i in range(0, len(body), PIECE)] or [view]

    async def app(scope, receive, send):  # noqa: ANN001
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        for piece in pieces[:-1]:
            await send({"type": "http.response.body", "body": piece, "more_body": True})
        await send({"type": "http.response.body", "body": pieces[-1]})

    kwargs = {"ssl_cert_reqs": ssl.CERT_OPTIONAL, "ssl_ca_certs": ca} if ca else {}
    uvicorn.run(
        app,
        host="127.0.0.1",
        port=port,
        http="httptools",
        loop="uvloop",
        lifespan="off",
        ws="none",
        ssl_certfile=cert,
        ssl_keyfile=key,
        log_level="warning",
        access_log=False,
        timeout_keep_alive=120,
        server_header=False,
        **kwargs,
    )


if __name__ == "__main__":
    main()

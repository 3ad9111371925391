"""OpenSSL alone: what OpenSSL itself needs to send a body on this machine. A blocking socket per connection,
no event loop, no HTTP parsing beyond finding the end of the request head: each request is answered with
fixed bytes in one sendall, i.e. SSL_write of the whole response in C with the GIL released (OpenSSL cuts it
into 16 KiB records and writes each to the socket). Same TLS setup as kube_apiserver (its serving
certificate, client certificates optional against the same CA). No server written on top of OpenSSL can
move the same bytes over TLS much faster than this.

    python bench/_openssl_floor_server.py PORT CERT KEY CLIENT_CA BODY_FILE
"""

from __future__ import annotations

import contextlib
import socket
import ssl
import sys
import threading


def serve(conn: ssl.SSLSocket, response: bytes) -> None:
    head = b""
    with conn, contextlib.suppress(OSError):  # the client went away
        while True:
            while b"\r\n\r\n" not in head:
                data = conn.recv(65536)
                if not data:
                    return
                head += data
            head = head[head.index(b"\r\n\r\n") + 4 :]  # requests have no body
            conn.sendall(response)


def main() -> None:
    port, cert, key, ca, body_file = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
    with open(body_file, "rb") as f:
        body = f.read()
    response = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n" % len(body)
    response += body
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    ctx.load_verify_locations(ca)
    ctx.verify_mode = ssl.CERT_OPTIONAL
    listener = socket.create_server(("127.0.0.1", port))
    while True:
        raw, _ = listener.accept()
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            conn = ctx.wrap_socket(raw, server_side=True)
        except (ssl.SSLError, OSError):
            raw.close()
            continue
        threading.Thread(target=serve, args=(conn, response), daemon=True).start()


if __name__ == "__main__":
    main()

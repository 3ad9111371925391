"""send_json_around: a JSON list written around already-encoded items: whole with a Content-Length when it fits in
one piece of about LIST_PIECE_BYTES, else chunked, a piece at a time; send_json_pieces: one written from pieces
joined beforehand, with its length."""

from __future__ import annotations

import asyncio

import orjson
import pytest

from kube_apiserver.endpoints.request import LIST_PIECE_BYTES, send_json_around, send_json_pieces


def _written(
    items: list, prefix: bytes = b'{"items":[', separator: bytes = b",", encoded=None
) -> tuple[dict[bytes, bytes], list[tuple[bytes, bool]]]:
    headers: dict[bytes, bytes] = {}
    bodies: list[tuple[bytes, bool]] = []

    async def send(message: dict) -> None:
        if message["type"] == "http.response.start":
            assert message["status"] == 200
            headers.update(message["headers"])
        else:
            bodies.append((bytes(message["body"]), message.get("more_body", False)))

    if encoded is None:
        asyncio.run(send_json_around(send, prefix, items, b"]}", separator))
    else:
        asyncio.run(send_json_around(send, prefix, items, b"]}", separator, encoded=encoded))
    return headers, bodies


@pytest.mark.parametrize(
    "sizes",
    [
        [],
        [10],
        [10, 20],
        [100] * 3000,  # many small items: many pieces
        [LIST_PIECE_BYTES * 3] + [10] * 50,  # one item larger than a piece, then small ones
        [10, 70_000, 10, 200_000, 5, 5, 90_000],  # uneven sizes
    ],
)
@pytest.mark.parametrize("tails", [False, True])
def test_the_pieces_make_one_document(sizes, tails):
    items = [orjson.dumps({"i": i, "p": "x" * n}) for i, n in enumerate(sizes)]
    if tails and items:  # items without their "{": each opened by the separator (typed list items)
        headers, bodies = _written([i[1:] for i in items], b'{"items":[{', b",{")
    else:
        headers, bodies = _written(items)
    body = b"".join(b for b, _ in bodies)
    assert [more for _, more in bodies] == [True] * (len(bodies) - 1) + [False]
    assert orjson.loads(body) == {"items": [orjson.loads(i) for i in items]}
    if len(bodies) == 1:  # whole: its length announced
        assert int(headers[b"content-length"]) == len(body)
    else:  # chunked (uvicorn frames the pieces when no length is given)
        assert b"content-length" not in headers
    if sum(sizes) > 4 * LIST_PIECE_BYTES and len(set(sizes)) == 1:
        assert len(bodies) > 2  # written in pieces, not whole (uneven sizes may mislead the first piece's count)
    if sum(sizes) < LIST_PIECE_BYTES // 2:
        assert len(bodies) == 1


def test_pieces_follow_the_item_sizes_and_encode_lazily():
    """The items are encoded (looked up) a piece at a time, each exactly once, and the pieces stay near
    LIST_PIECE_BYTES whatever the item size: after the one piece where the items grow 30-fold, the next
    pieces are sized by it."""

    class Item:
        def __init__(self, n: int) -> None:
            self.data = orjson.dumps({"p": "x" * n})
            self.reads = 0

        def raw(self) -> bytes:
            self.reads += 1
            return self.data

    items = [Item(100) for _ in range(2000)] + [Item(3000) for _ in range(200)]
    headers, bodies = _written(items, encoded=Item.raw)
    assert b"content-length" not in headers
    assert orjson.loads(b"".join(b for b, _ in bodies))["items"] == [orjson.loads(i.data) for i in items]
    assert items[0].reads == 2 and all(i.reads == 1 for i in items[1:])  # the first also sized the first piece
    assert sum(len(b) >= 2 * LIST_PIECE_BYTES for b, _ in bodies) == 1
    assert sum(len(b) > LIST_PIECE_BYTES // 2 for b, _ in bodies) >= len(bodies) - 2


class _Writer:
    """A StreamWriter that keeps what it is given (joined as the connection's writer joins it) and refuses
    from the refuse_from-th piece on, as the real one does once the client is gone."""

    def __init__(self, out: list[bytes], refuse_from: int) -> None:
        self.out = out
        self.refuse_from = refuse_from
        self.calls = 0

    def write(self, body: bytes) -> bool:
        raise AssertionError("a list writes joined pieces")

    async def write_joined(self, parts: list[bytes], separator: bytes) -> int:
        self.calls += 1
        if self.calls >= self.refuse_from:
            return 0
        piece = separator.join(parts)
        self.out.append(piece)
        return len(piece)


@pytest.mark.parametrize("refuse_from", [1, 3, 10**9])
def test_pieces_after_the_first_go_to_the_writer_and_the_end_through_the_send(refuse_from):
    """With a StreamWriter, the pieces after the first go straight to it while it takes them; whatever it
    refuses goes through the send, and the response always ends through the send (the HTTP server then
    writes the last chunk), so the document is whole in order."""
    items = [orjson.dumps({"i": i, "p": "x" * 100}) for i in range(3000)]
    sent: list[tuple[bytes, bool]] = []
    order: list[str] = []
    out: list[bytes] = []

    class Tracking(_Writer):
        async def write_joined(self, parts: list[bytes], separator: bytes) -> int:
            n = await super().write_joined(parts, separator)
            if n:
                order.append("writer")
            return n

    writer = Tracking(out, refuse_from)

    async def send(message: dict) -> None:
        if message["type"] == "http.response.body":
            sent.append((bytes(message["body"]), message.get("more_body", False)))
            order.append("send")

    asyncio.run(send_json_around(send, b'{"items":[', items, b"]}", writer=writer))
    # the document, in the order the connection saw it
    seq, s, w = [], iter(sent), iter(out)
    for who in order:
        seq.append(next(s)[0] if who == "send" else next(w))
    assert orjson.loads(b"".join(seq)) == {"items": [orjson.loads(i) for i in items]}
    assert sent[0][1] and not sent[-1][1]  # the first piece opens the stream, the send ends it
    assert order[0] == "send" and order[-1] == "send"
    if refuse_from == 10**9:
        assert order.count("send") == 2 and len(out) > 3  # the first piece and the end
    else:  # once refused, the writer is not asked again
        assert writer.calls == refuse_from and len(out) == refuse_from - 1


class _BodyWriter:
    """A StreamWriter for a body with a Content-Length: keeps what it takes, refuses from the
    refuse_from-th part on (the client went away)."""

    def __init__(self, order: list[tuple[str, bytes]], refuse_from: int) -> None:
        self.order = order
        self.refuse_from = refuse_from
        self.calls = 0

    async def write_body(self, body: bytes) -> bool:
        self.calls += 1
        if self.calls >= self.refuse_from:
            return False
        self.order.append(("writer", body))
        return True


@pytest.mark.parametrize("refuse_from", [1, 3, 10**9])
def test_joined_pieces_are_sent_with_their_length(refuse_from):
    """Pieces joined beforehand (each opening with a comma) make one document whose length is sent first;
    after the first piece they go to the writer while it takes them, the rest and the end through the send."""
    items = [orjson.dumps({"i": i}) for i in range(1000)]
    pieces = [b"".join(b"," + i for i in items[k : k + 90]) for k in range(0, 1000, 90)]
    order: list[tuple[str, bytes]] = []
    heads: list[dict] = []
    ends: list[bool] = []

    async def send(message: dict) -> None:
        if message["type"] == "http.response.start":
            heads.append(message)
        else:
            order.append(("send", bytes(message["body"])))
            ends.append(not message.get("more_body", False))

    asyncio.run(send_json_pieces(send, b'{"items":[', pieces, b"]}", _BodyWriter(order, refuse_from)))
    body = b"".join(b for _, b in order)
    assert orjson.loads(body) == {"items": [orjson.loads(i) for i in items]}
    assert dict(heads[0]["headers"])[b"content-length"] == str(len(body)).encode()
    assert order[0][0] == "send" and order[-1] == ("send", b"]}")
    assert ends.count(True) == 1 and ends[-1]  # only the send of the end ends the response
    assert sum(who == "writer" for who, _ in order) == min(max(refuse_from - 1, 0), len(pieces) - 1)


def test_no_joined_pieces_is_an_empty_list():
    sent: list[dict] = []

    async def send(message: dict) -> None:
        sent.append(message)

    asyncio.run(send_json_pieces(send, b'{"items":[', [], b"]}"))
    assert sent[1]["body"] == b'{"items":[]}'

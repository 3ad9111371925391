"""send_json_around: a JSON list written around already-encoded items: whole with a Content-Length when it fits in
one piece of about LIST_PIECE_BYTES, else chunked, a piece at a time."""

from __future__ import annotations

import asyncio

import orjson
import pytest

from kube_apiserver.endpoints.request import LIST_PIECE_BYTES, send_json_around


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

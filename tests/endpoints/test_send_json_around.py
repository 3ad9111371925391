"""send_json_around: a JSON list written around already-encoded items, in pieces of about LIST_PIECE_BYTES."""

from __future__ import annotations

import asyncio

import orjson
import pytest

from kube_apiserver.endpoints.request import LIST_PIECE_BYTES, send_json_around


def _written(
    items: list[bytes], prefix: bytes = b'{"items":[', separator: bytes = b","
) -> tuple[dict[bytes, bytes], list[tuple[bytes, bool]]]:
    headers: dict[bytes, bytes] = {}
    bodies: list[tuple[bytes, bool]] = []

    async def send(message: dict) -> None:
        if message["type"] == "http.response.start":
            assert message["status"] == 200
            headers.update(message["headers"])
        else:
            bodies.append((bytes(message["body"]), message.get("more_body", False)))

    asyncio.run(send_json_around(send, prefix, items, b"]}", separator))
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
def test_the_pieces_make_one_document_of_the_announced_length(sizes, tails):
    items = [orjson.dumps({"i": i, "p": "x" * n}) for i, n in enumerate(sizes)]
    if tails and items:  # items without their "{": each opened by the separator (typed list items)
        headers, bodies = _written([i[1:] for i in items], b'{"items":[{', b",{")
    else:
        headers, bodies = _written(items)
    body = b"".join(b for b, _ in bodies)
    assert int(headers[b"content-length"]) == len(body)
    assert [more for _, more in bodies] == [True] * (len(bodies) - 1) + [False]
    assert orjson.loads(body) == {"items": [orjson.loads(i) for i in items]}
    if sum(sizes) > 4 * LIST_PIECE_BYTES:
        assert len(bodies) > 2  # written in pieces, not whole

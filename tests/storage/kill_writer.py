"""Child process of test_storage_durability.py's kill -9 test (not a test itself).

Creates keys as fast as it can from many concurrent writers and prints each key once its create was
acknowledged (flushed per line), until it is killed. Usage: python kill_writer.py DB WRITERS
"""

from __future__ import annotations

import asyncio
import os
import sys

from kube_apiserver.storage.sqlite.store import SQLiteStorage


async def main(path: str, writers: int) -> None:
    store = SQLiteStorage(path)
    await store.start()
    out = sys.stdout

    async def writer(w: int) -> None:
        i = 0
        while True:
            k = f"/registry/things/default/w{w:03}-{i:07}"
            res = await store.create(k, {"kind": "Thing", "metadata": {"name": k}, "data": {"pad": "x" * 512}})
            out.write(f"{k} {res.revision}\n")
            out.flush()
            i += 1

    out.write(f"ready {os.getpid()}\n")
    out.flush()
    await asyncio.gather(*(writer(w) for w in range(writers)))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))

"""A store that stalls never stalls the server: SQLite's waits run off the event loop, every
operation gives up within the store's timeout with :class:`EpisodeStoreError`, and the HTTP
front answers that with 503 ``episode_store``, the token check included."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio
import httpx2
import pytest
from starlette.responses import PlainTextResponse
from starlette.types import Receive, Scope, Send

from mcp_sim.episodes.records import NewRecord
from mcp_sim.episodes.store_sqlite import SqliteEpisodeStore
from mcp_sim.errors import EpisodeStoreError
from mcp_sim.server.guards import AccessGuard

RECORD = NewRecord(meta="{}", base="{}", head="{}")


@contextmanager
def write_locked(path: Path) -> Iterator[None]:
    """Another connection holds the file's write lock (as another process would) for the
    length of the block."""
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        yield
    finally:
        other.execute("ROLLBACK")
        other.close()


async def test_a_locked_file_fails_writes_in_time_and_leaves_the_loop_and_reads_free(
    tmp_path: Path,
) -> None:
    path = tmp_path / "episodes.db"
    store = SqliteEpisodeStore(path, timeout=0.4)
    await store.create("ep-1", "token-1", "incarnation-1", RECORD)
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            await anyio.sleep(0.01)
            ticks += 1

    with write_locked(path):
        async with anyio.create_task_group() as tg:
            tg.start_soon(tick)
            # Reads have their own connection, which WAL lets read past the write lock.
            with anyio.fail_after(0.3):
                assert await store.holder("token-1") == "ep-1"
            started, ticks = time.monotonic(), 0
            with anyio.fail_after(5), pytest.raises(EpisodeStoreError, match="locked") as failed:
                await store.claim("ep-1", "worker-a", 10)
            waited = time.monotonic() - started
            tg.cancel_scope.cancel()
    # The claim waited for the lock on a thread: the loop went on ticking meanwhile (a wait
    # on the loop itself would have let no tick through).
    assert waited >= 0.3 and ticks >= 10
    assert str(tmp_path) not in str(failed.value)  # clients see it: no server path
    claim = await store.claim("ep-1", "worker-a", 10)
    assert claim is not None and claim.rev == 0
    await store.close()


async def test_a_failing_store_behind_a_token_is_a_503_not_a_500() -> None:
    async def store_down(token: str) -> str | None:
        raise EpisodeStoreError("the Redis episode store failed (ConnectionError)")

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await PlainTextResponse("reached")(scope, receive, send)

    guard = AccessGuard(app, "operator", store_down)
    transport = httpx2.ASGITransport(app=guard)
    async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
        reply = await http.get("/episodes/ep-1", headers={"Authorization": "Bearer unseen"})
        operator = await http.get("/episodes/ep-1", headers={"Authorization": "Bearer operator"})
    assert reply.status_code == 503
    assert reply.json()["error"] == "episode_store" and "ConnectionError" in reply.json()["message"]
    assert operator.text == "reached"

"""An episode id used again, on two workers behind the shipped HAProxy configuration: the
old episode's token dies on every worker at once, and the new owner sees only its own calls,
on a worker that still holds a copy of the old episode at the same step count (SQLite and
Redis stores)."""

from __future__ import annotations

from pathlib import Path

import anyio
import httpx2

from tests.e2e.test_workers import (
    CALLS,
    OPERATOR,
    Driven,
    create,
    digest_reply,
    drive,
    journal,
    worker,
)
from tests.openai_double import OpenAIDouble
from tests.processes import free_port
from tests.services import haproxy

ID = "rollout-7"
OLD_CALLS = CALLS[:2]
NEW_CALLS = [CALLS[3], CALLS[1]]
"""Two calls each, so the old and new incarnations are at the same revision, with other tools
so their journals tell them apart."""


def at(episode: Driven, base: str) -> Driven:
    """The same episode, reached through ``base`` (one worker, or the balancer)."""
    return Driven(episode.id, f"{base}/episodes/{episode.id}/mcp", episode.token)


async def answers(base: str, token: str) -> list[int]:
    """The statuses ``token`` gets on the episode's journal, MCP endpoint and DELETE."""
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
    opening = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    async with httpx2.AsyncClient(base_url=base, headers=headers) as http:
        return [
            (await http.get(f"/episodes/{ID}/journal")).status_code,
            (await http.post(f"/episodes/{ID}/mcp", json=opening)).status_code,
            (await http.delete(f"/episodes/{ID}")).status_code,
        ]


async def test_a_reused_id_opens_only_to_its_new_token_on_every_worker(
    tmp_path: Path, store_url: str
) -> None:
    log = tmp_path / "workers.log"
    ports = [free_port(), free_port()]
    with (
        OpenAIDouble() as model,
        anyio.fail_after(120),
        worker(ports[0], model.base_url, log, "--episode-store", store_url),
        worker(ports[1], model.base_url, log, "--episode-store", store_url),
        haproxy(tmp_path, ports) as balancer,
    ):
        model.respond_with(digest_reply)
        one, two = (f"http://127.0.0.1:{port}" for port in ports)
        await anyio.sleep(1.5)  # HAProxy's first health checks
        old = await create(balancer, ID, 1)
        await drive(at(old, two), OLD_CALLS)
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {OPERATOR}"}) as http:
            assert (await http.delete(f"{balancer}/episodes/{ID}")).status_code == 204
        new = await create(one, ID, 2)
        await drive(at(new, one), NEW_CALLS)
        assert not old.failed and not new.failed

        for base in (one, two, balancer):
            assert await answers(base, old.token) == [401, 401, 401], base
            seen = await journal(base, at(new, base))
            assert [(r["step"], r["tool"]) for r in seen] == [(1, "get_order"), (2, "list_orders")]
        # The new owner's calls on the worker that held the old copy run on the new episode.
        await drive(at(new, two), [CALLS[0]])
        tools = [r["tool"] for r in await journal(one, at(new, one))]
        assert tools == ["get_order", "list_orders", "create_order"] and not new.failed

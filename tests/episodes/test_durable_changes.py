"""Every kind of change to a durable episode goes through the store: after each (a reset by
the ``sim_reset`` tool, by the episode API or the Python API, a fork, a snapshot restored as
a new episode) the server is started again on the store, and the episode reads as the first
server left it: journal, state and summary."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp_sim.api.episode import Episode
from mcp_sim.episodes.hub import EpisodeHub
from mcp_sim.server.control_tools import ControlTools, call_control_tool
from mcp_sim.spec.world import World
from tests.episodes.test_durable import CALLS, lines, run_calls, worker

Change = Callable[[EpisodeHub], Awaitable[str]]
"""A change to episode ``e1`` (which has made two calls): the episode to read after it."""


async def by_tool(hub: EpisodeHub) -> str:
    await call_control_tool(ControlTools(hub, "tidewater-orders"), "sim_reset", {}, "e1")
    return "e1"


async def by_api(hub: EpisodeHub) -> str:
    await hub.reset("e1", seed=9)  # what POST /episodes/{id}/reset runs
    return "e1"


async def by_python(hub: EpisodeHub) -> str:
    await Episode(hub, "e1").reset()
    return "e1"


async def by_fork(hub: EpisodeHub) -> str:
    return (await hub.fork("e1", "e1-fork", seed=4)).id


async def by_restore(hub: EpisodeHub) -> str:
    snapshot = await hub.snapshot("e1")
    return (await hub.create(snapshot=snapshot, episode_id="restored", seed=8)).id


async def read(hub: EpisodeHub, episode_id: str) -> tuple[Any, ...]:
    await hub.find(episode_id)
    summary = hub.summary(hub.entry(episode_id))
    return lines(hub, episode_id), await hub.state(episode_id), summary


@pytest.mark.parametrize("change", [by_tool, by_api, by_python, by_fork, by_restore])
async def test_a_change_reads_the_same_after_a_restart(
    shop: World, tmp_path: Path, change: Change
) -> None:
    url = f"sqlite:///{tmp_path / 'episodes.db'}"
    with anyio.fail_after(60):
        async with worker(shop, url) as (first, _):
            await first.create(shop.world, "e1", seed=7)
            await run_calls(first, "e1", CALLS[:2])
            changed = await change(first)
            await run_calls(first, changed, CALLS[2:3])
            before = await read(first, changed)
        async with worker(shop, url) as (again, _):
            after = await read(again, changed)
    assert after == before
    # A reset starts the journal over; a fork keeps its parent's calls; a restored snapshot
    # goes on counting from where it was taken.
    first_step = {"e1": 1, "e1-fork": 1, "restored": 3}[changed]
    assert json.loads(after[0][0])["step"] == first_step

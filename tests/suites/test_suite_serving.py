"""A suite served from one process: worlds loaded on their first episode, unloaded idle."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import httpx2
import pytest

from mcp_sim.api.lazy_worlds import LazyWorlds
from mcp_sim.errors import CapacityReached, UnknownWorld, VerifyError
from mcp_sim.models.stub import StubModel
from mcp_sim.models.stub_script import ScriptedAnswer, StubScript
from mcp_sim.settings.combined import Settings
from mcp_sim.suites.export import export_suite
from mcp_sim.suites.serving import open_suite
from tests.server.test_episode_routes import mcp_client, serving
from tests.suites.suite_builds import small_suite

pytestmark = pytest.mark.anyio


async def test_worlds_load_on_their_first_episode_and_unload_when_idle(tmp_path: Path) -> None:
    layout = await small_suite(tmp_path, ("ticket", "parcel", "booking"))
    async with await open_suite(layout, model=StubModel()) as worlds:
        hub = worlds.hub
        loader = hub.access.loader
        assert isinstance(loader, LazyWorlds)
        assert hub.simulators == {} and loader.loads == 0
        first = await hub.create("desk-ticket", task="cancel-t1")
        again = await hub.create("desk-ticket", task="cancel-t2")
        other = await hub.create("desk-parcel", task="cancel-p1")
        assert sorted(hub.simulators) == ["desk-parcel", "desk-ticket"] and loader.loads == 2
        assert first.task == "cancel-t1" and other.world == "desk-parcel"
        await hub.delete(other.id)
        assert hub.unload_idle() == ["desk-parcel"]
        assert sorted(hub.simulators) == ["desk-ticket"]
        await hub.delete(first.id)
        await hub.delete(again.id)
        assert hub.unload_idle() == ["desk-ticket"] and hub.simulators == {}
        await hub.create("desk-parcel", task="cancel-p2")
        assert loader.loads == 3
        with pytest.raises(UnknownWorld):
            await hub.create("desk-nowhere")
        with pytest.raises(VerifyError):
            await hub.create("desk-booking", task="no-such-task")


async def test_a_suites_episodes_are_capped_as_a_servers_are(tmp_path: Path) -> None:
    layout = await small_suite(tmp_path, ("ticket", "parcel"))
    settings = Settings().updated(max_episodes=2, max_world_episodes=1)
    async with await open_suite(layout, settings, model=StubModel()) as worlds:
        hub = worlds.hub
        await hub.create("desk-ticket", task="cancel-t1")
        with pytest.raises(CapacityReached):
            await hub.create("desk-ticket", task="cancel-t2")
        await hub.create("desk-parcel", task="cancel-p1")
        with pytest.raises(CapacityReached):
            await hub.create("desk-parcel", task="cancel-p2")


async def test_a_suite_served_over_http_opens_episodes_by_world_and_task(tmp_path: Path) -> None:
    layout = await small_suite(tmp_path, ("ticket", "parcel", "booking"))
    with anyio.fail_after(60):
        async with (
            await open_suite(layout, model=StubModel()) as worlds,
            serving(worlds.hub) as base,
            httpx2.AsyncClient(base_url=base) as http,
        ):
            assert worlds.hub.simulators == {}
            made = await http.post("/episodes", json={"world": "desk-ticket", "task": "cancel-t1"})
            assert made.status_code == 201, made.text
            first = made.json()
            async with mcp_client(first["mcp_url"], first["token"]) as client:
                listed = await client.call_tool("list_tickets", {})
            assert not listed.is_error
            assert list(worlds.hub.simulators) == ["desk-ticket"]
            assert (await http.get("/metrics")).status_code == 200
            assert (await http.delete(f"/episodes/{first['id']}")).status_code == 204
            assert worlds.hub.unload_idle() == ["desk-ticket"]
            second = (await http.post("/episodes", json={"world": "desk-ticket"})).json()
            async with mcp_client(second["mcp_url"], second["token"]) as client:
                again = await client.call_tool("list_tickets", {})
            assert not again.is_error, "a reloaded world gets a fresh MCP endpoint"
            unknown = await http.post("/episodes", json={"world": "desk-nowhere"})
            assert unknown.status_code == 404


async def test_an_exported_row_drives_a_rollout_that_the_reference_solution_wins(
    tmp_path: Path,
) -> None:
    """The openenv row's world and task open the episode; the reference solution's calls,
    answered as it pins them (the stand-in model's script), score 1.0 on the server too."""
    layout = await small_suite(tmp_path, ("ticket", "parcel"))
    export_suite(layout, "openenv", tmp_path / "rows")
    row = json.loads((tmp_path / "rows" / "train.jsonl").read_text().splitlines()[0])
    steps = layout.item(row["world"]).solutions()[row["task"]]
    # A structured tool's pinned answer is its JSON text; the script takes the value.
    answers = [ScriptedAnswer(s.tool, s.arguments, json.loads(s.answer), s.patch) for s in steps]
    script = StubScript(answers)
    with anyio.fail_after(60):
        async with (
            await open_suite(layout, model=StubModel(script)) as worlds,
            serving(worlds.hub) as base,
            httpx2.AsyncClient(base_url=base) as http,
        ):
            made = await http.post("/episodes", json={"world": row["world"], "task": row["task"]})
            episode = made.json()
            async with mcp_client(episode["mcp_url"], episode["token"]) as client:
                for step in steps:
                    await client.call_tool(step.tool, step.arguments)
            verdict = (await http.post(f"/episodes/{episode['id']}/verify")).json()
    assert verdict["reward"] == 1.0 and verdict["valid"], json.dumps(verdict)[:1500]

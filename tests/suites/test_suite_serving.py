"""A suite served from one process: worlds loaded on their first episode, unloaded idle."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_sim.api.lazy_worlds import LazyWorlds
from mcp_sim.errors import SettingsError, UnknownWorld, VerifyError
from mcp_sim.models.stub import StubModel
from mcp_sim.settings.combined import Settings
from mcp_sim.suites.serving import open_suite
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


async def test_a_suite_is_served_in_process_only(tmp_path: Path) -> None:
    layout = await small_suite(tmp_path, ("ticket",))
    settings = Settings().updated(episode_store=f"sqlite:///{tmp_path / 'episodes.db'}")
    with pytest.raises(SettingsError, match="--episode-store"):
        await open_suite(layout, settings, model=StubModel())

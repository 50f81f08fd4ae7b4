"""A suite served by several workers on one durable store (SQLite, then Redis): each worker
loads a world when an episode of it first reaches it, whether the episode was made there or
on another worker, and reloads a world it unloaded idle when a stored episode of it is called.
Two suites opened in one process stand for two workers (each its own hub, loader and store
connection, as two processes have)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp_sim.api.lazy_worlds import LazyWorlds
from mcp_sim.episodes.durable import DurableEpisodes
from mcp_sim.episodes.hub import EpisodeHub
from mcp_sim.episodes.store_opening import open_store
from mcp_sim.errors import EpisodeStoreError
from mcp_sim.models.stub import StubModel
from mcp_sim.models.stub_script import ScriptedAnswer, StubScript
from mcp_sim.settings.combined import Settings
from mcp_sim.simulator.core import Simulator
from mcp_sim.suites.layout import SuiteLayout
from mcp_sim.suites.manifest import read_manifest
from mcp_sim.suites.serving import open_suite
from tests.suites.suite_builds import small_suite

pytestmark = pytest.mark.anyio


def solving_script(layout: SuiteLayout) -> list[dict[str, Any]]:
    """Every task's reference solution as stand-in model answers (as a ``stub:`` script file
    holds them): each call is answered, and changes the state, as the solution pins it."""
    script = []
    for item in layout.items():
        for steps in item.solutions().values():
            for step in steps:
                # A structured tool's pinned answer is its JSON text; the script takes the value.
                answer = json.loads(step.answer)
                entry = {"tool": step.tool, "arguments": step.arguments, "answer": answer}
                script.append(entry | {"patch": step.patch})
    return script


def solving_model(layout: SuiteLayout) -> StubModel:
    """The stand-in model answering as the suite's reference solutions pin it (one per worker,
    as each process has its own)."""
    answers = [
        ScriptedAnswer(e["tool"], e["arguments"], e["answer"], e["patch"])
        for e in solving_script(layout)
    ]
    return StubModel(StubScript(answers))


async def call(hub: EpisodeHub, episode_id: str, tool: str, arguments: dict[str, Any]) -> None:
    """One call on the episode through ``hub``, which loads the episode (and its world) first
    when it has not served it yet, as the episode's MCP route does."""
    entry = await hub.find(episode_id, current=False)
    result = await hub.simulators[entry.world].call(episode_id, tool, arguments)
    assert not result.is_error, result.text


def loads(hub: EpisodeHub) -> int:
    loader = hub.access.loader
    assert isinstance(loader, LazyWorlds)
    return loader.loads


async def test_an_episode_made_on_one_worker_loads_its_world_on_another(
    tmp_path: Path, store_url: str
) -> None:
    layout = await small_suite(tmp_path, ("ticket", "parcel", "booking"))
    settings = Settings().updated(episode_store=store_url)
    with anyio.fail_after(60):
        async with (
            await open_suite(layout, settings, model=solving_model(layout)) as first,
            await open_suite(layout, settings, model=solving_model(layout)) as second,
        ):
            a, b = first.hub, second.hub
            made = await a.create("desk-parcel", task="cancel-p1")
            assert list(a.simulators) == ["desk-parcel"] and b.simulators == {}
            await call(a, made.id, "list_parcels", {})
            await call(b, made.id, "cancel_parcel", {"parcel_id": "p1"})
            assert list(b.simulators) == ["desk-parcel"] and loads(b) == 1
            assert (await a.verify(made.id)).reward == 1.0, "a's copy caught up with b's call"
            forked = await b.fork(made.id)
            assert (await a.verify(forked.id)).reward == 1.0
            await b.reset(made.id)
            assert (await a.verify(made.id)).reward == 0.0
            assert (await a.state(made.id))["state"]["parcels"][0]["status"] == "active"
            other = await a.create("desk-booking", task="cancel-b2")
            await call(b, other.id, "cancel_booking", {"booking_id": "b2"})
            assert sorted(b.simulators) == ["desk-booking", "desk-parcel"] and loads(b) == 2
            assert b.simulators["desk-booking"].write_through is not None
            assert (await a.verify(other.id)).reward == 1.0


async def test_a_worker_reloads_a_world_it_unloaded_when_a_stored_episode_is_called(
    tmp_path: Path, store_url: str
) -> None:
    layout = await small_suite(tmp_path, ("ticket", "parcel"))
    settings = Settings().updated(episode_store=store_url)
    with anyio.fail_after(60):
        async with (
            await open_suite(layout, settings, model=solving_model(layout)) as first,
            await open_suite(layout, settings, model=solving_model(layout)) as second,
        ):
            a, b = first.hub, second.hub
            kept = await b.create("desk-ticket", task="cancel-t1")
            await call(b, kept.id, "list_tickets", {})
            gone = await a.create("desk-ticket", task="cancel-t2")
            await a.delete(gone.id)
            assert a.unload_idle() == ["desk-ticket"] and a.simulators == {}
            await call(a, kept.id, "cancel_ticket", {"ticket_id": "t1"})
            assert list(a.simulators) == ["desk-ticket"] and loads(a) == 2
            assert (await b.verify(kept.id)).reward == 1.0
            assert a.unload_idle() == [], "a holds the episode it served"


async def test_an_episode_of_a_world_a_worker_lacks_is_a_store_error(
    tmp_path: Path, store_url: str
) -> None:
    """Every worker behind one store needs the same suite: an episode of a world this worker's
    suite does not have says so, rather than serving something else."""
    (tmp_path / "big").mkdir()
    (tmp_path / "small").mkdir()
    big = await small_suite(tmp_path / "big", ("ticket", "parcel"))
    small = await small_suite(tmp_path / "small", ("ticket",))
    settings = Settings().updated(episode_store=store_url)
    with anyio.fail_after(60):
        async with (
            await open_suite(big, settings, model=StubModel()) as first,
            await open_suite(small, settings, model=StubModel()) as second,
        ):
            made = await first.hub.create("desk-parcel")
            with pytest.raises(EpisodeStoreError, match="every worker behind one store"):
                await second.hub.find(made.id)


async def test_a_world_loaded_without_the_stores_write_through_is_refused(tmp_path: Path) -> None:
    """A loader whose simulators would not write their episodes' calls through is a wiring
    mistake: the first load says so, rather than serving episodes that are silently lost."""
    layout = await small_suite(tmp_path, ("ticket",))
    files = {w["id"]: layout.root / w["file"] for w in read_manifest(layout)["worlds"]}
    store = open_store(f"sqlite:///{tmp_path / 'episodes.db'}", idle_seconds=None)
    assert store is not None
    loader = LazyWorlds(files, lambda stack, world: Simulator(world, StubModel()))
    hub = EpisodeHub({}, durable=DurableEpisodes(store), loader=loader)
    try:
        with pytest.raises(ValueError, match="write-through"):
            await hub.create("desk-ticket")
        assert hub.simulators == {} and loader.loads == 1
    finally:
        loader.close()
        await store.close()

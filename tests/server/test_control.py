"""Snapshot, fork and reset as MCP tools (``--control-tools``), snapshot files confined to
``--snapshot-dir``, and snapshots that cannot be used."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from mcp_sim.episodes.hub import EpisodeHub
from mcp_sim.episodes.limits import EpisodeLimits
from mcp_sim.errors import SessionExists, SnapshotInvalid
from mcp_sim.runtime.session import Session
from mcp_sim.runtime.snapshot import Snapshot
from mcp_sim.server.control_tools import ControlTools, call_control_tool
from mcp_sim.server.mcp_front import build_server
from mcp_sim.server.snapshot_files import SnapshotFolder
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.loading import parse_world
from mcp_sim.spec.world import World
from tests.conftest import BOOKSTORE, ROOT
from tests.processes import DEAD_MODEL, request_meta


def cancel(script: Any, index: int, status: str) -> str:
    patch = [{"op": "replace", "path": f"/orders/{index}/status", "value": status}]
    return str(script.answer(f"order is now {status}", patch))


def test_a_snapshot_from_another_world_is_refused(shop: World) -> None:
    other = parse_world(
        "world: w\ntitle: W\ntools:\n  - {name: t, description: d, input_schema: {type: object}}\n"
    )
    snapshot = Session.start("s", other, seed=1).snapshot()
    with pytest.raises(SnapshotInvalid):
        Session.restore("r", shop, snapshot)


@pytest.mark.parametrize(
    "damage", [{"rng": [1, 2]}, {"rng": [3, [0], None]}, {"consistency": {"bogus": 1}}]
)
def test_a_damaged_snapshot_is_refused(shop: World, damage: dict[str, Any]) -> None:
    data = Session.start("s", shop, seed=1).snapshot().model_dump(mode="json") | damage
    with pytest.raises(SnapshotInvalid):
        Session.restore("r", shop, Snapshot.parse(data))


async def test_control_tools_are_hidden_unless_asked_for(shop: World, script: Any) -> None:
    simulator = Simulator(shop, script())
    async with Client(build_server(simulator)) as client:
        names = {t.name for t in (await client.list_tools()).tools}
    assert not any(n.startswith("sim_") for n in names)


async def test_control_tools_snapshot_fork_and_reset(
    shop: World, script: Any, tmp_path: Path
) -> None:
    simulator = Simulator(shop, script(cancel(script, 0, "cancelled")))
    folder = SnapshotFolder(tmp_path)
    server = build_server(
        simulator, control=ControlTools.over(simulator, folder), operator_resources=True
    )
    path = tmp_path / "snap.json"
    with anyio.fail_after(10):
        async with Client(server) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert {"sim_snapshot", "sim_fork", "sim_reset", "sim_state"} <= names
            changed = await client.call_tool(
                "update_order", {"order_id": "ord_00001"}, meta=request_meta({"mcp-sim/seed": 3})
            )
            assert changed.meta is not None and changed.meta["mcp-sim/version"] == 0
            saved = await client.call_tool("sim_snapshot", {"file": "snap.json"})
            assert saved.structured_content == {"saved_to": "snap.json", "version": 1}
            assert path.is_file()  # in the folder, which the agent is not told of
            fork = await client.call_tool("sim_fork", {"id": "f"})
            await client.call_tool("sim_reset", {})
            reset_state = await client.call_tool("sim_state", {})
            fork_state = await client.call_tool("sim_state", {"session": "f"})
            loaded = await client.call_tool(
                "sim_create_session", {"id": "l", "snapshot_file": "snap.json"}
            )
            bad = await client.call_tool("sim_reset", {"session": "nope"})
            consistency = await client.read_resource("sim://session/consistency")
    assert fork.structured_content is not None and fork.structured_content["seed"] == 3
    assert reset_state.structured_content is not None
    assert reset_state.structured_content["state"] == shop.state
    assert fork_state.structured_content is not None
    assert fork_state.structured_content["state"]["orders"][0]["status"] == "cancelled"
    assert loaded.structured_content is not None and loaded.structured_content["version"] == 1
    assert bad.is_error
    counts = json.loads(consistency.contents[0].text)  # type: ignore[union-attr]
    assert counts["checked"] == 0 and counts["version"] == 0


async def test_a_session_id_over_256_characters_is_refused(shop: World, script: Any) -> None:
    tools = ControlTools.over(Simulator(shop, script()))
    with pytest.raises(ValueError, match="at most 256"):
        await call_control_tool(tools, "sim_create_session", {"id": "s" * 257}, "caller")
    made = await call_control_tool(tools, "sim_create_session", {"id": "s" * 256}, "caller")
    assert made["id"] == "s" * 256


def test_world_tools_named_like_control_tools_are_refused(script: Any) -> None:
    from mcp_sim.errors import SimError

    world = parse_world(
        "world: w\ntitle: W\ntools:\n"
        "  - {name: sim_reset, description: d, input_schema: {type: object}}\n"
    )
    simulator = Simulator(world, script())
    build_server(simulator)
    with pytest.raises(SimError, match="sim_reset"):
        build_server(simulator, control=ControlTools.over(simulator))


async def test_control_tools_know_the_callers_session_before_its_first_call(
    shop: World, script: Any
) -> None:
    simulator = Simulator(shop, script())
    async with Client(build_server(simulator, control=ControlTools.over(simulator))) as client:
        state = await client.call_tool("sim_state", {})
    assert not state.is_error
    assert state.structured_content is not None
    assert state.structured_content["version"] == 0


@pytest.mark.parametrize(
    "name",
    ["../outside.json", "/etc/passwd", "sub/snap.json", "..", ".hidden", "a" * 200, "", "x\x00y"],
)
async def test_snapshot_files_are_plain_names_in_the_folder(
    shop: World, tmp_path: Path, name: str
) -> None:
    folder = SnapshotFolder(tmp_path / "snaps")
    folder.root.mkdir()
    snapshot = Session.start("s", shop, seed=1).snapshot()
    with pytest.raises(SnapshotInvalid, match="not a plain file name"):
        await folder.save(name, snapshot)
    with pytest.raises(SnapshotInvalid, match="not a plain file name"):
        await folder.load(name)
    assert list(folder.root.iterdir()) == [] and not (tmp_path / "outside.json").exists()


async def test_snapshot_files_never_follow_links_or_read_special_files(
    shop: World, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.json"
    secret.write_text('{"password": "hunter2"}', encoding="utf-8")
    folder = SnapshotFolder(tmp_path / "snaps")
    folder.root.mkdir()
    (folder.root / "link.json").symlink_to(secret)
    (folder.root / "zero").symlink_to("/dev/zero")
    (folder.root / "dir.json").mkdir()
    snapshot = Session.start("s", shop, seed=1).snapshot()
    for name in ("link.json", "zero", "dir.json"):
        with anyio.fail_after(5), pytest.raises(SnapshotInvalid) as raised:
            await folder.load(name)
        assert "hunter2" not in str(raised.value)
        with pytest.raises(SnapshotInvalid):
            await folder.save(name, snapshot)
    assert secret.read_text(encoding="utf-8") == '{"password": "hunter2"}'
    (folder.root / "notes.json").write_text('{"password": "hunter2"}', encoding="utf-8")
    with pytest.raises(SnapshotInvalid, match="not an mcp-sim snapshot") as raised:
        await folder.load("notes.json")
    assert "hunter2" not in str(raised.value)
    small = SnapshotFolder(folder.root, max_bytes=10)
    with pytest.raises(SnapshotInvalid, match="over the limit"):
        await small.load("notes.json")
    await folder.save("ok.json", snapshot)
    few = SnapshotFolder(folder.root, limits=EpisodeLimits(max_snapshot_values=20))
    with pytest.raises(SnapshotInvalid, match="JSON values, over the limit of 20"):
        await few.load("ok.json")
    assert (await folder.load("ok.json")).state == snapshot.state


async def test_control_tools_keep_no_files_without_a_folder_and_hide_episodes(
    shop: World, script: Any
) -> None:
    simulator = Simulator(shop, script())
    hub = EpisodeHub({shop.world: simulator})
    await hub.create(episode_id="episode-1")
    control = ControlTools(hub, shop.world)
    async with Client(build_server(simulator, control=control)) as client:
        saved = await client.call_tool("sim_snapshot", {"file": "s.json"})
        listed = await client.call_tool("sim_sessions", {})
        reached = await client.call_tool("sim_state", {"session": "episode-1"})
    assert saved.is_error and "--snapshot-dir" in saved.content[0].text  # type: ignore[union-attr]
    assert listed.structured_content is not None
    assert "episode-1" not in [s["id"] for s in listed.structured_content["sessions"]]
    assert reached.is_error


async def test_control_tools_change_the_callers_episode_through_the_hub(
    shop: World, script: Any
) -> None:
    simulator = Simulator(shop, script(cancel(script, 0, "cancelled")))
    hub = EpisodeHub({shop.world: simulator})
    parent = await hub.create(episode_id="parent", seed=3)
    await simulator.call(parent.id, "update_order", {"order_id": "ord_00001"})
    fork = await hub.fork(parent.id, "fork")
    tools = ControlTools(hub, shop.world)
    journal = await call_control_tool(tools, "sim_journal", {}, fork.id)
    assert [json.loads(line)["session"] for line in journal.splitlines()] == ["parent"]
    with pytest.raises(SessionExists):
        await call_control_tool(tools, "sim_create_session", {"id": "parent"}, "caller")
    with pytest.raises(ValueError, match="not offered on an episode"):
        await call_control_tool(tools, "sim_fork", {"id": "plain"}, fork.id)
    reset = await call_control_tool(tools, "sim_reset", {}, fork.id)
    listed = await call_control_tool(tools, "sim_sessions", {}, "caller")
    assert reset["version"] == 0 and reset["seed"] == 3
    assert hub.entry(fork.id).parent is None and hub.journal(fork.id) == []
    assert {s["id"] for s in listed["sessions"]} == {"caller"}


async def test_a_stdio_server_offers_the_control_tools_on_its_own_session(tmp_path: Path) -> None:
    args = [str(BOOKSTORE.relative_to(ROOT)), "--control-tools", "--snapshot-dir", str(tmp_path)]
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "mcp_sim", "serve", *args, *DEAD_MODEL],
        cwd=str(ROOT),
    )
    with anyio.fail_after(30), (tmp_path / "stderr.txt").open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog), mode="legacy") as client:
            saved = await client.call_tool("sim_snapshot", {"file": "s.json"})
            fork = await client.call_tool("sim_fork", {"id": "f", "seed": 4})
            listed = await client.call_tool("sim_sessions", {})
    assert saved.structured_content == {"saved_to": "s.json", "version": 0}
    assert fork.structured_content is not None and fork.structured_content["seed"] == 4
    assert listed.structured_content is not None
    assert {s["id"] for s in listed.structured_content["sessions"]} == {"stdio", "f"}

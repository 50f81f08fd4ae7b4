"""With ``--control-tools`` over HTTP, an episode's agent reaches nothing but its own episode:
every ``sim_*`` tool, called with its token on its URL against another episode or a shared
session, is refused and changes nothing; and a caller that is an episode in process keeps its
snapshot files in a folder of its own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, MCPError

from mcp_sim.episodes.hub import EpisodeHub
from mcp_sim.errors import SnapshotInvalid
from mcp_sim.server.control_tools import CONTROL_TOOLS, ControlTools, call_control_tool
from mcp_sim.server.snapshot_files import SnapshotFolder
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.world import World
from tests.processes import request_meta
from tests.scripted_model import ScriptedModel
from tests.server.test_episode_routes import OPERATOR, SHOP, mcp_client, serving, tent_order

SHARED = "shared-1"
ORDER = {"customer": "ola@example.no", "sku": "p-tent2", "quantity": 2}


def against(target: str) -> list[tuple[str, dict[str, Any]]]:
    """Every control tool, aimed at session ``target`` where the tool names one."""
    return [
        ("sim_sessions", {}),
        ("sim_metrics", {}),
        ("sim_create_session", {"id": target}),
        ("sim_create_session", {"id": "new-one", "snapshot_file": "theirs.json"}),
        ("sim_state", {"session": target}),
        ("sim_reset", {"session": target, "seed": 5}),
        ("sim_snapshot", {"session": target}),
        ("sim_snapshot", {"session": target, "file": "theirs.json"}),
        ("sim_fork", {"session": target, "id": "stolen"}),
        ("sim_journal", {"session": target}),
    ]


async def seen(hub: EpisodeHub, *sessions: str) -> Any:
    """What a change to ``sessions`` or the server's sessions would show."""
    states = [await hub.lifecycle.state(s, world=SHOP) for s in sessions]
    journals = [hub.scoring.journal(s, world=SHOP) for s in sessions]
    plain = sorted(s.id for s in hub.access.plain_sessions(SHOP))
    return states, journals, plain, len(hub)


async def text_of(client: Client, tool: str, arguments: dict[str, Any]) -> tuple[bool, str]:
    """Whether the call was refused (an error result, or a protocol error for a tool the
    endpoint does not offer), and what it said."""
    try:
        result = await client.call_tool(tool, arguments)
    except MCPError as exc:
        return True, str(exc)
    return result.is_error, str(getattr(result.content[0], "text", ""))


async def test_an_episode_reaches_only_itself_with_the_control_tools(
    shop: World, tmp_path: Path
) -> None:
    hub = EpisodeHub({SHOP: Simulator(shop, ScriptedModel(tent_order(), tent_order()))})
    folder = tmp_path / "snapshots"
    folder.mkdir()
    (folder / "theirs.json").write_text("kept\n")
    options = {"auth_token": OPERATOR, "control_tools": True, "snapshots": SnapshotFolder(folder)}
    with anyio.fail_after(60):
        async with serving(hub, **options) as base:
            a, b = await hub.create(SHOP, "episode-a"), await hub.create(SHOP, "episode-b")
            await hub.simulator(SHOP).call(b.id, "create_order", ORDER)
            async with mcp_client(f"{base}/mcp", OPERATOR) as operator:
                meta = request_meta({"mcp-sim/session": SHARED})
                await operator.call_tool("create_order", ORDER, meta=meta)
            before = await seen(hub, b.id, SHARED)

            async with mcp_client(f"{base}/episodes/{a.id}/mcp", a.token) as agent:
                refused = [
                    (tool, arguments, await text_of(agent, tool, arguments))
                    for target in (b.id, SHARED)
                    for tool, arguments in against(target)
                ]
                own = await text_of(agent, "sim_snapshot", {"file": "theirs.json"})
            after = await seen(hub, b.id, SHARED)
            # A caller that is an episode in process keeps its files in a folder of its own.
            tools = ControlTools(hub, SHOP, SnapshotFolder(folder))
            saved = await call_control_tool(tools, "sim_snapshot", {"file": "theirs.json"}, a.id)
            journal = await call_control_tool(tools, "sim_journal", {}, a.id)

    assert {tool for tool, _, _ in refused} == set(CONTROL_TOOLS)
    assert [(t, args) for t, args, (error, _) in refused if not error] == []
    # Nothing about the others leaks through the refusals either.
    assert not any(
        SHARED in text for _, args, (_, text) in refused if args.get("session") != SHARED
    )
    assert after == before
    assert (folder / "theirs.json").read_text() == "kept\n"
    assert own[0]  # over HTTP an episode's endpoint offers no sim_* tool at all
    mine = folder / "episodes" / f"{a.id}.{a.incarnation}" / "theirs.json"
    assert saved["saved_to"] == "theirs.json" and mine.read_text().startswith("{")
    assert journal == ""


@pytest.mark.parametrize("name", ["..", "a/b", ""])
def test_an_episode_folder_takes_plain_names_only(tmp_path: Path, name: str) -> None:
    with pytest.raises(SnapshotInvalid, match="not a plain file name"):
        SnapshotFolder(tmp_path).inner("episodes", name)

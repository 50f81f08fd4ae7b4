"""Snapshot, fork and reset over the HTTP control API and as MCP tools."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client

from mcp_sim.errors import SnapshotInvalid
from mcp_sim.runtime.session import Session, Snapshot
from mcp_sim.server.control import Control
from mcp_sim.server.mcp_front import build_server, http_app
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.loading import parse_world
from mcp_sim.spec.world import World
from tests.processes import free_port, request_meta

TOKEN = "s3cret"


def cancel(script: Any, index: int, status: str) -> str:
    patch = [{"op": "replace", "path": f"/orders/{index}/status", "value": status}]
    return str(script.answer(f"order is now {status}", patch))


def control_client(simulator: Simulator) -> httpx2.AsyncClient:
    app = http_app(build_server(simulator), auth_token=TOKEN, control=Control(simulator))
    return httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=app),
        base_url="http://127.0.0.1:8000",
        headers={"Authorization": f"Bearer {TOKEN}"},
    )


async def test_forks_of_one_snapshot_diverge_independently(shop: World, script: Any) -> None:
    model = script(cancel(script, 0, "cancelled"), cancel(script, 0, "packed"))
    simulator = Simulator(shop, model)
    async with control_client(simulator) as http:
        created = await http.post("/control/sessions", json={"id": "root", "seed": 5})
        assert created.status_code == 201
        a = (await http.post("/control/sessions/root/fork", json={"id": "a"})).json()
        b = (await http.post("/control/sessions/root/fork", json={"id": "b", "seed": 6})).json()
        assert (a["id"], a["seed"], b["id"], b["seed"]) == ("a", 5, "b", 6)

        await simulator.call("a", "update_order", {"order_id": "ord_00001"})
        await simulator.call("b", "update_order", {"order_id": "ord_00001"})

        states = {
            sid: (await http.get(f"/control/sessions/{sid}/state")).json()
            for sid in ("root", "a", "b")
        }
    assert states["a"]["state"]["orders"][0]["status"] == "cancelled"
    assert states["b"]["state"]["orders"][0]["status"] == "packed"
    assert states["root"]["state"] == shop.state
    assert [states[s]["version"] for s in ("root", "a", "b")] == [0, 1, 1]


async def test_reset_returns_the_starting_state_and_seed(shop: World, script: Any) -> None:
    simulator = Simulator(shop, script(cancel(script, 0, "cancelled")))
    await simulator.call("s", "update_order", {"order_id": "ord_00001"}, seed=11)
    async with control_client(simulator) as http:
        before = (await http.get("/control/sessions/s")).json()
        reset = await http.post("/control/sessions/s/reset")
        state = (await http.get("/control/sessions/s/state")).json()
        journal = await http.get("/control/sessions/s/journal")
    assert before["version"] == 1 and before["steps"] == 1
    assert reset.json()["version"] == 0 and reset.json()["seed"] == 11
    assert state["state"] == shop.state
    assert journal.text == ""
    session = simulator.sessions.get("s")
    assert session.history == [] and session.steps == 0
    assert session.snapshot().rng == Session.start("x", shop, seed=11).snapshot().rng


async def test_snapshot_saved_to_a_file_restores_the_session(
    shop: World, script: Any, tmp_path: Path
) -> None:
    simulator = Simulator(shop, script(cancel(script, 0, "cancelled"), script.answer("same")))
    await simulator.call("s", "update_order", {"order_id": "ord_00001"})
    async with control_client(simulator) as http:
        taken = await http.post("/control/sessions/s/snapshot")
        (tmp_path / "snap.json").write_bytes(taken.content)
        snapshot = json.loads((tmp_path / "snap.json").read_text())
        restored = await http.post("/control/sessions", json={"id": "r", "snapshot": snapshot})
        state = (await http.get("/control/sessions/r/state")).json()
    assert restored.status_code == 201
    assert state["version"] == 1 and state["state"]["orders"][0]["status"] == "cancelled"
    # The restored session continues with the history, clock and randomness of the original.
    original = simulator.sessions.get("s").snapshot()
    copy = Snapshot.load(tmp_path / "snap.json")
    assert copy.history == original.history and copy.rng == original.rng
    await simulator.call("r", "get_order", {"order_id": "ord_00001"})
    assert simulator.journal.records("r")[0].step == 2


async def test_control_api_needs_the_token_and_names_its_errors(shop: World, script: Any) -> None:
    simulator = Simulator(shop, script())
    async with control_client(simulator) as http:
        no_token = await http.get("/control/sessions", headers={"Authorization": ""})
        missing = await http.get("/control/sessions/nope/state")
        await http.post("/control/sessions", json={"id": "x"})
        twice = await http.post("/control/sessions", json={"id": "x"})
        bad_seed = await http.post("/control/sessions", json={"seed": "7"})
        bad_snapshot = await http.post("/control/sessions", json={"snapshot": {"world": "w"}})
        rebinding = await http.get("/control/sessions", headers={"Host": "evil.example"})
        listed = (await http.get("/control/sessions")).json()
    assert no_token.status_code == 401
    assert (missing.status_code, missing.json()["error"]) == (404, "unknown_session")
    assert (twice.status_code, twice.json()["error"]) == (409, "session_exists")
    assert (bad_seed.status_code, bad_snapshot.status_code) == (400, 400)
    assert rebinding.status_code == 421
    assert [s["id"] for s in listed["sessions"]] == ["x"]


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
    server = build_server(simulator, control=Control(simulator))
    path = tmp_path / "snap.json"
    with anyio.fail_after(10):
        async with Client(server) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert {"sim_snapshot", "sim_fork", "sim_reset", "sim_state"} <= names
            changed = await client.call_tool(
                "update_order", {"order_id": "ord_00001"}, meta=request_meta({"mcp-sim/seed": 3})
            )
            assert changed.meta is not None and changed.meta["mcp-sim/version"] == 0
            saved = await client.call_tool("sim_snapshot", {"path": str(path)})
            assert saved.structured_content == {"saved_to": str(path), "version": 1}
            fork = await client.call_tool("sim_fork", {"id": "f"})
            await client.call_tool("sim_reset", {})
            reset_state = await client.call_tool("sim_state", {})
            fork_state = await client.call_tool("sim_state", {"session": "f"})
            loaded = await client.call_tool(
                "sim_create_session", {"id": "l", "snapshot_path": str(path)}
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


def test_world_tools_named_like_control_tools_are_refused(script: Any) -> None:
    from mcp_sim.errors import SimError

    world = parse_world(
        "world: w\ntitle: W\ntools:\n"
        "  - {name: sim_reset, description: d, input_schema: {type: object}}\n"
    )
    simulator = Simulator(world, script())
    build_server(simulator)
    with pytest.raises(SimError, match="sim_reset"):
        build_server(simulator, control=Control(simulator))


async def test_control_api_sits_next_to_mcp_over_real_http(shop: World, script: Any) -> None:

    import httpx2
    import uvicorn
    from mcp.client.streamable_http import streamable_http_client

    simulator = Simulator(shop, script(cancel(script, 0, "cancelled")))
    app = http_app(build_server(simulator), auth_token=TOKEN, control=Control(simulator))
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    auth = {"Authorization": f"Bearer {TOKEN}"}
    with anyio.fail_after(20):
        async with anyio.create_task_group() as tg:
            tg.start_soon(server.serve)
            while not server.started:
                await anyio.sleep(0.05)
            transport = streamable_http_client(
                f"http://127.0.0.1:{port}/mcp", http_client=httpx2.AsyncClient(headers=auth)
            )
            async with Client(transport) as client:
                await client.call_tool(
                    "update_order",
                    {"order_id": "ord_00001"},
                    meta=request_meta({"mcp-sim/session": "ep1"}),
                )
            async with httpx2.AsyncClient(
                base_url=f"http://127.0.0.1:{port}", headers=auth
            ) as http:
                fork = await http.post("/control/sessions/ep1/fork", json={"id": "ep2"})
                reset = await http.post("/control/sessions/ep1/reset")
                ep2 = (await http.get("/control/sessions/ep2/state")).json()
            server.should_exit = True
    assert (fork.status_code, reset.status_code) == (201, 200)
    assert ep2["version"] == 1 and ep2["state"]["orders"][0]["status"] == "cancelled"
    assert simulator.sessions.get("ep1").state == shop.state


async def test_control_tools_know_the_callers_session_before_its_first_call(
    shop: World, script: Any
) -> None:
    simulator = Simulator(shop, script())
    async with Client(build_server(simulator, control=Control(simulator))) as client:
        state = await client.call_tool("sim_state", {})
    assert not state.is_error
    assert state.structured_content is not None
    assert state.structured_content["version"] == 0

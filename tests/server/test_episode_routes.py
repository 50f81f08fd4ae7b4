"""Episodes over real HTTP: each behind its own URL and token, kept apart from each other and
from the shared endpoints, driven with the SDK's client as a harness would, and scored."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
import uvicorn
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client

from mcp_sim.api.worlds import Worlds
from mcp_sim.episodes.hub import EpisodeHub
from mcp_sim.server.hosting import HostingOptions, hosting_app
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.world import World
from tests.processes import free_port, request_meta, run_cli, serving_http
from tests.runtime.test_state import ORDER_2
from tests.scripted_model import ScriptedModel

WORLDS = Path(__file__).resolve().parents[2] / "worlds"
OPERATOR = "operator-s3cret"
SHOP = "tidewater-orders"
BOOKS = "paperlane-books"


def tent_order() -> str:
    patch: list[dict[str, Any]] = [
        {"op": "add", "path": "/orders/-", "value": ORDER_2},
        {"op": "replace", "path": "/products/0/stock", "value": 3},
    ]
    return ScriptedModel.answer(ORDER_2, patch)


def book_order() -> str:
    patch: list[dict[str, Any]] = [
        {"op": "add", "path": "/orders/-", "value": {"id": "ord_00042", "book_id": "b1"}},
        {"op": "replace", "path": "/books/0/stock", "value": 1},
    ]
    return ScriptedModel.answer({"order_id": "ord_00042", "status": "placed"}, patch)


@asynccontextmanager
async def serving(hub: EpisodeHub, **options: Any) -> AsyncIterator[str]:
    """``hub`` served by uvicorn on a free loopback port, for as long as the block runs."""
    port = free_port()
    app = hosting_app(Worlds(hub), HostingOptions(**options))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    async with anyio.create_task_group() as tg:
        tg.start_soon(server.serve)
        with anyio.fail_after(10):
            while not server.started:
                await anyio.sleep(0.02)
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            server.should_exit = True


@asynccontextmanager
async def mcp_client(url: str, token: str | None) -> AsyncIterator[Client]:
    """The SDK's client on its default protocol, with ``token`` as its bearer token."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    transport = streamable_http_client(url, http_client=httpx2.AsyncClient(headers=headers))
    async with Client(transport) as client:
        yield client


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def two_worlds(shop: World, bookstore: World) -> Iterator[EpisodeHub]:
    answers = [tent_order() for _ in range(20)]
    yield EpisodeHub(
        {
            SHOP: Simulator(shop, ScriptedModel(*answers)),
            BOOKS: Simulator(bookstore, ScriptedModel(*[book_order() for _ in range(20)])),
        }
    )


async def test_episodes_are_kept_apart_and_tokens_open_only_their_own(
    two_worlds: EpisodeHub, shop: World
) -> None:
    with anyio.fail_after(60):
        async with (
            serving(two_worlds, auth_token=OPERATOR) as base,
            httpx2.AsyncClient(base_url=base, headers=bearer(OPERATOR)) as http,
        ):
            a = (await http.post("/episodes", json={"world": SHOP})).json()
            b = (await http.post("/episodes", json={"world": SHOP})).json()
            assert (
                a["mcp_url"] == f"{base.replace('127.0.0.1', '127.0.0.1')}/episodes/{a['id']}/mcp"
            )
            async with mcp_client(a["mcp_url"], a["token"]) as client_a:
                # Naming B's session in _meta changes nothing: the URL decides.
                meta = request_meta({"mcp-sim/session": b["id"]})
                made = await client_a.call_tool(
                    "create_order", {"customer": "ola@example.no", "sku": "p-tent2", "quantity": 2},
                    meta=meta,
                )  # fmt: skip
            async with mcp_client(b["mcp_url"], b["token"]) as client_b:
                await client_b.list_tools()
            seen_a = (await http.get(f"/episodes/{a['id']}/state")).json()["state"]
            seen_b = (await http.get(f"/episodes/{b['id']}/state")).json()["state"]
            shared = f"{base}/worlds/{SHOP}/mcp"
            async with mcp_client(shared, OPERATOR) as operator:
                with pytest.raises(MCPError, match="is an episode"):
                    await operator.call_tool(
                        "list_orders", {}, meta=request_meta({"mcp-sim/session": a["id"]})
                    )

            own = bearer(a["token"])
            statuses = {
                "own state": (await http.get(f"/episodes/{a['id']}/state", headers=own)),
                "own verify": (await http.post(f"/episodes/{a['id']}/verify", headers=own)),
                "own summary": (await http.get(f"/episodes/{a['id']}", headers=own)),
                "other state": (await http.get(f"/episodes/{b['id']}/state", headers=own)),
                "other verify": (await http.post(f"/episodes/{b['id']}/verify", headers=own)),
                "listing": (await http.get("/episodes", headers=own)),
                "create": (await http.post("/episodes", headers=own, json={})),
                "shared mcp": (await http.post(shared, headers=own, json={})),
                "metrics": (await http.get("/metrics", headers=own)),
                "no token": (await http.get(f"/episodes/{a['id']}", headers={"Authorization": ""})),
                "wrong token": (await http.get("/episodes", headers=bearer("guess"))),
                "operator": (await http.get(f"/episodes/{b['id']}/journal")),
            }
            other_mcp = await http.post(b["mcp_url"], headers=own, json={})
    assert not made.is_error
    assert len(seen_a["orders"]) == 2 and seen_b == shop.state
    codes = {name: reply.status_code for name, reply in statuses.items()}
    assert codes == {
        "own state": 403,
        "own verify": 403,
        "own summary": 403,
        "other state": 403,
        "other verify": 403,
        "listing": 403,
        "create": 403,
        "shared mcp": 403,
        "metrics": 403,
        "no token": 401,
        "wrong token": 401,
        "operator": 200,
    }
    assert other_mcp.status_code == 403


async def test_a_harness_runs_twenty_episodes_over_two_worlds_forks_and_scores_them(
    two_worlds: EpisodeHub,
) -> None:
    create = {"customer": "ola@example.no", "sku": "p-tent2", "quantity": 2}
    order = {"book_id": "b1", "quantity": 2, "email": "ana@example.pt", "country": "Portugal"}
    with anyio.fail_after(120):
        async with (
            serving(two_worlds, auth_token=OPERATOR) as base,
            httpx2.AsyncClient(base_url=base, headers=bearer(OPERATOR)) as http,
        ):
            episodes = []
            for i in range(20):
                world, task = (SHOP, "tent-for-ola") if i % 2 == 0 else (BOOKS, "gift-order")
                made = await http.post("/episodes", json={"world": world, "task": task, "seed": i})
                assert made.status_code == 201, made.text
                episodes.append(made.json())
            for i, episode in enumerate(episodes):
                if i % 4 >= 2:
                    continue  # half of each world's episodes do nothing
                async with mcp_client(episode["mcp_url"], episode["token"]) as client:
                    if episode["world"] == SHOP:
                        await client.call_tool("create_order", create)
                    else:
                        await client.call_tool("search_books", {"query": "glass"})
                        await client.call_tool("place_order", order)
            idle_shop = episodes[2]
            fork = (await http.post(f"/episodes/{idle_shop['id']}/fork", json={"seed": 99})).json()
            async with mcp_client(fork["mcp_url"], fork["token"]) as client:
                await client.call_tool("create_order", create)
            rewards = []
            for episode in [*episodes, fork]:
                verdict = await http.post(f"/episodes/{episode['id']}/verify")
                assert verdict.status_code == 200, verdict.text
                rewards.append(verdict.json()["reward"])
            listed = (await http.get("/episodes")).json()
            deleted = await http.delete(f"/episodes/{fork['id']}")
            gone = await http.get(f"/episodes/{fork['id']}")
    # All four checks (reward 1), or none: an idle episode earns nothing for what it left
    # alone ("the shipped order is untouched", "never tried the sold-out book" require the
    # task done).
    expected = [1.0 if i % 4 < 2 else 0.0 for i in range(20)]
    assert rewards == [*expected, 1.0]
    assert len(listed["episodes"]) == 21 and listed["worlds"] == [SHOP, BOOKS]
    assert fork["parent"] == idle_shop["id"] and fork["task"] == "tent-for-ola"
    assert (deleted.status_code, gone.status_code) == (204, 404)


async def test_the_api_names_its_errors_and_refuses_oversized_bodies(
    two_worlds: EpisodeHub,
) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(10):
            yield b" " * 1024

    with anyio.fail_after(60):
        async with (
            serving(two_worlds, max_body_bytes=4096) as base,
            httpx2.AsyncClient(base_url=base) as http,
        ):
            first = (await http.post("/episodes", json={"world": SHOP, "id": "run-1"})).json()
            replies = {
                "no world named": await http.post("/episodes", json={}),
                "unknown world": await http.post("/episodes", json={"world": "atlantis"}),
                "taken id": await http.post("/episodes", json={"world": SHOP, "id": "run-1"}),
                "bad id": await http.post("/episodes", json={"world": SHOP, "id": "../x"}),
                "bad seed": await http.post("/episodes", json={"world": SHOP, "seed": "7"}),
                "bad snapshot": await http.post(
                    "/episodes", json={"world": SHOP, "snapshot": {"world": "w"}}
                ),
                "not json": await http.post("/episodes", content=b"{nope"),
                "unknown episode": await http.get("/episodes/nope/state"),
                "unknown task": await http.post("/episodes/run-1/verify", json={"task": "x"}),
                "shared on two worlds": await http.post("/mcp", json={}),
                "unknown world mcp": await http.post("/worlds/atlantis/mcp", json={}),
                "unknown episode mcp": await http.post("/episodes/nope/mcp", json={}),
                "declared too large": await http.post(
                    "/episodes", content=b"x" * 5000, headers={"content-type": "application/json"}
                ),
                "chunked too large": await http.post("/episodes/run-1/reset", content=chunks()),
                "rebinding": await http.get("/episodes", headers={"Host": "evil.example"}),
            }
    assert first["id"] == "run-1" and "token" in first
    found = {
        name: (r.status_code, r.json().get("error"))
        for name, r in replies.items()
        if r.content and r.headers.get("content-type", "").startswith("application/json")
    }
    assert found == {
        "no world named": (404, "unknown_world"),
        "unknown world": (404, "unknown_world"),
        "taken id": (409, "episode_exists"),
        "bad id": (400, "bad_request"),
        "bad seed": (400, "bad_request"),
        "bad snapshot": (400, "invalid_snapshot"),
        "not json": (400, "bad_request"),
        "unknown episode": (404, "unknown_episode"),
        "unknown task": (400, "cannot_verify"),
        "shared on two worlds": (404, "unknown_world"),
        "unknown world mcp": (404, "unknown_world"),
        "unknown episode mcp": (404, "unknown_episode"),
        "declared too large": (413, "too_large"),
        "chunked too large": (413, "too_large"),
    }
    assert replies["rebinding"].status_code == 421


async def test_serve_hosts_a_folder_of_worlds_over_real_http(tmp_path: Path) -> None:
    folder = tmp_path / "worlds"
    folder.mkdir()
    for name in ("shop.yaml", "bookstore.yaml"):
        (folder / name).write_text((WORLDS / name).read_text(encoding="utf-8"), encoding="utf-8")
    args = ("--model-url", "http://127.0.0.1:9/v1", "--auth-token", OPERATOR)
    with serving_http(folder, *args, log=tmp_path / "serve.log") as url:
        base = url.removesuffix("/mcp")
        async with httpx2.AsyncClient(base_url=base, headers=bearer(OPERATOR)) as http:
            made = (await http.post("/episodes", json={"world": BOOKS})).json()
            async with mcp_client(made["mcp_url"], made["token"]) as client:
                found = await client.call_tool("search_books", {"query": "glass"})
            verdict = await http.post(f"/episodes/{made['id']}/verify", json={"task": "gift-order"})
            listed = (await http.get("/episodes")).json()
    assert not found.is_error and found.structured_content is not None
    assert found.structured_content["total"] == 2
    assert verdict.json()["checks"][0]["detail"].startswith("no place_order")
    assert listed["worlds"] == [BOOKS, SHOP]
    log = (tmp_path / "serve.log").read_text(encoding="utf-8")
    assert f"{base}/worlds/{SHOP}/mcp" in log and f"{base}/episodes" in log


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (["worlds/shop.yaml", "worlds/bookstore.yaml"], "several worlds are served over --http"),
        (
            ["worlds/shop.yaml", "--http", ":8", "--snapshot-dir", "."],
            "--snapshot-dir: goes with --control-tools",
        ),
        (
            ["worlds/shop.yaml", "worlds/bookstore.yaml", "--http", ":8", "--replay", "README.md"],
            "--replay: applies to one world",
        ),
    ],
)
def test_serve_refuses_flags_that_do_not_go_together(args: list[str], problem: str) -> None:
    done = run_cli("serve", *args)
    assert done.returncode == 2 and problem in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_serve_refuses_two_files_of_one_world(tmp_path: Path) -> None:
    copy = tmp_path / "again.yaml"
    copy.write_text((WORLDS / "shop.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    done = run_cli("serve", str(WORLDS / "shop.yaml"), str(copy), "--http", "127.0.0.1:8",
                   "--model-url", "http://127.0.0.1:9/v1")  # fmt: skip
    assert done.returncode == 1 and "are both world 'tidewater-orders'" in done.stderr


def cancel(status: str) -> str:
    patch = [{"op": "replace", "path": "/orders/0/status", "value": status}]
    return ScriptedModel.answer(f"order is now {status}", patch)


def api_client(hub: EpisodeHub) -> httpx2.AsyncClient:
    """The episode API in process (its routes need no transport running)."""
    app = hosting_app(Worlds(hub), HostingOptions(auth_token=OPERATOR))
    return httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=app),
        base_url="http://127.0.0.1:8000",
        headers=bearer(OPERATOR),
    )


async def test_forks_diverge_resets_replay_and_snapshots_continue(shop: World) -> None:
    from mcp_sim.runtime.session import Session

    simulator = Simulator(shop, ScriptedModel(cancel("cancelled"), cancel("packed"), cancel("x")))
    hub = EpisodeHub({SHOP: simulator})
    async with api_client(hub) as http:
        await http.post("/episodes", json={"id": "root", "seed": 5})
        a = (await http.post("/episodes/root/fork", json={"id": "a"})).json()
        b = (await http.post("/episodes/root/fork", json={"id": "b", "seed": 6})).json()
        assert (a["id"], a["seed"], b["id"], b["seed"]) == ("a", 5, "b", 6)
        await simulator.call("a", "update_order", {"order_id": "ord_00001"})
        await simulator.call("b", "update_order", {"order_id": "ord_00001"})
        states = {e: (await http.get(f"/episodes/{e}/state")).json() for e in ("root", "a", "b")}

        taken = await http.post("/episodes/a/snapshot")
        restored = await http.post("/episodes", json={"id": "r", "snapshot": taken.json()})
        await simulator.call("r", "get_order", {"order_id": "ord_00001"})
        continued = (await http.get("/episodes/r/journal")).text

        reset = (await http.post("/episodes/a/reset")).json()
        after_reset = (await http.get("/episodes/a/journal")).text
    assert states["a"]["state"]["orders"][0]["status"] == "cancelled"
    assert states["b"]["state"]["orders"][0]["status"] == "packed"
    assert states["root"]["state"] == shop.state
    assert [states[e]["version"] for e in ("root", "a", "b")] == [0, 1, 1]
    assert restored.status_code == 201 and restored.json()["version"] == 1
    assert json.loads(continued.splitlines()[0])["step"] == 2  # the snapshot's clock goes on
    assert (reset["version"], reset["seed"], after_reset) == (0, 5, "")
    session = simulator.sessions.get("a")
    assert session.snapshot().rng == Session.start("x", shop, seed=5).snapshot().rng

"""The workbench's API over real HTTP (uvicorn, in process), on a scripted world model: who may
reach it, what a call streams back, what a trace holds, and the errors of bad requests. The
page itself is tested in a real browser in :mod:`tests.e2e.test_workbench_browser`."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

from mcp_sim.api.worlds import Worlds
from mcp_sim.episodes.hub import EpisodeHub
from mcp_sim.journal import JournalRecord
from mcp_sim.models.base import Completion, CompletionRequest, ProgressCallback
from mcp_sim.server.http_front import transport_security
from mcp_sim.simulator.context import CallTrace
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.world import World
from mcp_sim.ui.call_stream import CallStream
from mcp_sim.ui.call_traces import TraceBook
from mcp_sim.ui.workbench_routes import PUBLIC_PATHS, Workbench
from mcp_sim.ui.world_files import WorldFiles
from tests.processes import run_cli
from tests.scripted_model import ScriptedModel
from tests.server.test_episode_routes import BOOKS, OPERATOR, SHOP, bearer, book_order, serving

WORLDS = Path(__file__).resolve().parents[2] / "worlds"


class StreamingModel(ScriptedModel):
    """A scripted model that reports progress as a streaming one does, three times a call."""

    async def complete(
        self, request: CompletionRequest, progress: ProgressCallback | None = None
    ) -> Completion:
        if progress is not None:
            for tokens in (1, 2, 3):
                await progress(tokens, "the world model is answering")
        return await super().complete(request, progress)


@asynccontextmanager
async def workbench(
    shop: World,
    bookstore: World,
    *answers: str,
    files: list[Path] | None = None,
    reload: Callable[[], None] | None = None,
) -> AsyncIterator[tuple[str, EpisodeHub]]:
    traces = TraceBook()
    simulators = {
        world.world: Simulator(
            world, StreamingModel(*answers), watchers=[traces.watcher(world.world)]
        )
        for world in (shop, bookstore)
    }
    hub = EpisodeHub(simulators)
    worlds = Worlds(hub)
    files_served = WorldFiles(files or [WORLDS / "bookstore.yaml"])
    bench = Workbench(worlds, traces, files_served, reload=reload)
    app = bench.app(transport_security("127.0.0.1", []))
    async with serving(hub, auth_token=OPERATOR, workbench=app, public_paths=PUBLIC_PATHS) as url:
        yield url, hub


def lines(response: httpx2.Response) -> list[dict[str, Any]]:
    return [json.loads(line) for line in response.text.splitlines()]


async def new_episode(client: httpx2.AsyncClient, url: str, world: str) -> dict[str, Any]:
    made = await client.post(f"{url}/episodes", json={"world": world}, headers=bearer(OPERATOR))
    assert made.status_code == 201
    episode: dict[str, Any] = made.json()
    return episode


async def test_the_page_is_open_and_the_api_is_the_operators(shop: World, bookstore: World) -> None:
    async with workbench(shop, bookstore) as (url, _), httpx2.AsyncClient(timeout=10) as client:
        for path in PUBLIC_PATHS:
            reply = await client.get(url + path)
            assert reply.status_code == 200, path
            assert "default-src 'none'" in reply.headers["content-security-policy"]
        assert (await client.get(url + "/ui/workbench.js")).text.startswith("// The mcp-sim")
        # Only GET: the page's paths take nothing else without a token.
        assert (await client.post(url + "/ui")).status_code == 401
        episode = await new_episode(client, url, BOOKS)
        calls = f"{url}/ui/api/episodes/{episode['id']}/calls"
        assert (await client.get(url + "/ui/api/overview")).status_code == 401
        # An episode's token opens its own MCP endpoint only, never the operator's workbench.
        as_episode = bearer(episode["token"])
        own = await client.get(f"{url}/episodes/{episode['id']}", headers=as_episode)
        assert own.status_code == 403
        assert (await client.get(calls, headers=as_episode)).status_code == 403
        assert (await client.get(url + "/ui/api/overview", headers=as_episode)).status_code == 403
        overview = (await client.get(url + "/ui/api/overview", headers=bearer(OPERATOR))).json()
        assert [w["id"] for w in overview["worlds"]] == [SHOP, BOOKS]
        books = overview["worlds"][1]
        get_book = next(t for t in books["tools"] if t["name"] == "get_book")
        assert get_book["input_schema"]["required"] == ["book_id"]
        assert get_book["annotations"]["readOnlyHint"] is True
        assert [t["name"] for t in books["tasks"]] == ["gift-order", "no-antarctica"]
        assert overview["files"] == [
            {"file": str(WORLDS / "bookstore.yaml"), "world": BOOKS, "problems": []}
        ]


async def test_a_call_streams_progress_then_its_trace(shop: World, bookstore: World) -> None:
    async with (
        workbench(shop, bookstore, book_order()) as (url, _),
        httpx2.AsyncClient(timeout=10, headers=bearer(OPERATOR)) as client,
    ):
        episode = await new_episode(client, url, BOOKS)
        calls = f"{url}/ui/api/episodes/{episode['id']}/calls"
        arguments = {"book_id": "b1", "quantity": 2, "email": "a@b.pt", "country": "Portugal"}
        reply = await client.post(calls, json={"tool": "place_order", "arguments": arguments})
        assert reply.headers["content-type"] == "application/x-ndjson"
        got = lines(reply)
        assert got[0] == {"progress": {"tokens": 1, "message": "the world model is answering"}}
        final = got[-1]
        assert final["result"]["patch_status"] == "committed"
        trace = final["trace"]
        assert trace["version"] == 0 and trace["version_after"] == 1
        assert {"op": "replace", "path": "/books/0/stock"}.items() <= trace["diff"][1].items()
        assert trace["diff"][1]["before"] == {"json": "3"}
        (exchange,) = trace["exchanges"]
        assert exchange["purpose"] == "answer"  # the patch came with the answer
        assert any(s["state"] and "The Glass River" in s["text"] for s in exchange["turn"])
        assert final["episode"]["version"] == 1

        # The timeline and the trace read back.
        timeline = (await client.get(calls)).json()
        assert [c["tool"] for c in timeline["calls"]] == ["place_order"]
        assert (await client.get(f"{calls}/1")).json() == trace
        assert (await client.get(f"{calls}/2")).status_code == 404


async def test_a_forks_first_calls_show_its_parents_traces(shop: World, bookstore: World) -> None:
    book = ScriptedModel.answer({"id": "b3", "title": "Cartographers of Rain"})
    async with (
        workbench(shop, bookstore, book, book) as (url, _),
        httpx2.AsyncClient(timeout=10, headers=bearer(OPERATOR)) as client,
    ):
        parent = await new_episode(client, url, BOOKS)
        call = {"tool": "get_book", "arguments": {"book_id": "b3"}}
        await client.post(f"{url}/ui/api/episodes/{parent['id']}/calls", json=call)
        fork = (await client.post(f"{url}/episodes/{parent['id']}/fork")).json()
        inherited = (await client.get(f"{url}/ui/api/episodes/{fork['id']}/calls/1")).json()
        assert inherited["traced"] is True and inherited["session"] == parent["id"]
        await client.post(f"{url}/ui/api/episodes/{fork['id']}/calls", json=call)
        own = (await client.get(f"{url}/ui/api/episodes/{fork['id']}/calls/2")).json()
        assert own["session"] == fork["id"] and own["exchanges"]
        # A reset starts the steps again: the old call 1 is not shown as the new one.
        await client.post(f"{url}/episodes/{parent['id']}/reset")
        assert (
            await client.get(f"{url}/ui/api/episodes/{parent['id']}/calls/1")
        ).status_code == 404


async def test_calls_the_model_was_not_asked_have_no_exchanges(
    shop: World, bookstore: World
) -> None:
    async with (
        workbench(shop, bookstore) as (url, _),
        httpx2.AsyncClient(timeout=10, headers=bearer(OPERATOR)) as client,
    ):
        episode = await new_episode(client, url, BOOKS)
        calls = f"{url}/ui/api/episodes/{episode['id']}/calls"
        bad = await client.post(calls, json={"tool": "get_book", "arguments": {"book_id": 7}})
        trace = lines(bad)[-1]["trace"]
        assert trace["source"] == "validation" and trace["is_error"] is True
        assert trace["exchanges"] == [] and trace["diff"] == []
        pinned = {"tool": "search_books", "arguments": {"query": "glass"}}
        assert lines(await client.post(calls, json=pinned))[-1]["trace"]["source"] == "fixture"


@pytest.mark.parametrize(
    ("body", "status", "error"),
    [
        (b'{"tool": "nope"}', 400, "has no tool 'nope'"),
        (b'{"tool": "get_book", "arguments": [1]}', 400, 'send {"tool"'),
        (b"not json", 400, "not JSON"),
        (b"[]", 400, "must be a JSON object"),
    ],
)
async def test_bad_call_requests_are_refused_with_reasons(
    shop: World, bookstore: World, body: bytes, status: int, error: str
) -> None:
    async with (
        workbench(shop, bookstore) as (url, _),
        httpx2.AsyncClient(timeout=10, headers=bearer(OPERATOR)) as client,
    ):
        episode = await new_episode(client, url, BOOKS)
        reply = await client.post(f"{url}/ui/api/episodes/{episode['id']}/calls", content=body)
        assert reply.status_code == status
        assert error in reply.json()["message"]
        unknown = await client.post(f"{url}/ui/api/episodes/nobody/calls", json={"tool": "x"})
        assert unknown.status_code == 404 and unknown.json()["error"] == "unknown_episode"
        nowhere = await client.get(f"{url}/ui/api/nowhere")
        assert nowhere.status_code == 404 and nowhere.json()["error"] == "not_found"
        wrong = await client.delete(f"{url}/ui/api/overview")
        assert wrong.status_code == 405 and wrong.json()["error"] == "method_not_allowed"
        assert "GET" in wrong.headers["allow"]


async def test_check_again_reads_the_files_as_they_are_now(
    shop: World, bookstore: World, tmp_path: Path
) -> None:
    world = tmp_path / "draft.yaml"
    world.write_text("world: draft\n")
    async with (
        workbench(shop, bookstore, files=[world]) as (url, _),
        httpx2.AsyncClient(timeout=10, headers=bearer(OPERATOR)) as client,
    ):
        overview = (await client.get(url + "/ui/api/overview")).json()
        (draft,) = overview["files"]
        assert draft["world"] is None
        assert any("title" in p["text"] and p["line"] == 1 for p in draft["problems"])
        world.write_text((WORLDS / "bookstore.yaml").read_text().replace(BOOKS, "draft"))
        (checked,) = (await client.post(url + "/ui/api/check")).json()["files"]
        assert checked == {"file": str(world), "world": "draft", "problems": [], "changed": True}


async def test_progress_lines_are_spaced_by_the_interval(bookstore: World) -> None:
    """The clock is injected: lines at 0 s, 0.12 s and 0.3 s; the two between are dropped."""
    traces = TraceBook()
    simulator = Simulator(
        bookstore,
        _FiveProgress(ScriptedModel.answer({"ok": True})),
        watchers=[traces.watcher(bookstore.world)],
    )
    worlds = Worlds(EpisodeHub({bookstore.world: simulator}))
    episode = await worlds.episode()
    times: Iterator[float] = iter([0.0, 0.05, 0.12, 0.15, 0.3])
    stream = CallStream(
        episode, "get_book", {"book_id": "b1"}, traces, interval=0.1, clock=lambda: next(times)
    )
    sent: list[dict[str, Any]] = []

    async def send(message: Any) -> None:
        sent.append(message)

    async def receive() -> Any:
        return {"type": "http.request"}

    await stream({"type": "http"}, receive, send)
    assert sent[0]["status"] == 200
    assert not any(name == b"content-length" for name, _ in sent[0]["headers"])
    bodies = [json.loads(m["body"]) for m in sent[1:] if m["body"]]
    assert [b["progress"]["tokens"] for b in bodies[:-1]] == [1, 3, 5]
    assert bodies[-1]["result"]["step"] == 1
    assert sent[-1] == {"type": "http.response.body", "body": b"", "more_body": False}


class _FiveProgress(ScriptedModel):
    async def complete(
        self, request: CompletionRequest, progress: ProgressCallback | None = None
    ) -> Completion:
        assert progress is not None
        for tokens in range(1, 6):
            await progress(tokens, "answering")
        return await super().complete(request, progress)


def _trace(step: int, session: str = "e1") -> CallTrace:
    record = JournalRecord(
        session=session,
        step=step,
        tool="get_book",
        arguments={},
        observation="{}",
        is_error=False,
        source="model",
    )
    return CallTrace(record, (), {})


def test_the_trace_book_is_bounded_and_forgets_what_a_reset_undid() -> None:
    book = TraceBook(per_episode=3, episodes=2)
    for step in range(1, 6):
        book.keep("w", _trace(step))
    assert [book.find("w", "e1", s) is not None for s in range(1, 6)] == [False, False] + [True] * 3
    book.keep("w", _trace(4))  # the episode was reset and has made four calls again
    assert book.find("w", "e1", 5) is None and book.find("w", "e1", 4) is not None
    book.keep("w", _trace(1, "e2"))
    book.keep("w", _trace(1, "e3"))  # the least recently called episode goes first
    assert book.find("w", "e1", 4) is None and book.find("w", "e3", 1) is not None
    book.forget("w", "e3")
    assert book.find("w", "e3", 1) is None


def test_a_workbench_with_no_world_that_loads_says_why_and_exits(tmp_path: Path) -> None:
    broken = tmp_path / "draft.yaml"
    broken.write_text("world: draft\ntools: 3\n")
    done = run_cli(
        "ui", str(broken), "--address", "127.0.0.1:9", "--model-url", "http://127.0.0.1:9/v1"
    )
    assert done.returncode == 1
    assert f"{broken}:2:1: tools: Input should be a valid list" in done.stderr
    assert done.stderr.strip().endswith("start mcp-sim ui again")


async def test_reload_is_asked_only_when_a_world_would_load(
    shop: World, bookstore: World, tmp_path: Path
) -> None:
    world = tmp_path / "draft.yaml"
    world.write_text((WORLDS / "bookstore.yaml").read_text())
    asked: list[bool] = []
    async with (
        workbench(shop, bookstore, files=[world], reload=lambda: asked.append(True)) as (url, _),
        httpx2.AsyncClient(timeout=10, headers=bearer(OPERATOR)) as client,
    ):
        world.write_text("world: draft\n")
        refused = await client.post(url + "/ui/api/reload")
        assert refused.status_code == 409 and "no world file loads" in refused.json()["message"]
        assert asked == []
        world.write_text((WORLDS / "bookstore.yaml").read_text().replace(BOOKS, "draft"))
        accepted = await client.post(url + "/ui/api/reload")
        assert accepted.status_code == 202 and accepted.json()["files"][0]["world"] == "draft"
        # Asked after the reply is sent (the server that sends it is about to close).
        with anyio.fail_after(5):
            while not asked:
                await anyio.sleep(0.01)
    async with (
        workbench(shop, bookstore) as (url, _),
        httpx2.AsyncClient(timeout=10, headers=bearer(OPERATOR)) as client,
    ):
        alone = await client.post(url + "/ui/api/reload")
        assert alone.status_code == 409 and alone.json()["error"] == "cannot_reload"

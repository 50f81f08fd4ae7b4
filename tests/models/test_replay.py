"""Replay: a journal served back deterministically, matched by session, position, tool and
arguments, ahead of validation and the model."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
from mcp import Client, StdioServerParameters

from mcp_sim.authoring.mcp_import import import_server, write_text
from mcp_sim.journal import Journal, JournalRecord, read_journal
from mcp_sim.models.replay import Replay
from mcp_sim.server.mcp_front import build_server
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.loading import parse_world
from mcp_sim.spec.world import World
from tests.conftest import ROOT
from tests.reference_servers import (
    EVERYTHING_SESSION,
    MEMORY_SESSION,
    call_all,
    dump,
    everything_server,
    memory_server,
    recording,
    uses_reference_servers,
)
from tests.scripted_model import ScriptedModel

DEAD_MODEL = ["--model-url", "http://127.0.0.1:9/v1", "--timeout", "5", "--retries", "0"]


def record(
    session: str, step: int, tool: str, arguments: dict[str, Any], text: str
) -> JournalRecord:
    return JournalRecord(
        session=session,
        step=step,
        tool=tool,
        arguments=arguments,
        observation=text,
        is_error=False,
        source="real",
    )


def test_a_session_replays_the_recorded_session_of_the_same_name() -> None:
    replay = Replay(
        [
            record("a", 1, "get", {"id": 1}, "a1"),
            record("b", 1, "get", {"id": 1}, "b1"),
        ]
    )
    answer = replay.answer("b", 1, "get", {"id": 1})
    assert answer is not None and answer.text == "b1"


def test_new_sessions_take_the_recorded_sessions_in_journal_order() -> None:
    replay = Replay([record("a", 1, "get", {}, "a1"), record("b", 1, "get", {}, "b1")])
    texts = [replay.answer(live, 1, "get", {}) for live in ("x", "y", "z")]
    assert [t.text if t else None for t in texts] == ["a1", "b1", "a1"]


def test_calls_are_matched_by_tool_and_arguments_nearest_their_position() -> None:
    replay = Replay(
        [
            record("s", 1, "get", {"id": 1}, "first"),
            record("s", 2, "get", {"id": 2}, "second"),
            record("s", 3, "get", {"id": 1}, "third"),
        ]
    )
    # Out of order: the second call asks what was recorded first and third.
    assert [
        a.text if a else None
        for a in (
            replay.answer("s", 1, "get", {"id": 2}),
            replay.answer("s", 2, "get", {"id": 1}),
            replay.answer("s", 3, "get", {"id": 1}),
            replay.answer("s", 4, "get", {"id": 1}),
            replay.answer("s", 5, "put", {"id": 1}),
        )
    ] == ["second", "third", "first", None, None]
    # Starting the session again starts its replay again.
    again = replay.answer("s", 1, "get", {"id": 1})
    assert again is not None and again.text == "first"


def test_failed_model_requests_are_not_replayed() -> None:
    failed = record("s", 1, "get", {}, "mcp-sim could not simulate get").model_copy(
        update={"source": "model_error", "is_error": True}
    )
    replay = Replay([failed, record("s", 2, "get", {}, "answer")])
    answer = replay.answer("s", 1, "get", {})
    assert answer is not None and answer.text == "answer"


async def test_a_recorded_answer_wins_over_validation_and_the_model(bookstore: World) -> None:
    # The real tool accepted a quantity the world's schema refuses: its answer is replayed.
    replay = Replay(
        [
            record("s", 1, "place_order", {"book_id": "b1", "quantity": 99}, "ordered 99"),
            record("s", 2, "get_book", {"book_id": "b1"}, "The Glass River"),
        ]
    )
    model = ScriptedModel(ScriptedModel.answer("from the model"))
    simulator = Simulator(bookstore, model, replay=replay)
    first = await simulator.call("s", "place_order", {"book_id": "b1", "quantity": 99})
    second = await simulator.call("s", "get_book", {"book_id": "b1"})
    third = await simulator.call("s", "get_book", {"book_id": "b3"})
    assert [(r.text, r.source) for r in (first, second, third)] == [
        ("ordered 99", "replay"),
        ("The Glass River", "replay"),
        ("from the model", "model"),
    ]
    assert [r.source for r in simulator.journal.records("s")] == ["replay", "replay", "model"]
    # Replayed answers enter the history the model sees.
    assert "The Glass River" in model.requests[0].messages[-2]["content"]


async def test_replayed_content_blocks_are_served_as_recorded() -> None:
    world = parse_world(
        "world: w\ntitle: W\ntools:\n  - name: picture\n    description: A picture.\n"
        "    input_schema: {type: object}\n"
    )
    blocks = [
        {"type": "text", "text": "here:", "annotations": {"priority": 0.5}},
        {"type": "image", "data": "QUJD", "mimeType": "image/png"},
    ]
    recorded = record("stdio", 1, "picture", {}, "here:\n{...}").model_copy(
        update={"content": blocks}
    )
    simulator = Simulator(world, None, replay=Replay([recorded]))
    async with Client(build_server(simulator, default_session="stdio")) as client:
        result = await client.call_tool("picture", {})
    assert [
        b.model_dump(mode="json", by_alias=True, exclude_none=True) for b in result.content
    ] == blocks
    assert simulator.journal.records("stdio")[0].content == blocks


# --- a real recording, replayed ----------------------------------------------------------------


@uses_reference_servers
async def test_a_recorded_memory_session_replays_identically_over_stdio(tmp_path: Path) -> None:
    """import → record → ``mcp-sim serve WORLD --replay J`` (no working model): every call
    answers what the real server answered."""
    world = tmp_path / "memory.yaml"
    write_text(world, await import_server(memory_server(tmp_path)))
    journal = Journal(tmp_path / "real.jsonl")
    async with recording(memory_server(tmp_path), journal) as client:
        real = await call_all(client, MEMORY_SESSION)
    journal.close()

    replayed_journal = tmp_path / "replayed.jsonl"
    args = ["-m", "mcp_sim", "serve", str(world), "--replay", str(tmp_path / "real.jsonl")]
    args += [*DEAD_MODEL, "--journal", str(replayed_journal)]
    params = StdioServerParameters(command=sys.executable, args=args, cwd=str(ROOT))
    async with Client(params) as client:
        replayed = await call_all(client, MEMORY_SESSION)
    assert [dump(r) for r in replayed] == [dump(r) for r in real]
    assert {r.source for r in read_journal(replayed_journal)} == {"replay"}


@uses_reference_servers
async def test_images_and_resource_links_replay_identically(tmp_path: Path) -> None:
    world_text = await import_server(everything_server())
    journal = Journal(tmp_path / "real.jsonl")
    async with recording(everything_server(), journal) as client:
        real = await call_all(client, EVERYTHING_SESSION)
    journal.close()
    world = parse_world(world_text)
    replay = Replay.load(tmp_path / "real.jsonl")
    server = build_server(Simulator(world, None, replay=replay), default_session="stdio")
    async with Client(server) as client:
        with anyio.fail_after(30):
            replayed = [await client.call_tool(n, a) for n, a in EVERYTHING_SESSION]
    assert [dump(r) for r in replayed] == [dump(r) for r in real]
    assert any(isinstance(b, types.ImageContent) for r in replayed for b in r.content)

"""Export: journals as AgentWorldBench-style records and chat-format SFT data, with the prompts
the model is shown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcp_sim.cli.main import main
from mcp_sim.errors import SimError
from mcp_sim.fidelity.trajectory_export import export_rows, exported_rows
from mcp_sim.journal import Journal, JournalRecord, read_journal
from mcp_sim.prompting.native import OBSERVATION_MARKER, render_action, render_system
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.world import World
from tests.conftest import BOOKSTORE
from tests.scripted_model import ScriptedModel

ORDER = {"book_id": "b3", "quantity": 1, "email": "ana@example.pt", "country": "Portugal"}
NEW_ORDER = {"id": "ord_00001", "book_id": "b3", "quantity": 1}


async def simulated_journal(world: World, path: Path) -> ScriptedModel:
    """A session of the simulator journaled to ``path``: read, write (state changes), read."""
    model = ScriptedModel(
        ScriptedModel.answer("The Glass River by M. Ortega"),
        ScriptedModel.answer(
            "Order ord_00001 placed.", [{"op": "add", "path": "/orders/-", "value": NEW_ORDER}]
        ),
        ScriptedModel.answer("Cartographers of Rain, 6 left"),
    )
    journal = Journal(path)
    simulator = Simulator(world, model, journal=journal)
    await simulator.call("s1", "get_book", {"book_id": "b1"})
    await simulator.call("s1", "place_order", ORDER)
    await simulator.call("s1", "get_book", {"book_id": "b3"})
    journal.close()
    return model


async def test_exported_chat_prompts_are_the_prompts_the_model_was_sent(
    bookstore: World, tmp_path: Path
) -> None:
    path = tmp_path / "journal.jsonl"
    model = await simulated_journal(bookstore, path)
    rows = await exported_rows(bookstore, read_journal(path), "sft")
    assert len(rows) == 3
    # Every call, the write too (its fresh ids and patch instruction): the same system text,
    # history, state (after the committed order) and instruction as the simulator sent.
    assert [row["messages"][:-1] for row in rows] == [r.messages for r in model.requests]
    assert NEW_ORDER["id"] in rows[2]["messages"][-2]["content"]
    assert rows[2]["messages"][-1] == {
        "role": "assistant",
        "content": "<predicted_observation>\nCartographers of Rain, 6 left\n"
        "</predicted_observation>",
    }


async def test_agentworld_records_have_the_benchmark_fields(
    bookstore: World, tmp_path: Path
) -> None:
    path = tmp_path / "journal.jsonl"
    await simulated_journal(bookstore, path)
    records = read_journal(path)
    rows = await exported_rows(bookstore, records, "agentworld")
    assert [(r["turn_idx"], r["total_turns"]) for r in rows] == [(1, 3), (2, 3), (3, 3)]
    for row, record in zip(rows, records, strict=True):
        n = row["turn_idx"]
        assert set(row) == {
            "task",
            "id",
            "system_str",
            "prompt",
            "response",
            "current_prompt",
            "turn_idx",
            "total_turns",
        }
        assert row["task"] == "mcp"
        assert row["id"] == "s1"
        assert row["system_str"] == render_system(bookstore)
        assert len(row["prompt"]) == len(row["response"]) == n
        # The turn block as in the benchmark: its sections, then the action.
        assert row["current_prompt"].startswith(f"### Turn {n}\n")
        action = render_action(n, record.tool, record.arguments).split("\n", 1)[1]
        assert row["current_prompt"].endswith("\n" + action)
        assert row["prompt"][-1].startswith(row["current_prompt"])
        assert "<predicted_observation></predicted_observation>" in row["prompt"][-1]
        assert row["response"][-1] == f"{OBSERVATION_MARKER}\n{record.observation}"
    # Earlier turns are the turn blocks as shown then (the first one with the state), and their
    # observations.
    assert rows[2]["prompt"][0] == rows[0]["current_prompt"]
    assert rows[2]["prompt"][1] == rows[1]["current_prompt"]
    assert "**Current World State:**" in rows[0]["current_prompt"]
    assert "**Current World State:**" not in rows[1]["current_prompt"]
    assert rows[2]["response"][:2] == [rows[0]["response"][0], rows[1]["response"][1]]


def record(step: int, source: str, text: str) -> JournalRecord:
    return JournalRecord.model_validate(
        {
            "session": "r",
            "step": step,
            "tool": "get_book",
            "arguments": {"book_id": f"b{step}"},
            "observation": text,
            "is_error": source == "model_error",
            "source": source,
        }
    )


def test_failed_model_requests_are_left_out_and_sources_can_be_chosen(
    bookstore: World, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "journal.jsonl"
    journal = Journal(path)
    for rec in (
        record(1, "real", "first"),
        record(2, "model_error", "mcp-sim could not simulate get_book"),
        record(3, "replay", "third"),
        record(4, "real", "fourth"),
    ):
        journal.write(rec)
    journal.close()
    out = tmp_path / "real.jsonl"
    args = ["export", "--journal", str(path), "--world", str(BOOKSTORE), "--format", "agentworld"]
    assert main([*args, "--source", "real", "-o", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["turn_idx"] for r in rows] == [1, 3]
    # The history still holds the replayed call, and never the failed one.
    assert rows[1]["response"] == [
        f"{OBSERVATION_MARKER}\nfirst",
        f"{OBSERVATION_MARKER}\nthird",
        f"{OBSERVATION_MARKER}\nfourth",
    ]
    assert "wrote 2 rows" in capsys.readouterr().err


def test_a_journal_of_another_world_is_refused(bookstore: World) -> None:
    other = record(1, "real", "x").model_copy(update={"tool": "teleport"})
    with pytest.raises(SimError, match="teleport"):
        list(export_rows(bookstore, [other], "sft"))

"""A tool whose real answer is nothing (a "think" tool) is simulated like any other: the empty
observation is journaled, shown in later prompts, exported and replayed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcp_sim.fidelity.trajectory_export import exported_rows
from mcp_sim.models.replay import Replay
from mcp_sim.prompting.native import OBSERVATION_MARKER
from mcp_sim.settings.combined import Settings
from mcp_sim.simulator.answer_cache import AnswerCache
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.world import World
from tests.scripted_model import ScriptedModel

NOTE_WORLD: dict[str, Any] = {
    "world": "notes",
    "title": "Notes",
    "description": "An agent's scratch pad and a shelf of books.",
    "state": {"books": [{"id": "b1", "title": "Glass Rain"}]},
    "tools": [
        {
            "name": "think",
            "description": "Note a thought to self. It answers nothing.",
            "input_schema": {
                "type": "object",
                "properties": {"thought": {"type": "string"}},
                "required": ["thought"],
            },
            "effect": "read",
        },
        {
            "name": "get_book",
            "description": "A book by id.",
            "input_schema": {
                "type": "object",
                "properties": {"id": {"type": "string"}},
                "required": ["id"],
            },
            "effect": "read",
        },
    ],
}
THOUGHT = {"thought": "check the shelf before answering"}
BOOK = '{"id": "b1", "title": "Glass Rain"}'


@pytest.fixture
def notes() -> World:
    return World.model_validate(NOTE_WORLD)


@pytest.mark.parametrize(
    ("bounded", "empty"),
    [
        (False, "<predicted_observation></predicted_observation>"),
        (True, '{"observation": ""}'),
    ],
)
async def test_an_empty_answer_is_journaled_shown_later_and_exported(
    notes: World, bounded: bool, empty: str
) -> None:
    book = json.dumps({"observation": BOOK}) if bounded else ScriptedModel.answer(BOOK)
    model = ScriptedModel(empty, book)
    settings = Settings.of(bounded_output=bounded)
    simulator = Simulator(notes, model, settings=settings)
    thought = await simulator.call("s", "think", THOUGHT)
    assert (thought.text, thought.source, thought.is_error) == ("", "model", False)
    await simulator.call("s", "get_book", {"id": "b1"})
    assert len(model.requests) == 2  # no repair was asked for
    later = model.requests[1].messages
    shown = next(i for i, m in enumerate(later) if "check the shelf" in m["content"])
    assert later[shown + 1] == {"role": "assistant", "content": f"{OBSERVATION_MARKER}\n"}
    records = simulator.journal.records("s")
    assert [(r.tool, r.observation, r.source) for r in records] == [
        ("think", "", "model"),
        ("get_book", BOOK, "model"),
    ]
    rows = await exported_rows(notes, records, "sft", settings=settings)
    assert len(rows) == 2
    assert rows[0]["messages"][-1]["content"] == (
        "<predicted_observation>\n\n</predicted_observation>"
    )
    assert rows[1]["messages"][:-1] == later


async def test_an_empty_answer_is_replayed(notes: World) -> None:
    recorded = Simulator(notes, ScriptedModel("<predicted_observation></predicted_observation>"))
    await recorded.call("s", "think", THOUGHT)
    replay = Replay(recorded.journal.records("s"))
    replaying = Simulator(notes, ScriptedModel(), replay=replay)
    result = await replaying.call("s", "think", THOUGHT)
    assert (result.text, result.source) == ("", "replay")


async def test_a_completion_with_no_answer_at_all_is_still_a_model_error(notes: World) -> None:
    model = ScriptedModel("", "<think>Nothing to say.</think>")
    simulator = Simulator(notes, model)
    result = await simulator.call("s", "think", THOUGHT)
    assert result.source == "model_error" and "empty observation" in result.text
    assert model.requests[1].purpose == "repair"
    assert simulator.sessions.get("s").history == []


async def test_an_empty_answer_is_cached(notes: World, tmp_path: Path) -> None:
    cache = AnswerCache(tmp_path / "answers.sqlite", "scripted")
    empty = "<predicted_observation></predicted_observation>"
    # One seed for both runs, so the second run's request is the first's.
    seeded = Settings.of(seed=7)
    first = Simulator(notes, ScriptedModel(empty), cache=cache, settings=seeded)
    await first.call("s", "think", THOUGHT)
    again = Simulator(notes, ScriptedModel(), cache=cache, settings=seeded)
    result = await again.call("s", "think", THOUGHT)
    (record,) = again.journal.records("s")
    assert (result.text, result.source, record.cache) == ("", "model", "hit")
    cache.close()

"""The stand-in model (``--model-url stub:``): every call of a shipped world answered, in
milliseconds and without a network, valid against the tool's output schema; scripted answers by
tool and arguments; the same answers for the same seed."""

from __future__ import annotations

import random
import time
from argparse import ArgumentTypeError
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from mcp_sim.api.worlds import Worlds
from mcp_sim.errors import ModelOutputInvalid, SettingsError
from mcp_sim.models.base import CompletionRequest
from mcp_sim.models.schema_values import ValueDraw
from mcp_sim.models.stub import StubModel
from mcp_sim.settings import Settings, values
from mcp_sim.spec.world import World
from mcp_sim.spec.world_files import example_names, example_path

CALLS = 1000


def _arguments(world: World, rng: random.Random, known: dict[str, list[Any]]) -> tuple[str, Any]:
    tool = rng.choice(world.tools)
    return tool.name, ValueDraw(rng, known).valid(tool.input_schema)


async def test_a_thousand_calls_of_the_bookstore_are_answered_valid_against_their_schemas() -> None:
    rng = random.Random(7)
    # The bookstore's ids, so that calls reach the records the model is asked about.
    known: dict[str, list[Any]] = {"book_id": ["b1", "b2", "b3"], "order_id": ["ord_00001"]}
    started = time.perf_counter()
    async with await Worlds.open(example_path("bookstore"), model="stub:") as worlds:
        world = worlds.world()
        schemas = {t.name: t.output_schema for t in world.tools if t.output_schema is not None}
        sources: dict[str, int] = {}
        episode = await worlds.episode(seed=1)
        for index in range(CALLS):
            if index % 50 == 0:
                episode = await worlds.episode(seed=index)
            tool, arguments = _arguments(world, rng, known)
            result = await episode.call(tool, arguments)
            sources[result.source] = sources.get(result.source, 0) + 1
            assert result.source != "model_error", result.text
            if tool in schemas and result.source == "model":
                jsonschema.validate(result.structured, schemas[tool])
    elapsed = time.perf_counter() - started
    assert sum(sources.values()) == CALLS and sources["model"] > CALLS // 4, sources
    assert elapsed < 60, f"{CALLS} calls took {elapsed:.1f} s"


@pytest.mark.parametrize("bounded", [False, True], ids=["free", "bounded"])
@pytest.mark.parametrize("name", example_names())
async def test_every_shipped_world_is_answered_without_a_model_error(
    name: str, bounded: bool
) -> None:
    """Bounded output (a small model's JSON envelopes and result lists) included."""
    rng = random.Random(name)
    opened = Worlds.open(example_path(name), model="stub:", bounded_output=bounded)
    async with await opened as worlds:
        episode = await worlds.episode(seed=3)
        for _ in range(20):
            tool, arguments = _arguments(worlds.world(), rng, {})
            result = await episode.call(tool, arguments)
            assert result.source != "model_error", f"{tool}: {result.text}"


async def test_a_seed_draws_the_same_answers_and_they_use_the_states_values() -> None:
    async def answers(seed: int) -> list[Any]:
        async with await Worlds.open(example_path("bookstore"), model="stub:") as worlds:
            episode = await worlds.episode(seed=seed)
            calls = [await episode.call("search_books", {"query": f"q{i}"}) for i in range(5)]
            return [c.structured for c in calls]

    first = await answers(11)
    assert first == await answers(11)
    assert first != await answers(12)
    titles = {
        "The Glass River",
        "Salt and Glass",
        "Cartographers of Rain",
        "A Short History of Tiles",
    }
    drawn = {book["title"] for answer in first for book in answer["results"]}
    assert drawn and drawn <= titles, drawn


SCRIPT = """\
- tool: get_book
  arguments: {book_id: b2}
  answer: "Salt and Glass is out of print."
- tool: place_order
  answer: {order_id: ord_09999, status: placed}
  patch: [{op: replace, path: /books/0/stock, value: 0}]
"""


async def test_a_script_answers_its_calls_and_makes_their_changes(tmp_path: Path) -> None:
    script = tmp_path / "answers.yaml"
    script.write_text(SCRIPT, encoding="utf-8")
    async with await Worlds.open(example_path("bookstore"), model=f"stub:{script}") as worlds:
        episode = await worlds.episode(seed=1)
        scripted = await episode.call("get_book", {"book_id": "b2"})
        drawn = await episode.call("get_book", {"book_id": "b3"})
        order = {"book_id": "b1", "quantity": 1, "email": "a@b.pt", "country": "Portugal"}
        placed = await episode.call("place_order", order)
        state = await episode.state()
    assert scripted.text == "Salt and Glass is out of print."
    assert drawn.source == "model" and drawn.text != scripted.text
    assert placed.text == '{"order_id": "ord_09999", "status": "placed"}'
    assert state["books"][0]["stock"] == 0


async def test_a_stub_is_the_only_model_and_its_script_must_be_readable(tmp_path: Path) -> None:
    both = Settings.of(model_url=["stub:", "http://gpu:8000/v1"])
    with pytest.raises(SettingsError, match="only model"):
        both.model.base_urls()
    assert Settings.of(model_url=["stub:"]).model.base_urls() == []
    bad = tmp_path / "bad.yaml"
    bad.write_text("- tool: get_book\n  answr: x\n", encoding="utf-8")
    assert values.model_url(f"stub:{bad}") == f"stub:{bad}"
    with pytest.raises(SettingsError, match="answer 1 needs a tool"):
        await Worlds.open(example_path("bookstore"), model=f"stub:{bad}")
    with pytest.raises(ArgumentTypeError, match="no stub script"):
        values.model_url(f"stub:{tmp_path / 'missing.yaml'}")


SCHEMA = {
    "$defs": {"link": {"type": "string", "pattern": "^https?://[a-z.]+/"}},
    "type": "object",
    "properties": {
        "url": {"$ref": "#/$defs/link"},
        "day": {"type": "string", "pattern": "^\\d{4}-\\d{2}-\\d{2}$"},
        "state": {"enum": ["open", "closed", "lost"]},
        "count": {"type": "integer", "minimum": 3, "maximum": 5},
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2},
        "either": {"anyOf": [{"type": "null"}, {"type": "number", "exclusiveMinimum": 0}]},
    },
    "required": ["url", "day", "state", "count", "tags", "either"],
    "additionalProperties": False,
}


def test_a_draw_satisfies_refs_patterns_bounds_and_prefers_known_values() -> None:
    for seed in range(50):
        value = ValueDraw(random.Random(seed), {"state": ["closed"]}).valid(SCHEMA)
        jsonschema.validate(value, SCHEMA)
        assert value["state"] == "closed"


async def test_a_schema_the_stub_cannot_satisfy_is_a_model_error() -> None:
    never = {"type": "string", "pattern": "^never-[0-9]{40}$"}
    request = CompletionRequest(messages=[], response_schema=never, schema_name="tool")
    with pytest.raises(ModelOutputInvalid, match="stand-in model cannot answer"):
        await StubModel().complete(request)

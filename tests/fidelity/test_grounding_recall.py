"""What the model is shown of a large world: teacher-forced recall on generated worlds of
several shapes, the hard budget, and the designer's grounding hints."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcp_sim.errors import SpecError
from mcp_sim.fidelity.answer_facts import present
from mcp_sim.fidelity.grounding_recall import TeacherModel, measure
from mcp_sim.prompting.native import estimate_tokens, render_system
from mcp_sim.settings import PromptSettings, Settings
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.loading import parse_world
from mcp_sim.spec.world import World
from tests.world_generator import make_world, record_calls

SHAPES = {"ferry": 2.0, "clinic": 1.0, "warehouse": 1.0}
"""Megabytes of state per shape: one multi-MB world, two smaller ones of other shapes."""


def recorded(shape: str, size_mb: float, episodes: int = 12) -> tuple[World, list[dict[str, Any]]]:
    spec = make_world(shape, size_mb, 11)
    calls = [c.to_json() for c in record_calls(shape, spec["state"], 11, episodes)]
    return World.model_validate(spec), calls


@pytest.fixture(scope="module", params=sorted(SHAPES))
def shape_world(request: pytest.FixtureRequest) -> tuple[str, World, list[dict[str, Any]]]:
    shape = str(request.param)
    world, calls = recorded(shape, SHAPES[shape])
    return shape, world, calls


async def test_prompts_hold_the_facts_of_the_real_answers(
    shape_world: tuple[str, World, list[dict[str, Any]]],
) -> None:
    shape, world, calls = shape_world
    rows = await measure(world, calls, Settings.of())
    overall = rows["overall"]
    assert overall["recall"] >= 0.85, (shape, rows)
    lookups = rows.get("kind lookup")
    assert lookups is not None and lookups["recall"] >= 0.95, (shape, rows)
    searches = rows.get("kind search")
    if searches is not None and searches["recall"] is not None:
        assert searches["recall"] >= 0.85, (shape, rows)


async def test_no_prompt_exceeds_its_budget_even_when_budgets_are_tight(
    shape_world: tuple[str, World, list[dict[str, Any]]],
) -> None:
    shape, world, calls = shape_world
    # A later turn must hold a looked-up record: a ferry sailing with its 20 dates and the
    # lines that say what else refers to it take about 900 tokens (compaction keeps the anchor
    # turn, so later turns no longer re-anchor the state with the state budget's room).
    options = Settings.of(state_budget=1500, turn_budget=1000, history_budget=2500)
    bound = Simulator(world, TeacherModel(), settings=options).budget.bound
    system = estimate_tokens(render_system(world))
    rows = await measure(world, calls[:80], options)
    assert rows["overall"]["tokens_max"] <= system + bound, (shape, rows["overall"])
    # Within that budget the records a lookup names still come first.
    assert rows["kind lookup"]["recall"] >= 0.8, (shape, rows)


async def test_a_context_window_shrinks_the_parts_to_leave_room_for_the_answer() -> None:
    world, calls = recorded("clinic", 0.5, episodes=4)
    system = estimate_tokens(render_system(world))
    window = system + 6000 + 32768
    simulator = Simulator(world, TeacherModel(), settings=Settings.of(context_window=window))
    budget = simulator.budget
    assert budget.total_tokens == window - simulator.sampling.max_tokens
    assert budget.state_tokens < PromptSettings().state_budget
    rows = await measure(world, calls, Settings.of(context_window=window))
    assert rows["overall"]["tokens_max"] <= window - simulator.sampling.max_tokens


def test_a_window_too_small_for_the_world_is_a_clear_error() -> None:
    world, _ = recorded("clinic", 0.2, episodes=1)
    with pytest.raises(ValueError, match="context window of 1000 tokens"):
        Simulator(world, TeacherModel(), settings=Settings.of(context_window=1000))


HINTED = """\
world: hinted
title: People and offices
description: Who lives where.
tools:
  - name: find_person
    description: Find a person by city.
    input_schema:
      type: object
      properties: {city: {type: string}}
    grounding:
      reads: [/people]
      match: {city: home/city}
state:
  people:
    p1: {name: Ana, home: {city: Porto}, work: {city: Lisbon}}
    p2: {name: Rui, home: {city: Lisbon}, work: {city: Porto}}
    p3: {name: Eva, home: {city: Faro}, work: {city: Faro}}
  offices:
    o1: {name: Lisbon office, city: Lisbon, staff: 40}
    o2: {name: Porto office, city: Porto, staff: 12}
"""


async def test_hints_narrow_a_search_to_a_collection_and_a_field() -> None:
    world = parse_world(HINTED, "hinted.yaml")
    # Enough people elsewhere that the state is shown as a view.
    people = dict(world.state["people"])
    for i in range(200):
        people[f"q{i}"] = {"name": f"Q{i}", "home": {"city": "Braga"}, "work": {"city": "Braga"}}
    world = world.model_copy(update={"state": {**world.state, "people": people}})
    model = TeacherModel()
    model.answer = "<predicted_observation>p2</predicted_observation>"
    simulator = Simulator(world, model, settings=Settings.of(state_budget=800))
    await simulator.call("a", "find_person", {"city": "Lisbon"})
    shown = model.prompts[0][-1]["content"]
    assert "- /people/p2:" in shown
    assert "- /people/p1:" not in shown and "- /offices/o1:" not in shown


@pytest.mark.parametrize(
    ("edit", "where", "message"),
    [
        ("reads: [/people]", "hinted.yaml:11:", "/nowhere is not a collection"),
        ("match: {city: home/city}", "hinted.yaml:12:", "find_person has no argument 'town'"),
    ],
)
def test_broken_hints_name_the_file_line_and_field(edit: str, where: str, message: str) -> None:
    broken = HINTED.replace(edit, edit.replace("/people", "/nowhere").replace("{city:", "{town:"))
    with pytest.raises(SpecError) as caught:
        parse_world(broken, "hinted.yaml")
    problems = [str(p) for p in caught.value.problems]
    assert any(p.startswith(where) and message in p for p in problems), problems


def test_entities_accept_records_keyed_by_id_without_an_id_field() -> None:
    text = HINTED + "entities:\n  person: {collection: /people}\n"
    world = parse_world(text, "hinted.yaml")
    from_index = Simulator(world, TeacherModel()).auditor
    assert from_index is not None
    from mcp_sim.runtime.entities import EntityIndex

    index = EntityIndex.build(world, world.state)
    assert index.ids("person") == {"p1", "p2", "p3"}


async def test_misses_name_the_facts_a_prompt_lacks_and_the_view_it_had() -> None:
    world = parse_world(HINTED, "hinted.yaml")
    answer = json.dumps({"name": "Ana", "badge": "QX-99181"})
    calls = [
        {"episode": "e1", "tool": "find_person", "arguments": {"city": "Porto"}, "response": answer}
    ]
    misses: list[dict[str, Any]] = []
    await measure(world, calls, Settings.of(), misses=misses)
    assert len(misses) == 1
    miss = misses[0]
    # The badge is in no state, so no prompt holds it; the name is in the world's records.
    assert miss["missing"] == [["badge", "QX-99181"]]
    assert miss["tool"] == "find_person" and miss["arguments"] == {"city": "Porto"}
    assert "find_person" in miss["view"]


@pytest.mark.parametrize(
    ("key", "text", "held"),
    [
        ("arrival_date", '{"ArrivalDate": "2025-03-01"}', True),
        ("arrival", '{"Arrival": "2025-03-01"}', True),
        ("guestId", '{"guest-id": "2025-03-01"}', True),
        ("arrival", '{"arrivals": "2025-03-01"}', False),
        ("arrival_date", '{"arrival": "2025-03-01"}', False),
        ("a.b", '{"A.B": "2025-03-01"}', True),
        ("a.b", '{"ab": "2025-03-01"}', False),
        # Marks before or after the words are part of the name, not a casing.
        ("__typename", '{"__typename": "2025-03-01"}', True),
        ("_id", '{"_id": "2025-03-01"}', True),
        ("_id", '{"id": "2025-03-01"}', False),
        ("_source_ts", '{"_sourceTs": "2025-03-01"}', True),
        ("__name__", '{"__name__": "2025-03-01"}', True),
        ("__name__", '{"__name": "2025-03-01"}', False),
        ("__name__", '{"name": "2025-03-01"}', False),
    ],
)
def test_a_fact_is_held_beside_its_key_in_any_casing_of_its_words(
    key: str, text: str, held: bool
) -> None:
    assert present(key, "2025-03-01", text) is held

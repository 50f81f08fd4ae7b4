"""The canon as the Simulation Instruction: facts, canon entities, reference answers, and the
spec rules of the fiction fields."""

from __future__ import annotations

import pytest

from mcp_sim.errors import SpecError
from mcp_sim.prompting.canon import evidence, render_canon, supports, targets
from mcp_sim.prompting.native import render_system
from mcp_sim.prompting.relevance import contains_evidence, key_evidence, terms
from mcp_sim.spec.fiction import ReferenceAnswer, normalize_url
from mcp_sim.spec.loading import load_world, parse_world
from mcp_sim.spec.world import World
from tests.conftest import WORLDS

VELANDRE = WORLDS / "search.yaml"

FICTION = """\
world: fiction
title: A fictional place
domain: search
canon:
  - Lumen City is the capital.
canon_entities:
  people:
    - {name: Ada Quill, role: mayor, since: 2029, terms: [2029, 2033]}
  places:
    - {name: Lumen City, population: 120000}
reference_answers:
  - question: Who is the mayor of Lumen City?
    answer: Ada Quill, since 2029.
tools:
  - name: web_search
    description: Search.
    input_schema: {type: object, properties: {queries: {type: array, items: {type: string}}}}
  - name: open_page
    description: Open.
    input_schema: {type: object, properties: {url: {type: string}}, required: [url]}
"""


@pytest.fixture(scope="module")
def velandre() -> World:
    return load_world(VELANDRE)


def test_the_instruction_holds_the_canon_entities_and_reference_answers() -> None:
    text = render_canon(parse_world(FICTION))
    assert text is not None
    assert text.startswith("# Simulation Instruction")
    assert "- Lumen City is the capital." in text
    assert (
        "### People" in text
        and "- **Ada Quill**: role: mayor; since: 2029; terms: 2029, 2033" in text
    )
    assert "- **Lumen City**: population: 120000" in text
    assert "- Target Query: Who is the mayor of Lumen City?\n  Reference Answer: Ada Quill" in text


def test_a_world_without_canon_has_no_instruction() -> None:
    bare = FICTION.split("canon:")[0] + "tools:" + FICTION.split("tools:")[1]
    assert render_canon(parse_world(bare)) is None


def test_the_system_prompt_carries_the_instruction_and_follows_the_search_layout(
    velandre: World,
) -> None:
    system = render_system(velandre)
    order = [
        "**Search World Model**",
        "## Input Definitions",
        "## Content Generation Priority",
        "## Output Formats",
        "# Simulation Instruction",
        "## Reference Answers",
        "# Input Definitions & Action Space",
        "### 1. web_search",
    ]
    positions = [system.index(marker) for marker in order]
    assert positions == sorted(positions)
    assert "Give 10 results per query" in system
    for fact in velandre.canon:
        assert fact in system
    assert "Dr. Mira Castellane" in system


def test_a_query_is_about_the_question_it_fits_best(velandre: World) -> None:
    asked = [r.question for r in targets(velandre, "calder bridge toll")]
    assert asked == ["What is the toll on the Calder Bridge?"]
    assert [r.question for r in targets(velandre, "president of velandre")] == [
        "Who is the President of Velandre?"
    ]
    assert targets(velandre, "ferry timetable") == []


def test_support_needs_every_piece_of_evidence_as_whole_words() -> None:
    ref = ReferenceAnswer(question="When?", answer="It opened at 06:00 on 2 June 2030.")
    assert evidence(ref) == ["06:00", "2", "June", "2030"]
    assert supports("Opened 06:00, 2 June 2030.", ref)
    assert not supports("Opened 06:00, 12 June 2030.", ref)
    declared = ReferenceAnswer(question="Q?", answer="Long answer", evidence=["7.4 km"])
    assert supports("a 7.4 km bridge", declared) and not supports("a 7 km bridge", declared)


def test_numbers_match_with_or_without_thousands_separators() -> None:
    assert contains_evidence("a main span of 1120 m", ["1,120 m"])
    assert key_evidence("The Harbour Party holds 58 seats") == ["Harbour", "Party", "58"]
    assert terms("Opening of the Calder Bridges") == {"open", "calder", "bridge"}


def test_urls_are_remembered_under_one_spelling() -> None:
    assert normalize_url("HTTPS://Courier.VL:443/news/a/#top") == "https://courier.vl/news/a"
    assert normalize_url("https://courier.vl/") == "https://courier.vl"
    assert normalize_url("https://courier.vl/a?x=1/") == "https://courier.vl/a?x=1/"


def problems(text: str) -> list[str]:
    with pytest.raises(SpecError) as info:
        parse_world(text, "f.yaml")
    return [f"{p.line}:{p.path}: {p.message}" for p in info.value.problems]


def test_an_entity_listed_twice_is_reported_where_it_repeats() -> None:
    text = FICTION.replace(
        "    - {name: Lumen City, population: 120000}",
        "    - {name: Lumen City, population: 120000}\n    - {name: Lumen City}",
    )
    line = text.splitlines().index("    - {name: Lumen City}") + 1
    (found,) = problems(text)
    assert found == f"{line}:canon_entities.places[1].name: 'Lumen City' is listed twice"


def test_an_entity_attribute_must_be_plain() -> None:
    (found,) = problems(FICTION.replace("role: mayor", "role: {title: mayor}"))
    assert "canon_entities.people[0]" in found and "'role'" in found


def test_a_search_section_must_name_tools_that_search_and_open() -> None:
    text = FICTION + "search:\n  search_tool: find\n  open_tool: web_search\n"
    found = problems(text)
    assert any("search.search_tool: no tool named 'find'" in p for p in found)
    assert any("search.open_tool: web_search must take a `url`" in p for p in found)


def test_a_search_world_with_the_default_tools_has_a_web_and_others_do_not(
    velandre: World, bookstore: World
) -> None:
    fiction = parse_world(FICTION)
    web = fiction.web()
    assert web is not None and (web.search_tool, web.open_tool) == ("web_search", "open_page")
    assert web.results_per_query == 10 and web.unknown_urls == "not_found"
    assert velandre.web() is velandre.search
    assert bookstore.web() is None

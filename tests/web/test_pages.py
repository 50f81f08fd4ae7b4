"""The page store: every URL a result shows opens to a page that repeats its title, the same
page every time; repeated queries and unknown URLs are answered without the model."""

from __future__ import annotations

import json

import anyio
import pytest

from mcp_sim.prompting.search_formats import SearchResult, render_results
from mcp_sim.settings import Settings
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.loading import load_world, parse_world
from mcp_sim.spec.world import World
from tests.conftest import WORLDS
from tests.scripted_model import ScriptedModel

VELANDRE = WORLDS / "search.yaml"
REVIEW_URL = "https://courier.vl/news/2031/03/01/toll-review"
REVIEW = SearchResult(
    url=REVIEW_URL,
    title="Toll review announced for Calder Bridge",
    snippet="The ministry will review the toll of 6 marks per car in 2032, said Sunniva Achterberg.",
    date="2031-03-01",
)
REVIEW_PAGE = (
    "# Toll review announced\n\n*The Port Ysolde Courier* · 2031-03-01\n\nThe ministry will "
    "review the toll of 6 marks per car in 2032, Minister Sunniva Achterberg said on Saturday."
)
NO_FACTS = '{"facts": []}'


@pytest.fixture(scope="module")
def velandre() -> World:
    return load_world(VELANDRE)


def results(*found: SearchResult, query: str = "toll review") -> str:
    return ScriptedModel.answer(render_results(query, list(found), "Sounder"))


def last_user_message(model: ScriptedModel, index: int = -1) -> str:
    return model.requests[index].messages[-1]["content"]


async def test_a_url_from_a_search_result_opens_to_a_page_with_its_title(
    velandre: World,
) -> None:
    model = ScriptedModel(results(REVIEW), ScriptedModel.answer(REVIEW_PAGE), NO_FACTS)
    sim = Simulator(velandre, model)
    search = await sim.call("s1", "web_search", {"queries": ["toll review"]})
    assert f"[1] {REVIEW_URL}\nTitle: {REVIEW.title}\n" in search.text
    page = await sim.call("s1", "open_page", {"url": REVIEW_URL})
    assert (page.source, page.is_error) == ("model", False)
    assert page.text.startswith(f"# {REVIEW.title}\n\n")
    assert "6 marks per car in 2032" in page.text
    # The model was told what the result said about the page.
    record = last_user_message(model, 1)
    assert f"Title: {REVIEW.title}" in record and f"Snippet: {REVIEW.snippet}" in record


async def test_a_second_open_is_identical_and_needs_no_model(velandre: World) -> None:
    model = ScriptedModel(results(REVIEW), ScriptedModel.answer(REVIEW_PAGE), NO_FACTS)
    sim = Simulator(velandre, model)
    await sim.call("s1", "web_search", {"queries": ["toll review"]})
    first = await sim.call("s1", "open_page", {"url": REVIEW_URL})
    asked = len(model.requests)
    again = await sim.call("s1", "open_page", {"url": REVIEW_URL})
    spelled = REVIEW_URL.replace("https://courier.vl", "HTTPS://Courier.VL:443") + "/#top"
    elsewhere = await sim.call("s2", "open_page", {"url": spelled})
    assert again.text == first.text and again.source == "memory"
    assert elsewhere.text == first.text
    assert len(model.requests) == asked
    assert sim.answers_without_model("open_page", {"url": REVIEW_URL})


async def test_a_repeated_query_gives_the_same_results_without_the_model(velandre: World) -> None:
    model = ScriptedModel(results(REVIEW))
    sim = Simulator(velandre, model)
    first = await sim.call("s1", "web_search", {"queries": ["Toll Review"]})
    again = await sim.call("s2", "web_search", {"queries": ["toll  review"]})
    assert again.source == "memory" and len(model.requests) == 1
    assert again.text.replace("toll  review", "Toll Review") == first.text


async def test_a_known_url_keeps_its_title_and_date_in_later_results(velandre: World) -> None:
    renamed = SearchResult(
        "https://velapedia.vl/wiki/Calder_Bridge/",
        "Another title",
        "Different snippet.",
        "1999-01-01",
    )
    sim = Simulator(velandre, ScriptedModel(results(renamed, query="bridge article")))
    text = (await sim.call("s1", "web_search", {"queries": ["bridge article"]})).text
    assert "[1] https://velapedia.vl/wiki/Calder_Bridge\nTitle: Calder Bridge - Velapedia\n" in text
    assert "Snippet: Different snippet.\nDate: 2031-02-03" in text


async def test_a_known_url_shown_without_a_real_snippet_gets_its_known_one(
    velandre: World,
) -> None:
    bare = SearchResult("https://sounder.vl/about", "x", "https://sounder.vl/about", None)
    comma = SearchResult("https://velapedia.vl/wiki/Velandre", "x", ",", None)
    sim = Simulator(velandre, ScriptedModel(results(bare, comma, query="sounder")))
    text = (await sim.call("s1", "web_search", {"queries": ["sounder"]})).text
    assert "Snippet: Sounder was founded in 2009 by Anneke Vos" in text
    assert "Snippet: Velandre, officially the Republic of Velandre" in text


async def test_each_query_of_a_search_is_answered_and_remembered_on_its_own(
    velandre: World,
) -> None:
    model = ScriptedModel(results(REVIEW, query="a"), results(query="b"))
    sim = Simulator(velandre, model)
    both = await sim.call("s1", "web_search", {"queries": ["a", "b"]})
    assert both.text == (
        render_results("a", [REVIEW], "Sounder") + "\n\n" + render_results("b", [], "Sounder")
    )
    shown = [
        json.loads(m.messages[-1]["content"].split("**Action:**\n```json\n")[1].split("\n```")[0])
        for m in model.requests
    ]
    assert [s["arguments"]["queries"] for s in shown] == [["a"], ["b"]]
    assert (await sim.call("s1", "web_search", {"queries": ["b"]})).source == "memory"


async def test_a_search_answer_without_results_is_not_remembered(velandre: World) -> None:
    model = ScriptedModel(ScriptedModel.answer("I cannot search."), results(REVIEW))
    sim = Simulator(velandre, model)
    failed = await sim.call("s1", "web_search", {"queries": ["toll review"]})
    assert failed.is_error and failed.source == "model_error"
    retried = await sim.call("s1", "web_search", {"queries": ["toll review"]})
    assert retried.source == "model" and REVIEW_URL in retried.text


async def test_an_unknown_url_gives_a_404_on_a_known_site_and_no_host_elsewhere(
    velandre: World,
) -> None:
    sim = Simulator(velandre, ScriptedModel())
    missing = await sim.call("s1", "open_page", {"url": "https://courier.vl/news/none"})
    assert missing.is_error and missing.source == "memory"
    assert "404" in missing.text and "/news/none" in missing.text
    # A site only the canon mentions is a site of this world too.
    ferries = await sim.call("s1", "open_page", {"url": "https://meridianferries.vl/timetable"})
    assert "404" in ferries.text
    nowhere = await sim.call("s1", "open_page", {"url": "https://example.com/"})
    assert "could not resolve host example.com" in nowhere.text


async def test_a_seeded_page_with_text_opens_verbatim(velandre: World) -> None:
    sim = Simulator(velandre, None)
    url = "https://courier.vl/news/2030/06/02/calder-bridge-opens"
    page = await sim.call("s1", "open_page", {"url": url})
    assert page.source == "memory"
    assert page.text.startswith("# Calder Bridge opens to traffic after six years of work\n")
    assert "Cars pay 6 marks each way." in page.text


async def test_pages_shown_by_a_pinned_search_are_remembered(velandre: World) -> None:
    model = ScriptedModel(ScriptedModel.answer("# x\n\nThe 7.4 km bridge..."), NO_FACTS)
    sim = Simulator(velandre, model)
    pinned = await sim.call("s1", "web_search", {"queries": ["calder bridge"]})
    assert pinned.source == "fixture"
    page = await sim.call("s1", "open_page", {"url": "https://velapedia.vl/wiki/Calder_Bridge"})
    assert page.text.startswith("# Calder Bridge - Velapedia\n")


async def test_an_allowed_unknown_url_is_invented_once_and_kept(velandre: World) -> None:
    assert velandre.search is not None
    invent = velandre.model_copy(
        update={"search": velandre.search.model_copy(update={"unknown_urls": "invent"})}
    )
    page_text = "# Meridian Ferries timetable\n\nFerries to Greyhollow leave at 07:00."
    model = ScriptedModel(ScriptedModel.answer(page_text), NO_FACTS)
    sim = Simulator(invent, model)
    url = "https://meridianferries.vl/timetable"
    assert not sim.answers_without_model("open_page", {"url": url})
    first = await sim.call("s1", "open_page", {"url": url})
    again = await sim.call("s2", "open_page", {"url": url})
    assert first.text == page_text and again.text == page_text and again.source == "memory"
    assert "no result has shown this address" in last_user_message(model, 0)
    record = sim.pages.memory.page(url) if sim.pages else None
    assert record is not None and record.title == "Meridian Ferries timetable"
    assert record.origin == "invented"


async def test_results_about_a_reference_question_carry_its_answer_in_the_turn(
    velandre: World,
) -> None:
    supporting = SearchResult(
        "https://transport.gov.vl/tolls", "Tolls", "Cars pay 6 marks each way.", "2031-01-01"
    )
    model = ScriptedModel(results(supporting, query="calder bridge toll"))
    sim = Simulator(velandre, model)
    result = await sim.call("s1", "web_search", {"queries": ["calder bridge toll"]})
    turn = last_user_message(model)
    assert (
        "**Simulation Instruction:**\nTarget Query: What is the toll on the Calder Bridge?\n"
        in turn
    )
    assert "Reference Answer: 6 marks per car each way" in turn
    assert "6 marks" in result.text and result.violations == ()
    assert len(model.requests) == 1


async def test_results_that_miss_the_reference_answer_are_asked_for_once_more(
    velandre: World,
) -> None:
    wrong = SearchResult("https://a.vl/x", "Tolls", "Cars pay 9 marks.", "2031-01-01")
    right = SearchResult("https://a.vl/y", "Tolls", "Cars pay 6 marks each way.", "2031-01-01")
    model = ScriptedModel(
        results(wrong, query="calder bridge toll"), results(right, query="calder bridge toll")
    )
    sim = Simulator(velandre, model)
    result = await sim.call("s1", "web_search", {"queries": ["calder bridge toll"]})
    assert "https://a.vl/y" in result.text and "https://a.vl/x" not in result.text
    correction = model.requests[1].messages
    assert correction[-2]["role"] == "assistant"
    assert "do not state the Reference Answer: 6 marks" in correction[-1]["content"]
    # Only the results the agent saw are remembered.
    assert sim.pages is not None and sim.pages.memory.page("https://a.vl/x") is None


async def test_a_reference_answer_still_missing_is_reported_in_the_journal(
    velandre: World,
) -> None:
    wrong = SearchResult("https://a.vl/x", "Tolls", "Cars pay 9 marks.", "2031-01-01")
    model = ScriptedModel(*[results(wrong, query="calder bridge toll")] * 2)
    sim = Simulator(velandre, model)
    result = await sim.call("s1", "web_search", {"queries": ["calder bridge toll"]})
    assert result.violations == (
        "results for 'calder bridge toll' do not support: What is the toll on the Calder Bridge?",
    )
    (record,) = sim.journal.records("s1")
    assert record.violations == list(result.violations)


async def test_a_page_that_misses_its_snippets_numbers_is_written_again(velandre: World) -> None:
    vague = "# x\n\nThe ministry will review the toll at some point."
    model = ScriptedModel(
        results(REVIEW), ScriptedModel.answer(vague), ScriptedModel.answer(REVIEW_PAGE), NO_FACTS
    )
    sim = Simulator(velandre, model)
    await sim.call("s1", "web_search", {"queries": ["toll review"]})
    page = await sim.call("s1", "open_page", {"url": REVIEW_URL})
    assert "in 2032" in page.text and page.violations == ()
    assert "the snippet's 6, 2032" in model.requests[2].messages[-1]["content"]


async def test_facts_a_new_page_states_are_shown_to_later_calls(velandre: World) -> None:
    facts = '{"facts": ["The Calder toll review is due in 2032."]}'
    model = ScriptedModel(
        results(REVIEW), ScriptedModel.answer(REVIEW_PAGE), facts, results(query="toll review 2032")
    )
    sim = Simulator(velandre, model)
    await sim.call("s1", "web_search", {"queries": ["toll review"]})
    await sim.call("s1", "open_page", {"url": REVIEW_URL})
    follow_up = model.requests[2]
    assert follow_up.response_schema is not None and follow_up.sampling.thinking is False
    await sim.call("s2", "web_search", {"queries": ["toll review 2032"]})
    assert "**Established Facts:**" in last_user_message(model)
    assert "- The Calder toll review is due in 2032." in last_user_message(model)


async def test_a_world_may_turn_fact_learning_off(velandre: World) -> None:
    assert velandre.search is not None
    quiet = velandre.model_copy(
        update={"search": velandre.search.model_copy(update={"learn_facts": False})}
    )
    model = ScriptedModel(results(REVIEW), ScriptedModel.answer(REVIEW_PAGE))
    sim = Simulator(quiet, model)
    await sim.call("s1", "web_search", {"queries": ["toll review"]})
    await sim.call("s1", "open_page", {"url": REVIEW_URL})
    assert len(model.requests) == 2
    assert "**Established Facts:**" not in last_user_message(model)


async def test_two_sessions_opening_a_new_page_at_once_ask_the_model_once(
    velandre: World,
) -> None:
    model = ScriptedModel(results(REVIEW), ScriptedModel.answer(REVIEW_PAGE), NO_FACTS)
    sim = Simulator(velandre, model)
    await sim.call("s1", "web_search", {"queries": ["toll review"]})
    pages: dict[str, str] = {}

    async def open_in(session: str) -> None:
        pages[session] = (await sim.call(session, "open_page", {"url": REVIEW_URL})).text

    with anyio.fail_after(10):
        async with anyio.create_task_group() as tg:
            for session in ("a", "b", "c"):
                tg.start_soon(open_in, session)
    assert len(set(pages.values())) == 1
    assert len(model.requests) == 3  # the search, the page, its facts
    assert sim.pages is not None and not sim.pages._locks  # none kept once nobody waits


async def test_a_bounded_model_answers_results_as_json_shown_in_the_native_format(
    velandre: World,
) -> None:
    answer = json.dumps({"results": [REVIEW.as_json()]})
    model = ScriptedModel(answer)
    sim = Simulator(velandre, model, settings=Settings.of(bounded_output=True))
    result = await sim.call("s1", "web_search", {"queries": ["toll review"]})
    assert result.text == render_results("toll review", [REVIEW], "Sounder")
    request = model.requests[0]
    assert (
        request.response_schema is not None and "results" in request.response_schema["properties"]
    )
    assert "**Answer Format:**" in request.messages[-1]["content"]


async def test_a_bounded_model_writes_pages_in_an_envelope(velandre: World) -> None:
    model = ScriptedModel(
        json.dumps({"results": [REVIEW.as_json()]}),
        json.dumps({"observation": REVIEW_PAGE}),
        NO_FACTS,
    )
    sim = Simulator(velandre, model, settings=Settings.of(bounded_output=True))
    await sim.call("s1", "web_search", {"queries": ["toll review"]})
    page = await sim.call("s1", "open_page", {"url": REVIEW_URL})
    assert page.text.startswith(f"# {REVIEW.title}\n\n*The Port Ysolde Courier*")
    schema = model.requests[1].response_schema
    assert schema is not None and list(schema["properties"]) == ["observation"]


async def test_without_a_model_an_unseen_search_is_a_clear_error(velandre: World) -> None:
    sim = Simulator(velandre, None)
    assert not sim.answers_without_model("web_search", {"queries": ["new"]})
    result = await sim.call("s1", "web_search", {"queries": ["new"]})
    assert result.is_error and "--model-url" in result.text


def test_a_world_whose_search_tools_do_not_exist_is_refused() -> None:
    text = VELANDRE.read_text().replace("search:\n  engine: Sounder", "search:\n  open_tool: read")
    with pytest.raises(Exception, match="no tool named 'read'"):
        parse_world(text)

"""The search domain's native formats: numbered results and Markdown pages."""

from __future__ import annotations

import json

import jsonschema

from mcp_sim.prompting.bounds import OutputBounds
from mcp_sim.prompting.search_formats import (
    SearchResult,
    lead_of,
    not_found_page,
    parse_results,
    parse_structured,
    render_results,
    results_schema,
    title_of,
    unresolvable,
    with_title,
)

BRIDGE = SearchResult(
    url="https://velapedia.vl/wiki/Calder_Bridge",
    title="Calder Bridge - Velapedia",
    snippet="The Calder Bridge is a 7.4 km road bridge...",
    date="2031-02-03",
)
COURIER = SearchResult(
    url="https://courier.vl/news/2030/06/02/calder-bridge-opens",
    title="Calder Bridge opens to traffic after six years of work",
    snippet="The first cars crossed the Calder Bridge at 06:00 this morning.",
    date="2030-06-02",
)


def test_results_are_numbered_with_url_title_snippet_and_date_lines() -> None:
    text = render_results("calder bridge", [BRIDGE, COURIER], "Sounder")
    assert text.splitlines()[:6] == [
        'Sounder found 2 results for "calder bridge":',
        "",
        "[1] https://velapedia.vl/wiki/Calder_Bridge",
        "Title: Calder Bridge - Velapedia",
        "Snippet: The Calder Bridge is a 7.4 km road bridge...",
        "Date: 2031-02-03",
    ]
    assert "\n\n[2] https://courier.vl/news/2030/06/02/calder-bridge-opens\n" in text


def test_a_query_without_results_says_so_in_one_line() -> None:
    assert render_results("eiffel tower", []) == 'Found 0 results for "eiffel tower".'


def test_rendered_results_parse_back_to_the_same_results() -> None:
    assert parse_results(render_results("q", [BRIDGE, COURIER])) == [BRIDGE, COURIER]


def test_parsing_tolerates_bold_field_names_and_snippets_over_several_lines() -> None:
    text = (
        "Here are the results.\n\n[1] https://a.vl/x\n**Title:** First\n**Snippet:** one line\n"
        "and its continuation\n**Date:** 2030-01-02\n\n[2]\nURL: https://b.vl/y\nTitle: Second\n"
        "Snippet: two\nDate: published 2029-05-06"
    )
    assert parse_results(text) == [
        SearchResult("https://a.vl/x", "First", "one line and its continuation", "2030-01-02"),
        SearchResult("https://b.vl/y", "Second", "two", "2029-05-06"),
    ]


def test_parsing_drops_results_without_a_url_or_title_and_repeated_urls() -> None:
    text = (
        "[1] not-a-url\nTitle: No URL\n\n[2] https://a.vl/x\nSnippet: no title\n\n"
        "[3] https://a.vl/y\nTitle: Kept\n\n[4] https://a.vl/y\nTitle: Repeated"
    )
    assert parse_results(text) == [SearchResult("https://a.vl/y", "Kept")]


def test_the_json_results_of_a_bounded_model_satisfy_their_schema_and_parse() -> None:
    schema = results_schema(10, OutputBounds())
    answer = {"results": [BRIDGE.as_json(), COURIER.as_json(), BRIDGE.as_json()]}
    jsonschema.validate(answer, schema)
    assert 1 <= schema["properties"]["results"]["minItems"] <= 3
    assert schema["properties"]["results"]["maxItems"] < 10
    assert parse_structured(json.dumps(answer)) == [BRIDGE, COURIER]
    assert parse_structured("not json") is None
    assert parse_structured('{"results": "none"}') is None


def test_a_bounded_result_schema_never_pairs_a_pattern_with_a_length() -> None:
    # vLLM's xgrammar backend rejects a string schema that has both.
    item = results_schema(10, OutputBounds())["properties"]["results"]["items"]
    for prop in item["properties"].values():
        assert not ("pattern" in prop and ("maxLength" in prop or "minLength" in prop))


def test_a_page_starts_with_the_title_it_was_found_under() -> None:
    assert (
        with_title("# Something else\n\nBody text.", "Right Title") == "# Right Title\n\nBody text."
    )
    assert with_title("Body text.", "Right Title") == "# Right Title\n\nBody text."
    assert title_of("\n# Right Title\n\nBody") == "Right Title"
    assert title_of("Body") is None


def test_the_lead_paragraph_skips_headings_bylines_and_lists() -> None:
    page = "# Title\n\n*By someone*\n\n- a list\n\nThe first real   paragraph.\n\nMore."
    assert lead_of(page) == "The first real paragraph."
    assert lead_of("x" * 300).endswith("...") and len(lead_of("x" * 300)) == 240


def test_errors_for_missing_pages_and_hosts_name_the_address() -> None:
    page = not_found_page("https://courier.vl/nope?x=1")
    assert "404" in page and "/nope?x=1" in page
    assert "could not resolve host nowhere.vl" in unresolvable("https://nowhere.vl/a")

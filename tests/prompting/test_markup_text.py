"""Texts in markup rendered as their facts read: a wiki page's properties table, its macros'
named values and its mentions (with the names of the records they name), an HTML table with a
header row, a Markdown table; prose naming a tag is no markup."""

from __future__ import annotations

import json

from pytest import MonkeyPatch

from mcp_sim.prompting import markup_text
from mcp_sim.prompting.markup_text import MARKUP_NOTE, is_markup, markup_fields, rendered

_LEAD = "5b0c41e2a7d3f90012ab34cd"
PAGE = (
    '<ac:structured-macro ac:name="details" ac:schema-version="1"><ac:rich-text-body>'
    "<table><tbody>"
    '<tr><th>Severity</th><td><ac:structured-macro ac:name="status" ac:schema-version="1">'
    '<ac:parameter ac:name="colour">Red</ac:parameter>'
    '<ac:parameter ac:name="title">SEV1</ac:parameter></ac:structured-macro></td></tr>'
    '<tr><th>Service</th><td><ac:link><ri:page ri:content-title="Ledger API" /></ac:link></td></tr>'
    '<tr><th>Date</th><td><time datetime="2025-03-20" /></td></tr>'
    "<tr><th>Duration (min)</th><td>54</td></tr>"
    f'<tr><th>Incident lead</th><td><ac:link><ri:user ri:account-id="{_LEAD}" /></ac:link></td></tr>'
    "</tbody></table></ac:rich-text-body></ac:structured-macro>"
    "<h2>Summary</h2><p>Ledger API: latency &amp; errors.</p>"
)


def _names(value: str) -> str | None:
    return "Ana Lee" if value == _LEAD else None


def test_a_pages_properties_are_rows_and_its_mentions_carry_their_names() -> None:
    assert is_markup(PAGE)
    shown = rendered(PAGE, _names)[MARKUP_NOTE]
    # A status by its title (not its colour), a mention by its person's name.
    assert shown["rows"] == {
        "Severity": "SEV1",
        "Service": "Ledger API",
        "Date": "2025-03-20",
        "Duration (min)": "54",
        "Incident lead": "Ana Lee",
    }
    assert shown["text"] == "Summary; Ledger API: latency & errors."
    assert shown["mentions"] == {_LEAD: "Ana Lee"}
    assert len(json.dumps(shown)) < len(PAGE) / 2


def test_a_rows_value_is_what_its_cell_shows() -> None:
    assert markup_fields(PAGE, _names)["Incident lead"] == "Ana Lee"
    assert markup_fields(PAGE)["Incident lead"] == _LEAD
    # Unnamed, a mention is its id, in the text too.
    other = PAGE.replace("<th>Incident lead</th>", "<td>Lead</td>")
    assert f"Lead | {_LEAD}" in rendered(other)[MARKUP_NOTE]["text"]


def test_an_html_table_with_a_header_row_is_rows_of_cells() -> None:
    page = (
        "<html><body><table><tr><th>Part</th><th>Qty</th></tr><tr><td>Bolt</td><td>4</td>"
        "</tr><tr><td>Nut</td><td>12</td></tr></table><ul><li>checked</li><li>packed</li>"
        "</ul><p>Ship <a href='https://x.example'>today</a><br>before noon</p></body></html>"
    )
    assert is_markup(page)
    assert rendered(page) == {
        MARKUP_NOTE: {
            "text": "Part | Qty; Bolt | 4; Nut | 12; checked; packed; Ship today; before noon"
        }
    }
    assert markup_fields(page) == {}


def test_a_markdown_table_is_rows() -> None:
    text = (
        "# Service card\n\n| Key | Value |\n|---|---|\n| Owner | Ana Lee |\n| Tier | 2 |\n\n"
        "Runs the nightly ledger close for every region we operate in."
    )
    assert is_markup(text)
    assert rendered(text) == {
        MARKUP_NOTE: {
            "rows": {"Owner": "Ana Lee", "Tier": "2"},
            "text": "Service card; Key | Value; "
            "Runs the nightly ledger close for every region we operate in.",
        }
    }
    assert markup_fields(text) == {"Owner": "Ana Lee", "Tier": "2"}


def test_prose_is_no_markup() -> None:
    prose = (
        "Wrap the value in a <code> element when it is an identifier; keep the rest of "
        "the paragraph as it is, and write the list of changes below it, one a line."
    )
    assert not is_markup(prose)
    assert not is_markup("<p>Short.</p>")


def test_a_text_is_parsed_once_while_its_names_stay_the_same(monkeypatch: MonkeyPatch) -> None:
    parsed: list[str] = []
    feed = markup_text._Renderer.feed

    def counted(parser: markup_text._Renderer, text: str) -> None:
        parsed.append(text)
        feed(parser, text)

    monkeypatch.setattr(markup_text._Renderer, "feed", counted)
    page = PAGE + "<p>parsed once</p>"
    first = rendered(page, _names)
    first[MARKUP_NOTE]["rows"]["Severity"] = "changed by its caller"
    again = rendered(page, _names)
    assert len(parsed) == 1 and again[MARKUP_NOTE]["rows"]["Severity"] == "SEV1"
    # A renamed user: the page is rendered anew, with the new name.
    renamed = rendered(page, lambda v: "Ana Roe" if v == _LEAD else None)
    assert len(parsed) == 2 and renamed[MARKUP_NOTE]["rows"]["Incident lead"] == "Ana Roe"
    assert rendered(page, _names) == again and len(parsed) == 3

"""Records holding texts in markup: shown with those texts rendered (and where they are), and
summed up with their key/value rows as fields beside their own."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.markup_records import markup_rows, rendered_record, with_markup_fields
from mcp_sim.prompting.markup_text import MARKUP_NOTE
from tests.prompting.test_markup_text import _LEAD, PAGE, _names


def _page(body: str = PAGE) -> dict[str, Any]:
    return {"id": "77", "status": "current", "body": {"storage": {"value": body}}, "tags": []}


def test_a_records_markup_is_rendered_where_it_is() -> None:
    found = rendered_record(_page(), _names)
    assert found is not None
    record, places = found
    assert places == {"/body/storage/value"}
    shown = record["body"]["storage"]["value"][MARKUP_NOTE]
    assert shown["rows"]["Incident lead"] == "Ana Lee"
    assert record["id"] == "77" and _page()["body"]["storage"]["value"] == PAGE
    assert rendered_record({"id": "77", "body": "<p>Short.</p>"}) is None


def test_a_records_rows_are_fields_beside_its_own() -> None:
    body = PAGE.replace("<th>Severity</th>", "<th>Status</th>")
    rows = markup_rows(_page(body), _names)
    # The page's own ``status`` stays; its properties' ``Status`` keeps its capital.
    assert rows["Status"] == "SEV1" and "status" not in rows
    assert rows["incident lead"] == "Ana Lee" and rows["duration (min)"] == 54
    record = with_markup_fields(_page(body), _names)
    assert record["status"] == "current" and record["Status"] == "SEV1"
    plain = {"id": "1", "name": "x"}
    assert with_markup_fields(plain) is plain
    assert markup_rows(_page())["incident lead"] == _LEAD

"""A record too large for its room is skimmed before it is outlined: the ids and hashes deep
in it stay, long text, repeated parts and repeated values go."""

from __future__ import annotations

import json
from typing import Any

from mcp_sim.prompting.record_render import dumps, record_line
from mcp_sim.prompting.shown_records import record_pointers
from mcp_sim.prompting.skimmed_records import skimmed

RETRIEVED = {
    "snaktype": "value",
    "property": "P813",
    "datavalue": {"value": {"time": "+2024-06-01T00:00:00Z", "timezone": 0}, "type": "time"},
    "hash": "5b7bba65e019ba7843c043d199c3b57a5ade868f",
}


def statement(n: int) -> dict[str, Any]:
    return {
        "id": f"Q42${n:08X}-AAAA-BBBB-CCCC-DDDDEEEEFFFF",
        "type": "statement",
        "rank": "normal",
        "mainsnak": {
            "snaktype": "value",
            "property": f"P{100 + n}",
            "hash": f"{n:040x}",
            "datavalue": {"value": {"entity-type": "item", "id": f"Q{n}"}, "type": "item"},
        },
        "references": [{"hash": f"r{n:039x}", "snaks": {"P813": [RETRIEVED]}}],
    }


def entity() -> dict[str, Any]:
    claims = {f"P{100 + n}": [statement(n)] for n in range(12)}
    return {"id": "Q42", "description": "x" * 600, "claims": claims}


def test_a_skimmed_record_keeps_every_id_and_hash_and_drops_bulk() -> None:
    record = entity()
    shown = skimmed(record, set(), pairs=True)
    text = dumps(shown)
    assert len(text) < len(dumps(record)) * 0.7
    for n in range(12):
        assert f'"id":"Q42${n:08X}-AAAA-BBBB-CCCC-DDDDEEEEFFFF"' in text
        assert f'"hash":"{n:040x}"' in text and f'"hash":"r{n:039x}"' in text
    # The same reference under every statement is shown once and named after that.
    assert text.count("5b7bba65e019ba7843c043d199c3b57a5ade868f") == 1
    assert "<same as /claims/P100/0/references/0/snaks>" in text
    assert text.count('"rank":"normal"') == 1
    assert "<600 characters>" in text


def test_the_focus_of_a_skimmed_record_stays_whole() -> None:
    record = entity()
    shown = skimmed(record, {"/description"}, pairs=True)
    assert shown["description"] == "x" * 600


def test_a_record_too_large_for_its_room_is_skimmed_before_it_is_outlined() -> None:
    record = entity()
    whole = len(dumps(record))
    line = record_line("/entities/7", record, set(), whole * 3 // 4)
    assert line is not None and "<outlined" not in line
    shown = json.loads(line.split(": ", 1)[1])
    assert shown["claims"]["P111"][0]["mainsnak"]["hash"] == f"{11:040x}"
    # A skimmed record is not the record whole: a later turn shows it again.
    assert record_pointers(line) == ()

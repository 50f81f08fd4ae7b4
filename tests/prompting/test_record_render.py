"""How a record is written into a view: a calendar keeps only the focused day, small parts are
never replaced by a longer note, and many matches share the room as compactly as they can."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_sim.prompting import records_section as records_section_module
from mcp_sim.prompting.grounding import Pick
from mcp_sim.prompting.record_render import _Trimmer, record_line, trimmed
from mcp_sim.prompting.records_section import records_section


def flight() -> dict[str, Any]:
    days = {f"2025-05-{d:02d}": {"price": d, "seats": 9} for d in range(1, 29)}
    return {"origin": "JFK", "tags": ["a", "b"], "dates": days, "log": ["x" * 50] * 20}


def test_a_calendar_on_the_way_to_the_focused_day_keeps_only_that_day() -> None:
    shown = trimmed(flight(), {"/dates/2025-05-07"}, 400)
    assert shown["dates"]["2025-05-07"] == {"price": 7, "seats": 9}
    assert set(shown["dates"]) == {"2025-05-07", "…"}
    assert shown["dates"]["…"].startswith("<outlined: 27 more entries")


def test_a_part_shorter_than_its_note_is_kept() -> None:
    shown = trimmed(flight(), set(), 0)
    assert shown["tags"] == ["a", "b"]
    assert shown["log"] == "<outlined: array of 20 items>"


def test_scalars_only_outlines_every_larger_part() -> None:
    line = record_line("/flights/F1", flight(), set(), 10_000, scalars=True)
    assert line is not None and '"dates":"<outlined: object of 28 entries' in line
    assert line.startswith("- /flights/F1 (large parts outlined): ")


def test_scalars_only_keeps_a_part_little_longer_than_its_note() -> None:
    student = {"email": "s1@uni.example", "name": {"family": "Laine", "given": "Kaito"}}
    student["grades"] = {f"T{n}": {"score": n, "credits": 5} for n in range(4)}
    line = record_line("/students/s1", student, set(), 10_000, scalars=True)
    assert line is not None and '"name":{"family":"Laine","given":"Kaito"}' in line
    assert '"grades":"<outlined: object of 4 entries>"' in line
    # A list's items beside the focused one stay outlined: a parcel's other scans.
    scans = [{"at": f"2025-01-0{d}T10:00", "hub": "H-1"} for d in range(1, 4)]
    compact = record_line("/parcels/P1", {"scans": scans}, {"/scans/0"}, 10_000, scalars=True)
    assert compact is not None and "2025-01-01" in compact and "2025-01-02" not in compact


def test_many_matches_share_the_room_compactly_rather_than_the_first_taking_it() -> None:
    state = {"flights": {f"F{i}": flight() for i in range(12)}}
    picks = [
        Pick(f"/flights/F{i}", "matched", complete=True, constraints=1, matched=1)
        for i in range(12)
    ]
    text = records_section(state, picks, [], 2_400)
    assert sum(line.startswith("- /flights/F") for line in text.splitlines()) >= 8


def test_past_a_few_records_that_do_not_fit_the_rest_are_named_untried(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state = {"dirs": {f"d{i}": {"text": "x" * 2000} for i in range(30)}}
    picks = [Pick(f"/dirs/d{i}", "linked") for i in range(30)]
    tried: list[str] = []

    def counting(pointer: str, *args: Any, **kwargs: Any) -> str | None:
        tried.append(pointer)
        return record_line(pointer, *args, **kwargs)

    monkeypatch.setattr(records_section_module, "record_line", counting)
    text = records_section(state, picks, [], 900)
    assert len(tried) == records_section_module.MOST_MISSES
    assert "- not shown for room: /dirs/d0, /dirs/d1" in text


def page() -> dict[str, Any]:
    """A page's children as a block-children list: each block's text nested deep in it."""
    blocks = [
        {
            "id": f"b{n}",
            "created_time": f"2025-05-0{n}T10:00:00Z",
            "paragraph": {"rich_text": [{"text": {"content": "word " * 60}}]},
        }
        for n in range(1, 9)
    ]
    return {"object": "list", "has_more": False, "results": blocks}


def test_a_list_of_records_too_large_to_show_is_opened_before_it_is_outlined() -> None:
    line = record_line("/blocks/p1", page(), set(), 1_200, opened=True)
    assert line is not None and '"results":[{' in line
    # Each block by its own fields, its large parts outlined.
    assert all(f'"id":"b{n}"' in line for n in range(1, 9)) and "word word" not in line
    # Whole where it fits; outlined whole where not even its records' fields fit.
    assert "word word" in (record_line("/blocks/p1", page(), set(), 20_000, opened=True) or "")
    assert '"results":"<outlined: array of 8 items>"' in (
        record_line("/blocks/p1", page(), set(), 300, opened=True) or ""
    )


def test_a_focused_record_keeps_its_lists_outlined() -> None:
    line = record_line("/blocks/p1", page(), {"/object"}, 1_200, focused=True, opened=True)
    assert line is not None and '"results":"<outlined' in line


def test_a_list_of_records_is_opened_only_when_asked() -> None:
    line = record_line("/blocks/p1", page(), set(), 1_200)
    assert line is not None and '"results":"<outlined: array of 8 items>"' in line


def test_room_left_at_the_end_opens_a_named_records_list() -> None:
    # Shown first with its blocks outlined (it does not fit whole); the room the page left
    # shows them by their own fields.
    state = {"blocks": {"p1": page()}, "pages": [{"id": "p1", "title": "Plan"}]}
    picks = [Pick("/blocks/p1", "named"), Pick("/pages/0", "named")]
    section = records_section(state, picks, [], 1_800)
    assert '"results":[{' in section and '- /pages/0: {"id":"p1"' in section


def test_a_part_is_on_the_way_to_a_focus_or_inside_one_as_the_pointers_compare() -> None:
    # The trimmer looks the places up rather than comparing each with every focus.
    focus = {"/dates/2025-05-01", "/units/3/units/0", "/a~1b", ""}
    trimmer = _Trimmer(focus, 100, {})
    places = ["", "/dates", "/dates/2025-05-01/price", "/dates/2025-05-0", "/units/3", "/units"]
    places += ["/units/3/units/0/code", "/units/3/units/01", "/a~1b/c", "/a", "/x"]
    for place in places:
        on = any(f == place or f.startswith(place + "/") for f in focus)
        inside = any(place == f or place.startswith(f + "/") for f in focus)
        assert (trimmer.on_focus(place), trimmer.inside_focus(place)) == (on, inside), place
    assert _Trimmer(set(), 100, {}).inside_focus("/dates") is False


def test_a_record_whose_keys_alone_overflow_the_room_is_not_trimmed(monkeypatch: Any) -> None:
    # Trimming keeps every key of the record (a sorted set's members): when their names alone
    # are longer than the room, no limit can make it fit, and none is tried.
    from mcp_sim.prompting import record_render

    members = {f"player:{i}": i for i in range(500)}
    tried: list[int] = []
    original = record_render.trimmed

    def counted(value: Any, focus: set[str], limit: int, **kwargs: Any) -> Any:
        tried.append(limit)
        return original(value, focus, limit, **kwargs)

    monkeypatch.setattr(record_render, "trimmed", counted)
    assert record_line("/lb", members, set(), 4000, focused=True) is None
    assert tried == []
    assert record_line("/lb", dict(list(members.items())[:20]), set(), 4000) is not None

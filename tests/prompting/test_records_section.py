"""The records section: how a record meeting a search's constraints is shown within the room."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

from mcp_sim.prompting.grounding import Pick, ground
from mcp_sim.prompting.records_section import FLAT_NOTE, records_section
from mcp_sim.prompting.search_result import SearchResult
from tests.prompting.test_field_search import overlay_of, users_state, world_of
from tests.prompting.test_markup_text import PAGE


def _record(n: int) -> dict[str, Any]:
    # A catalogue record whose id sits deep in one field, and whose copies fill another.
    copies = [{"barcode": f"3999900{n}{i:04d}", "branch": "MDL", "due": None} for i in range(40)]
    return {"fields": {"999": {"c": str(n)}, "952": copies, "245": {"a": f"Title {n}"}}}


STATE = {"records": [_record(1001), _record(1002)]}


def _pick(index: int) -> Pick:
    return Pick(
        f"/records/{index}", "matched", {"/fields/999"}, matched=1, complete=True, constraints=1
    )


def test_the_one_record_meeting_every_constraint_is_shown_whole_where_it_fits() -> None:
    section = records_section(STATE, [_pick(0)], [], 20_000)
    assert "39999001001" + "0039" in section  # its last copy: nothing outlined
    assert "large parts outlined" not in section


def test_records_sharing_the_room_are_shown_around_what_matched() -> None:
    section = records_section(STATE, [_pick(0), _pick(1)], [], 20_000)
    assert section.count("large parts outlined") == 2
    assert "39999001001" + "0039" not in section


def test_the_one_record_meeting_its_searchs_constraints_is_shown_whole_beside_anothers() -> None:
    # ``get_issue(number=806)``: the issue is the one record its search meets; a pull
    # request closing it is the one another search meets. Each is its search's whole answer.
    searches = [_search("/records", ["/records/0"]), _search("/other", ["/records/1"])]
    section = records_section(STATE, [_pick(0), _pick(1)], searches, 20_000)
    assert "large parts outlined" not in section


def test_room_a_fair_share_left_unused_goes_to_the_records_it_trimmed() -> None:
    # A named record shares the room with a match first; the match takes less than its share.
    small = {"id": "x", "fields": {"999": {"c": "7"}}}
    state = {"records": [_record(1001)], "matches": [small]}
    named = Pick("/records/0", "named", evident=True)
    match = Pick("/matches/0", "matched", {"/fields/999"}, matched=1, complete=True)
    section = records_section(state, [named, match], [], 5_000)
    assert "39999001001" + "0039" in section and "large parts outlined" not in section
    # With no room to spare, it keeps its share.
    section = records_section(state, [named, match], [], 1_500)
    assert "- /records/0 (large parts outlined)" in section and "- /matches/0" in section


def _search(collection: str, full: list[str]) -> SearchResult:
    found = SimpleNamespace(
        collection=SimpleNamespace(pointer=collection),
        full=full,
        constraints=[],
        join=None,
        nested=None,
        page=None,
        count=None,
    )
    return cast(SearchResult, found)


def test_a_hash_kept_as_a_flat_array_is_shown_by_its_fields() -> None:
    keys = {f"bed#b{n}": ["planting", f"Cedar {n}", "medium", "coir"] for n in range(5)}
    keys["bed#b1#growers"] = ["GR-1", "GR-2"]
    shown = records_section({"db0": keys}, [Pick("/db0/bed#b1", "named")], [], 2000)
    assert '- /db0/bed#b1: {"medium":"coir","planting":"Cedar 1"}' in shown
    assert FLAT_NOTE in shown
    growers = records_section({"db0": keys}, [Pick("/db0/bed#b1#growers", "named")], [], 2000)
    assert '"growers": ["GR-1","GR-2"]' in growers and FLAT_NOTE not in growers


def test_a_record_not_shown_whole_shows_its_markup_rendered() -> None:
    def page(n: int) -> dict[str, Any]:
        history = [{"version": v, "by": "acc-0001", "note": "edited"} for v in range(60)]
        return {"id": n, "history": history, "body": {"storage": {"value": PAGE}}}

    state = {"pages": [page(1), page(2)]}
    picks = [Pick(f"/pages/{i}", "matched", set(), matched=1, complete=True) for i in (0, 1)]
    section = records_section(state, picks, [], 3_000)
    # Outlined with the rest, the body would show none of the page's facts.
    assert section.count('"Severity":"SEV1"') == 2 and "<ac:" not in section
    # Shown whole, a page keeps its body as stored.
    whole = records_section({"pages": [{"id": 1, "body": PAGE}]}, picks[:1], [], 20_000)
    assert "<ac:structured-macro" in whole
    # With its rendering beside it where that fits too (an answer may read the rows).
    assert '"body, rendered from its markup":{"rows"' in whole
    assert '"Severity":"SEV1"' in whole


def test_a_searchs_matches_an_earlier_turn_shows_are_counted_shown_not_named_again() -> None:
    # A later turn searches what an earlier one did (a user's orders): the matches it shows
    # already are named once, on the line after the section, not as "not shown for room".
    world = world_of(users_state(), ("find_users", "Find users."))
    found = ground(overlay_of(world), world.state, world.tool("find_users"), {"last_name": "Lee"})
    matches = found.searches[0].full
    known = set(matches[:10])
    picks = [pick for pointer, pick in found.picks.items() if pointer not in known]
    section = records_section(world.state, picks, found.searches, 900, known=known)
    note = next(line for line in section.splitlines() if line.startswith("- Search of"))
    assert "10 in an earlier turn" in note and "not shown for room" in note
    assert not any(f"{pointer}," in note or f"{pointer}." in note for pointer in known)
    everything = records_section(world.state, picks, found.searches, 30_000, known=known)
    assert "20 records meet it, all shown below or in an earlier turn." in everything
    # Without what the history shows, the same section names them as left out for room.
    before = records_section(world.state, picks, found.searches, 900)
    assert "in an earlier turn" not in before and matches[0] in before

"""Where a call's rare values sit, shown raw with one hop, when the records shown miss them;
and only in the room left when the readers found records holding them."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.grounding import ground
from mcp_sim.prompting.value_neighbourhoods import HEADING, LEFTOVER_SHARE, Neighbourhoods
from tests.prompting.test_rare_values import overlay_of, world_of


def gallery_state() -> dict[str, Any]:
    """Artworks, and loans stored apart: each loan links a lender's code to an artwork's."""
    artworks = [
        {"code": f"AW{n:04d}", "title": f"Study in blue {n}", "year": 1900 + n} for n in range(60)
    ]
    loans = [
        {
            "lender": f"LND-{n % 20:03d}",
            "artwork": f"AW{n:04d}",
            "since": f"2025-01-{n % 28 + 1:02d}",
        }
        for n in range(60)
    ]
    return {"artworks": artworks, "loans": loans}


def test_a_value_no_record_shown_holds_is_shown_where_it_sits_and_one_hop_on() -> None:
    world = world_of(gallery_state(), "lent_by")
    overlay = overlay_of(world)
    found = Neighbourhoods.of(overlay, ["lnd-007"], picked=(), searched=False)
    assert found is not None
    records, view = found.beside(lambda room: "", world.state, 6000)
    assert found.short
    # The three loan records holding the code, grouped by where they sit ...
    assert view.startswith(HEADING)
    assert '"lnd-007", 3 places at /loans/*/lender:' in view
    for n in (7, 27, 47):
        assert f'- /loans/{n}: {{"artwork":"AW{n:04d}"' in view
        # ... each followed by its artwork's code to the artwork itself.
        assert f'  leads by "aw{n:04d}" to:\n- /artworks/{n}: ' in view
        assert f'"title":"Study in blue {n}"' in view
    assert records == ""


def test_places_past_the_room_are_counted() -> None:
    world = world_of(gallery_state(), "lent_by")
    found = Neighbourhoods.of(overlay_of(world), ["lnd-007"], picked=(), searched=False)
    assert found is not None
    view = found.render(world.state, len(HEADING) + 420)
    assert "/loans/7" in view
    assert "(1 more place not shown for room)" in view


def test_records_a_reader_found_keep_their_room() -> None:
    world = world_of(gallery_state(), "lent_by")
    overlay = overlay_of(world)
    shown = '- /loans/7: {"artwork":"AW0007","lender":"LND-007"}\n' + "x" * 5000
    found = Neighbourhoods.of(overlay, ["lnd-007"], picked=["/loans/7"], searched=True)
    assert found is not None
    rooms: list[int] = []

    def records(room: int) -> str:
        rooms.append(room)
        return shown

    records_text, view = found.beside(records, world.state, 6000)
    # Rendered once, in the whole room: the view has only what the records leave.
    assert rooms == [6000]
    assert records_text == shown
    assert not found.short
    assert len(records_text) + len(view) + 2 <= 6000
    assert "/loans/7:" not in view


def test_room_the_records_leave_is_filled_only_up_to_a_share() -> None:
    world = world_of(gallery_state(), "lent_by")
    overlay = overlay_of(world)
    shown = '- /loans/7: {"artwork":"AW0007","lender":"LND-007"}'
    found = Neighbourhoods.of(
        overlay, ["lnd-007", "lnd-008", "lnd-009"], picked=["/loans/7"], searched=True
    )
    assert found is not None
    records_text, view = found.beside(lambda room: shown, world.state, 3000)
    # The other places would fill most of the room; a prompt grown by all of it compacts
    # the history at other turns, so the view keeps to a share.
    assert records_text == shown
    assert "/loans/27" in view
    assert len(view) <= 3000 // LEFTOVER_SHARE
    assert len(found.render(world.state, 3000, shown)) > 3000 // LEFTOVER_SHARE


def test_a_call_grounds_the_places_of_its_values() -> None:
    world = world_of(gallery_state(), "lent_by")
    overlay = overlay_of(world)
    grounding = ground(overlay, world.state, world.tools[0], {"lender": "LND-007"})
    assert grounding.places is not None
    value, places = grounding.places.places[0]
    assert value == "lnd-007"
    assert {p.record for p in places} == {"/loans/7", "/loans/27", "/loans/47"}

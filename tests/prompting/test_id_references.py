"""Records referred to by an id they hold inside, not by their key: few holders at an id
field name them; many name none; the referring record is never its own target."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.id_references import id_owners
from mcp_sim.runtime.state_index import StateIndex, StateOverlay
from mcp_sim.spec.world import World


def overlay_of(items: list[dict[str, Any]]) -> StateOverlay:
    world = World.model_validate(
        {
            "world": "t",
            "title": "T",
            "description": "Things holding ids inside.",
            "state": {"things": items},
            "tools": [
                {"name": "get", "description": "A thing.", "input_schema": {"type": "object"}}
            ],
        }
    )
    return StateIndex(world, world.state).overlay_of(world.state)


def things(holders: int) -> list[dict[str, Any]]:
    """A referrer holding ``grp-7`` in a plain field, and ``holders`` things holding it at
    ``attributes/group_id``; filler so that the value is rare."""
    items: list[dict[str, Any]] = [{"name": "referrer", "uses": "grp-7"}]
    items += [{"name": f"holder{n}", "attributes": {"group_id": "grp-7"}} for n in range(holders)]
    items += [{"name": f"other{n}", "attributes": {"group_id": f"grp-x{n}"}} for n in range(20)]
    return items


def test_a_value_few_hold_at_an_id_field_names_them_and_not_the_referrer() -> None:
    overlay = overlay_of(things(2))
    owners = id_owners(overlay, "grp-7", "/things/0")
    assert sorted(owners) == ["/things/1", "/things/2"]
    assert all(inner.endswith("group_id") for inner in owners.values())
    # The referrer is excluded even where it holds the value at an id field itself.
    assert sorted(id_owners(overlay, "grp-7", "/things/1")) == ["/things/2"]


def test_a_value_many_hold_at_an_id_field_names_none() -> None:
    overlay = overlay_of(things(3))
    assert id_owners(overlay, "grp-7", "/things/0") == {}
    # Excluding one of the three leaves two: they are the ones it names.
    assert sorted(id_owners(overlay, "grp-7", "/things/3")) == ["/things/1", "/things/2"]
    assert id_owners(overlay_of(things(5)), "grp-7", "/things/1") == {}


def test_the_holders_found_once_answer_every_referrer_alike() -> None:
    for count in (1, 2, 3, 4, 5):
        overlay = overlay_of(things(count))
        known: dict[str, dict[str, str] | None] = {}
        for source in [f"/things/{n}" for n in range(count + 2)]:
            alone = id_owners(overlay, "grp-7", source)
            assert id_owners(overlay, "grp-7", source, known) == alone, (count, source)


def test_a_worlds_holders_are_found_once_and_a_changed_holder_found_anew() -> None:
    overlay = overlay_of(things(2))
    assert sorted(id_owners(overlay, "grp-7", "/things/0")) == ["/things/1", "/things/2"]
    assert "grp-7" in overlay.base.derived["id holders"]
    # A session that moved the second holder to another group.
    before = overlay.state
    items = list(before["things"])
    items[2] = {"name": "holder1", "attributes": {"group_id": "grp-9"}}
    state = {"things": items}
    patch = [{"op": "replace", "path": "/things/2/attributes/group_id", "value": "grp-9"}]
    moved = overlay.advance(before, state, patch)
    assert sorted(id_owners(moved, "grp-7", "/things/0")) == ["/things/1"]
    assert sorted(id_owners(moved, "grp-9", "/things/0")) == ["/things/2"]
    # The world's starting state still has both.
    assert sorted(id_owners(overlay, "grp-7", "/things/0")) == ["/things/1", "/things/2"]

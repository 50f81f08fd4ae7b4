"""Records linked from a call's picks: those of the collection the tool's name asks for first,
then those its description names, then the rest in the order the picks name them."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.grounding import ground
from mcp_sim.prompting.linked_records import MAX_LINKED, asked_of, linked_records
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import World
from tests.prompting.test_kind_links import world_of


def catalog(tracks: int) -> dict[str, Any]:
    """A playlist whose items name an album, a track and an artist each, in that order."""
    items = [
        {"album": {"id": f"al{n:03d}"}, "track": {"id": f"tr{n:03d}", "artist": f"ar{n:03d}"}}
        for n in range(tracks)
    ]
    return {
        "playlists": [{"id": "pl001", "name": "Mix", "items": items}],
        "albums": [{"id": f"al{n:03d}", "title": f"Album {n}"} for n in range(tracks)],
        "tracks": [{"id": f"tr{n:03d}", "title": f"Track {n}"} for n in range(tracks)],
        "artists": [{"id": f"ar{n:03d}", "name": f"Artist {n}"} for n in range(tracks)],
    }


def linked_of(world: World, tool: str, arguments: dict[str, Any]) -> list[str]:
    index = StateIndex(world, world.state)
    grounding = ground(index.overlay_of(world.state), world.state, world.tool(tool), arguments)
    return [p.pointer for p in grounding.picks.values() if p.reason == "linked"]


def test_the_collection_a_tool_names_is_linked_first() -> None:
    description = "The artists on a playlist's tracks, in order of appearance."
    world = world_of(catalog(30), "get_playlist_artists", description)
    linked = linked_of(world, "get_playlist_artists", {"playlist_id": "pl001"})
    assert len(linked) == MAX_LINKED
    # 30 artists (the name's), then the tracks (the description's); no album fits.
    assert linked[:30] == [f"/artists/{n}" for n in range(30)]
    assert linked[30:] == [f"/tracks/{n}" for n in range(10)]


def test_a_tool_asking_for_no_collection_keeps_the_order_the_picks_name() -> None:
    world = world_of(catalog(30), "get_playlist", "A playlist.")
    linked = linked_of(world, "get_playlist", {"playlist_id": "pl001"})
    assert linked[:3] == ["/albums/0", "/tracks/0", "/artists/0"]
    assert len(linked) == MAX_LINKED


def test_asked_ranks_the_name_before_the_description() -> None:
    description = "The artists on a playlist's tracks."
    world = world_of(catalog(2), "get_playlist_artists", description)
    index = StateIndex(world, world.state)
    ranks = asked_of(index.overlay_of(world.state), world.tool("get_playlist_artists"))
    assert ranks == {"/artists": 0, "/tracks": 1}
    # A tool whose answer lists every collection gives no order.
    listing = world.tool("get_playlist_artists")
    assert listing is not None
    every = listing.model_copy(update={"output_schema": {"type": "array"}})
    assert asked_of(index.overlay_of(world.state), every) == {}


def test_without_ranks_the_walk_stops_at_the_cap() -> None:
    world = world_of(catalog(30), "get_playlist", "A playlist.")
    index = StateIndex(world, world.state)
    overlay = index.overlay_of(world.state)

    class Pick:
        pointer = "/playlists/0"

    found = linked_records(overlay, {"/playlists/0": Pick()}, set())
    assert [p for p, _ in found][:3] == ["/albums/0", "/tracks/0", "/artists/0"]
    assert len(found) == MAX_LINKED

"""Collections split into partitions of one layout (a guest's stays filed one array a month):
a search and a join read every partition, not the first one found. The months of one year
are one collection already (:mod:`mcp_sim.runtime.state_partitions`); the years holding them
are partitions of one collection here."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.field_search import FieldSearch
from mcp_sim.prompting.link_rows import LinkRows
from mcp_sim.prompting.partitions import partitions
from mcp_sim.prompting.records_section import records_section
from mcp_sim.runtime.state_index import StateIndex
from tests.prompting.test_link_joins import grounded, world_of


def hotel(style: str = "nested") -> dict[str, Any]:
    """Rooms, guests, and stays filed by month (``{"2024": {"07": [...]}}``, two years of six
    months each, or ``{"month=2025-01": [...]}``), each naming a guest and a room."""
    rooms = [{"room_id": f"RM{r:03d}", "label": f"Room {r}", "floor": r % 5} for r in range(40)]
    guests = [{"guest_id": f"GU-{g:03d}", "name": f"Guest {g}"} for g in range(20)]
    stays: dict[str, Any] = {}
    for s in range(240):
        month = f"{s // 20 % 12 + 1:02d}"
        year = "2024" if s // 20 % 12 >= 6 else "2025"
        stay = {
            "stay_id": f"ST{s:04d}",
            "guest_id": f"GU-{s % 20:03d}",
            "room_id": f"RM{(s * 3) % 40:03d}",
            "booked_on": f"2025-{month}-{s % 28 + 1:02d}",
        }
        if style == "nested":
            stays.setdefault(year, {}).setdefault(month, []).append(stay)
        else:
            stays.setdefault(f"month=2025-{month}", []).append(stay)
    return {"rooms": rooms, "guests": guests, "stays": stays}


def test_the_partitions_of_a_collection_are_those_numbered_alike() -> None:
    world = world_of(hotel(), "rooms_of_guest", "The rooms a guest has stays in.")
    index = StateIndex(world, world.state)
    by_pointer = {c.pointer: c for c in index.collections}
    assert "/stays/2025/01" not in by_pointer
    found = partitions(index.collections, by_pointer["/stays/2025"])
    assert [c.pointer for c in found] == ["/stays/2024"]
    assert partitions(index.collections, by_pointer["/rooms"]) == []


def test_a_search_reads_every_partition() -> None:
    world = world_of(hotel("hive"), "stays_of_guest", "A guest's stays.")
    index = StateIndex(world, world.state)
    results = FieldSearch(index.overlay_of(world.state), world.state).search(
        world.tools[0], {"guest_id": "GU-007"}
    )
    found = [p for r in results if r.collection.pointer.startswith("/stays") for p in r.full]
    assert len(found) == 12


def test_a_join_lists_the_links_of_every_partition() -> None:
    for style in ("nested", "hive"):
        world = world_of(hotel(style), "rooms_of_guest", "The rooms a guest has stays in.")
        grounding = grounded(world, {"guest_id": "GU-007"})
        assert isinstance(grounding.join, LinkRows), style
        join = grounding.join.join
        assert join.total == 12, style
        assert len(join.partitions) == (1 if style == "nested" else 0), style
        assert join.targets.pointer == "/rooms"
        reached = {t for _, targets in join.rows for t in targets}
        assert reached == {f"/rooms/{(s * 3) % 40}" for s in range(7, 240, 20)}, style
        text = records_section(world.state, [], [], 9000, None, None, grounding.join)
        if style == "nested":
            assert "and 1 other partition of it meet" in text

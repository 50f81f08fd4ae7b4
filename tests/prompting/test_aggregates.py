"""Summaries for aggregate calls on small hand-made states of several shapes: what they sum up
(the records a search selects, those the arguments name, the records nested in a named one, a
path down a tree) and the names their values go under (common forms in the state's spelling,
or the tool's output schema's)."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.aggregates import summarize
from mcp_sim.prompting.grounding import ground
from mcp_sim.prompting.summary_names import count_names, stat_names, style_of
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import ToolSpec, World


def _world(state: dict[str, Any], name: str, description: str, **tool: Any) -> World:
    spec = {"name": name, "description": description, "input_schema": {"type": "object"}}
    return World.model_validate(
        {
            "world": "t",
            "title": "T",
            "description": "A hand-made state.",
            "state": state,
            "tools": [spec | tool],
        }
    )


def _summary(world: World, arguments: dict[str, Any]) -> dict[str, Any]:
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    tool = world.tools[0]
    grounding = ground(overlay, world.state, tool, arguments)
    assert grounding.summary is not None
    text = grounding.summary.render(8000)
    assert text.startswith("**Summary computed from the state**")
    return grounding.summary.values


def _books() -> dict[str, Any]:
    genres = ["poetry", "travel", "history"]
    return {
        "books": [
            {
                "bookId": f"B{i:03d}",
                "title": f"Volume {i}",
                "genre": genres[i % 3],
                "pageCount": 100 + i,
                "year": 1900 + i,
            }
            for i in range(60)
        ]
    }


def test_names_follow_the_states_spelling_and_common_forms() -> None:
    assert style_of(["pageCount", "bookId", "year"]) == "camel"
    assert style_of(["on_hand", "year"]) == "snake"
    names, fallback = stat_names("sum", "odometerKm", "camel", alone=False, time=False)
    assert names[:4] == ["odometerKm", "odometerKms", "totalOdometerKm", "sumOdometerKm"]
    assert "totalKm" in fallback  # its last word: only where no field is named "Km"
    assert "pages_total" in stat_names("sum", "pages", "snake", alone=False, time=False)[0]
    assert "latest" in stat_names("max", "year", "snake", alone=True, time=True)[0]
    assert "highest" not in stat_names("max", "grade", "snake", alone=False, time=False)[0]
    # The tool's own word for what it counts first: where one name fits, it is that one.
    assert count_names("vehicles", "camel", ["enrolled"])[:5] == [
        "enrolled",
        "enrolledCount",
        "vehicles",
        "vehicleCount",
        "count",
    ]


def test_a_search_is_summed_up_under_the_names_an_answer_uses() -> None:
    world = _world(
        _books(), "genre_stats", "How many books a genre has, their total pages and year range."
    )
    values = _summary(world, {"genre": "travel"})
    travel = [b for b in _books()["books"] if b["genre"] == "travel"]
    assert values["books"] == values["bookCount"] == 20
    assert values["totalPageCount"] == sum(b["pageCount"] for b in travel)
    assert (values["earliest"], values["latest"]) == (1901, 1958)
    assert "genre" not in values and "genres" not in values  # the argument fixed it


def test_an_output_schema_names_the_values() -> None:
    schema = {
        "type": "object",
        "properties": {"book_total": {"type": "integer"}, "max_year": {"type": "integer"}},
    }
    world = _world(_books(), "genre_stats", "Books of a genre.", output_schema=schema)
    values = _summary(world, {"genre": "poetry"})
    assert values["max_year"] == 1957
    assert "latestYear" not in values and "maxYear" not in values  # the schema's name only
    assert values["bookCount"] == 20


def test_the_records_nested_in_a_named_record_are_summed_up() -> None:
    orders = {
        f"SO-{i}": {"status": "paid", "lines": [{"sku": f"K{j}", "qty": j + 1} for j in range(i)]}
        for i in range(1, 30)
    }
    world = _world({"orders": orders}, "order_totals", "An order's item count.")
    values = _summary(world, {"order_ref": "SO-7"})
    assert values["lines"] == 7 and values["qty"] == sum(range(1, 8))
    assert values["max_qty"] == 7


def test_a_path_down_a_tree_sums_up_every_level_below() -> None:
    def unit(code: str, depth: int, titles: list[str]) -> dict[str, Any]:
        members = [{"name": f"{code}-{t}", "title": t, "grade": 5 + depth} for t in titles]
        below = (
            {}
            if depth == 0
            else {f"{code}{i}": unit(f"{code}{i}", depth - 1, titles) for i in range(2)}
        )
        return {"code": code, "members": members, "units": below}

    divisions = [unit(f"D{i}", 2, ["Clerk", "Analyst"]) for i in range(12)]
    world = _world({"company": {"divisions": divisions}}, "headcount", "People in a unit.")
    values = _summary(world, {"unit_path": "D3/D31"})
    assert values["headcount"] == values["members"] == 6  # D31 and its two sub-units
    assert values["titles"] == ["Analyst", "Clerk"]
    assert values["max_grade"] == 6


def test_several_named_records_are_summed_up_together() -> None:
    stock = {
        f"W{w}": {f"SKU-{s}": {"on_hand": 10 * w + s, "reserved": w} for s in range(20)}
        for w in range(1, 6)
    }
    world = _world({"stock": stock}, "stock_totals", "Totals of an item over all warehouses.")
    values = _summary(world, {"sku": "SKU-4"})
    assert values["on_hand"] == sum(10 * w + 4 for w in range(1, 6))
    assert values["reserved"] == 15


def test_no_summary_where_nothing_is_pointed_to() -> None:
    world = _world({"notes": "plain text"}, "count_things", "How many things there are.")
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    tool = ToolSpec.model_validate(world.tools[0].model_dump())
    assert summarize(overlay, world.state, tool, None, {}) is None


def test_a_listing_of_names_says_which_record_holds_each() -> None:
    products = {
        f"{1000 + i}": {"product_id": f"{1000 + i}", "name": f"Type {i}", "price": 10 + i}
        for i in range(12)
    }
    world = _world({"products": products}, "list_all_product_types", "The name of each type.")
    values = _summary(world, {})
    assert values["products"] == 12
    assert values["name"] == {f"Type {i}": f"{1000 + i}" for i in range(12)}


def test_a_short_room_drops_names_before_values() -> None:
    world = _world(
        _books(), "genre_stats", "How many books a genre has, their total pages and year range."
    )
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    summary = summarize(overlay, world.state, world.tools[0], None, {})
    assert summary is not None
    full, short = summary.render(20_000), summary.render(700)
    assert len(short) <= 700 < len(full)
    assert '"books": 60' in short and "…" not in short  # one name each, no value cut


def test_a_name_ending_in_values_lists_the_distinct_values_of_the_field_it_names() -> None:
    scopes = [
        {"scope-id": f"S{i}", "wavelength-band": ["radio", "optical"][i % 2], "mass": i}
        for i in range(30)
    ]
    world = _world({"scopes": scopes}, "listBandValues", "Every band any scope has.")
    values = _summary(world, {})
    assert values["band-values"] == ["optical", "radio"]


def test_a_collection_is_named_by_a_part_of_its_pointer() -> None:
    # A paged export's records sit under ``results``; a collection of other records holds
    # more of the tool's words among its fields, none of them its name.
    engines = [{"engineId": f"E{i}", "livery": ["red", "blue"][i % 3 // 2]} for i in range(9)]
    turns = [{"turnId": f"T{i}", "engine": {"id": "E1"}, "count": i, "by": i} for i in range(40)]
    state = {"engines": {"results": engines, "next": None}, "turns": turns}
    world = _world(state, "count_engines_by_livery", "How many engines of each livery by count.")
    values = _summary(world, {})
    assert values["liveryCounts"] == {"blue": 3, "red": 6}


def test_a_partys_links_are_summed_up_from_the_collection_the_name_names() -> None:
    # Batches name the distributor too, in a list; the tool's name says which records count.
    ids = [f"d{i:04d}" for i in range(6)]
    state = {
        "distributors": [{"id": d, "level": "gold"} for d in ids],
        "shipments": [{"ref": f"S{i}", "distributor": ids[i % 6], "kegs": i} for i in range(60)],
        "batches": [{"code": f"B{i}", "contact_ids": [ids[i % 6]]} for i in range(30)],
    }
    world = _world(
        state,
        "distributor_shipment_totals",
        "A distributor's number of shipments, their total and average kegs.",
    )
    values = _summary(world, {"distributor_id": "d0003"})
    assert values["shipment_count"] == 10
    assert values["total_kegs"] == sum(range(3, 60, 6))


def test_a_world_reads_a_calls_summary_once_until_a_session_changes_its_state() -> None:
    world = _world(_books(), "count_books", "How many books there are, and their pages.")
    index = StateIndex(world, world.state)
    tool = world.tools[0]
    first = summarize(index.overlay_of(world.state), world.state, tool, None, {})
    # Another session of the world, at its starting state: the summary already read.
    assert summarize(index.overlay_of(world.state), world.state, tool, None, {}) is first
    assert first is not None and first.values["books"] == 60
    # A session that removed a book is summed up on its own state.
    state = {"books": world.state["books"][1:]}
    patch = [{"op": "remove", "path": "/books/0"}]
    moved = index.overlay_of(world.state).advance(world.state, state, patch)
    assert moved.changed
    after = summarize(moved, state, tool, None, {})
    assert after is not first and after is not None and after.values["books"] == 59
    assert summarize(index.overlay_of(world.state), world.state, tool, None, {}) is first

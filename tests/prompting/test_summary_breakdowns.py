"""Breakdowns a tool asks for without a query language: records counted per value of a field
its description, name, arguments or output schema name ("per status", ``by_status``,
``group_by``), per period of a date ("per release decade"), per next-level folder of a path
below the call's prefix; totals per part where the tool also asks for a total; and, of the
lists nested in a named record, the one the tool's words describe summed up."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.grounding import ground
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import World

_STATUSES = ["To Do", "In Progress", "Done", "Done"]


def _world(state: dict[str, Any], name: str, description: str, **tool: Any) -> World:
    spec = {"name": name, "description": description, "input_schema": {"type": "object"}}
    return World.model_validate(
        {
            "world": "t",
            "title": "T",
            "description": "Hand-made.",
            "state": state,
            "tools": [spec | tool],
        }
    )


def _values(world: World, arguments: dict[str, Any]) -> dict[str, Any]:
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    grounding = ground(overlay, world.state, world.tools[0], arguments)
    assert grounding.summary is not None
    return grounding.summary.values


def _issues() -> dict[str, Any]:
    return {
        "issues": [
            {
                "key": f"PAY-{i}",
                "sprint": ["S1", "S2"][i % 2],
                "fields": {"status_name": _STATUSES[i % 4], "points": i % 5},
            }
            for i in range(40)
        ]
    }


def test_records_are_counted_per_value_of_the_field_a_phrase_names() -> None:
    world = _world(_issues(), "sprint_report", "A sprint's issues: count, issues per status.")
    values = _values(world, {"sprint": "S1"})
    assert {"Done": 10, "To Do": 10} in values.values()
    # Counts a field's value counts already give are shown once.
    assert list(values.values()).count({"Done": 10, "To Do": 10}) == 1


def test_an_argument_naming_a_field_splits_the_records_and_totals_go_per_part() -> None:
    world = _world(_issues(), "issue_summary", "Total points of the issues of a sprint.")
    values = _values(world, {"sprint": "S2", "group_by": "status"})
    assert {"Done": 10, "In Progress": 10} in values.values()
    totals = values["status_totals"]
    assert totals["Done"] == {"count": 10, "points": sum(i % 5 for i in range(3, 40, 4))}


def test_a_period_splits_dates_and_years_alike() -> None:
    albums = {
        "albums": [
            {
                "id": f"A{i}",
                "release_date": ["1973", "1981-06-03", "1999-01-01", "2004-05-05"][i % 4],
            }
            for i in range(12)
        ]
    }
    world = _world(albums, "album_stats", "All albums: how many, per release decade.")
    assert _values(world, {})["by_release_decade"] == {
        "1970s": 3,
        "1980s": 3,
        "1990s": 3,
        "2000s": 3,
    }


def test_folders_are_the_next_level_of_a_path_below_the_call_s_prefix() -> None:
    keys = ["logs/api/a.gz", "logs/api/b.gz", "logs/web/c.gz", "logs/top.txt"]
    listing = {"objects": [{"Key": k, "Size": 10 + len(k)} for k in keys * 3]}
    world = _world(
        listing,
        "summarize_prefix",
        "Objects under a prefix: count and bytes in all and per next-level folder.",
    )
    rows = _values(world, {"Prefix": "logs/"})["ByNextLevelFolder"]
    assert rows == [
        {"Prefix": "logs/api/", "Count": 6, "Size": 6 * 23},
        {"Prefix": "logs/web/", "Count": 3, "Size": 3 * 23},
    ]


def test_codes_in_whole_numbers_split_the_records() -> None:
    trips = {
        "trips": [{"trip_id": f"T{i}", "route": "R1", "direction_id": i % 2} for i in range(9)]
    }
    world = _world(trips, "route_summary", "A route's day: how many trips, trips per direction.")
    assert _values(world, {"route": "R1"})["by_direction"] == {"0": 5, "1": 4}  # not 0 and 1


def test_of_the_lists_in_a_named_record_the_one_the_tool_describes_is_summed_up() -> None:
    playlist = {
        "id": "P1",
        "artists": [{"name": f"Artist {i}", "type": "artist"} for i in range(30)],
        "tracks": {
            "items": [
                {
                    "track": {
                        "duration_ms": 1000 * i,
                        "album": {"album_type": ["album", "single"][i % 2]},
                    }
                }
                for i in range(6)
            ]
        },
    }
    world = _world(
        {"playlists": [playlist]},
        "get_playlist_stats",
        "A playlist's figures: total duration_ms, tracks per album type.",
    )
    values = _values(world, {"playlist_id": "P1"})
    assert {"album": 3, "single": 3} in values.values()
    assert values["total_duration_ms"] == 15000


def test_an_object_a_phrase_names_splits_by_its_name_not_its_id() -> None:
    issues = {
        "issues": [
            {
                "key": f"PAY-{i}",
                "sprint": "S1",
                "fields": {"status": {"id": str(10000 + i % 2), "name": ["Done", "To Do"][i % 2]}},
            }
            for i in range(10)
        ]
    }
    world = _world(issues, "sprint_report", "A sprint's issues: count, issues per status.")
    values = _values(world, {"sprint": "S1"})
    assert {"Done": 5, "To Do": 5} in values.values()
    assert {"10000": 5, "10001": 5} not in values.values()


def test_a_kind_run_into_a_field_s_name_splits_and_amounts_in_text_are_totalled() -> None:
    deals = {
        "deals": [
            {
                "id": f"D{i}",
                "pipeline": "default",
                "dealstage": ["won", "lost"][i % 2],
                "amount": "2.50",
            }
            for i in range(8)
        ]
    }
    world = _world(
        deals,
        "deal_stage_totals",
        "The deals of a pipeline: per stage, the number of deals and their total amount.",
    )
    values = _values(world, {"pipeline": "default"})
    assert {"lost": 4, "won": 4} in values.values()
    assert values["stage_totals"]["won"] == {"count": 4, "amount": 10}

"""A series' readings searched by their source and a time range, summarized over a day, and
bounds matched to fields by their values when no name fits (a meter log whose fields are
named unlike the tools' arguments)."""

from __future__ import annotations

import random
from typing import Any

from mcp_sim.prompting.grounding import ground
from mcp_sim.prompting.key_names import key_names
from mcp_sim.prompting.records_section import records_section
from mcp_sim.prompting.summary_names import stat_names
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import World
from tests.prompting.test_retrieval_shapes import tool, view_of, world_of


def meter_log() -> dict[str, Any]:
    """Meters read every six hours: energy (0 to 50) and temperature (-20 to 5)."""
    rng = random.Random(1)
    meters = {f"M{100 + m}": {"site": f"Site {m}"} for m in range(30)}
    state: dict[str, Any] = {"register": meters}
    for d in range(1, 29):
        for h in range(0, 24, 6):
            state[f"2024-06-{d:02d}T{h:02d}:00"] = {
                code: {
                    "ener_kwh": round(rng.uniform(0, 50), 1),
                    "temp_gehaeuse": round(rng.uniform(-20, 5), 1),
                }
                for code in meters
            }
    return state


def lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("- /20")]


def test_a_sources_readings_after_a_time_are_searched_as_readings() -> None:
    arguments = {"meter": "M103", "after": "2024-06-20T00:00", "max_energy": 10.0}
    world = world_of(meter_log(), [tool("meter_log", meter="M.", after="T.", max_energy="E.")])
    text = view_of(world, "meter_log", arguments)
    state = world.state
    wanted = sorted(
        f"- /{t}/M103:"
        for t, slot in state.items()
        if t >= "2024-06-20" and t != "register" and slot["M103"]["ener_kwh"] <= 10
    )
    assert f"{len(wanted)} records meet all of them, all shown below" in text
    full = text.split("meeting some of the constraints")[0]
    assert sorted(line.split(" {")[0] for line in lines(full)) == wanted
    # The time bounds a range: it names no reading at that time.
    assert "- /2024-06-20T00:00/M101:" not in full


def test_a_sources_day_is_summarized_from_its_readings() -> None:
    described = tool("day_stats", meter="Meter.", date="YYYY-MM-DD.")
    described["description"] = "A meter's day: lowest and highest energy, readings."
    world = world_of(meter_log(), [described])
    text = view_of_summary(world, {"meter": "M107", "date": "2024-06-05"})
    day = [world.state[f"2024-06-05T{h:02d}:00"]["M107"]["ener_kwh"] for h in (0, 6, 12, 18)]
    assert "where (record key) = " in text
    low, high = (int(v) if float(v).is_integer() else v for v in (min(day), max(day)))
    assert f'"min_energy": {low},' in text and f'"max_energy": {high},' in text


def view_of_summary(world: World, arguments: dict[str, Any]) -> str:
    index = StateIndex(world, world.state)
    grounding = ground(
        index.overlay_of(world.state), world.state, world.tool("day_stats"), arguments
    )
    names = key_names(world, index)
    picks = list(grounding.picks.values())
    return records_section(world.state, picks, grounding.searches, 30_000, grounding.summary, names)


def test_a_bound_only_one_field_holds_chooses_before_one_several_hold() -> None:
    arguments = {"meter": "M103", "min_alpha": 0.0, "max_zeta": -5.5}
    world = world_of(meter_log(), [tool("t", meter="M.", min_alpha="A.", max_zeta="Z.")])
    text = view_of(world, "t", arguments).splitlines()[1]
    # -5.5 lies only among the temperatures, 0.0 among both: the temperature is the first's.
    assert "temp_gehaeuse ≤ -5.5" in text and "ener_kwh ≥ 0.0" in text, text
    assert "or temp_gehaeuse" not in text


def test_a_stat_is_named_on_a_measures_first_word_too() -> None:
    _, fallback = stat_names("min", "temperatur_c", "snake", alone=False, time=False)
    assert "temperatur_min" in fallback and "min_c" in fallback

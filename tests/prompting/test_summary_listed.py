"""Summaries whose description lists what the answer holds in bare words: a noun that names
a value the records hold counts them ("blobs" of kind ``blob``), a total no field's name fits
reads the field most records hold, an "item count" of priced lines counts their units, and a
measure's first word names its extremes (``temp_min`` over ``temp_c``)."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.aggregates import Summary
from mcp_sim.prompting.grounding import ground
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import World


def _values(state: dict[str, Any], name: str, description: str, **arguments: Any) -> Any:
    return _summary(state, name, description, **arguments).values


def _summary(state: dict[str, Any], name: str, description: str, **arguments: Any) -> Summary:
    spec = {"name": name, "description": description, "input_schema": {"type": "object"}}
    world = World.model_validate(
        {"world": "t", "title": "T", "description": "Hand-made.", "state": state, "tools": [spec]}
    )
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    grounding = ground(overlay, world.state, world.tools[0], arguments)
    assert grounding.summary is not None
    return grounding.summary


def _blob(n: int) -> dict[str, Any]:
    return {"kind": "blob", "length": 100 * n + 7, "holder": ["ann", "ben", "cat"][n % 3]}


def _folder(n: int, depth: int) -> dict[str, Any]:
    # Sub-folders first, so that the first number met is a deep blob's one few folders hold.
    entries = {f"d{n}{j}": _folder(n * 10 + j, depth - 1) for j in range(2)} if depth else {}
    entries[f"b{n}.dat"] = _blob(n)
    return {"kind": "folder", "holder": "root", "entries": entries}


def _blobs(folder: dict[str, Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for entry in folder["entries"].values():
        found += _blobs(entry) if entry["kind"] == "folder" else [entry]
    return found


def test_a_listed_noun_counts_the_records_of_the_value_it_names() -> None:
    top = _folder(1, 3)
    values = _values(
        {"top": top},
        "space",
        "Space used under a folder: total bytes, blobs and holders.",
        path="/d10",
    )
    under = _blobs(top["entries"]["d10"])
    assert values["blobs"] == len(under) == 7
    # No field is named "bytes": the length every blob holds, not a rare deeper one.
    assert values["total_bytes"] == values["bytes"] == sum(b["length"] for b in under)
    assert "space_used" not in values and "holders_count" not in values


def test_an_item_count_of_priced_lines_counts_their_units() -> None:
    baskets = {
        f"BK-{i}": {
            "shopper": f"u{i}",
            "entries": [
                {"sku": f"S-{900 + j}", "n": j + 1, "each": 2.5 + j} for j in range(i % 4 + 1)
            ],
        }
        for i in range(12)
    }
    values = _values(
        {"baskets": baskets}, "basketFigures", "A basket's unit count and total cost.", ref="BK-3"
    )
    assert values["units"] == values["unit_count"] == 1 + 2 + 3 + 4
    assert values["entries"] == 4


def test_a_measures_first_word_names_its_extremes() -> None:
    logs: list[dict[str, Any]] = [
        {"log_id": f"L{i}", "site": ["north", "south"][i % 2], "temp_c": i / 2 - 5, "wind_kn": i}
        for i in range(30)
    ]
    values = _values(
        {"logs": logs},
        "site_day_summary",
        "A site's day: lowest and highest temperature, mean wind.",
        site="south",
    )
    south = [r["temp_c"] for r in logs if r["site"] == "south"]
    assert values["temp_min"] == min(south) and values["temp_max"] == max(south)


def test_a_priced_phrase_reads_the_priced_field_of_those_it_fits_alike() -> None:
    camps: dict[str, dict[str, Any]] = {
        f"C{i}": {
            "region": ["alps", "coast"][i % 2],
            "days": {
                f"2025-06-{d:02d}": {
                    "free_spots": {"adult": (i + d) % 9, "child": d % 4},
                    "rates": {"adult": 30 + i + d, "child": 10 + d},
                    "open": d % 5 != 0,
                }
                for d in range(1, 8)
            },
        }
        for i in range(10)
    }
    values = _values(
        {"camps": camps},
        "region_rates",
        "The number of camps in a region and their lowest and highest adult fee.",
        region="coast",
    )
    fees = [
        d["rates"]["adult"]
        for c in camps.values()
        if c["region"] == "coast"
        for d in c["days"].values()
    ]
    assert values["lowest_adult_fee"] == min(fees) == 32
    assert values["highest_adult_fee"] == max(fees)


def test_records_linking_to_those_found_are_summed_up_beside_them() -> None:
    halls: dict[str, Any] = {
        f"hall:{c}-{i}": {"quarter": ["old town", "docks"][i % 2], "seats": str(100 + i)}
        for i, c in enumerate("ABCDEF")
    }
    shows = {
        f"show:{n}": {
            "opens_in": f"{'ABCDEF'[n % 6]}-{n % 6}",
            "moves_to": f"{'ABCDEF'[(n + 1) % 6]}-{(n + 1) % 6}",
            "tickets": str(20 + n % 7),
            "price": f"{5 + n % 3}.50",
        }
        for n in range(30)
    }
    values = _values(
        halls | shows,
        "quarter_usage",
        "Shows opened in a quarter's halls: count, tickets, mean price.",
        quarter="docks",
    )
    # The first block: the halls the search found, listed by key for the shows naming them.
    assert values["halls"] == ["B-1", "D-3", "F-5"] and values["hall_count"] == 3
    grounding = _summary(
        halls | shows,
        "quarter_usage",
        "Shows opened in a quarter's halls: count, tickets, mean price.",
        quarter="docks",
    )
    opened = [s for s in shows.values() if s["opens_in"] in ("B-1", "D-3", "F-5")]
    text = grounding.render(4000)
    assert "whose opens_in is the key of one of the 3" in text
    # Numbers written as text are summed; the listed noun names the field's total.
    assert f'"tickets_total": {sum(int(s["tickets"]) for s in opened)}' in text
    assert f'"shows": {len(opened)}' in text


def test_a_summary_over_a_search_with_legs_sums_only_the_records_meeting_it() -> None:
    towns = ["Arl", "Bex", "Cor", "Dun", "Elm", "Fyn"]
    pairs = [(a, b) for a in towns for b in towns if a != b and (a, b) != ("Arl", "Bex")]
    ferries = {
        f"F{i:03d}": {"source": a, "target": b, "toll": 10 + i} for i, (a, b) in enumerate(pairs)
    }
    direct = [f for f in ferries.values() if f["source"] == "Arl" and f["target"] == "Bex"]
    assert not direct  # only legs through a town in between connect them
    grounding = _summary(
        {"ferries": ferries},
        "ferry_tolls",
        "The number of ferries between two towns and their lowest and highest toll.",
        **{"from": "Arl", "to": "Bex"},
    )
    assert grounding.values["ferries"] == 0


def test_numbers_in_text_beside_real_numbers_stay_codes() -> None:
    postings: list[dict[str, Any]] = [
        {"ref": f"P{i}", "ledger": ["4100", "4200"][i % 2], "amount": 10.5 + i, "book": "main"}
        for i in range(20)
    ]
    values = _values({"postings": postings}, "posting_totals", "Totals of the postings.")
    assert values["ledgers"] == ["4100", "4200"]
    assert "total_ledger" not in values and values["total_amount"] == sum(
        p["amount"] for p in postings
    )


def test_a_text_field_named_for_a_kind_of_record_refers_to_one() -> None:
    people = {f"visitor:{v}": {"name": f"Guest {v}", "city": "Oslo"} for v in range(8)}
    visits = {
        f"visit:{i}": {"visitor": str(i % 8), "minutes": str(30 + i % 5), "gate": "north"}
        for i in range(24)
    }
    values = _values(people | visits, "visit_totals", "Total minutes and visitors of the visits.")
    assert values["total_minutes"] == sum(30 + i % 5 for i in range(24))
    assert "total_visitor" not in values and values["visitors"] == [str(v) for v in range(8)]


def test_a_typed_values_text_number_is_left_to_its_decoder() -> None:
    items = [
        {"hours": {"N": str(i % 6)}, "guests": {"N": str(i % 4)}, "room": {"S": "east"}}
        for i in range(30)
    ]
    values = _values({"Items": items}, "room_totals", "Totals of the items.")
    assert "total_n" not in values and values["count"] == 30

"""Aggregate summaries of what the arguments select, on small hand-made states: a bound "as
of" a date beside a record named by key, totals of count × amount, the net of two fields no
record holds both of, records holding a field, an empty container counted 0, the collection a
tool's name names before another searched one; and the newest records a write adds to."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.field_names import read_argument
from mcp_sim.prompting.grounding import ground
from mcp_sim.prompting.write_targets import newest_records
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import World


def _world(state: dict[str, Any], name: str, description: str, effect: str = "read") -> World:
    spec = {
        "name": name,
        "description": description,
        "input_schema": {"type": "object"},
        "effect": effect,
    }
    return World.model_validate(
        {"world": "t", "title": "T", "description": "Hand-made.", "state": state, "tools": [spec]}
    )


def _summary(world: World, arguments: dict[str, Any]) -> dict[str, Any]:
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    grounding = ground(overlay, world.state, world.tools[0], arguments)
    assert grounding.summary is not None
    return grounding.summary.values


def _ledger() -> dict[str, Any]:
    accounts = [{"number": f"{1000 + i}", "label": f"Account {i}"} for i in range(30)]
    journal = {
        f"E{n}": {
            "date": f"2025-0{1 + n % 9}-1{n % 10}",
            "memo": f"Entry {n}",
            "postings": [
                {"account": f"{1000 + n % 7}", "debit": 10.5 * n},
                {"account": f"{1000 + (n + 3) % 7}", "credit": 10.5 * n},
            ],
        }
        for n in range(1, 120)
    }
    return {"accounts": accounts, "journal": journal}


def test_as_of_bounds_a_date_from_above() -> None:
    assert read_argument("as_of").op == "max"
    assert read_argument("asOfDate").words == ("date",)


def test_a_balance_as_of_a_date_sums_the_named_accounts_postings_up_to_it() -> None:
    state = _ledger()
    world = _world(
        state, "account_balance", "An account's debits, credits and balance up to a date."
    )
    values = _summary(world, {"account": "1002", "as_of": "2025-05-15"})
    entries = [e for e in state["journal"].values() if e["date"] <= "2025-05-15"]
    mine = [p for e in entries for p in e["postings"] if p["account"] == "1002"]
    debits = sum(p.get("debit", 0) for p in mine)
    credits = sum(p.get("credit", 0) for p in mine)
    assert values["debits"] == round(debits, 2) and values["credits"] == round(credits, 2)
    assert values["balance"] == round(debits - credits, 2)
    assert values["postings"] == len(mine)
    assert "account" not in values  # "account" counts nothing


def test_an_orders_amount_is_the_total_of_quantity_times_price() -> None:
    orders = {
        f"SO-{i}": {
            "lines": [{"product": 7000 + j, "qty": j + 1, "unitPrice": 2.5 + j} for j in range(i)]
        }
        for i in range(1, 20)
    }
    world = _world({"orders": orders}, "orderTotal", "An order's item count and total amount.")
    values = _summary(world, {"order_ref": "SO-4"})
    assert values["amount"] == sum((j + 1) * (2.5 + j) for j in range(4))
    assert not any("product" in name.lower() and "X" in name for name in values)


def test_records_holding_a_field_are_counted_beside_all() -> None:
    rows = [
        {"student": f"S{i}", "course": f"C{i % 3}", "score": (50 + i if i % 2 else None)}
        for i in range(60)
    ]
    world = _world({"enrolments": rows}, "course_stats", "Enrolled count and mean score.")
    values = _summary(world, {"course": "C1"})
    chosen = [r for r in rows if r["course"] == "C1"]
    assert values["enrolled"] == len(chosen)
    assert values["with_score"] == sum(1 for r in chosen if r["score"] is not None)


def test_the_records_a_description_opens_on_or_counts_over_name_their_count() -> None:
    rows = [{"site": f"S{i % 4}", "kind": ["desk", "room"][i % 2], "rate": i} for i in range(80)]
    opened = _world({"rooms": rows}, "site_usage", "A site's spaces: count, rate, kinds.")
    chosen = [r for r in rows if r["site"] == "S1"]
    assert _summary(opened, {"site": "S1"})["spaces"] == len(chosen)
    over = _world({"rooms": rows}, "summarize_kind", "One field over spaces of a site.")
    assert _summary(over, {"site": "S1"})["spaces"] == len(chosen)


def test_a_unit_with_no_members_counts_zero() -> None:
    divisions = [
        {"code": f"D{i}", "members": [{"name": f"P{i}", "grade": 3}] if i else [], "units": []}
        for i in range(12)
    ]
    world = _world({"company": {"divisions": divisions}}, "headcount", "People in a unit.")
    assert _summary(world, {"unit_path": "D0"})["headcount"] == 0


def test_the_collection_the_tool_names_comes_before_a_searched_one() -> None:
    # Warehouses large enough to be collections of their own; odd ones stock odd SKUs.
    stock = {
        f"W{w}": {f"SKU-{s}": {"on_hand": 10 * w + s, "bin": f"R-{s}"} for s in range(w, 1000, 2)}
        for w in range(1, 6)
    }
    movements = [{"seq": i, "sku": f"SKU-{i % 20}", "qty": -2} for i in range(30)]
    world = _world({"stock": stock, "movements": movements}, "stock_totals", "Totals of an item.")
    values = _summary(world, {"sku": "SKU-5"})
    assert values["on_hand"] == sum(10 * w + 5 for w in (1, 3, 5))


def test_a_write_is_shown_the_newest_records_of_the_collection_it_adds_to() -> None:
    state = {
        "members": [{"member_no": 100 + i} for i in range(20)],
        "books": [{"book_id": f"BK-{i}"} for i in range(20)],
        "loans": [
            {"loan_id": f"L{500 + i}", "member_no": 100 + i % 20, "book_id": f"BK-{i % 20}"}
            for i in range(40)
        ],
    }
    world = _world(state, "borrow_book", "Lend a book.", effect="write")
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    arguments = {"member_no": 103, "book_id": "BK-7", "today": "2026-05-01"}
    assert newest_records(overlay, arguments) == ["/loans/38", "/loans/39"]
    picks = ground(overlay, world.state, world.tools[0], arguments).picks
    assert picks["/loans/39"].reason == "newest"


def test_copies_of_one_embedded_object_sum_up_the_records_holding_them() -> None:
    sprints = [{"id": 7 + n, "name": f"Sprint {n}", "state": "closed"} for n in range(3)]
    issues = [
        {
            "key": f"PAY-{n}",
            "points": n % 5 + 1,
            "assignee": {"name": f"Person {n % 4}"},
            "sprints": [dict(sprints[n % 3])],
        }
        for n in range(30)
    ]
    world = _world({"issues": issues}, "sprint_stats", "A sprint's issues: count, points.")
    values = _summary(world, {"sprint_name": "Sprint 1"})
    # The ten issues listing the sprint, not ten copies of the sprint.
    assert values["count"] == 10
    assert values["points"] == sum(n % 5 + 1 for n in range(30) if n % 3 == 1)


def test_a_noun_listed_bare_goes_under_the_word_as_written() -> None:
    servers = [
        {"id": f"i-{n}", "attributes": {"state": "running" if n % 3 else "stopped"}}
        for n in range(12)
    ]
    for description in ("Servers: count, running.", "A team's servers (count, running)."):
        values = _summary(_world({"servers": servers}, "fleet_stats", description), {})
        assert values["running"] == 8
        # A list naming a statistic lists what is answered, not values to keep.
        assert values["count"] == 12


def test_no_summary_of_one_of_several_sibling_collections_the_words_fit_alike() -> None:
    def day(n: int) -> list[dict[str, Any]]:
        return [
            {"ts": f"17359{n:02d}{i:03d}.000100", "user": f"U{i % 4}", "reactions": i % 3}
            for i in range(12)
        ]

    days = {f"2025-01-{n:02d}.json": day(n) for n in range(1, 9)}
    users = [{"id": f"U{i}", "name": f"user.{i}"} for i in range(4)]
    world = _world(
        {"users.json": users, "general": days},
        "channel_activity",
        "A channel's month: posts, threads, replies and reactions.",
    )
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    grounding = ground(overlay, world.state, world.tools[0], {})
    # Which day's file would be a guess: no summary rather than one day's.
    assert grounding.summary is None or "2025-01" not in grounding.summary.render(4000)

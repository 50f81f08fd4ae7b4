"""The sheet, table and keyspace zoo shapes hold what the services they copy serve: a wholesaler's order book
in Google Sheets through the Sheets and Visualization APIs (``sheets``), a studio's Supabase
database through PostgREST (``postgrest``) and a game's live store in Redis Stack as node-redis
answers (``redis``); their computed answers are checked here against independent computations
over the state, and their writes against what the services would change. (That each shape
loads, is deterministic, makes every kind of call and answers from its state is checked with
all the zoo's shapes.)"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

import pytest

from benchmarks.zoo import generate
from benchmarks.zoo.kit import State, ToolError
from tests.fidelity.zoo_calls import run_tool, small_state

BOOK = "1qW8fXc2Lr0Vb7aKdP3sN5tYh9JmE4uGz6oRiC1wTxQk"


@pytest.mark.parametrize("shape", ["sheets", "postgrest", "redis"])
def test_the_same_seed_makes_the_same_sheet_table_keyspace_world(shape: str) -> None:
    first = generate(shape, 0.05, seed=11, episodes=2)
    assert generate(shape, 0.05, seed=11, episodes=2) == first
    assert generate(shape, 0.05, seed=12, episodes=2)[0]["state"] != first[0]["state"]


# sheets


def _sheet(state: State, name: str) -> list[list[Any]]:
    ranges = state["values"]["valueRanges"]
    rows: list[list[Any]] = next(r for r in ranges if r["range"].startswith(name))["values"]
    return rows


def _order(state: State, n: int) -> list[Any]:
    """Order row ``n`` (0-based past the header) worked out by hand: the customer's company
    and the product's price looked up by their ids, the total their product."""
    row = _sheet(state, "Orders")[n + 1]
    company = {r[0]: r[1] for r in _sheet(state, "Customers")[1:]}[row[2]]
    price = {r[0]: r[3] for r in _sheet(state, "Products")[1:]}[row[4]]
    return [*row[:3], company, row[4], row[5], price, round(row[5] * price, 2), *row[8:]]


def _get(state: State, range_: str, render: str = "UNFORMATTED_VALUE") -> Any:
    args = {"spreadsheetId": BOOK, "range": range_, "valueRenderOption": render}
    return run_tool("sheets", state, "spreadsheets_values_get", args)


def _gviz(state: State, tq: str) -> list[list[Any]]:
    args = {"spreadsheetId": BOOK, "sheet": "Orders", "tq": tq}
    answer = run_tool("sheets", state, "gviz_query", args)
    assert answer["status"] == "ok"
    return [[cell["v"] for cell in row["c"]] for row in answer["table"]["rows"]]


def test_a_sheets_row_is_computed_or_shown_as_its_formulas() -> None:
    state = small_state("sheets")
    assert _get(state, "Orders!A5:J6")["values"] == [_order(state, 3), _order(state, 4)]
    formulas = _get(state, "Orders!A5:J5", "FORMULA")["values"][0]
    assert formulas == _sheet(state, "Orders")[4]
    assert formulas[3] == "=VLOOKUP(C5,Customers!A:B,2,FALSE)" and formulas[7] == "=F5*G5"
    assert _get(state, "Customers!D3")["values"] == [[_sheet(state, "Customers")[2][3]]]
    assert "values" not in _get(state, "Orders!A90000:J90001")


def test_a_gviz_query_filters_orders_and_groups_them() -> None:
    state = small_state("sheets")
    orders = [_order(state, n) for n in range(len(_sheet(state, "Orders")) - 1)]
    found = _gviz(state, "select A,D,F where I = 'Shipped' and F >= 30 limit 500")
    assert found == [[o[0], o[3], o[5]] for o in orders if o[8] == "Shipped" and o[5] >= 30]
    grouped = _gviz(state, "select J, count(A), sum(H) group by J")
    totals: dict[str, list[Any]] = defaultdict(lambda: [0, 0.0])
    for order in orders:
        totals[order[9]][0] += 1
        totals[order[9]][1] += order[7]
    assert grouped == [[r, c, round(s, 2)] for r, (c, s) in sorted(totals.items())]
    with pytest.raises(ToolError, match="PARSE_ERROR"):
        _gviz(state, "select A where I == 'x'")


def test_sheets_writes_change_cells_and_what_formulas_compute() -> None:
    state = small_state("sheets")
    sku = _sheet(state, "Orders")[1][4]
    row = next(n for n, r in enumerate(_sheet(state, "Products")) if r[0] == sku) + 1
    args = {"spreadsheetId": BOOK, "valueInputOption": "USER_ENTERED"}
    answer = run_tool(
        "sheets",
        state,
        "spreadsheets_values_update",
        args | {"range": f"Products!D{row}", "values": [[9.5]]},
    )
    assert answer["updatedRange"] == f"Products!D{row}" and answer["updatedCells"] == 1
    assert _get(state, "Orders!G2:H2")["values"] == [
        [9.5, round(_sheet(state, "Orders")[1][5] * 9.5, 2)]
    ]
    count = len(_sheet(state, "Orders"))
    new = ["SO-1", "2025-11-30", "C-0001", f"=VLOOKUP(C{count + 1},Customers!A:B,2,FALSE)"]
    answer = run_tool(
        "sheets",
        state,
        "spreadsheets_values_append",
        args | {"range": "Orders!A1", "values": [new]},
    )
    assert answer["tableRange"] == f"Orders!A1:J{count}"
    assert answer["updates"]["updatedRange"] == f"Orders!A{count + 1}:D{count + 1}"
    assert _sheet(state, "Orders")[-1] == new
    assert state["values"]["valueRanges"][0]["range"] == f"Orders!A1:J{count + 1}"
    company = _sheet(state, "Customers")[1][1]
    assert _get(state, f"Orders!D{count + 1}")["values"] == [[company]]


# postgrest


def _rest(state: State, path: str) -> Any:
    return run_tool("postgrest", state, "postgrest_get", {"path": path})


def test_postgrest_filters_order_and_limit_as_the_query_string_says() -> None:
    state = small_state("postgrest")
    classes = state["/classes"]
    style = classes[0]["style"]
    found = _rest(
        state, f"/classes?style=eq.{style}&price_cents=lte.1800&order=starts_at.desc&limit=5"
    )
    wanted = [c for c in classes if c["style"] == style and c["price_cents"] <= 1800]
    assert found == sorted(wanted, key=lambda c: c["starts_at"], reverse=True)[:5]
    picked = _rest(
        state, "/classes?select=id,room&level=in.(beginner,advanced)&room=not.eq.Rooftop"
    )
    assert picked == [
        {"id": c["id"], "room": c["room"]}
        for c in classes
        if c["level"] in ("beginner", "advanced") and c["room"] != "Rooftop"
    ]
    name = state["/members"][0]["full_name"].split()[0]
    named = _rest(state, f"/members?full_name=ilike.{name.lower()}*&select=id")
    assert named == [{"id": m["id"]} for m in state["/members"] if m["full_name"].startswith(name)]
    with pytest.raises(ToolError, match="42703"):
        _rest(state, "/classes?colour=eq.red")


def test_postgrest_embeds_parents_as_objects_and_children_as_arrays() -> None:
    state = small_state("postgrest")
    member = state["/members"][3]
    select = "full_name,bookings(status,class:classes(title))"
    [found] = _rest(state, f"/members?id=eq.{member['id']}&select={select}")
    titles = {c["id"]: c["title"] for c in state["/classes"]}
    assert found == {
        "full_name": member["full_name"],
        "bookings": [
            {"status": b["status"], "class": {"title": titles[b["class_id"]]}}
            for b in state["/bookings"]
            if b["member_id"] == member["id"]
        ],
    }
    lesson = state["/bookings"][0]["class_id"]
    [counted] = _rest(state, f"/classes?id=eq.{lesson}&select=id,bookings(count)")
    assert counted["bookings"] == [
        {"count": sum(b["class_id"] == lesson for b in state["/bookings"])}
    ]


def test_postgrest_aggregates_group_by_the_other_selected_columns() -> None:
    state = small_state("postgrest")
    lesson = state["/bookings"][0]["class_id"]
    found = _rest(
        state, f"/bookings?select=status,count(),paid:paid_cents.sum()&class_id=eq.{lesson}"
    )
    rows = [b for b in state["/bookings"] if b["class_id"] == lesson]
    counts = Counter(b["status"] for b in rows)
    assert found == [
        {"status": s, "count": n, "paid": sum(b["paid_cents"] for b in rows if b["status"] == s)}
        for s, n in sorted(counts.items())
    ]


def test_postgrest_writes_answer_the_representation() -> None:
    state = small_state("postgrest")
    count, member = len(state["/bookings"]), state["/members"][0]["id"]
    body = {"class_id": 1, "member_id": member, "paid_cents": 1500}
    [made] = run_tool("postgrest", state, "postgrest_post", {"path": "/bookings", "body": body})
    assert made["id"] == count + 1 and made["status"] == "booked" and state["/bookings"][-1] == made
    path = f"/bookings?member_id=eq.{member}&status=eq.booked"
    before = [
        b["id"] for b in state["/bookings"] if b["member_id"] == member and b["status"] == "booked"
    ]
    changed = run_tool(
        "postgrest", state, "postgrest_patch", {"path": path, "body": {"status": "cancelled"}}
    )
    assert [b["id"] for b in changed] == before and all(b["status"] == "cancelled" for b in changed)
    assert _rest(state, path) == []


# redis


def _redis(state: State, tool: str, **args: Any) -> Any:
    return run_tool("redis", state, tool, args)


def _players(state: State) -> dict[str, dict[str, str]]:
    return {k: v for k, v in state["db0"].items() if k.count(":") == 1 and k.startswith("player:")}


def test_redis_search_reads_tags_ranges_prefixes_and_negations() -> None:
    state = small_state("redis")
    players = _players(state)
    query = "@country:{SE|NO} @level:[20 (60] -@platform:{pc}"
    found = _redis(state, "ft_search", index="idx:players", query=query, limit_num=1000)
    wanted = [
        k
        for k, p in players.items()
        if p["country"] in ("SE", "NO") and 20 <= int(p["level"]) < 60 and p["platform"] != "pc"
    ]
    assert [d["id"] for d in found["documents"]] == wanted and found["total"] == len(wanted)
    top = _redis(
        state,
        "ft_search",
        index="idx:players",
        query="@level:[1 +inf]",
        sortby="xp",
        order="DESC",
        limit_num=3,
        **{"return": ["xp"]},
    )
    assert [d["value"]["xp"] for d in top["documents"]] == sorted(
        (p["xp"] for p in players.values()), key=int, reverse=True
    )[:3]
    assert _redis(state, "ft_search", index="idx:players", query="@country:{IS}") == {
        "total": 0,
        "documents": [],
    }


def test_redis_aggregates_and_sorts_by_other_keys() -> None:
    state = small_state("redis")
    players = _players(state)
    pipeline = "GROUPBY 1 @platform REDUCE COUNT 0 AS n SORTBY 2 @n DESC"
    found = _redis(
        state, "ft_aggregate", index="idx:players", query="@level:[40 +inf]", pipeline=pipeline
    )
    counts = Counter(p["platform"] for p in players.values() if int(p["level"]) >= 40)
    assert {r["platform"]: int(r["n"]) for r in found["results"]} == counts
    assert [int(r["n"]) for r in found["results"]] == sorted(counts.values(), reverse=True)
    members = state["db0"]["guild:1:members"]
    roster = _redis(
        state,
        "sort",
        key="guild:1:members",
        by="player:*->xp",
        order="DESC",
        get=["#", "player:*->name"],
        limit_count=5,
    )
    ranked = sorted(members, key=lambda m: (int(players[f"player:{m}"]["xp"]), m), reverse=True)[:5]
    assert roster == [v for m in ranked for v in (m, players[f"player:{m}"]["name"])]


def test_redis_writes_change_hashes_and_scores() -> None:
    state = small_state("redis")
    key = next(iter(_players(state)))
    assert _redis(state, "hset", key=key, fields={"level": "99", "title": "champion"}) == 1
    assert state["db0"][key]["level"] == "99" and state["db0"][key]["title"] == "champion"
    member = key.split(":")[1]
    score = state["db0"]["lb:season:12"][member]
    assert _redis(state, "zincrby", key="lb:season:12", member=member, increment=50) == score + 50
    assert _redis(state, "zscore", key="lb:season:12", member=member) == score + 50
    state["db0"].pop(f"{key}:inventory", None)
    assert _redis(state, "hincrby", key=f"{key}:inventory", field="rune", increment=3) == 3
    assert _redis(state, "hgetall", key=f"{key}:inventory") == {"rune": "3"}

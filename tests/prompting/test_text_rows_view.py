"""A collection kept as lines of text (a SQL dump, a CSV file) is shown as the records its lines
hold: the outline says how they are stored, and a call's constraints select the rows it needs,
those of a row's table only, as they are after a write rewrote or added a line."""

from __future__ import annotations

import copy
from typing import Any

import jsonpatch

from mcp_sim.prompting.state_view import StateView
from tests.prompting.test_retrieval_shapes import tool, world_of

CITIES = ["Oslo", "Bergen", "Tromsø", "Molde"]


def dump(people: int = 400) -> list[str]:
    lines = ["PRAGMA foreign_keys=OFF;", "BEGIN TRANSACTION;"]
    lines.append("CREATE TABLE cities (id INTEGER PRIMARY KEY, name TEXT);")
    lines += [f"INSERT INTO cities VALUES({i},'{c}');" for i, c in enumerate(CITIES, 1)]
    lines.append("CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT, city_id INTEGER, ")
    lines[-1] += "born INTEGER);"
    lines += [
        f"INSERT INTO people VALUES({i},'Person {i}',{i % 4 + 1},{1950 + i % 50});"
        for i in range(1, people + 1)
    ]
    return [*lines, "COMMIT;"]


def _view(state: dict[str, Any], name: str, arguments: dict[str, Any]) -> str:
    tools = [tool("get_row", table="Table.", pk="Key."), tool("rows", table="Table.", born="Year.")]
    view = StateView(world_of(state, tools), budget_tokens=3000)
    return view.render(state, None, [], tool=view.world.tool(name), arguments=arguments)


def test_a_dumps_outline_names_its_tables_columns_and_a_stored_line() -> None:
    text = _view({"db": dump()}, "get_row", {"table": "people", "pk": 17})
    assert "SQL `INSERT` lines" in text
    assert 'people {"columns": ["id", "name", "city_id", "born"]}' in text
    assert "- /db/@people: the 400 items of /db whose table is 'people'" in text
    assert "- /db/@cities: the 4 items of /db whose table is 'cities'" in text
    # The row itself, labelled by its columns, at the pointer of its line.
    assert '- /db/24: {"born":1967,"city_id":2,"id":17,"name":"Person 17"}' in text


def test_a_search_selects_rows_by_their_columns_values() -> None:
    text = _view({"db": dump()}, "rows", {"table": "people", "born": "1999"})
    shown = [line for line in text.splitlines() if '"born":1999' in line]
    assert len(shown) == 8  # 49, 99, ..., 399: every row born that year, no other
    assert all("Person" in line for line in shown)


def test_a_rewritten_and_an_added_line_are_shown_as_they_are_now() -> None:
    state = {"db": dump()}
    tools = [tool("get_row", table="Table.", pk="Key.")]
    view = StateView(world_of(state, tools), budget_tokens=3000)
    at = state["db"].index("INSERT INTO people VALUES(17,'Person 17',2,1967);")
    end = len(state["db"]) - 1
    patch = [
        {"op": "replace", "path": f"/db/{at}", "value": state["db"][at].replace("17',", "X',")},
    ]
    added = [
        {"op": "add", "path": f"/db/{end}", "value": "INSERT INTO people VALUES(401,'Nea',1,2001);"}
    ]
    overlay = view.index.overlay_of(state)
    for change in (patch, added):
        after = jsonpatch.apply_patch(state, change, in_place=False)
        overlay, state = overlay.advance(state, after, change), after
    for now in (overlay, view.index.overlay_of(copy.deepcopy(state))):
        get = view.world.tool("get_row")
        text = view.render(now.state, None, [], tool=get, arguments={"pk": 17}, overlay=now)
        assert '"name":"Person X"' in text
        text = view.render(now.state, None, [], tool=get, arguments={"pk": 401}, overlay=now)
        assert f'- /db/{end}: {{"born":2001,"city_id":1,"id":401,"name":"Nea"}}' in text
        assert "the 401 items of /db whose table is 'people'" in text


def test_a_csv_texts_rows_are_found_by_a_columns_value() -> None:
    header = "sku,name,warehouse,on_hand"
    rows = [f"SKU-{n:04d},Part {n},{CITIES[n % 4]},{n % 37}" for n in range(600)]
    state = {"exports": {"stock.csv": "\n".join([header, *rows]) + "\n", "note": "nightly"}}
    tools = [tool("get_stock", sku="Stock keeping unit.")]
    view = StateView(world_of(state, tools), budget_tokens=3000)
    text = view.render(
        state, None, [], tool=view.world.tool("get_stock"), arguments={"sku": "SKU-0417"}
    )
    assert "/exports/stock.csv: one text of delimited lines under the header line" in text
    assert "rewritten whole" in text
    line = '- /exports/stock.csv/418: {"name":"Part 417","on_hand":"10","sku":"SKU-0417"'
    assert line in text

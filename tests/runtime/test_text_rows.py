"""Arrays of text lines read as the records they hold: found by structure, indexed as
collections (a dump's tables one collection each), and kept up to date line by line."""

from __future__ import annotations

import copy
from typing import Any

import jsonpatch

from mcp_sim.runtime.line_layouts import Row
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.runtime.state_shape import normalize
from mcp_sim.runtime.text_rows import find_text_rows
from mcp_sim.spec.world import World

CITIES = ["Oslo", "Bergen", "Tromsø", "Molde"]


def _world(state: dict[str, Any]) -> World:
    return World.model_validate(
        {
            "world": "t",
            "title": "T",
            "description": "Lines.",
            "state": state,
            "tools": [
                {"name": "read", "description": "Reads.", "input_schema": {"type": "object"}}
            ],
        }
    )


def _dump(rows: int) -> list[str]:
    lines = ["PRAGMA foreign_keys=OFF;", "BEGIN TRANSACTION;"]
    lines.append("CREATE TABLE cities (id INTEGER PRIMARY KEY, name TEXT);")
    lines += [f"INSERT INTO cities VALUES({i},'{c}');" for i, c in enumerate(CITIES, 1)]
    lines.append("CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT, city_id INTEGER);")
    lines += [f"INSERT INTO people VALUES({i},'Person {i}',{i % 4 + 1});" for i in range(rows)]
    return [*lines, "CREATE INDEX p ON people(city_id);", "COMMIT;"]


def test_a_dumps_rows_are_records_of_their_tables_at_their_lines() -> None:
    state = {"db": _dump(40)}
    text = find_text_rows(state)
    assert text is not None and list(text.layouts) == ["/db"]
    view = text.read(state)
    row = view["db"][3]
    assert row == {"id": 1, "name": "Oslo"} and isinstance(row, Row) and row.table == "cities"
    assert view["db"][1] == "BEGIN TRANSACTION;"  # no record: kept as it is
    assert state["db"][3].startswith("INSERT")  # the stored state is left alone
    index = StateIndex(_world(state), state)
    sizes = {c.pointer: c.size for c in index.collections}
    assert sizes == {"/db/@cities": 4, "/db/@people": 40}
    overlay = index.overlay_of(state)
    assert {h.pointer for h in overlay.key_hits("2")} >= {"/db/4", "/db/10"}


def test_csv_key_value_and_json_lines_are_found_and_prose_is_not() -> None:
    csv = ["id,name,city", *(f"{i},Person {i},{CITIES[i % 4]}" for i in range(30))]
    logs = [f'ts=2026-01-01T00:{i:02d}:00Z level=info user=u{i} msg="hi there"' for i in range(30)]
    prose = [f"Dear {c}, we met on day {i}. It rained." for i, c in enumerate(CITIES * 5)]
    text = find_text_rows({"csv": csv, "log": logs, "notes": prose, "tags": ["a", "b"]})
    assert text is not None
    assert {p: layout.form for p, layout in text.layouts.items()} == {
        "/csv": "delimited",
        "/log": "pairs",
    }
    index = StateIndex(_world({"csv": csv}), {"csv": csv})
    assert [(c.pointer, c.size, c.id_field) for c in index.collections] == [("/csv", 30, "id")]
    assert find_text_rows({"tags": ["red", "blue", "green"] * 5}) is None


def test_log_lines_of_unnamed_fields_are_records_of_their_positions() -> None:
    access = [
        f'10.0.0.{i} - u{i} [10/Oct/2026:13:{i:02d}:36 +0000] "GET /items/{i} HTTP/1.1" 200 {900 + i}'
        for i in range(30)
    ]
    prose = [f"We walked to the harbor and saw {w} boats." for w in ("many", "two", "red") * 8]
    text = find_text_rows({"access": access, "prose": prose})
    assert text is not None and list(text.layouts) == ["/access"]
    record = text.read({"access": access})["access"][5]
    assert record["field1"] == "10.0.0.5" and record["field6"] == "200"
    assert "field1`, `field2`" in text.note()


def test_lines_inside_records_keyed_by_id_are_fields_of_those_records() -> None:
    notes = [f"2026-01-{d:02d} 10:00 ana fixed item {d}" for d in range(1, 20)]
    tickets = {f"T{n}": {"title": f"Ticket {n}", "notes": notes} for n in range(20)}
    assert find_text_rows({"tickets": tickets}) is None
    # A few collections' texts side by side, each in an object of its own, are read.
    csv = "\n".join(["id,name", *(f"{i},Person {i}" for i in range(20))])
    texts = find_text_rows({"people": {"content": csv}, "staff": {"content": csv}})
    assert texts is not None and list(texts.layouts) == ["/people/content", "/staff/content"]


def test_a_world_without_lines_of_records_is_read_as_it_is() -> None:
    state = {"people": [{"id": i, "name": f"P{i}"} for i in range(20)]}
    index = StateIndex(_world(state), state)
    assert index.text is None and index.state is state


def _moved_on(state: dict[str, Any], patches: list[list[dict[str, Any]]]) -> None:
    """Each patch moves an overlay on; at the end it agrees with one rebuilt from scratch."""
    index = StateIndex(_world(state), state)
    overlay = index.overlay_of(state)
    for patch in patches:
        after = jsonpatch.apply_patch(state, patch, in_place=False)
        overlay = overlay.advance(state, after, patch)
        state = after
    rebuilt = index.overlay_of(copy.deepcopy(state))
    for collection in index.collections:
        assert overlay.pointers(collection.pointer) == rebuilt.pointers(collection.pointer)
        assert overlay.record_count(collection.pointer) == rebuilt.record_count(collection.pointer)
    for label in ("person 3", "renamed", "newcomer", "oslo", "41", "3"):
        assert overlay.value_hits(label) == rebuilt.value_hits(label), label
    assert overlay.view == rebuilt.view


def test_lines_rewritten_added_and_removed_move_the_index_on() -> None:
    state = {"db": _dump(40)}
    at = state["db"].index("INSERT INTO people VALUES(3,'Person 3',4);")
    end = len(state["db"]) - 2
    replace = {
        "op": "replace",
        "path": f"/db/{at}",
        "value": state["db"][at].replace("Person 3", "Renamed"),
    }
    insert = {
        "op": "add",
        "path": f"/db/{end}",
        "value": "INSERT INTO people VALUES(41,'Newcomer',1);",
    }
    _moved_on(state, [[replace], [insert], [{"op": "remove", "path": "/db/8"}]])


def test_the_new_record_of_an_inserted_line_is_found_under_its_table() -> None:
    state = {"db": _dump(10)}
    end = len(state["db"]) - 2
    patch = [
        {"op": "add", "path": f"/db/{end}", "value": "INSERT INTO people VALUES(41,'Newcomer',1);"}
    ]
    index = StateIndex(_world(state), state)
    after = jsonpatch.apply_patch(state, patch, in_place=False)
    overlay = index.overlay_of(state).advance(state, after, patch)
    hits = overlay.value_hits(normalize("Newcomer") or "")
    assert list(hits) == [f"/db/{end}"]
    facts = overlay.facts(f"/db/{end}")
    assert facts is not None and facts.collection == "/db/@people"
    assert overlay.record_count("/db/@people") == 11


def test_a_text_of_lines_in_one_string_is_read_and_rewritten_whole() -> None:
    rows = [f"{i}\tPerson {i}\t{CITIES[i % 4]}" for i in range(30)]
    state = {"files": {"people.tsv": "\n".join(["id\tname\tcity", *rows, ""])}}
    text = find_text_rows(state)
    assert text is not None and text.layouts["/files/people.tsv"].joined
    view = text.read(state)
    assert view["files"]["people.tsv"][4] == {"id": "3", "name": "Person 3", "city": "Molde"}
    assert "one text of delimited lines" in text.note() and "rewritten whole" in text.note()
    renamed = (
        state["files"]["people.tsv"].replace("Person 3\t", "Renamed\t") + "41\tNewcomer\tOslo\n"
    )
    patch = [{"op": "replace", "path": "/files/people.tsv", "value": renamed}]
    index = StateIndex(_world(state), state)
    assert [(c.pointer, c.size) for c in index.collections] == [("/files/people.tsv", 30)]
    _moved_on(state, [patch])

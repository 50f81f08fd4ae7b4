"""Value presence: an answer's values found anywhere in a prompt, whatever key they stand by."""

from __future__ import annotations

import json

from mcp_sim.fidelity.answer_facts import anywhere, facts, present
from mcp_sim.fidelity.grounding_recall import Figures


def test_a_number_counts_by_value_under_any_key() -> None:
    prompt = '{"size_total": 3164841.0, "owners": ["gus", "root"]}'
    assert anywhere(3164841, prompt)
    assert not present("bytes", 3164841, prompt)
    assert present("size_total", 3164841, prompt)
    assert not anywhere(316484, prompt)


def test_every_number_of_an_array_counts_after_its_key() -> None:
    prompt = '{"MEMBER_IDS":[1042, 1252],"other":[7]}'
    assert present("MEMBER_IDS[]", 1042, prompt) and present("MEMBER_IDS[]", 1252, prompt)
    assert not present("MEMBER_IDS[]", 7, prompt)


def test_every_item_of_an_arrays_inner_arrays_counts_after_its_key() -> None:
    # A Prometheus series' samples: ``[time, "value"]`` pairs, each an item of ``values``.
    prompt = '{"values":[[1764569100,"21400"],[1764569700,"21418"]],"tags":["a]b"],"other":[7]}'
    assert present("values[]", 1764569700, prompt) and present("values[]", "21418", prompt)
    assert present("tags[]", "a]b", prompt)
    assert not present("values[]", 7, prompt) and not present("tags[]", "21400", prompt)


def test_a_string_counts_as_json_writes_it_or_bare() -> None:
    assert anywhere("root", 'owners: ["gus", "root"]')
    assert anywhere("Zoë", "owner Zoë")
    assert not anywhere("ivy", 'owners: ["gus", "root"]')


def test_the_row_reports_presence_beside_recall() -> None:
    figures = Figures(recalls=[0.0, 1.0], presence=[1.0, 1.0])
    row = figures.row()
    assert row["recall"] == 0.5
    assert row["presence"] == 1.0
    assert Figures().row()["presence"] is None


def test_an_empty_json_answer_has_no_facts_and_text_is_one() -> None:
    for empty in ("null", "[]", "{}", '""', "true"):
        assert facts(empty, {}) == [], empty
    assert facts('"Saved the note."', {}) == [(None, "Saved the note.")]
    # Text: the values written in it, less those the call's arguments hold.
    assert facts("Saved the note.", {}) == []
    answer = "Saved BT-7's entry on 2026-06-09: berth 164, rate 62.53."
    assert facts(answer, {"boat": "BT-7", "date": "2026-06-09"}) == [(None, 164), (None, 62.53)]
    assert facts("42.5", {"id": 42.5}) == []


def test_a_number_a_store_writes_as_text_counts_by_value() -> None:
    prompt = '{"battery":"78","fare":"8.20","code":"78-B"}'
    assert present("battery", 78, prompt) and present("fare", 8.2, prompt)
    assert not present("code", 78, prompt) and not present("battery", 7, prompt)


def test_a_positional_rows_cells_are_facts_under_their_columns_names() -> None:
    answer = json.dumps(
        {
            "columns": ["id", "city", "population"],
            "rows": [[1, "Oslo", 709037], [2, "Bergen", 291189]],
            "truncated": False,
        }
    )
    found = facts(answer, {})
    assert ("city", "Bergen") in found and ("population", 291189) in found
    assert ("city", "Oslo") in found and not any(key == "rows[]" for key, _ in found)
    # Labelled as the state holds it, the second row's values are found beside their columns.
    prompt = '- /rows/2: {"city":"Bergen","id":2,"population":291189}'
    assert present("city", "Bergen", prompt) and present("population", 291189, prompt)
    # Arrays of arrays beside a list that names no columns keep the array's key.
    plain = facts(json.dumps({"tags": ["abc", "defg"], "points": [[10, 20], [30, 40]]}), {})
    assert ("points[]", 30) in plain and ("abc", 30) not in plain

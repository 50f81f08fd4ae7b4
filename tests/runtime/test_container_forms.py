"""Each container a service or an export keeps records in is read as the same records, with
the same ids, as the plain array of them: found as one collection, keyed by the id (whatever
the id field is called, a number or a code), resolved as the record, and kept in step when a
record is added."""

from __future__ import annotations

import copy
from typing import Any

import jsonpatch
import pytest

from mcp_sim.runtime.state_index import StateIndex, StateOverlay
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_shape import Collection, normalize, record_items
from mcp_sim.spec.world import World
from tests.runtime.container_forms import FORMS, ID_NAMES, IDS, Form, Records, records_of

FORM_NAMES = {form.name: form for form in FORMS}


def world_of(state: dict[str, Any]) -> World:
    return World.model_validate(
        {"world": "t", "title": "T", "description": "A hand-made state.", "state": state}
        | {"tools": [{"name": "get", "description": "Get.", "input_schema": {"type": "object"}}]}
    )


def expected(form: Form, records: Records, id_name: str) -> dict[str, dict[str, Any]]:
    """What the records should read as, by id: as stored, less what the form drops."""
    found: dict[str, dict[str, Any]] = {}
    for record in records:
        stored = {k: v for k, v in record.items() if form.keeps_id or k != id_name}
        if form.stringly:
            stored = {k: str(v) for k, v in stored.items()}
        found[str(record[id_name])] = stored
    return found


def read(index: StateIndex, state: Any) -> dict[str, tuple[Collection, dict[str, Any]]]:
    """Every record of every collection by key, with its collection."""
    found: dict[str, tuple[Collection, dict[str, Any]]] = {}
    for collection in index.collections:
        for key, pointer, _ in record_items(collection, resolve(state, collection.pointer)):
            found[key] = (collection, resolve(state, pointer))
    return found


def single_hit(overlay: StateOverlay, ident: Any) -> Any:
    label = normalize(ident)
    assert label is not None
    hits = {h.pointer for h in overlay.key_hits(label)}
    assert len(hits) == 1, (ident, hits)
    return resolve(overlay.state, hits.pop())


CASES = [(f, i, "codes") for f in FORM_NAMES for i in ID_NAMES] + [
    (f, "id", kind) for f in FORM_NAMES for kind in ("numbers", "uuids")
]


@pytest.mark.parametrize(("form_name", "id_name", "kind"), CASES)
def test_each_container_holds_the_records_and_ids_of_the_plain_array(
    form_name: str, id_name: str, kind: str
) -> None:
    form = FORM_NAMES[form_name]
    records = records_of(id_name, IDS[kind])
    world = world_of(form.state(copy.deepcopy(records), id_name))
    index = StateIndex(world, world.state)
    want = expected(form, records, id_name)
    found = read(index, world.state)
    assert {k: found[k][1] for k in want if k in found} == want
    (collection,) = {found[k][0] for k in want}
    assert collection.size == len(records)
    overlay = index.overlay_of(world.state)
    for ident, record in want.items():
        # An id asked for as a number or as its text finds the record alike.
        assert single_hit(overlay, ident) == record
        if ident.isdigit():
            assert single_hit(overlay, int(ident)) == record


@pytest.mark.parametrize("form_name", sorted(FORM_NAMES))
def test_a_record_added_to_each_container_is_found_by_its_id(form_name: str) -> None:
    form = FORM_NAMES[form_name]
    records = records_of("ref", IDS["codes"])
    world = world_of(form.state(copy.deepcopy(records), "ref"))
    index = StateIndex(world, world.state)
    (collection,) = {c for c in index.collections if c.size == len(records)}
    added = {"ref": "LM-999", "title": "Lamp model new", "colour": "teal", "price": 5}
    patch = form.append(added, "ref", len(records))
    after = jsonpatch.apply_patch(world.state, patch, in_place=False)
    moved = index.overlay_of(world.state).advance(world.state, after, patch)
    rebuilt = index.overlay_of(copy.deepcopy(after))
    want = expected(form, [added], "ref")["LM-999"]
    for overlay in (moved, rebuilt):
        assert single_hit(overlay, "LM-999") == want
        assert overlay.record_count(collection.pointer) == len(records) + 1


def test_a_page_added_to_pages_of_records_adds_its_records() -> None:
    records = records_of("id", IDS["codes"])
    world = world_of(FORM_NAMES["pages of records"].state(copy.deepcopy(records), "id"))
    index = StateIndex(world, world.state)
    added = records_of("id", ["LM-900", "LM-901"])
    page = {"page": 3, "items": added}
    patch = [{"op": "add", "path": "/export/pages/-", "value": page}]
    after = jsonpatch.apply_patch(world.state, patch, in_place=False)
    moved = index.overlay_of(world.state).advance(world.state, after, patch)
    for overlay in (moved, index.overlay_of(copy.deepcopy(after))):
        assert single_hit(overlay, "LM-901") == added[1]
        assert overlay.record_count("/export/pages") == len(records) + 2


def test_records_that_each_hold_a_list_are_not_pages() -> None:
    orders = [{"total": 10 + n, "lines": [{"sku": f"S{n}"}]} for n in range(3)]
    numbered = [{"page": 7 + n, "items": [{"sku": f"S{n}"}]} for n in range(3)]
    world = world_of({"orders": orders, "numbered": numbered})
    found = {c.pointer: c for c in StateIndex(world, world.state).collections}
    assert found["/orders"].pages == "" and found["/orders"].size == 3
    # Numbers that are not the pages' positions are a record's field, not a page number.
    assert found["/numbered"].pages == ""


def test_an_object_of_wrapped_collections_holds_their_records_not_two() -> None:
    batches = [{"node": {"ID": f"b{n:03}", "style": "ipa"}, "cursor": f"c{n}"} for n in range(20)]
    shipments = [{"node": {"ID": f"s{n:03}", "kegs": n}, "cursor": f"c{n}"} for n in range(30)]
    page = {"endCursor": "c9", "hasNextPage": False}
    entities = {"BATCHES": {"edges": batches, "pageInfo": page}, "SHIPMENTS": {"edges": shipments}}
    # Orders keyed by id, each with a few lines, stay one keyed collection.
    orders = {f"o{n}": {"total": n, "lines": [{"sku": "S1"}, {"sku": "S2"}]} for n in range(3)}
    world = world_of({"payload": {"ENTITIES": entities}, "orders": orders})
    index = StateIndex(world, world.state)
    found = {c.pointer: c for c in index.collections}
    assert "/payload/ENTITIES" not in found
    assert found["/payload/ENTITIES/BATCHES/edges"].size == 20
    assert found["/payload/ENTITIES/SHIPMENTS/edges"].inner == "/node"
    assert found["/orders"].keyed and found["/orders"].size == 3
    assert single_hit(index.overlay_of(world.state), "s007") == {"ID": "s007", "kegs": 7}


def test_search_exports_wrapped_a_few_levels_down_hold_their_hits() -> None:
    def hits(kind: str, count: int) -> dict[str, Any]:
        found = [
            {"_index": kind, "_id": f"{kind[0]}{n:03}", "_score": 1.0, "_source": {"n": n}}
            for n in range(count)
        ]
        return {"hits": {"total": {"value": count}, "max_score": 1.0, "hits": found}}

    # Objects of a few keys each holding one line item stay one keyed collection.
    units = {f"u{n}": {"name": f"unit {n}", "rooms": [{"no": n}]} for n in range(3)}
    world = world_of({"payload": {"books": hits("books", 20), "loans": hits("loans", 30)}})
    index = StateIndex(world, world.state)
    found = {c.pointer: c for c in index.collections}
    assert "/payload" not in found
    assert found["/payload/books/hits/hits"].size == 20
    assert found["/payload/loans/hits/hits"].size == 30
    assert single_hit(index.overlay_of(world.state), "l007")["_source"] == {"n": 7}
    other = world_of({"units": units})
    assert {c.pointer for c in StateIndex(other, other.state).collections} == {"/units"}

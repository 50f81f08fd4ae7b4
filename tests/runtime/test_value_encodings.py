"""Value encodings found by structure and read as plain JSON: dialects the zoo has none of
(Firestore, MongoDB extended JSON), XML attributes, and plain JSON that only looks alike."""

from __future__ import annotations

import copy
from typing import Any

import jsonpatch

from mcp_sim.prompting.state_view import StateView
from mcp_sim.runtime.composite_keys import composite_id, key_parts
from mcp_sim.runtime.decoded_state import view_encoding
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.runtime.value_decoding import decode
from mcp_sim.runtime.value_encodings import detect
from mcp_sim.spec.world import World


def world_of(state: dict[str, Any], output: dict[str, Any] | None = None) -> World:
    tool: dict[str, Any] = {
        "name": "get_book",
        "description": "A book by its id.",
        "input_schema": {
            "type": "object",
            "properties": {"book_id": {"type": "string", "description": "Book id."}},
        },
    }
    if output is not None:
        tool["output_schema"] = output
    return World.model_validate(
        {"world": "t", "title": "T", "description": "A hand-made state.", "state": state}
        | {"tools": [tool]}
    )


def firestore(n: int = 60) -> dict[str, Any]:
    """Books as the Firestore REST API lists documents."""
    documents = [
        {
            "name": f"projects/p/databases/(default)/documents/books/b{i}",
            "fields": {
                "title": {"stringValue": f"Title {i}"},
                "pages": {"integerValue": str(100 + i)},
                "price": {"doubleValue": 9.5 + i},
                "updated": {"timestampValue": f"2025-03-01T{i % 24:02d}:15:00Z"},
                "inPrint": {"booleanValue": i % 2 == 0},
                "isbn": {"stringValue": f"978-{i:05d}"},
                "tags": {"arrayValue": {"values": [{"stringValue": "novel"}]}},
                "author": {"mapValue": {"fields": {"name": {"stringValue": f"Author {i}"}}}},
                "sequel": {"nullValue": None},
                "awards": {"arrayValue": {}},
            },
        }
        for i in range(n)
    ]
    return {"documents": documents}


def mongo(n: int = 60) -> dict[str, Any]:
    """Orders as ``mongoexport`` writes them in canonical extended JSON."""
    return {
        "orders": [
            {
                "_id": {"$oid": f"65a1b2c3d4e5f6a7b8c9{i:04d}"},
                "customer": f"C-{i}",
                "total": {"$numberDecimal": f"{10 + i}.50"},
                "items": {"$numberInt": str(i % 4 + 1)},
                "placedAt": {"$date": {"$numberLong": str(1700000000000 + i)}},
                "dueOn": {"$date": f"2025-02-{i % 28 + 1:02d}T00:00:00Z"},
                "note": "rush" if i % 3 == 0 else "",
                # A plain one-key object, and a map keyed by dates, beside the operators.
                "specs": {"colour": "red"},
                "history": {f"2025-01-{i % 28 + 1:02d}": {"$numberInt": "1"}},
            }
            for i in range(n)
        ]
    }


def xml(n: int = 40) -> dict[str, Any]:
    """Rooms as ``xmltodict`` reads an XML export."""
    rooms = [
        {
            "@number": str(100 + i),
            "@type": "DBL" if i % 2 else "SGL",
            "Rate": {"@currency": "EUR", "#text": f"{80 + i}.50"},
            "Beds": str(i % 3 + 1),
        }
        for i in range(n)
    ]
    return {"Export": {"@version": "2", "Rooms": {"Room": rooms}}}


def test_firestore_typed_values_are_found_and_read_as_plain_json() -> None:
    state = firestore()
    encoding = detect(state)
    assert encoding is not None
    assert {"stringValue", "integerValue", "mapValue", "arrayValue"} <= encoding.tags
    assert encoding.wraps["mapValue"] == "fields"
    plain = decode(state, encoding)["documents"][3]["fields"]
    assert plain == {
        "title": "Title 3",
        "pages": 103,
        "price": 12.5,
        "updated": "2025-03-01T03:15:00Z",
        "inPrint": False,
        "isbn": "978-00003",
        "tags": ["novel"],
        "author": {"name": "Author 3"},
        "sequel": None,
        "awards": [],
    }


def test_mongo_extended_json_operators_are_tags_and_numbers_stay_numbers() -> None:
    state = mongo()
    encoding = detect(state)
    assert encoding is not None
    assert {"$oid", "$numberDecimal", "$date", "$numberLong"} <= encoding.tags
    order = decode(state, encoding)["orders"][2]
    assert order["_id"] == "65a1b2c3d4e5f6a7b8c90002"
    assert order["total"] == 12.5
    assert order["items"] == 3
    assert order["placedAt"] == 1700000000002
    assert order["customer"] == "C-2"
    assert order["specs"] == {"colour": "red"}
    # Every $date string at midnight: dates kept as timestamps.
    assert order["dueOn"] == "2025-02-03"
    assert order["history"] == {"2025-01-03": 1}
    assert not {"specs", "2025-01-03"} & encoding.tags


def test_xml_attributes_and_text_read_as_fields() -> None:
    state = xml()
    encoding = detect(state)
    assert encoding is not None and encoding.attribute == "@" and encoding.text == "#text"
    room = decode(state, encoding)["Export"]["Rooms"]["Room"][1]
    assert room == {
        "number": "101",
        "type": "DBL",
        "Rate": {"currency": "EUR", "value": "81.50"},
        "Beds": "2",
    }


def test_typed_xml_elements_read_as_numbers_and_lists() -> None:
    # A serializer's typed XML: an element's type attribute beside its text or its items; a
    # string type's text that looks like a number stays text.
    beds = [
        {
            "@id": f"B{i}",
            "Crop": "basil",
            "Size": {"@type": "integer", "#text": str(200 + i)},
            "Acidity": {"@type": "decimal", "#text": f"6.{i % 9 + 1}"},
            "Label": {"@type": "string", "#text": str(i) if i == 2 else f"L{i}"},
            "Readings": {
                "@type": "array",
                "item": [{"Temp": {"@type": "decimal", "#text": "20.5"}}],
            }
            if i % 2
            else {"@type": "array", "item": {"Temp": {"@type": "integer", "#text": "19"}}},
            "Notes": {"@type": "array"},
        }
        for i in range(30)
    ]
    state = {"Farm": {"@version": "1", "Beds": {"Bed": beds}}}
    encoding = detect(state)
    assert encoding is not None and encoding.type_key == "@type"
    plain = decode(state, encoding)["Farm"]["Beds"]["Bed"]
    assert plain[2] == {
        "id": "B2",
        "Crop": "basil",
        "Size": 202,
        "Acidity": 6.3,
        "Label": "2",
        "Readings": [{"Temp": 19}],
        "Notes": [],
    }
    assert plain[1]["Readings"] == [{"Temp": 20.5}]


def test_plain_json_of_single_key_objects_has_no_encoding() -> None:
    # One-key objects under date keys (a calendar) or under one field name are not type tags.
    calendar = {f"2025-01-{d:02d}": {"price": d} for d in range(1, 29)}
    people = [{"name": f"P{i}", "address": {"city": "Oslo"}, "_id": i} for i in range(40)]
    assert detect({"calendar": calendar, "people": people}) is None


def test_a_tool_answering_in_the_stored_form_keeps_views_stored() -> None:
    stored = {"type": "object", "properties": {"title": {"properties": {"stringValue": {}}}}}
    assert view_encoding(world_of(firestore()), firestore()) is not None
    assert view_encoding(world_of(firestore(), stored), firestore()) is None


def test_a_view_of_a_firestore_world_finds_and_shows_decoded_records() -> None:
    world = world_of(firestore())
    view = StateView(world, budget_tokens=1500)
    text = view.render(world.state, None, [], tool=world.tool("get_book"), arguments={})
    assert "shown decoded" in text
    text = view.render(
        world.state, None, [], tool=world.tool("get_book"), arguments={"book_id": "978-00042"}
    )
    assert '"title":"Title 42"' in text and '"pages":142' in text
    # A document is found by the id ending its resource name.
    text = view.render(
        world.state, None, [], tool=world.tool("get_book"), arguments={"book_id": "b17"}
    )
    assert '"title":"Title 17"' in text
    assert "stringValue" not in text.split("**Records this call needs**", 1)[1]


def test_a_patch_moves_the_decoded_view_on_and_shares_untouched_records() -> None:
    world = world_of(firestore())
    index = StateIndex(world, world.state)
    overlay = index.overlay_of(world.state)
    patch = [
        {
            "op": "replace",
            "path": "/documents/5/fields/isbn",
            "value": {"stringValue": "978-99999"},
        },
        {"op": "add", "path": "/documents/-", "value": copy.deepcopy(world.state["documents"][0])},
    ]
    after = jsonpatch.apply_patch(world.state, patch)
    moved = overlay.advance(world.state, after, patch)
    assert moved.state is after
    assert moved.view["documents"][5]["fields"]["isbn"] == "978-99999"
    assert len(moved.view["documents"]) == 61
    assert moved.view["documents"][7] is overlay.view["documents"][7]
    assert "/documents/5" in moved.value_hits("978-99999")
    assert "/documents/5" not in moved.value_hits("978-00005")
    # A state replaced outside the calls is decoded whole, to the same view.
    rebuilt = index.overlay_of(copy.deepcopy(after))
    assert rebuilt.view == moved.view


def test_composite_key_parts_name_their_record() -> None:
    assert key_parts("BOOKING#2025-03-01#50077") == ["2025-03-01", "50077"]
    assert key_parts("order|A-17") == ["A-17"]
    assert key_parts("#META") == [] and key_parts("C# in depth") == []
    assert key_parts("projects/p/databases/(default)/documents/books/b42") == ["b42"]
    assert key_parts("src/app/main.py") == [] and key_parts("Ann Berg, 2025-03-01") == []
    profile = {"PK": "MEMBER#1042", "SK": "PROFILE", "name": "Ann"}
    booking = {"PK": "MEMBER#1042", "SK": "BOOKING#2025-03-01#50077", "hours": 2}
    assert composite_id(profile) == "1042" and composite_id(booking) == "50077"
    items: list[dict[str, Any]] = [
        {"PK": {"S": f"MEMBER#{1000 + i}"}, "SK": {"S": "PROFILE"}, "name": {"S": f"M{i}"}}
        | {"plan": {"S": "flex"}, "credits": {"N": str(i)}, "visits": {"N": "3"}}
        | {"rate": {"N": "2.5"}}
        for i in range(30)
    ]
    items += [
        {"PK": {"S": "MEMBER#1003"}, "SK": {"S": f"BOOKING#2025-03-0{d}#{500 + d}"}}
        | {"hours": {"N": "1.5"}, "paid": {"BOOL": True}}
        for d in range(1, 6)
    ]
    world = world_of({"Items": items})
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    assert [h.pointer for h in overlay.key_hits("1003")] == ["/Items/3"]
    assert [h.pointer for h in overlay.key_hits("502")] == ["/Items/31"]
    assert len(overlay.value_hits("1003")) == 6


def test_a_removed_record_shifts_the_decoded_collection_with_the_stored_one() -> None:
    world = world_of(firestore())
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    patch = [{"op": "remove", "path": "/documents/3"}]
    after = jsonpatch.apply_patch(world.state, patch)
    moved = overlay.advance(world.state, after, patch)
    assert len(moved.view["documents"]) == 59
    assert moved.view["documents"][3]["fields"]["title"] == "Title 4"
    assert moved.value_hits("title 4") == {"/documents/3": "/fields/title"}
    assert not moved.value_hits("title 3")
    # A change outside any record (a page token beside the documents) reaches the view too.
    patch = [{"op": "add", "path": "/nextPageToken", "value": "abc"}]
    later = moved.advance(after, jsonpatch.apply_patch(after, patch), patch)
    assert later.view["nextPageToken"] == "abc"

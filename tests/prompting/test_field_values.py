"""The values a record holds at a field path, and the labels a field table files them under."""

from __future__ import annotations

from mcp_sim.prompting.field_tables import FieldTables, Places
from mcp_sim.prompting.record_fields import field_paths, values_at
from mcp_sim.prompting.summary_stats import is_map
from mcp_sim.prompting.value_labels import ValueLabels
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.spec.world import World
from tests.world_generator import make_world


def test_values_at_walks_fields_arrays_and_map_keys() -> None:
    record = {
        "city": "Oslo",
        "items": [{"sku": "a"}, {"sku": "b"}],
        "dates": {"2026-05-01": {"seats": 3}},
        "a/b": 7,
        "none": None,
    }
    assert values_at(record, "city") == [("/city", "Oslo")]
    assert values_at(record, "items/*/sku") == [("/items/0/sku", "a"), ("/items/1/sku", "b")]
    assert values_at(record, "dates/#") == [("/dates/2026-05-01", "2026-05-01")]
    assert values_at(record, "dates/*/seats") == [("/dates/2026-05-01/seats", 3)]
    # A field name holding a "/" is named (and pointed at) flattened.
    assert values_at(record, "a_b") == [("/a_b", 7)]
    assert values_at(record, "none") == []
    assert values_at(record, "missing") == []
    assert values_at(record, "items") == []


def test_fields_named_by_numbers_are_fields_not_a_map_of_ids() -> None:
    # MARC's tags: a control field's text beside data fields' objects.
    record = {"fields": {"001": "ocn1", "245": {"a": "Title"}, "650": [{"a": "Harbors"}]}}
    paths = field_paths(record)
    assert paths["fields/650/*/a"] == ["Harbors"] and paths["fields/245/a"] == ["Title"]
    # Entries keyed by date are alike, and remain a map.
    assert "days/#" in field_paths({"days": {"2026-05-01": {"n": 1}, "2026-05-02": {"n": 2}}})


def test_labels_keep_true_one_and_one_point_oh_apart() -> None:
    labelled = ValueLabels()
    assert labelled(1) == ["1"]
    assert labelled(True) == []
    assert labelled(1.5) == ["1.5"]
    assert labelled("2026-05-01T10:00:00Z") == ["2026-05-01t10:00:00z", "2026-05-01"]


def test_an_object_is_a_map_by_its_first_keys() -> None:
    assert is_map({"2026-05-01": {"seats": 1}, "2026-05-02": {"seats": 2}})
    assert is_map({"a": {"x": 1, "y": 2}, "b": {"x": 3, "y": 4}})
    assert not is_map({"a": {"x": 1}, "b": 2})
    assert not is_map({"S": "text"})
    assert not is_map({})


def test_a_record_is_looked_up_in_the_starting_state_unless_the_session_changed_it() -> None:
    world = World.model_validate(make_world("clinic", 0.05, seed=2))
    index = StateIndex(world, world.state)
    tables = FieldTables.of(index)
    collection = max(index.collections, key=lambda c: index.sizes[c.pointer])
    first, second, *_ = index.order[collection.pointer]
    assert tables.record(collection, first) is resolve(index.state, first)
    assert tables.record(collection, first + "/x") is None
    places = Places(tables, collection, {first})
    # A record the session changed is resolved in its state instead.
    assert places.record(first) is None
    assert places.record(second) == resolve(index.state, second) is not None

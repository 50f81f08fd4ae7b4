"""A record a flat key-value store splits over several keys (its main hash, its parts, its
score in a sorted set of every id) read whole as a record of the main key's pattern, a flat
``[field, value, ...]`` hash as an object; a part's pattern keeps its records as stored."""

from __future__ import annotations

from typing import Any

from mcp_sim.runtime.keyed_parts import flat_hash, store_reading, whole_records
from mcp_sim.runtime.state_keys import KeyPattern
from mcp_sim.runtime.state_paths import resolve


def keyspace() -> dict[str, Any]:
    keys: dict[str, Any] = {}
    for n in range(1, 7):
        keys[f"boat|BT-{n}"] = {"name": f"Boat {n}", "hull": "sloop" if n % 2 else "ketch"}
        keys[f"boat|BT-{n}|specs"] = {"power_kw": 10 * n}
        keys[f"boat|BT-{n}|crew"] = [f"SA-{n}", f"SA-{n + 1}"]
    keys["rank|boat|length_m"] = {f"BT-{n}": 8 + n for n in range(1, 7)}
    keys["lb|season|12"] = [x for n in range(1, 7) for x in (f"BT-{n}", 100 * n)]
    keys["sailor|SA-1"] = ["name", "Ann", "rank", "mate"]
    keys["sailor|SA-2"] = ["name", "Bo", "rank", "cook"]
    return keys


def test_a_main_keys_records_hold_their_parts_and_scores() -> None:
    state = {"db0": keyspace()}
    boats = resolve(state, "/db0/boat|*")
    assert set(boats) == {f"boat|BT-{n}" for n in range(1, 7)}
    assert boats["boat|BT-3"] == {
        "name": "Boat 3",
        "hull": "sloop",
        "specs": {"power_kw": 30},
        "crew": ["SA-3", "SA-4"],
        "length_m": 11,
        "lb|season|12": 300,
    }
    # Stored as it was: the record's own key, and a part's pattern.
    assert resolve(state, "/db0/boat|BT-3") == {"name": "Boat 3", "hull": "sloop"}
    assert resolve(state, "/db0/boat|*|specs")["boat|BT-3|specs"] == {"power_kw": 30}


def test_a_flat_hash_is_read_by_its_fields() -> None:
    sailors = whole_records(keyspace(), KeyPattern("sailor|"))
    assert sailors["sailor|SA-2"] == {"name": "Bo", "rank": "cook"}
    assert flat_hash("sailor|SA-1", ["name", "Ann", "rank", "mate"]) == {
        "name": "Ann",
        "rank": "mate",
    }
    # A part's list, or a list of ids, is no hash.
    assert flat_hash("boat|BT-1|crew", ["name", "Ann"]) is None
    assert flat_hash("boat|BT-1", ["SA-1", "SA-2", "SA-3"]) is None


def test_a_read_is_remembered_until_the_store_changes() -> None:
    keys = keyspace()
    first = whole_records(keys, KeyPattern("boat|"))
    assert whole_records(keys, KeyPattern("boat|")) is first
    keys["boat|BT-7"] = {"name": "Boat 7"}
    assert "boat|BT-7" in whole_records(keys, KeyPattern("boat|"))


def test_a_store_is_read_once_per_object_and_its_keys_found_by_prefix() -> None:
    keys = keyspace()
    reading = store_reading(keys)
    assert store_reading(keys) is reading and reading.patterns
    # Below a prefix: what a scan of every key for it finds, in the store's order.
    for prefix in ("boat|BT-1|", "boat|", "rank|boat|", "nothing|"):
        assert reading.below(prefix) == [k for k in keys if k.startswith(prefix)]
    boats = KeyPattern("boat|", "")
    assert whole_records(keys, boats) is whole_records(keys, boats)
    changed = {**keys, "boat|BT-9": {"name": "Boat 9"}}  # a patch's copy
    assert store_reading(changed) is not reading
    assert "boat|BT-9" in whole_records(changed, boats)

"""A large map of records keyed by id whose records differ in shape (a content store keyed by
hash: commits, trees and blobs) is one collection; the lists inside its records stay fields of
their records, not collections of their own."""

from __future__ import annotations

import hashlib
from typing import Any

from mcp_sim.runtime.record_maps import key_style, record_map
from mcp_sim.runtime.state_collections import find_collections
from mcp_sim.runtime.state_index import StateIndex
from tests.prompting.test_retrieval_shapes import tool, view_of, world_of


def _sha(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


def object_store(commits: int = 12) -> dict[str, Any]:
    """A store of objects by hash: per commit a blob, a tree listing it and two more, and the
    commit naming its tree and its parent."""
    objects: dict[str, Any] = {}
    parent: list[str] = []
    for c in range(commits):
        blob = _sha(f"blob {c}")
        objects[blob] = {"type": "blob", "size": 20 + c, "content": f"line {c}\n"}
        tree = _sha(f"tree {c}")
        entries = [{"path": f"f{c}-{e}.txt", "mode": "100644", "sha": blob} for e in range(3)]
        objects[tree] = {"type": "tree", "tree": entries}
        commit = _sha(f"commit {c}")
        objects[commit] = {
            "type": "commit",
            "tree": {"sha": tree},
            "parents": parent,
            "author": {"name": f"Dev {c % 3}", "date": f"2025-01-{c + 1:02d}T10:00:00Z"},
            "message": f"Change {c}",
        }
        parent = [commit]
    return {"repository": {"name": "acme/app"}, "objects": objects}


def test_a_hash_an_id_and_a_date_keep_their_form_not_their_value() -> None:
    assert key_style(_sha("a")) == key_style(_sha("b")) == "x" * 40
    assert key_style("u_1042") == key_style("u_7") == "a_9"
    assert key_style("2025-03-01") == "9-9-9"
    assert key_style("general") == "a"


def test_a_store_of_objects_by_hash_is_one_collection_of_all_its_objects() -> None:
    state = object_store()
    assert record_map(state["objects"])
    world = world_of(state, [tool("get_object", sha="Object SHA.")])
    found = {c.pointer: c for c in find_collections(world, state)}
    assert set(found) == {"/objects"}
    assert found["/objects"].keyed and found["/objects"].size == 36
    index = StateIndex(world, state)
    blob = _sha("blob 4")
    assert {h.pointer for h in index.keys[blob]} == {f"/objects/{blob}"}


def test_a_lookup_by_hash_shows_the_object_stored_under_it() -> None:
    world = world_of(object_store(), [tool("get_object", sha="Object SHA.")])
    commit = _sha("commit 7")
    text = view_of(world, "get_object", {"sha": commit})
    records = [line for line in text.splitlines() if line.startswith("- /")]
    assert records[0].startswith(f"- /objects/{commit}") and "Change 7" in records[0]


def test_folders_of_partitions_words_and_few_keys_are_no_record_map() -> None:
    # A channel's folder of day files: its values hold no fields, only the partitions.
    days = {f"2025-01-{d:02d}.json": [{"ts": d, "text": "hi"}] for d in range(1, 29)}
    assert not record_map(days)
    # Large partitions keyed by shard: the arrays are the data, not a record's line items.
    shards = {f"part-{p:05d}": {"n": p, "rows": [{"id": i} for i in range(40)]} for p in range(30)}
    assert not record_map(shards)
    # A configuration's sections: named by words, not by ids.
    sections = {f"section{chr(97 + s)}": {"enabled": True} for s in range(26)}
    assert not record_map(sections)
    # Too few keys to tell a store from a handful of named things.
    few = {f"{n:040x}": {"type": "blob" if n % 2 else "tree", "size": n} for n in range(10)}
    assert not record_map(few)

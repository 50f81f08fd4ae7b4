"""A record a flat store splits over several keys is shown with the keys it needs besides:
its scores in sorted sets (as the member's entry, labelled by the set's name), and its parts
when it is one of at most two records the call names or finds."""

from __future__ import annotations

from typing import Any

from pytest import MonkeyPatch

from mcp_sim.prompting.grounding import Pick
from mcp_sim.prompting.record_parts import with_parts
from mcp_sim.prompting.records_section import records_section
from mcp_sim.runtime import keyed_parts
from mcp_sim.runtime.state_keys import key_patterns


def state() -> dict[str, Any]:
    keys: dict[str, Any] = {}
    for n in range(1, 9):
        keys[f"player:{n}"] = {"name": f"P{n}", "level": str(n)}
        keys[f"player:{n}:inventory"] = {"potion": str(n)}
    keys["lb:season:12"] = {str(n): 100 * n for n in range(1, 9)}
    keys["rank:player:xp"] = [x for n in range(1, 9) for x in (str(n), 1000 * n)]
    return {"db0": keys}


def test_a_named_record_brings_its_parts_and_its_scores() -> None:
    picks = with_parts(state(), [Pick("/db0/player:3", "named")])
    assert [p.pointer for p in picks] == [
        "/db0/player:3",
        "/db0/player:3:inventory",
        "/db0/lb:season:12/3",
        "/db0/rank:player:xp/5",
    ]
    shown = records_section(state(), picks, [], 4000)
    assert "- /db0/lb:season:12/3: 300" in shown
    assert '- /db0/rank:player:xp/5, "xp": 3000' in shown


def test_a_listing_brings_scores_only() -> None:
    listed = [Pick(f"/db0/player:{n}", "matched", complete=True) for n in (1, 2, 3)]
    pointers = [p.pointer for p in with_parts(state(), listed)]
    assert "/db0/player:1:inventory" not in pointers
    assert "/db0/lb:season:12/1" in pointers and "/db0/lb:season:12/3" in pointers


def test_records_of_no_flat_store_are_left_alone() -> None:
    plain = {"players": {"p1": {"name": "A"}, "p2": {"name": "B"}}}
    picks = [Pick("/players/p1", "named")]
    assert with_parts(plain, picks) == picks


def test_a_stores_keys_are_read_once_for_call_after_call(monkeypatch: MonkeyPatch) -> None:
    read: list[int] = []

    def counted(value: Any) -> Any:
        read.append(1)
        return key_patterns(value)

    monkeypatch.setattr(keyed_parts, "key_patterns", counted)  # as the store reads them
    shared = state()
    for n in (3, 4):
        picks = with_parts(shared, [Pick(f"/db0/player:{n}", "named")])
        assert f"/db0/player:{n}:inventory" in [p.pointer for p in picks]
    assert len(read) == 1

"""The compaction policy (rare large cuts) and the records a history shows that later turns
name instead of repeating."""

from __future__ import annotations

import itertools

from mcp_sim.prompting.shown_records import known_line, known_records, record_pointers, touches
from mcp_sim.simulator.compaction import compaction_start


def test_a_history_within_its_budget_is_kept_whole() -> None:
    assert compaction_start([100] * 10, 1000, keep_turns=8, keep_share=0.5) == 0


def test_a_history_over_its_budget_is_cut_to_a_share_of_it_in_one_step() -> None:
    sizes = [100] * 11
    start = compaction_start(sizes, 1000, keep_turns=8, keep_share=0.5)
    assert start == 6 and sum(sizes[start:]) <= 500


def test_after_a_cut_the_history_grows_append_only_until_the_budget_again() -> None:
    sizes = [100] * 11
    cuts = []
    for call in range(30):
        start = compaction_start(sizes, 1000, keep_turns=8, keep_share=0.5)
        if start:
            cuts.append(call)
        sizes = [*sizes[start:], 100]
    # One cut per six calls, never one per call as a sliding window would.
    assert cuts and all(b - a == 6 for a, b in itertools.pairwise(cuts))


def test_a_cut_keeps_at_most_keep_turns_and_drops_turns_too_large_to_fit() -> None:
    assert compaction_start([10] * 20, 100, keep_turns=3, keep_share=1.0) == 17
    assert compaction_start([10, 10, 900], 500, keep_turns=8, keep_share=0.5) == 3


def test_record_lines_of_a_view_are_known_unless_outlined() -> None:
    head = (
        "**Records this call needs** (as they are now; JSON pointer: record):\n"
        '- /users/ana: {"name":"Ana"}\n'
        '- /orders/#W1 (large parts outlined): {"items":"<outlined>"}\n'
        '- /slots/2026-01-01T09:00: {"free":true}\n'
        "- not shown for room: /users/bo"
    )
    assert record_pointers(head) == ("/users/ana", "/slots/2026-01-01T09:00")


def test_a_point_feature_labelled_with_its_place_is_known_by_its_pointer() -> None:
    # A label spelling out a position holds ": " before the record's JSON does.
    head = (
        '- /features/52 (at {"lat": 52.06, "lon": 5.01}): {"id":"node/31"}\n'
        '- /features/7 (at {"lat": -1.5, "lon": 3}) (large parts outlined): {"id":"n"}'
    )
    assert record_pointers(head) == ("/features/52",)


def test_a_change_forgets_the_records_it_touches() -> None:
    replace = {"op": "replace", "path": "/users/ana/name", "value": "Anna"}
    assert touches(replace, "/users/ana")
    assert touches({"op": "remove", "path": "/users"}, "/users/ana")
    assert not touches({"op": "add", "path": "/users/bo", "value": {}}, "/users/ana")
    # Removing an array item moves the items after it.
    assert touches({"op": "remove", "path": "/orders/0"}, "/orders/3")
    assert touches({"op": "add", "path": "/orders/1", "value": {}}, "/orders/3")
    assert touches({"op": "move", "from": "/orders/2", "path": "/archive/-"}, "/orders/3")
    heads = ['- /users/ana: {"n":1}\n- /users/bo: {"n":2}', None]
    assert known_records(heads, [[replace], []]) == {"/users/bo"}
    assert known_records(heads, [[], []]) == {"/users/ana", "/users/bo"}


def test_an_append_or_a_change_after_a_record_keeps_it_known() -> None:
    # Appending to a log (``/-``) or changing items after a record moves it nowhere: the
    # turns that showed it whole still show it as it is, so it is named, not sent again.
    assert not touches({"op": "add", "path": "/Items/-", "value": {}}, "/Items/3")
    assert not touches({"op": "add", "path": "/Items/7", "value": {}}, "/Items/3")
    assert not touches({"op": "remove", "path": "/Items/7"}, "/Items/3")
    assert not touches({"op": "copy", "from": "/Items/3", "path": "/Items/-"}, "/Items/3")
    appended = [{"op": "add", "path": "/Items/-", "value": {"n": 3}}]
    heads = ['- /Items/0: {"n":1}\n- /Items/1: {"n":2}', None]
    assert known_records(heads, [appended, []]) == {"/Items/0", "/Items/1"}


def test_known_records_are_named_in_one_line() -> None:
    assert known_line([]) == ""
    assert known_line(["/users/ana"]).endswith(":** /users/ana")

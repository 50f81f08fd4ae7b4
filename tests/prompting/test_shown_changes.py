"""The state changes a later turn shows: a long text's replacement as its edit, large values
outlined, and the whole within the room a turn has."""

from __future__ import annotations

import difflib
import json
from typing import Any

from mcp_sim.prompting.native import estimate_tokens, render_changes
from mcp_sim.prompting.shown_changes import bounded_changes, op_line, shown_patch
from mcp_sim.prompting.text_edits import text_edit
from mcp_sim.settings import Settings
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.world import World

DUMP = "\n".join(
    ["CREATE TABLE orders (id, customer, status);"]
    + [
        f"INSERT INTO orders VALUES ({i}, 'customer{i}@example.no', 'placed');"
        for i in range(20_000)
    ]
)


def _unified(before: str, after: str) -> str:
    lines = difflib.unified_diff(before.split("\n"), after.split("\n"), n=0, lineterm="")
    return "\n".join(list(lines)[2:])


def test_an_edit_is_the_unified_diff_of_the_changed_lines_numbered_in_the_whole_text() -> None:
    changed = DUMP.replace("(4711, 'customer4711@example.no', 'placed')", "(4711, 'x', 'packed')")
    appended = changed + "\nINSERT INTO orders VALUES (20000, 'new@example.no', 'placed');"
    removed = appended.replace(
        "INSERT INTO orders VALUES (3, 'customer3@example.no', 'placed');\n", ""
    )
    for after in (changed, appended, removed):
        assert text_edit(DUMP, after) == _unified(DUMP, after)
    assert text_edit(DUMP, appended) == (
        "@@ -4713 +4713 @@\n"
        "-INSERT INTO orders VALUES (4711, 'customer4711@example.no', 'placed');\n"
        "+INSERT INTO orders VALUES (4711, 'x', 'packed');\n"
        "@@ -20001,0 +20002 @@\n"
        "+INSERT INTO orders VALUES (20000, 'new@example.no', 'placed');"
    )


def test_a_text_of_few_lines_or_rewritten_throughout_has_no_edit() -> None:
    assert text_edit("a\nb", "a\nc") is None
    rewritten = "\n".join(line.upper() for line in DUMP.split("\n"))
    assert text_edit(DUMP, rewritten) is None


def test_a_long_text_replaced_is_shown_as_its_edit_and_other_operations_as_committed() -> None:
    before = {"db": {"dump": DUMP}, "note": "short"}
    after = DUMP + "\nINSERT INTO orders VALUES (20000, 'new@example.no', 'placed');"
    status = {"op": "replace", "path": "/note", "value": "longer"}
    shown = shown_patch(before, [{"op": "replace", "path": "/db/dump", "value": after}, status])
    assert shown[1] is status
    assert shown[0]["edit"] == _unified(DUMP, after)
    assert shown[0]["value"] == "<text of 20,002 lines: the text before, changed as the edit shows>"
    # Once an earlier operation of the patch has touched the text, the state before no longer
    # holds what the replacement replaces: it is kept as committed.
    twice = [{"op": "replace", "path": "/db", "value": {"dump": DUMP}}]
    twice.append({"op": "replace", "path": "/db/dump", "value": after})
    assert shown_patch(before, twice) == twice


def test_changes_within_the_room_are_shown_byte_for_byte() -> None:
    patch = [{"op": "replace", "path": f"/orders/{i}/status", "value": "packed"} for i in range(5)]
    assert render_changes(patch, 10_000) == render_changes(patch)
    lines, left_out = bounded_changes(patch, 10_000)
    assert lines == [op_line(op) for op in patch] and left_out == ""


def test_a_large_value_is_outlined_and_operations_past_the_room_are_counted_by_path() -> None:
    record = {"id": "r1", "items": [{"sku": f"s{i}", "note": "x" * 50} for i in range(400)]}
    added = {"op": "add", "path": "/records/-", "value": record}
    text = {"op": "add", "path": "/files/readme", "value": "word " * 5_000}
    small = [
        {"op": "replace", "path": f"/orders/{i}/status", "value": "packed"} for i in range(300)
    ]
    section = render_changes([added, text, *small], 6_000)
    assert len(section) <= 6_000 + 400
    assert '"id": "r1"' in section and "<outlined: array of 400 items>" in section
    assert "<… 24,600 more characters>" in section
    assert "more operations are not shown for room, on /orders/" in section
    shown = section.count('"op": "replace"')
    assert f"*({300 - shown:,} more operations" in section


async def test_a_write_to_a_text_held_collection_keeps_the_next_prompt_within_its_bound(
    shop: World, script: Any
) -> None:
    world = shop.model_copy(update={"state": {**shop.state, "dump": DUMP}})
    after = DUMP.replace("(17, 'customer17@example.no', 'placed')", "(17, 'x', 'packed')")
    patch = [{"op": "replace", "path": "/dump", "value": after}]
    model = script(script.answer({"ok": True}, patch), script.answer({"orders": []}))
    settings = Settings.of(state_budget=8000)
    simulator = Simulator(world, model, settings=settings)

    await simulator.call("s", "update_order", {"order_id": "ord_00017", "status": "packed"})
    await simulator.call("s", "list_orders", {})

    assert simulator.sessions.get("s").state["dump"] == after
    prompt = model.requests[1].messages
    assert sum(estimate_tokens(m["content"]) for m in prompt) <= simulator.budget.bound
    turn = prompt[-1]["content"]
    edit = json.dumps(_unified(DUMP, after), ensure_ascii=False)
    assert f'"edit": {edit}' in turn and "INSERT INTO orders VALUES (16," not in turn

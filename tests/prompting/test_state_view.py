"""What of the state and history the prompt shows: large-world views and compaction."""

from __future__ import annotations

import itertools
import json
from typing import Any

from mcp_sim.prompting import record_render
from mcp_sim.prompting import skeleton as skeleton_module
from mcp_sim.prompting.native import estimate_tokens
from mcp_sim.settings import Settings
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.world import World

BUDGET = 8000


def big_shop(shop: World, orders: int = 6000) -> World:
    """The shop with thousands of orders: a state of about 2.4 MB."""
    records = [
        {
            "id": f"ord_{i:05d}",
            "customer": f"customer{i}@example.no",
            "sku": "p-tent2",
            "quantity": 1 + i % 3,
            "status": ("placed", "packed", "shipped")[i % 3],
            "created_at": "2026-01-01T00:00:00Z",
            "note": "Leave the parcel at the door and ring twice. " * 6,
        }
        for i in range(1, orders + 1)
    ]
    return shop.model_copy(update={"state": {**shop.state, "orders": records}})


def compact(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


async def test_large_state_prompt_stays_in_budget_and_carries_the_referenced_order(
    shop: World, script: Any
) -> None:
    world = big_shop(shop)
    assert len(json.dumps(world.state)) >= 2_000_000
    target = world.state["orders"][3140]
    patch = [{"op": "replace", "path": "/orders/3140/status", "value": "cancelled"}]
    model = script(script.answer({**target, "status": "cancelled"}, patch))
    simulator = Simulator(world, model, settings=Settings.of(state_budget=BUDGET))

    result = await simulator.call("s", "update_order", {"order_id": "ord_03141"})

    current = model.requests[0].messages[-1]["content"]
    state_section = current[
        current.index("**Current World State") : current.index("**Current Time")
    ]
    assert estimate_tokens(state_section) <= BUDGET
    assert f"/orders/3140: {compact(target)}" in current
    assert "array of 6000 items" in current
    # The change applies to the whole document, found by the pointer the view gave.
    state = simulator.sessions.get("s").state
    assert result.patch_status == "committed" and result.violations == ()
    assert state["orders"][3140]["status"] == "cancelled" and len(state["orders"]) == 6000


async def test_small_state_is_shown_whole(shop: World, script: Any) -> None:
    model = script(script.answer("ok"))
    await Simulator(shop, model).call("s", "get_order", {"order_id": "ord_00001"})
    current = model.requests[0].messages[-1]["content"]
    assert "**Current World State:**" in current and "outlined" not in current
    assert "Trollstove gas burner" in current


async def test_history_is_compacted_to_the_last_turns_in_jumps(shop: World, script: Any) -> None:
    long_observation = "x" * 3000  # about 1000 tokens per turn
    model = script(*[script.answer(long_observation) for _ in range(12)])
    options = Settings.of(history_budget=5000, keep_turns=2)
    simulator = Simulator(shop, model, settings=options)
    for _ in range(12):
        await simulator.call("s", "get_order", {"order_id": "ord_00001"})
    shown = [(len(r.messages) - 2) // 2 for r in model.requests]
    # The history grows to just over the budget (the anchor turn's state section has its own
    # budget), then keeps the anchor turn (so the prompt's prefix up to it stays cached) and
    # folds the turns after it away.
    assert shown == [0, 1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 1]
    last = model.requests[-1].messages
    assert last[1] == model.requests[1].messages[1]
    assert last[1]["content"].startswith("### Turn 1\n**Current World State:**")
    assert last[-1]["content"].startswith("### Turn 12\n*(Turns 2 to 11 are not shown;")
    # Between jumps, each prompt extends the previous one's history unchanged.
    assert model.requests[7].messages[:-1] == model.requests[8].messages[:-3]


async def test_static_prefix_is_identical_across_calls_and_sessions(
    shop: World, script: Any
) -> None:
    model = script(*[script.answer("ok", []) for _ in range(3)])
    simulator = Simulator(shop, model)
    await simulator.call("a", "get_order", {"order_id": "ord_00001"})
    await simulator.call("a", "delete_order", {"order_id": "ord_00042"})
    await simulator.call("b", "list_orders", {})
    systems = {r.messages[0]["content"] for r in model.requests}
    assert len(systems) == 1 and "<state_patch>" in systems.pop()
    # The first turn anchors the state; next call it is the history entry, unchanged, and the
    # new turn carries no state of its own (nothing changed).
    first, second = model.requests[0].messages, model.requests[1].messages
    assert first[-1]["content"].startswith(second[1]["content"])
    assert "**Current World State:**" in second[1]["content"]
    assert "**Current World State:**" not in second[-1]["content"]


def _text(messages: list[Any]) -> str:
    return "".join(f"<|{m['role']}|>\n{m['content']}\n" for m in messages)


async def test_each_prompt_repeats_the_previous_one_up_to_its_closing_part(
    shop: World, script: Any
) -> None:
    """The layout that keeps vLLM's prefix cache warm: a call's prompt is the previous call's
    prompt without its closing instruction, then the observation and the new turn. The state
    is shown whole once; later turns carry the committed changes and the records they name."""
    order = {
        "id": "ord_00002",
        "customer": "ola@example.no",
        "sku": "p-tent2",
        "quantity": 1,
        "status": "placed",
        "created_at": "2026-03-02T09:00:00Z",
    }
    packed = {"op": "replace", "path": "/orders/1/status", "value": "packed"}
    model = script(
        script.answer(order, [{"op": "add", "path": "/orders/-", "value": order}]),
        script.answer(order),
        script.answer({**order, "status": "packed"}, [packed]),
        script.answer({"orders": [order], "total": 2}),
        script.answer({"deleted": "ord_00002"}, [{"op": "remove", "path": "/orders/1"}]),
        script.answer("not_found: no order with this id"),
    )
    simulator = Simulator(shop, model)
    calls: list[tuple[str, dict[str, Any]]] = [
        ("create_order", {"customer": "ola@example.no", "sku": "p-tent2", "quantity": 1}),
        ("get_order", {"order_id": "ord_00002"}),
        ("update_order", {"order_id": "ord_00002", "status": "packed"}),
        ("list_orders", {}),
        ("delete_order", {"order_id": "ord_00002"}),
        ("get_order", {"order_id": "ord_00002"}),
    ]
    for tool, args in calls:
        await simulator.call("s", tool, args)
    prompts = [r.messages for r in model.requests]
    assert len(prompts) == len(calls)
    for earlier, later in itertools.pairwise(prompts):
        turn = len(earlier) - 1
        assert later[:turn] == earlier[:turn]
        closing = earlier[-1]["content"][len(later[turn]["content"]) :]
        assert earlier[-1]["content"].startswith(later[turn]["content"])
        assert closing.startswith("\n\nPredict the exact response")
    turns = [p[-1]["content"].split("**Action:**")[0] for p in prompts]
    assert "**Current World State:**" in turns[0]
    assert all("**Current World State:**" not in t for t in turns[1:])
    # The second turn hears of the created order, with its pointer for a later patch.
    assert '"path": "/orders/-"' in turns[1] and '- /orders/1: {"created_at"' in turns[1]
    assert '"value": "packed"' in turns[3] and "**State Changes**" not in turns[4]
    assert '{"op": "remove", "path": "/orders/1"}' in turns[5]
    # A deleted order is no record any more: nothing to point to.
    assert "Records this call refers to" not in turns[5]
    assert len(_text(prompts[-1])) > len(_text(prompts[0]))


async def test_a_state_changed_outside_the_calls_is_shown_whole_again(
    shop: World, script: Any
) -> None:
    model = script(*[script.answer("ok") for _ in range(3)])
    simulator = Simulator(shop, model)
    await simulator.call("s", "get_order", {"order_id": "ord_00001"})
    await simulator.call("s", "get_order", {"order_id": "ord_00001"})
    session = simulator.sessions.get("s")
    session.state = {**session.state, "orders": []}
    session.version += 1
    await simulator.call("s", "list_orders", {})
    turns = [r.messages[-1]["content"].split("**Action:**")[0] for r in model.requests]
    assert ["**Current World State:**" in t for t in turns] == [True, False, True]
    assert '"orders": []' in turns[2]


async def test_a_fork_continues_the_parents_prompt(shop: World, script: Any) -> None:
    model = script(*[script.answer("ok") for _ in range(3)])
    simulator = Simulator(shop, model)
    await simulator.call("parent", "get_order", {"order_id": "ord_00001"})
    snapshot = simulator.sessions.get("parent").snapshot()
    await simulator.call("parent", "list_orders", {})
    from mcp_sim.runtime.session import Session

    simulator.sessions.put(Session.restore("child", shop, snapshot))
    await simulator.call("child", "list_orders", {})
    parent, child = model.requests[1].messages, model.requests[2].messages
    assert parent[:-1] == child[:-1] and "**Current World State:**" in child[1]["content"]


async def test_a_state_too_large_to_sketch_is_outlined_without_measuring_it(
    shop: World, script: Any, monkeypatch: Any
) -> None:
    """A top-level object of thousands of entries (a time series keyed by timestamp) cannot
    fit as a sketch, even with every entry outlined: no larger sketch is built, since each
    would measure every entry's JSON (megabytes per call)."""
    series = {
        f"2026-03-{1 + i // 1440:02d}T{i // 60 % 24:02d}:{i % 60:02d}": {
            "station": f"st-{i % 7}",
            "reading": {"temperature": i % 30, "wind": {"speed": i % 11, "direction": "NW"}},
        }
        for i in range(20_000)
    }
    world = shop.model_copy(update={"state": series})
    measured: list[int] = []

    def size(value: Any) -> int:
        measured.append(1)
        return record_render.size(value)

    monkeypatch.setattr(skeleton_module, "size", size)
    model = script(script.answer({"ok": True}, []))
    simulator = Simulator(world, model, settings=Settings.of(state_budget=BUDGET))

    await simulator.call("s", "list_orders", {})

    current = model.requests[0].messages[-1]["content"]
    state_section = current[
        current.index("**Current World State") : current.index("**Current Time")
    ]
    assert estimate_tokens(state_section) <= BUDGET
    assert measured == []

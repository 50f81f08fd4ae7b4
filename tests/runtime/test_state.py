"""The world state as the server keeps it: checked patches, versions, fresh ids, virtual time
and seeds."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from mcp_sim.errors import PatchRejected
from mcp_sim.journal import Journal, read_journal
from mcp_sim.runtime.session import SessionStore
from mcp_sim.runtime.state import StateRules, parse_patch, split_patch
from mcp_sim.settings import Settings
from mcp_sim.simulator.core import CallResult, Simulator
from mcp_sim.spec.loading import parse_world
from mcp_sim.spec.world import World

ORDER_2 = {
    "id": "ord_00002",
    "customer": "ola@example.no",
    "sku": "p-tent2",
    "quantity": 2,
    "status": "placed",
    "created_at": "2026-03-02T09:00:00Z",
}
ORDER_1 = {
    "id": "ord_00001",
    "customer": "kari@example.no",
    "sku": "p-bag10",
    "quantity": 1,
    "status": "shipped",
    "created_at": "2026-02-27T10:00:00Z",
}


def with_(record: dict[str, Any], **changes: Any) -> dict[str, Any]:
    return {**record, **changes}


def scenario(script: Any) -> tuple[list[tuple[str, dict[str, Any]]], Any]:
    """Ten calls create → get → list → update → (rejected update) → update → get → delete →
    get → list, with the model's answers pinned, mistakes included."""
    a = script.answer
    calls: list[tuple[str, dict[str, Any]]] = [
        ("create_order", {"customer": "ola@example.no", "sku": "p-tent2", "quantity": 2}),
        ("get_order", {"order_id": "ord_00002"}),
        ("list_orders", {}),
        ("update_order", {"order_id": "ord_00002", "status": "packed"}),
        ("update_order", {"order_id": "ord_00002", "quantity": 3}),
        ("update_order", {"order_id": "ord_00002", "status": "shipped"}),
        ("get_order", {"order_id": "ord_00002"}),
        ("delete_order", {"order_id": "ord_00002"}),
        ("get_order", {"order_id": "ord_00002"}),
        ("list_orders", {}),
    ]
    packed = with_(ORDER_2, status="packed")
    shipped = with_(ORDER_2, status="shipped")
    model = script(
        # 1 create: the new order takes the offered id; stock goes down.
        a(
            ORDER_2,
            [
                {"op": "add", "path": "/orders/-", "value": ORDER_2},
                {"op": "replace", "path": "/products/0/stock", "value": 3},
            ],
        ),
        a(ORDER_2),
        a({"orders": [ORDER_1, ORDER_2]}),
        a(packed, [{"op": "replace", "path": "/orders/1/status", "value": "packed"}]),
        # 5: the patch rewrites the customer (immutable), the correction touches the currency.
        a(
            with_(packed, quantity=3),
            [
                {"op": "replace", "path": "/orders/1/quantity", "value": 3},
                {"op": "replace", "path": "/orders/1/customer", "value": "x@example.no"},
            ],
        ),
        json.dumps({"patch": [{"op": "replace", "path": "/shop/currency", "value": "EUR"}]}),
        # 6: a status outside the state schema, then a correct one.
        a(shipped, [{"op": "replace", "path": "/orders/1/status", "value": "sent"}]),
        json.dumps({"patch": [{"op": "replace", "path": "/orders/1/status", "value": "shipped"}]}),
        a(shipped),
        a(
            "Order ord_00002 deleted.",
            [
                {"op": "remove", "path": "/orders/1"},
                {"op": "replace", "path": "/products/0/stock", "value": 5},
            ],
        ),
        # 9: the deleted order comes back; asked again, the model gets it right.
        a(shipped),
        a("not_found: no order with id ord_00002"),
        # 10: it comes back twice: flagged.
        a({"orders": [ORDER_1, shipped]}),
        a({"orders": [ORDER_1, shipped]}),
    )
    return calls, model


async def run(simulator: Simulator, calls: list[tuple[str, dict[str, Any]]]) -> list[CallResult]:
    return [await simulator.call("s1", tool, args) for tool, args in calls]


async def test_ten_step_scenario_ends_in_the_expected_state(shop: World, script: Any) -> None:
    calls, model = scenario(script)
    simulator = Simulator(shop, model)
    results = await run(simulator, calls)
    session = simulator.sessions.get("s1")

    # Created, updated twice, deleted: back to the start, stock restored, four commits.
    assert session.state == shop.state
    assert session.version == 4
    assert [r.version for r in results] == [0, 1, 1, 1, 2, 2, 3, 3, 4, 4]
    assert [r.patch_status for r in results] == [
        "committed",
        "none",
        "none",
        "committed",
        "rejected",
        "committed",
        "none",
        "committed",
        "none",
        "none",
    ]
    records = simulator.journal.records("s1")
    assert [r.version for r in records] == [r.version for r in results]
    assert records[4].patch_error is not None and "currency" in records[4].patch_error
    assert records[8].regenerated and records[8].observation.startswith("not_found")
    assert records[9].violations and "ord_00002" in records[9].violations[0]
    assert session.consistency.as_dict() == {
        "checked": 10,
        "regenerated": 2,
        "flagged": 1,
        "patches_rejected": 1,
    }
    assert not model.answers


async def test_rejected_patch_is_retried_with_the_reason_and_not_committed(
    shop: World, script: Any
) -> None:
    calls, model = scenario(script)
    simulator = Simulator(shop, model)
    results = await run(simulator, calls[:5])
    state = simulator.sessions.get("s1").state
    assert state["orders"][1]["quantity"] == 2
    assert state["orders"][1]["customer"] == "ola@example.no"
    assert results[4].version == 2 and simulator.sessions.get("s1").version == 2
    retry = model.requests[-1]
    assert "customer" in retry.messages[-1]["content"]
    assert retry.sampling.thinking is False
    assert retry.response_schema is not None


async def test_write_prompt_offers_fresh_ids_time_and_asks_for_a_patch(
    shop: World, script: Any
) -> None:
    calls, model = scenario(script)
    simulator = Simulator(shop, model)
    await run(simulator, calls[:2])
    create, get = (r.messages[-1]["content"] for r in model.requests[:2])
    assert "ord_00002, ord_00003, ord_00004" in create
    assert "**Current Time:** 2026-03-02T09:00:00Z" in create
    assert "<state_patch>" in create
    assert "ord_00003" not in get and "<state_patch>" not in get
    assert "**Current Time:** 2026-03-02T09:01:30Z" in get
    assert [r.now for r in simulator.journal.records("s1")] == [
        "2026-03-02T09:00:00Z",
        "2026-03-02T09:01:30Z",
    ]


async def test_ids_of_deleted_records_are_never_offered_again(shop: World, script: Any) -> None:
    calls, model = scenario(script)
    model.answers.append(script.answer("created", []))
    simulator = Simulator(shop, model)
    await run(simulator, calls)
    await simulator.call("s1", *calls[0])
    assert "ord_00003, ord_00004" in model.requests[-1].messages[-1]["content"]
    assert "ord_00002," not in model.requests[-1].messages[-1]["content"]


async def test_missing_tag_asks_for_the_patch_in_a_second_request(shop: World, script: Any) -> None:
    patch = [{"op": "replace", "path": "/orders/0/status", "value": "cancelled"}]
    model = script(script.answer("cancelled"), json.dumps({"patch": patch}))
    simulator = Simulator(shop, model)
    result = await simulator.call("s1", "update_order", {"order_id": "ord_00001"})
    assert result.patch_status == "committed"
    assert simulator.sessions.get("s1").state["orders"][0]["status"] == "cancelled"
    follow_up = model.requests[1]
    assert follow_up.messages[:-2] == model.requests[0].messages  # same prefix, appended
    assert follow_up.sampling.thinking is False


async def test_structured_write_tool_gets_its_patch_from_a_follow_up(script: Any) -> None:
    world = parse_world(
        """
world: counter
title: Counter
state: {count: 0}
tools:
  - name: bump
    description: Add one.
    input_schema: {type: object}
    output_schema: {type: object, properties: {count: {type: integer}}, required: [count]}
    effect: write
"""
    )
    model = script('{"count": 1}', '{"patch": [{"op": "replace", "path": "/count", "value": 1}]}')
    simulator = Simulator(world, model)
    result = await simulator.call("s1", "bump", {})
    assert result.structured == {"count": 1}
    assert "<state_patch>" not in model.requests[0].messages[-1]["content"]
    assert simulator.sessions.get("s1").state == {"count": 1}


async def test_write_call_still_answers_when_the_patch_request_fails(
    shop: World, script: Any
) -> None:
    simulator = Simulator(shop, script(script.answer("ok")))
    result = await simulator.call("s1", "update_order", {"order_id": "ord_00001"})
    assert not result.is_error and result.text == "ok"
    assert result.patch_status == "rejected"
    record = simulator.journal.records("s1")[0]
    assert record.patch_error is not None and "no patch" in record.patch_error
    assert simulator.sessions.get("s1").version == 0


async def test_empty_patch_leaves_the_version(shop: World, script: Any) -> None:
    simulator = Simulator(shop, script(script.answer("not_found: ord_00042", [])))
    result = await simulator.call("s1", "delete_order", {"order_id": "ord_00042"})
    assert result.patch_status == "unchanged"
    assert simulator.sessions.get("s1").version == 0


async def test_same_seed_and_answers_give_a_byte_identical_journal(
    shop: World, script: Any, tmp_path: Path
) -> None:
    async def replay(name: str, seed: int) -> tuple[bytes, list[int | None]]:
        calls, model = scenario(script)
        journal = Journal(tmp_path / name)
        simulator = Simulator(shop, model, journal=journal, settings=Settings.of(seed=seed))
        await run(simulator, calls)
        journal.close()
        return (tmp_path / name).read_bytes(), [r.sampling.seed for r in model.requests]

    first, seeds_1 = await replay("a.jsonl", 7)
    second, seeds_2 = await replay("b.jsonl", 7)
    _, seeds_3 = await replay("c.jsonl", 8)
    assert first == second
    assert seeds_1 == seeds_2 and seeds_1 != seeds_3
    assert b"latency_ms" not in first
    assert len(read_journal(tmp_path / "a.jsonl")) == 10


async def test_journal_timing_records_latency(shop: World, script: Any) -> None:

    simulator = Simulator(
        shop, script(script.answer("x")), settings=Settings.of(journal_timing=True)
    )
    await simulator.call("s1", "get_order", {"order_id": "ord_00001"})
    latency = simulator.journal.records("s1")[0].latency_ms
    assert latency is not None and latency >= 0


def test_session_seed_named_by_the_client_wins_over_the_base_seed(shop: World) -> None:
    store = SessionStore(shop, base_seed=1)
    assert store.get("a", seed=99).seed == 99
    assert store.get("b").seed == SessionStore(shop, base_seed=1).get("b").seed
    assert store.get("b").seed != store.get("c").seed


# --- StateRules ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("patch", "reason"),
    [
        ([{"op": "replace", "path": "/shop/currency", "value": "EUR"}], "/shop/currency"),
        ([{"op": "replace", "path": "/shop", "value": {}}], "/shop/currency"),
        ([{"op": "replace", "path": "/orders/0/created_at", "value": "x"}], "created_at"),
        ([{"op": "replace", "path": "/orders/0/quantity", "value": 0}], "state schema"),
        ([{"op": "remove", "path": "/orders/7"}], "does not apply"),
        ([{"op": "replace", "path": "", "value": []}], "non-object"),
    ],
)
def test_state_rules_reject_patches_that_break_the_world(
    shop: World, patch: list[dict[str, Any]], reason: str
) -> None:
    state = copy.deepcopy(shop.state)
    with pytest.raises(PatchRejected, match=reason):
        StateRules(shop).apply(state, patch)
    assert state == shop.state


def test_state_rules_apply_to_a_copy(shop: World) -> None:
    state = copy.deepcopy(shop.state)
    after = StateRules(shop).apply(
        state, [{"op": "replace", "path": "/orders/0/status", "value": "cancelled"}]
    )
    assert after["orders"][0]["status"] == "cancelled"
    assert state == shop.state


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        '{"op": "add"}',
        '[{"op": "frob", "path": "/a"}]',
        '[{"op": "add", "path": "/a"}]',
    ],
)
def test_parse_patch_rejects_malformed_patches(text: str) -> None:
    with pytest.raises(PatchRejected):
        parse_patch(text)


def test_parse_patch_accepts_fences_and_the_follow_up_object() -> None:
    ops = [{"op": "remove", "path": "/a"}]
    assert parse_patch(f"```json\n{json.dumps(ops)}\n```") == ops
    assert parse_patch(json.dumps({"patch": ops})) == ops


def test_split_patch_ignores_drafts_in_thinking() -> None:
    content = (
        '<think>maybe <state_patch>[{"op": "remove", "path": "/x"}]</state_patch></think>'
        "<predicted_observation>ok</predicted_observation><state_patch>[]</state_patch>"
    )
    rest, patch = split_patch(content)
    assert patch == "[]"
    assert "state_patch" not in rest and "ok" in rest


async def test_without_model_seeds_requests_carry_no_seed_and_journals_still_replay(
    shop: World, script: Any, tmp_path: Path
) -> None:

    async def replay(name: str) -> tuple[bytes, list[int | None]]:
        calls, model = scenario(script)
        journal = Journal(tmp_path / name)
        simulator = Simulator(
            shop,
            model,
            journal=journal,
            settings=Settings.of(seed=7, model_seeds=False),
        )
        await run(simulator, calls)
        journal.close()
        return (tmp_path / name).read_bytes(), [r.sampling.seed for r in model.requests]

    first, seeds = await replay("a.jsonl")
    second, _ = await replay("b.jsonl")
    assert first == second
    assert seeds and set(seeds) == {None}


def test_a_committed_patch_copies_only_the_path_it_touches() -> None:
    from mcp_sim.runtime.state import copied_along

    state: dict[str, Any] = {
        "orders": {"a": {"status": "new", "items": [1, 2]}, "b": {"status": "new"}},
        "users": [{"id": "u1"}, {"id": "u2"}],
    }
    patch: list[Any] = [
        {"op": "replace", "path": "/orders/a/status", "value": "paid"},
        {"op": "add", "path": "/orders/a/items/-", "value": 3},
        {"op": "move", "from": "/users/1", "path": "/users/0"},
    ]
    import jsonpatch

    after = jsonpatch.apply_patch(copied_along(state, patch), patch, in_place=True)
    assert after == jsonpatch.apply_patch(state, patch, in_place=False)
    assert state["orders"]["a"] == {"status": "new", "items": [1, 2]}
    assert [u["id"] for u in state["users"]] == ["u1", "u2"]
    assert after["orders"]["b"] is state["orders"]["b"]
    assert after["orders"]["a"] is not state["orders"]["a"]

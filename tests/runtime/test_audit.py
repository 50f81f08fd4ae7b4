"""The consistency auditor, alone and inside the call pipeline."""

from __future__ import annotations

import copy
import json
from typing import Any

from mcp_sim.runtime.audit import Auditor, record_deletions
from mcp_sim.runtime.entities import EntityIndex
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.world import World


def check(
    world: World,
    observation: Any,
    arguments: dict[str, Any] | None = None,
    *,
    state: dict[str, Any] | None = None,
    deleted: dict[str, set[str]] | None = None,
) -> list[tuple[str, str]]:
    index = EntityIndex.build(world, state if state is not None else world.state)
    text = observation if isinstance(observation, str) else json.dumps(observation)
    found = Auditor(world).check(
        text, arguments or {}, before=index, after=index, deleted=deleted or {}
    )
    return [(v.kind, v.id) for v in found]


def test_existing_records_pass(shop: World) -> None:
    assert check(shop, {"orders": shop.state["orders"]}) == []
    assert check(shop, "Order ord_00001 for p-bag10 has shipped.") == []


def test_an_invented_id_is_flagged_in_records_and_in_text(shop: World) -> None:
    order = {**shop.state["orders"][0], "id": "ord_00077"}
    assert check(shop, order) == [("unknown_id", "ord_00077")]
    assert check(shop, "Your order ord_00077 is on its way.") == [("unknown_id", "ord_00077")]
    assert check(shop, "We restocked p-kayak.") == [("unknown_id", "p-kayak")]


def test_ids_from_the_arguments_may_be_mentioned_but_not_described(shop: World) -> None:
    args = {"order_id": "ord_00077"}
    assert check(shop, "not_found: no order ord_00077", args) == []
    invented = {**shop.state["orders"][0], "id": "ord_00077"}
    assert check(shop, invented, args) == [("unknown_id", "ord_00077")]


def test_a_deleted_record_that_reappears_is_flagged(shop: World) -> None:
    state = copy.deepcopy(shop.state)
    before = EntityIndex.build(shop, state)
    removed = state["orders"].pop(0)
    deleted: dict[str, set[str]] = {}
    record_deletions(deleted, before, EntityIndex.build(shop, state))
    assert deleted["order"] == {"ord_00001"}
    assert check(shop, removed, state=state, deleted=deleted) == [("resurrected", "ord_00001")]
    assert check(shop, "Orders: ord_00001.", state=state, deleted=deleted) == [
        ("resurrected", "ord_00001")
    ]
    # Asking about it by id and hearing it is gone is faithful.
    assert (
        check(shop, "not_found: ord_00001", {"order_id": "ord_00001"}, state=state, deleted=deleted)
        == []
    )


def test_a_changed_immutable_field_is_flagged(shop: World) -> None:
    order = {**shop.state["orders"][0], "customer": "someone@example.no"}
    assert check(shop, order) == [("immutable_changed", "ord_00001")]
    product = {**shop.state["products"][0], "price": 1}
    assert check(shop, {"product": product}) == [("immutable_changed", "p-tent2")]


def test_an_order_is_not_mistaken_for_the_product_it_names(shop: World) -> None:
    # Orders carry a sku (the product id field) and may carry their own price.
    order = {**shop.state["orders"][0], "price": 1}
    assert check(shop, order) == []


async def test_a_contradiction_is_regenerated_once_and_the_rest_counted(
    shop: World, script: Any
) -> None:
    ghost = {**shop.state["orders"][0], "id": "ord_00050"}
    model = script(
        script.answer(ghost),
        script.answer(shop.state["orders"][0]),
        script.answer(ghost),
        script.answer(ghost),
    )
    simulator = Simulator(shop, model)
    first = await simulator.call("s", "get_order", {"order_id": "ord_00001"})
    second = await simulator.call("s", "get_order", {"order_id": "ord_00001"})
    assert first.violations == () and json.loads(first.text)["id"] == "ord_00001"
    assert len(second.violations) == 1 and "ord_00050" in second.violations[0]
    regeneration = model.requests[1].messages[-1]["content"]
    assert "ord_00050" in regeneration and "does not exist" in regeneration
    assert simulator.sessions.get("s").consistency.as_dict() == {
        "checked": 2,
        "regenerated": 2,
        "flagged": 1,
        "patches_rejected": 0,
    }
    assert simulator.journal.records("s")[1].consistency["flagged"] == 1


async def test_worlds_without_entities_are_not_audited(script: Any) -> None:
    from mcp_sim.spec.loading import parse_world

    world = parse_world(
        "world: w\ntitle: W\ntools:\n  - {name: t, description: d, input_schema: {type: object}}\n"
    )
    simulator = Simulator(world, script(script.answer("ord_00099")))
    result = await simulator.call("s", "t", {})
    assert result.violations == ()
    assert simulator.journal.records("s")[0].consistency == {}


async def test_a_failed_regeneration_keeps_the_first_answer_flagged(
    shop: World, script: Any
) -> None:
    ghost = {**shop.state["orders"][0], "id": "ord_00050"}
    simulator = Simulator(shop, script(script.answer(ghost)))
    result = await simulator.call("s", "get_order", {"order_id": "ord_00001"})
    assert (result.source, result.is_error) == ("model", False)
    assert json.loads(result.text)["id"] == "ord_00050"
    assert len(result.violations) == 1
    assert simulator.sessions.get("s").consistency.flagged == 1

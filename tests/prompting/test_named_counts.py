"""How often the records a search found name each record of another collection: the products
bought together with one, counted, when each basket's lines name several products."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.grounding import ground
from mcp_sim.prompting.records_section import records_section
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import World


def basket_world(description: str) -> World:
    """Products in an array keyed by ``sku``; baskets whose lines name two or three of them."""
    words = ["Kettle", "Lamp", "Rug", "Mug", "Vase", "Clock", "Stool", "Shelf"]
    products = [
        {"sku": f"P-{100 + p}", "title": f"{words[p % 8]} {words[p // 8 % 8]}", "grade": p % 3}
        for p in range(40)
    ]
    baskets: dict[str, Any] = {}
    for b in range(90):
        skus = [f"P-{100 + (b * k) % 40}" for k in (1, 3, 7)][: 2 + b % 2]
        lines = [{"sku": s, "qty": 1 + b % 4} for s in dict.fromkeys(skus)]
        baskets[f"BK{5000 + b}"] = {"placed": f"2025-03-{b % 28 + 1:02d}", "lines": lines}
    tool = {
        "name": "related_products",
        "description": description,
        "input_schema": {"type": "object", "properties": {"sku": {"type": "string"}}},
    }
    return World.model_validate(
        {
            "world": "t",
            "title": "T",
            "description": "A hand-made shop.",
            "state": {"products": products, "baskets": baskets},
            "tools": [tool],
        }
    )


def counts(world: World, sku: str) -> dict[str, int]:
    """Each other product the baskets holding ``sku`` name → how many of those baskets."""
    found: dict[str, int] = {}
    for basket in world.state["baskets"].values():
        skus = {line["sku"] for line in basket["lines"]}
        if sku in skus:
            for other in skus - {sku}:
                found[other] = found.get(other, 0) + 1
    return found


def test_each_record_named_by_the_records_found_is_shown_once_with_its_count() -> None:
    description = "The products bought together with a product, with the number of purchases."
    world = basket_world(description)
    index = StateIndex(world, world.state)
    grounding = ground(
        index.overlay_of(world.state), world.state, world.tool("related_products"), {"sku": "P-110"}
    )
    assert grounding.join is not None
    text = records_section(world.state, [], [], 9000, None, None, grounding.join)
    expected = counts(world, "P-110")
    lines = [line for line in text.splitlines() if line.startswith("- /products/")]
    assert len(lines) == len(expected)
    for sku, count in expected.items():
        line = next(line for line in lines if f'"sku":"{sku}"' in line)
        # The count is written under the one other name the description gives in the plural.
        assert f'{{"purchases": {count}}}' in line
    assert '"sku":"P-110"' not in text.split("\n", 1)[1]

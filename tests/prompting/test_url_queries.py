"""A path and query string read as the collection it names and the constraints its
parameters give: PostgREST's ``field=op.value`` filters, OData's ``$filter`` expression, a
plain ``field=value`` query string; and a lookup or search so written grounded on the records
it names."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.grounding import ground
from mcp_sim.prompting.query_operands import Operand, query_operands
from mcp_sim.prompting.scalar_arguments import scalar_arguments
from mcp_sim.prompting.url_queries import url_query
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import World


def test_postgrest_filters_are_operands_in_the_common_vocabulary() -> None:
    text = (
        "/rest/v1/orders?status=eq.paid&total=gte.100&name=ilike.*ana*&code=like.AB*"
        "&id=in.(1,2)&kind=not.eq.gift&paid=is.true&select=*,customer:customers(*)"
        "&order=created_at.desc&limit=20"
    )
    assert query_operands(text) == (
        Operand("", "eq", "orders"),
        Operand("status", "eq", "paid"),
        Operand("total", "min", "100"),
        Operand("name", "contains", "ana"),
        Operand("code", "prefix", "AB"),
        Operand("id", "eq", ["1", "2"]),
        Operand("kind", "ne", "gift"),
        Operand("paid", "eq", True),
        Operand("", "eq", "customers"),
    )
    pairs = dict(scalar_arguments({"path": "/orders?total=lt.50&name=ilike.Bo*"}))
    assert pairs == {"": "orders", "total_max": "50", "name_prefix": "Bo"}


def test_odata_filters_and_keys_in_parentheses_are_read() -> None:
    found = query_operands("/Products(7)?$filter=Price gt 20 and Category eq 'Books'&$top=5")
    assert found == (
        Operand("", "eq", "Products"),
        Operand("", "eq", "7"),
        Operand("Price", "min", "20"),
        Operand("Category", "eq", "Books"),
    )


def test_an_address_or_a_lone_pair_is_no_query_string() -> None:
    assert url_query("https://x.org/a?b=c") is None
    assert url_query("a=b") is None
    assert url_query("a=b&c=d") is not None
    assert url_query("plain words") is None


def _studio() -> World:
    classes = [{"id": n, "title": f"Class {n}", "room": ["A", "B"][n % 2]} for n in range(1, 80)]
    bookings = [{"id": n, "class_id": 1 + n % 79, "status": "booked"} for n in range(1, 300)]
    state: dict[str, Any] = {"/classes": classes, "/bookings": bookings}
    return World.model_validate(
        {
            "world": "t",
            "title": "T",
            "description": "A studio's database behind a REST API.",
            "state": state,
            "tools": [
                {
                    "name": "rest_get",
                    "description": "GET a table with a query string.",
                    "input_schema": {
                        "type": "object",
                        "properties": {"path": {"type": "string"}},
                    },
                }
            ],
        }
    )


def test_lookups_and_searches_by_query_string_show_the_records_they_name() -> None:
    world = _studio()
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    tool = world.tool("rest_get")
    assert (
        "/~1classes/41" in ground(overlay, world.state, tool, {"path": "/classes?id=eq.42"}).picks
    )
    search = {"path": "/classes?room=eq.B&title=like.Class%207*"}
    complete = [
        p for p, pick in ground(overlay, world.state, tool, search).picks.items() if pick.complete
    ]
    assert complete == ["/~1classes/6", *(f"/~1classes/{n}" for n in range(70, 79, 2))]

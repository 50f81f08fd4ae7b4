"""Links a schema declares, fed to the joins and embeds: a field named for no collection
(``holder`` holding whole numbers, as a count would) is followed as a link where the schema
says so, and a request's embedded resources show the rows linked both ways."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.constraints import read_collection
from mcp_sim.prompting.field_tables import FieldTables
from mcp_sim.prompting.grounding import ground
from mcp_sim.prompting.link_join import follow
from mcp_sim.prompting.schema_links import SchemaLink, schema_links
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import World


def _fk(table: str) -> dict[str, Any]:
    return {"type": "integer", "description": f"Foreign Key to `{table}.id`.<fk table='{table}'/>"}


def _world(documented: bool) -> World:
    owners = [{"id": n, "name": f"Owner {n}", "city": f"City {n % 7}"} for n in range(1, 60)]
    boats = [{"id": n, "title": f"Boat {n}", "holder": 1 + n % 59} for n in range(1, 200)]
    trips = [
        {"id": n, "vessel": 1 + n % 199, "day": f"2025-03-{1 + n % 28:02d}"} for n in range(1, 400)
    ]
    definitions = {
        "boats": {"properties": {"id": {"type": "integer"}, "holder": _fk("owners")}},
        "trips": {"properties": {"id": {"type": "integer"}, "vessel": _fk("boats")}},
    }
    state: dict[str, Any] = {"/owners": owners, "/boats": boats, "/trips": trips}
    if documented:
        state["/"] = {"swagger": "2.0", "definitions": definitions}
    return World.model_validate(
        {
            "world": "t",
            "title": "T",
            "description": "A marina's database behind a REST API.",
            "state": state,
            "tools": [
                {
                    "name": "rest_get",
                    "description": "GET a table with a query string.",
                    "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
                }
            ],
        }
    )


def test_declared_links_are_tied_to_the_collections() -> None:
    world = _world(documented=True)
    assert schema_links(StateIndex(world, world.state)) == (
        SchemaLink("/~1boats", "holder", "/~1owners"),
        SchemaLink("/~1trips", "vessel", "/~1boats"),
    )


def test_a_field_named_for_nothing_is_followed_where_the_schema_declares_it() -> None:
    for documented in (False, True):
        world = _world(documented)
        index = StateIndex(world, world.state)
        tables = FieldTables.of(index)
        boats, owners = (
            next(c for c in index.collections if c.pointer == p) for p in ("/~1boats", "/~1owners")
        )
        join = follow(tables, world.state, boats, ["/~1boats/4", "/~1boats/5"], owners, set())
        if documented:
            assert join is not None and join.reference == "holder"
            assert join.target_pointers == ["/~1owners/5", "/~1owners/6"]
        else:
            assert join is None  # whole numbers under a name saying nothing: no link


def test_embedded_resources_show_the_rows_linked_both_ways() -> None:
    world = _world(documented=True)
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    path = "/boats?id=eq.10&select=title,owners(name),trips(day)"
    picks = ground(overlay, world.state, world.tool("rest_get"), {"path": path}).picks
    # Boat 10's holder is owner 11; trips 9, 208 name boat 10 as their vessel.
    assert {"/~1owners/10", "/~1trips/8", "/~1trips/207"} <= set(picks)


def test_an_argument_naming_the_target_key_is_tied_to_the_declared_field() -> None:
    for documented in (False, True):
        world = _world(documented)
        index = StateIndex(world, world.state)
        boats = next(c for c in index.collections if c.pointer == "/~1boats")
        schema = FieldTables.of(index).schema(boats)
        (constraint,) = read_collection(schema, {"owner_id": 12}).constraints
        # Undocumented, ``holder`` is tied by value only (as every field holding 12 is).
        assert (constraint.fields == ("holder",) and constraint.fit == 1.0) is documented

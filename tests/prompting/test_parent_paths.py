"""Constraints written as a path through a reference (SOQL's ``Account.Industry``, SQL's
``a.nationality`` over ``objects o join artists a``): read on the parent records, tested as
the parent keys the searched records hold."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.grounding import Grounding, ground
from mcp_sim.prompting.parent_paths import aliases
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import World


def world_of(state: dict[str, Any], tool: str) -> World:
    return World.model_validate(
        {
            "world": "t",
            "title": "T",
            "description": "A hand-made state.",
            "state": state,
            "tools": [
                {"name": tool, "description": "Run a query.", "input_schema": {"type": "object"}}
            ],
        }
    )


def grounded(world: World, tool: str, arguments: dict[str, Any]) -> Grounding:
    index = StateIndex(world, world.state)
    return ground(index.overlay_of(world.state), world.state, world.tool(tool), arguments)


def crm_state() -> dict[str, Any]:
    """Accounts of three industries; opportunities naming their account by ``AccountId``."""
    industries = ["Retail", "Energy", "Education"]
    accounts = [
        {"Id": f"001A{a:04d}", "Name": f"Account {a}", "Industry": industries[a % 3]}
        for a in range(30)
    ]
    stages = ["Prospecting", "Closed Won"]
    opportunities = [
        {
            "Id": f"006O{o:04d}",
            "Name": f"Deal {o}",
            "StageName": stages[o % 2],
            "Amount": 1000 * o,
            "AccountId": f"001A{o % 30:04d}",
        }
        for o in range(120)
    ]
    return {"Account": {"records": accounts}, "Opportunity": {"records": opportunities}}


def test_a_parent_path_constrains_the_records_by_their_parents_values() -> None:
    world = world_of(crm_state(), "query_records")
    where = "Account.Industry = 'Energy' AND StageName = 'Prospecting'"
    grounding = grounded(world, "query_records", {"where": where})
    search = grounding.searches[0]
    assert search.collection.pointer == "/Opportunity/records"
    found = [world.state["Opportunity"]["records"][int(p.rsplit("/", 1)[1])] for p in search.full]
    # Accounts 1, 4, 7, ... are in energy; even opportunities are prospecting.
    assert found and all(o["AccountId"] in {f"001A{a:04d}" for a in range(1, 30, 3)} for o in found)
    assert all(o["StageName"] == "Prospecting" for o in found)
    assert len(found) == 20
    assert any(c.fields == ("AccountId",) for c in search.constraints)


def test_a_path_naming_no_collection_is_left_as_it_was() -> None:
    world = world_of(crm_state(), "query_records")
    where = "Owner.Name = 'Ana' AND StageName = 'Prospecting'"
    grounding = grounded(world, "query_records", {"where": where})
    assert not any(c.fields == ("AccountId",) for c in grounding.searches[0].constraints)


def museum_state() -> dict[str, Any]:
    """Artists of two nationalities; objects naming their artist by integer id."""
    artists = [
        {"id": a, "name": f"Artist {a}", "nationality": ["Dutch", "French"][a % 2]}
        for a in range(1, 21)
    ]
    objects = [
        {"id": o, "title": f"Work {o}", "artist_id": o % 20 + 1, "year": 1900 + o}
        for o in range(200)
    ]
    return {"artists": artists, "objects": objects}


def test_a_sql_join_constrains_the_joined_table_through_its_alias() -> None:
    world = world_of(museum_state(), "execute_sql")
    sql = (
        "select o.title, o.year, a.name as artist from objects o join artists a "
        "on a.id = o.artist_id where a.nationality = 'French' and o.year >= 2050 "
        "order by o.year limit 20"
    )
    grounding = grounded(world, "execute_sql", {"sql": sql})
    search = grounding.searches[0]
    assert search.collection.pointer == "/objects"
    found = [world.state["objects"][int(p.rsplit("/", 1)[1])] for p in search.full]
    # French artists have odd ids 1, 3, ...: objects o with o % 20 even.
    assert found == [o for o in world.state["objects"] if o["year"] >= 2050 and o["id"] % 2 == 0]


def test_the_aliases_a_sql_statement_gives_its_tables() -> None:
    sql = "SELECT * FROM objects AS o JOIN artists a ON a.id = o.artist_id WHERE o.year > 3"
    assert aliases({"sql": sql, "limit": 3}) == {"o": "objects", "a": "artists"}
    assert aliases({"sql": "select * from objects where year > 3"}) == {}
    assert aliases({"q": "mail from alice about taxes"}) == {}

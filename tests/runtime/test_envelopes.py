"""An export of several list endpoints' envelopes is several collections, whatever the
envelopes' metadata is called; a few records that each hold a list of alike items stay
records."""

from __future__ import annotations

from typing import Any

from mcp_sim.runtime.envelopes import envelope_field, holds_envelopes
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import World


def world_of(state: dict[str, Any]) -> World:
    return World.model_validate(
        {"world": "t", "title": "T", "description": "A hand-made state.", "state": state}
        | {"tools": [{"name": "get", "description": "Get.", "input_schema": {"type": "object"}}]}
    )


def people(n: int) -> list[dict[str, Any]]:
    return [{"id": f"u{i}", "email": f"p{i}@x.example", "name": f"P {i}"} for i in range(n)]


def payments(n: int) -> list[dict[str, Any]]:
    return [{"id": f"c{i}", "amount": 100 + i, "currency": "eur", "paid": True} for i in range(n)]


def products(n: int) -> list[dict[str, Any]]:
    return [{"id": f"p{i}", "title": f"Plan {i}", "active": True} for i in range(n)]


def pointers(state: dict[str, Any]) -> list[tuple[str, int]]:
    index = StateIndex(world_of(state), state)
    return [(c.pointer, c.size) for c in index.collections]


def test_side_by_side_list_envelopes_are_each_a_collection_named_by_their_key() -> None:
    # Stripe-like list objects: a type tag, a url, a paging flag; one of them holds few
    # records and one none, which a count of records alone cannot tell from line items.
    def listed(url: str, data: list[dict[str, Any]]) -> dict[str, Any]:
        return {"object": "list", "url": url, "has_more": False, "data": data}

    state = {
        "customers": listed("/v1/customers", people(40)),
        "charges": listed("/v1/charges", payments(60)),
        "products": listed("/v1/products", products(5)),
        "refunds": listed("/v1/refunds", []),
    }
    assert pointers(state) == [
        ("/charges/data", 60),
        ("/customers/data", 40),
        ("/products/data", 5),
        ("/refunds/data", 0),
    ]


def test_other_envelope_formats_are_read_alike() -> None:
    state = {
        # OData: the records under "value" beside a context and a next link.
        "users": {"@odata.context": "$metadata#users", "value": people(30), "@odata.count": 30},
        # SCIM: a schemas list and counts beside "Resources".
        "groups": {
            "schemas": ["urn:ietf:params:scim:api:messages:2.0:ListResponse"],
            "totalResults": 6,
            "itemsPerPage": 6,
            "Resources": products(6),
        },
        # A paging wrapper.
        "payments": {"page": 1, "per_page": 50, "results": payments(50)},
    }
    assert pointers(state) == [
        ("/groups/Resources", 6),
        ("/payments/results", 50),
        ("/users/value", 30),
    ]
    hal = {"_links": {"self": {"href": "/orders?page=1"}}, "_embedded": {"orders": payments(9)}}
    assert envelope_field(hal) == "_embedded"


def test_a_few_records_each_holding_alike_items_are_records() -> None:
    # Accounts holding their transactions: the inner records are of one kind in every member.
    accounts = {
        f"A{n}": {"owner": f"Owner {n}", "currency": "eur", "transactions": payments(40)}
        for n in range(4)
    }
    assert not holds_envelopes(accounts)
    # A record with more than one large member is no envelope.
    assert envelope_field({"lines": payments(20), "notes": people(20)}) is None


def test_a_nested_envelopes_metadata_is_no_collection_and_its_wrapping_no_level() -> None:
    # A HAL list response six levels down: its `_links` are an object of alike objects, which
    # alone would read as records keyed by id; the records are the `_embedded` array's.
    links = {"self": {"href": "/people?page=1"}, "first": {"href": "/people?page=1"}}
    hal = {"_links": links, "_embedded": {"people": people(30)}}
    state = {"export": {"data": {"v2": {"store": {"people": hal}}}}}
    assert pointers(state) == [("/export/data/v2/store/people/_embedded/people", 30)]


def test_small_tables_beside_the_roots_one_big_collection_stay_collections() -> None:
    # At the root, a small keyed object beside the big array is the world's own table.
    branches = {"b1": {"city": "Oslo"}, "b2": {"city": "Bergen"}}
    state = {"branches": branches, "people": people(40)}
    assert sorted(pointers(state)) == [("/branches", 2), ("/people", 40)]

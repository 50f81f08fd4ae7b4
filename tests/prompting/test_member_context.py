"""A record nested in a large member is shown beside its member's own fields (the calendar
an event is filed in), the member's other records left out."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.member_context import MEMBERS_HEADING, member_context
from mcp_sim.prompting.record_render import collection_line
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import World


def world_of(state: dict[str, Any]) -> World:
    return World.model_validate(
        {"world": "t", "title": "T", "description": "A hand-made state.", "state": state}
        | {"tools": [{"name": "get", "description": "Get.", "input_schema": {"type": "object"}}]}
    )


def account(number: str, transactions: int) -> dict[str, Any]:
    return {
        "number": number,
        "holder": {"name": f"Holder {number}", "branch": "Oslo"},
        "transactions": [
            {"ref": f"{number}-{n}", "amount": n * 3, "text": f"Payment {n} to a shop"}
            for n in range(transactions)
        ],
    }


def test_the_members_holding_the_records_are_shown_without_their_records() -> None:
    state = {"accounts": [account(number, 400) for number in ("NO-1", "NO-2", "NO-3")]}
    index = StateIndex(world_of(state), state)
    overlay = index.overlay_of(state)
    wanted = [
        "/accounts/1/transactions/7",
        "/accounts/1/transactions/9",
        "/accounts/2/transactions/0",
    ]
    shown = member_context(overlay, state, wanted, 2_000)
    lines = shown.splitlines()
    assert lines[0] == MEMBERS_HEADING
    assert lines[1].startswith("- /accounts/1: ") and '"number":"NO-2"' in lines[1]
    assert (
        '"Holder NO-2"' in lines[1] and "<400 records, at /accounts/1/transactions/N>" in lines[1]
    )
    assert lines[2].startswith("- /accounts/2: ") and len(lines) == 3
    assert "Payment" not in shown
    # Records of an ordinary collection have no member to show.
    flat = {"transactions": account("NO-1", 40)["transactions"]}
    flat_index = StateIndex(world_of(flat), flat)
    assert member_context(flat_index.overlay_of(flat), flat, ["/transactions/3"], 2_000) == ""


def test_the_outline_names_members_holding_records_as_members() -> None:
    accounts = [account(number, 40) for number in ("NO-1", "NO-2")]
    line = collection_line("/accounts", accounts, False, "ref", pages="transactions", members=True)
    assert "2 members of 80 records, record N of member P at /accounts/P/transactions/N" in line

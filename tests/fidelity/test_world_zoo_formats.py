"""The zoo's shapes of other systems' export formats hold what those systems export: a DynamoDB
table of typed attribute values (``dynamo``), an append-only event log whose answers are
projections of it (``eventlog``), and ``xmltodict``'s JSON of an XML export (``hotelxml``); and
their writes change the state as those systems would. (That each shape loads, is deterministic,
makes every kind of call and answers from its state is checked with all the zoo's shapes.)"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from benchmarks.zoo import generate
from benchmarks.zoo.dynamo_values import plain, typed
from benchmarks.zoo.eventlog import fold, streams
from benchmarks.zoo.hotelxml import listed
from benchmarks.zoo.kit import State, clone
from tests.fidelity.zoo_calls import run_tool

TAGS = {"S", "N", "BOOL", "L", "M", "SS"}


def _world(shape: str) -> tuple[State, list[dict[str, Any]]]:
    spec, calls = generate(shape, 0.1, seed=3, episodes=12)
    return spec["state"], calls


def _typed_values(value: dict[str, Any]) -> list[str]:
    """The tags of an attribute value and of every value inside it."""
    ((tag, inner),) = value.items()
    if tag == "L":
        return [tag, *(t for v in inner for t in _typed_values(v))]
    if tag == "M":
        return [tag, *(t for v in inner.values() for t in _typed_values(v))]
    if tag == "N":
        # A string, as DynamoDB keeps it: no trailing zeros after a decimal point.
        assert isinstance(inner, str) and not ("." in inner and inner.endswith("0")), inner
    return [tag]


def test_a_dynamo_table_holds_only_typed_values_of_several_entities_in_one_table() -> None:
    state, _ = _world("dynamo")
    items = state["Items"]
    tags = Counter(t for entry in items for v in entry.values() for t in _typed_values(v))
    assert set(tags) == TAGS
    assert state["Count"] == state["ScannedCount"] == len(items)
    keys = [(e["PK"]["S"], e["SK"]["S"]) for e in items]
    assert len(set(keys)) == len(keys)
    assert {pk.split("#")[0] for pk, _ in keys} == {"SITE", "SPACE", "MEMBER", "COUNTER"}
    assert any(sk.startswith("BOOKING#") for _, sk in keys)
    assert plain(typed({"rate": 12.5, "n": 3, "tags": ("a",), "ok": True})) == {
        "rate": 12.5,
        "n": 3,
        "tags": ["a"],
        "ok": True,
    }


def test_booking_a_space_adds_an_item_bumps_the_counter_and_spends_credits() -> None:
    state, _ = _world("dynamo")
    state = clone(state)
    member = next(e for e in state["Items"] if e["SK"]["S"] == "PROFILE" and e["credits"]["N"])
    ident = int(member["PK"]["S"].split("#")[1])
    credits = plain(member["credits"])
    space = next(e["PK"]["S"][6:] for e in state["Items"] if e["PK"]["S"].startswith("SPACE#"))
    counter = next(e for e in state["Items"] if e["PK"]["S"] == "COUNTER")
    ref = plain(counter["next"])
    arguments = {"member_id": ident, "space_id": space, "start": "2026-02-03T09:00", "hours": 1}
    booked = run_tool("dynamo", state, "book_space", arguments)
    assert booked["booking_ref"] == ref
    assert plain(counter["next"]) == ref + 1
    assert plain(member["credits"]) == max(0, credits - 1)
    assert state["Count"] == len(state["Items"])
    read = run_tool("dynamo", state, "get_booking", {"member_id": ident, "booking_ref": ref})
    assert read["space"] == space and read["date"] == "2026-02-03"


def test_an_event_log_is_append_only_and_ordered() -> None:
    state, _ = _world("eventlog")
    events = state["events"]
    assert [e["seq"] for e in events] == list(range(1, state["head"] + 1))
    assert [e["at"] for e in events] == sorted(e["at"] for e in events)
    assert all(set(e) == {"seq", "at", "type", "aggregate_id", "data"} for e in events)
    assert {"AccountOpened", "Deposited", "Withdrawn", "TransferSent", "CardIssued"} <= {
        e["type"] for e in events
    }


def test_eventlog_answers_are_projections_folded_from_the_events() -> None:
    state, calls = _world("eventlog")
    balances = [json.loads(c["response"]) for c in calls if c["tool"] == "account_balance"]
    assert balances
    for answer in balances:
        flows = answer["deposits"] + answer["transfers_in"]
        flows -= answer["withdrawals"] + answer["transfers_out"]
        assert answer["balance"] == pytest.approx(flows), answer
    changed = [e for e in state["events"] if e["type"] == "EmailChanged"]
    assert changed
    last = changed[-1]
    account = run_tool("eventlog", state, "get_account", {"account_id": last["aggregate_id"]})
    assert account["email"] == last["data"]["email"]  # the latest change wins


def test_a_transfer_appends_two_events_after_the_head() -> None:
    state, _ = _world("eventlog")
    state = clone(state)
    accounts = [fold(events) for events in streams(state).values()]
    usable = [a for a in accounts if not (a["frozen"] or a["closed"])]
    first = usable[0]
    second = next(a for a in usable[1:] if a["currency"] == first["currency"])
    payer, payee = first["account_id"], second["account_id"]
    head, before = state["head"], second["balance"]
    deposit = {"account_id": payer, "amount": 500.25, "reference": "top up"}
    run_tool("eventlog", state, "deposit", deposit | {"booking_date": "2030-01-01"})
    transfer = {"from_account": payer, "to_account": payee, "amount": 120.5, "memo": "rent"}
    run_tool("eventlog", state, "transfer", transfer | {"booking_date": "2030-01-02"})
    assert state["head"] == head + 3 == state["events"][-1]["seq"]
    assert [e["type"] for e in state["events"][-2:]] == ["TransferSent", "TransferReceived"]
    after = run_tool("eventlog", state, "account_balance", {"account_id": payee})
    assert after["balance"] == pytest.approx(before + 120.5)
    assert after["transfers_in"] >= 120.5


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


def test_an_xml_export_holds_strings_and_lists_only_of_repeated_elements() -> None:
    state, _ = _world("hotelxml")
    (root,) = state.values()
    assert all(leaf is None or isinstance(leaf, str) for leaf in _leaves(state))
    assert any(key.startswith("@") for key in root)
    folios = [r["Folio"] for r in root["Reservations"]["Reservation"]]
    forms = {type(f["Line"]).__name__ if f else "empty" for f in folios}
    assert forms == {"empty", "dict", "list"}


@pytest.mark.parametrize("lines", [0, 1, 2])
def test_posting_a_charge_grows_a_folio_as_the_export_would_hold_it(lines: int) -> None:
    state, _ = _world("hotelxml")
    state = clone(state)
    stays = state["PMSExport"]["Reservations"]["Reservation"]
    stay = next(
        s
        for s in stays
        if s["@status"] == "checked-out" and len(listed((s["Folio"] or {}).get("Line"))) == lines
    )
    arguments = {"confirmation_number": stay["@confirmation"], "charge_code": "SPA"}
    arguments |= {"amount": 42.5, "posted_at": "2025-12-30T10:00"}
    run_tool("hotelxml", state, "post_charge", arguments)
    held = stay["Folio"]["Line"]
    assert isinstance(held, dict) if lines == 0 else len(held) == lines + 1
    line = {"confirmation_number": stay["@confirmation"], "line_no": lines + 1}
    read = run_tool("hotelxml", state, "get_folio_line", line)
    assert (read["code"], read["amount"], read["currency"]) == ("SPA", 42.5, "EUR")

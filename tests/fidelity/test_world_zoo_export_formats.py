"""The zoo shapes held out until 2026-11-26 hold what the systems they copy export: a Stripe
account's list objects (``stripe``), a Koha catalogue in MARC-in-JSON (``marc``) and CalDAV
calendars in jCal (``jcal``); their computed answers read those encodings, and their writes
change the state as those systems would. (That each shape loads, is deterministic, makes every
kind of call and answers from its state is checked with all the zoo's shapes.)"""

from __future__ import annotations

import re
from typing import Any

import pytest

from benchmarks.zoo.jcal_components import minutes, occurrences, properties, value
from benchmarks.zoo.kit import State, ToolError
from benchmarks.zoo.marc_records import LANGUAGES, fields_of, first, subfield
from benchmarks.zoo.stripe_objects import month_of
from tests.fidelity.zoo_calls import run_tool, small_state


def test_a_stripe_export_keeps_cents_unix_times_prefixed_ids_and_string_metadata() -> None:
    state = small_state("stripe")
    assert {v["object"] for v in state.values()} == {"list"}
    charges = state["charges"]["data"]
    assert all(re.fullmatch(r"ch_3\w{24}", c["id"]) for c in charges)
    assert all(isinstance(c["amount"], int) and isinstance(c["created"], int) for c in charges)
    assert all(isinstance(v, str) for c in charges for v in c["metadata"].values())
    assert any("order_id" in c["metadata"] for c in charges)
    invoice = state["invoices"]["data"][0]
    assert invoice["customer"].startswith("cus_")  # an expandable reference, not expanded
    assert invoice["lines"]["object"] == "list"
    assert invoice["total"] == sum(line["amount"] for line in invoice["lines"]["data"])
    # A line is priced in the invoice's currency, from the price's option for it.
    for line in (line for i in state["invoices"]["data"] for line in i["lines"]["data"]):
        option = line["price"]["currency_options"][line["currency"]]
        assert line["amount"] == option["unit_amount"] * line["quantity"]
    assert len({i["currency"] for i in state["invoices"]["data"]}) > 1


def test_a_month_of_revenue_sums_succeeded_charges_net_of_refunds() -> None:
    state = small_state("stripe")
    charge = next(c for c in state["charges"]["data"] if c["status"] == "succeeded")
    month, currency = month_of(charge["created"]), charge["currency"]
    report = run_tool("stripe", state, "revenue_report", {"month": month, "currency": currency})
    counted = [
        c
        for c in state["charges"]["data"]
        if c["status"] == "succeeded"
        and c["currency"] == currency
        and month_of(c["created"]) == month
    ]
    assert report["charges"] == len(counted) >= 1
    assert report["net"] == sum(c["amount_captured"] - c["amount_refunded"] for c in counted)


def test_a_refund_adds_a_refund_object_and_refuses_more_than_is_left() -> None:
    state = small_state("stripe")
    charge = next(
        c
        for c in state["charges"]["data"]
        if c["status"] == "succeeded" and c["amount_refunded"] == 0 and c["amount"] > 200
    )
    refund = run_tool("stripe", state, "refund_charge", {"charge_id": charge["id"], "amount": 100})
    assert refund["id"].startswith("re_") and refund["amount"] == 100
    assert state["refunds"]["data"][-1] == refund
    assert charge["amount_refunded"] == 100 and charge["refunded"] is False
    run_tool("stripe", state, "refund_charge", {"charge_id": charge["id"]})
    assert charge["amount_refunded"] == charge["amount"] and charge["refunded"] is True
    with pytest.raises(ToolError):
        run_tool("stripe", state, "refund_charge", {"charge_id": charge["id"], "amount": 1})


def test_marc_records_hold_tagged_fields_with_subfield_lists_and_string_items() -> None:
    state = small_state("marc")
    for record in state["records"]:
        assert all(len(f) == 1 and re.fullmatch(r"\d{3}", next(iter(f))) for f in record["fields"])
        fixed = next(f["008"] for f in record["fields"] if "008" in f)
        assert len(fixed) == 40 and fixed[35:38] in LANGUAGES  # the language's place
        for _, item in fields_of(record, "952"):
            assert all(isinstance(v, str) for s in item["subfields"] for v in s.values())
    # Koha's biblionumber is not the OCLC control number.
    record = state["records"][0]
    assert first(record, "999", "c") != next(f["001"] for f in record["fields"] if "001" in f)


def test_another_edition_is_found_through_its_oclc_number() -> None:
    state = small_state("marc")
    record = next(r for r in state["records"] if any(fields_of(r, "775")))
    link = first(record, "775", "w")
    other = next(r for r in state["records"] if first(r, "035", "a") == link)
    answer = run_tool("marc", state, "other_editions", {"isbn": first(record, "020", "a")})
    assert [e["biblionumber"] for e in answer["editions"]] == [first(other, "999", "c")]
    assert len(answer["editions"][0]["items"]) == len(list(fields_of(other, "952")))


def test_a_checkout_adds_a_due_date_and_counts_a_checkout_once() -> None:
    state = small_state("marc")
    item = next(
        data
        for record in state["records"]
        for _, data in fields_of(record, "952")
        if subfield(data, "q") is None and subfield(data, "7") == subfield(data, "1") == "0"
    )
    barcode, before = subfield(item, "p"), int(subfield(item, "l") or "0")
    run_tool("marc", state, "checkout", {"barcode": barcode, "due_date": "2026-01-20"})
    assert subfield(item, "q") == "2026-01-20" and subfield(item, "l") == str(before + 1)
    status = run_tool("marc", state, "item_status", {"barcode": barcode})
    assert status["date_due"] == "2026-01-20"
    with pytest.raises(ToolError, match="already checked out"):
        run_tool("marc", state, "checkout", {"barcode": barcode, "due_date": "2026-01-21"})


def _vevents(state: State) -> list[list[Any]]:
    return [c for cal in state["calendars"] for c in cal["jcal"][2] if c[0] == "vevent"]


def test_jcal_components_and_properties_are_positional_arrays() -> None:
    state = small_state("jcal")
    for calendar in state["calendars"]:
        name, props, components = calendar["jcal"]
        assert name == "vcalendar" and isinstance(props, list)
        assert components[0][0] == "vtimezone"
    events = _vevents(state)
    for event in events:
        assert all(isinstance(p[0], str) and isinstance(p[1], dict) for p in event[1])
        assert value(event, "organizer").startswith("mailto:")
    assert any(value(e, "duration") for e in events) and any(value(e, "rrule") for e in events)
    assert any(len(properties(e, "categories")[0]) > 4 for e in events)  # several values


def test_an_end_is_a_dtend_or_a_duration_and_a_series_repeats_weekly() -> None:
    props: list[Any] = [
        ["dtstart", {"tzid": "Europe/Berlin"}, "date-time", "2025-10-06T09:00:00"],
        ["duration", {}, "duration", "PT1H30M"],
        ["rrule", {}, "recur", {"freq": "WEEKLY", "count": 3}],
    ]
    event: list[Any] = ["vevent", props, []]
    assert minutes(event) == 90
    assert [s.isoformat()[:10] for s in occurrences(event)] == [
        "2025-10-06",
        "2025-10-13",
        "2025-10-20",
    ]


def test_meeting_load_counts_each_occurrence_and_leaves_declines_out() -> None:
    state = small_state("jcal")
    series = next(
        e
        for e in _vevents(state)
        if value(e, "rrule") and value(e, "status") != "CANCELLED" and properties(e, "attendee")
    )
    email = value(series, "organizer").removeprefix("mailto:")
    month = value(series, "dtstart")[:7]
    before = run_tool("jcal", state, "meeting_load", {"email": email, "month": month})
    in_month = [s for s in occurrences(series) if s.isoformat()[:7] == month]
    # The organizer's load holds the series' occurrences of that month.
    assert before["meetings"] >= len(in_month) >= 1
    guest = properties(series, "attendee")[0][3].removeprefix("mailto:")
    args = {"email": guest, "month": month}
    accepted = run_tool(
        "jcal",
        state,
        "reply_to_invitation",
        {"event_id": value(series, "uid"), "email": guest, "reply": "ACCEPTED"},
    )
    assert accepted["partstat"] == "ACCEPTED"
    counted = run_tool("jcal", state, "meeting_load", args)
    run_tool(
        "jcal",
        state,
        "reply_to_invitation",
        {"event_id": value(series, "uid"), "email": guest, "reply": "DECLINED"},
    )
    declined = run_tool("jcal", state, "meeting_load", args)
    assert counted["meetings"] - declined["meetings"] == len(in_month)
    assert counted["hours"] - declined["hours"] == pytest.approx(
        len(in_month) * minutes(series) / 60
    )
    status = run_tool(
        "jcal", state, "attendee_status", {"event_id": value(series, "uid"), "email": guest}
    )
    assert status["partstat"] == "DECLINED" and "rsvp" not in status

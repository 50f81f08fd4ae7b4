"""Times written as epoch numbers, searched by date: charges whose ``created`` is seconds
since 1970 (as a payment API writes it), messages whose ``ts`` is that as text (as a chat
export does), mail whose ``internalDate`` is milliseconds; and a collection an argument's
value names (a chat export's folder per channel)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from mcp_sim.prompting.aggregates import summarize
from mcp_sim.prompting.epoch_times import (
    MILLISECONDS,
    SECONDS,
    epoch_time,
    epoch_unit,
    names_time,
)
from mcp_sim.prompting.field_search import FieldSearch
from mcp_sim.prompting.field_tables import FieldTables
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import World

_DAY = 86_400
_START = int(datetime(2025, 1, 1, tzinfo=UTC).timestamp())


def _world(state: dict[str, Any], *tools: tuple[str, str]) -> World:
    return World.model_validate(
        {
            "world": "t",
            "title": "T",
            "description": "A payments service.",
            "state": state,
            "tools": [
                {"name": n, "description": d, "input_schema": {"type": "object"}} for n, d in tools
            ],
        }
    )


def _charges(count: int = 240) -> list[dict[str, Any]]:
    """A charge every 1.5 days from 2025-01-01, its amount and its ``created`` in seconds."""
    return [
        {
            "id": f"ch_{n:04d}",
            "amount": 1000 + 37 * n,
            "currency": "eur" if n % 2 else "gbp",
            "created": _START + n * _DAY * 3 // 2,
        }
        for n in range(count)
    ]


def _day(seconds: int) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d")


def _search(world: World, tool: str, arguments: dict[str, Any]) -> Any:
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    result, *_ = FieldSearch(overlay, world.state).search(world.tool(tool), arguments)
    return result


def test_a_field_is_epoch_times_by_its_name_and_its_values_together() -> None:
    assert names_time("created") and names_time("paid_at") and names_time("internalDate")
    assert names_time("messages/*/ts") and not names_time("amount")
    seconds, millis = 1_714_567_890.0, 1_714_567_890_123.0
    assert epoch_unit("created", seconds, seconds + _DAY) == SECONDS
    assert epoch_unit("internalDate", millis, millis + 1000) == MILLISECONDS
    # A count of that size, or a time field holding small numbers, is no epoch time.
    assert epoch_unit("amount", seconds, seconds) is None
    assert epoch_unit("created", 3.0, 12.0) is None
    assert epoch_time(1_714_567_890) == "2024-05-01T12:51:30Z"
    assert epoch_time("1714567890.000200") == "2024-05-01T12:51:30Z"
    assert epoch_time("1714567890123", MILLISECONDS) == "2024-05-01T12:51:30Z"
    assert epoch_time(42) is None and epoch_time("ch_0001") is None


def test_a_date_bound_and_a_month_select_records_by_their_epoch_times() -> None:
    charges = _charges()
    world = _world(
        {"charges": charges},
        ("list_charges", "Charges created in a range, by currency."),
        ("revenue_report", "A month's charges in a currency: count and gross."),
    )
    result = _search(world, "list_charges", {"created_from": "2025-05-01", "currency": "eur"})
    assert result is not None
    assert {c.argument: c.fields for c in result.constraints}["created_from"] == ("created",)
    expected = [
        f"/charges/{n}"
        for n, c in enumerate(charges)
        if _day(c["created"]) >= "2025-05-01" and c["currency"] == "eur"
    ]
    assert sorted(result.full) == sorted(expected) and expected
    # A bound by a day takes the whole day, as it does of a timestamp written as a date.
    last = _search(world, "list_charges", {"created_to": _day(charges[10]["created"])})
    assert last is not None and "/charges/10" in last.full and "/charges/11" not in last.full

    arguments = {"month": "2025-03", "currency": "gbp"}
    report = _search(world, "revenue_report", arguments)
    assert report is not None
    month = [
        f"/charges/{n}"
        for n, c in enumerate(charges)
        if _day(c["created"]).startswith("2025-03") and c["currency"] == "gbp"
    ]
    assert sorted(report.full) == sorted(month) and month
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    tool = world.tool("revenue_report")
    assert tool is not None
    summary = summarize(overlay, world.state, tool, report, arguments)
    assert summary is not None and summary.values["count"] == len(month)


def test_a_day_names_the_records_whose_epoch_text_falls_on_it() -> None:
    messages = [
        {"ts": f"{_START + n * 7_200}.{n:06d}", "user": f"U{n % 5}", "text": f"note {n}"}
        for n in range(200)
    ]
    world = _world({"messages": messages}, ("messages_on", "Messages posted on a day."))
    tables = FieldTables.of(StateIndex(world, world.state))
    (collection,) = tables.index.collections
    assert tables.schema(collection).fields["ts"].kind == "date"
    day = _day(_START + 30 * 7_200)
    expected = {
        f"/messages/{n}" for n, m in enumerate(messages) if _day(int(float(m["ts"]))) == day
    }
    assert tables.label_index(collection, "ts")[day] == expected and len(expected) == 12
    # Text that is no time, beside it, is labelled as itself only.
    assert day not in tables.label_index(collection, "user")


def test_a_value_naming_a_collection_selects_it_over_the_record_describing_it() -> None:
    folders = {
        name: [
            {"ts": f"{_START + n * 3_600}.000100", "user": f"u.{n % 4}", "text": f"{name} {n}"}
            for n in range(40)
        ]
        for name in ("deploys", "incidents", "general", "random")
    }
    channels = [
        {"id": f"C{n}", "name": name, "created": _START - _DAY * (n + 1)}
        for n, name in enumerate(folders)
    ]
    world = _world(
        {"channels": channels, **folders},
        ("search_messages", "Messages of a channel, by user and date."),
    )
    arguments = {"in_channel": "incidents", "from_user": "u.1", "before": "2025-01-01"}
    result = _search(world, "search_messages", arguments)
    assert result is not None and result.collection.pointer == "/incidents"
    assert result.full == [f"/incidents/{n}" for n in range(1, 24, 4)]

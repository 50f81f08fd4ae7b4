"""Groupings written as PostgREST's ``select`` aggregates and RediSearch's ``GROUPBY`` and
``REDUCE`` steps: read as the rows a ``GROUP BY`` answers, over the records the query selects,
named as each language's answer names them."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.aggregation_summary import aggregation_summary
from mcp_sim.prompting.grouped_rows import grouped_rows, requested_grouping
from mcp_sim.prompting.grouping_forms import as_text
from mcp_sim.prompting.url_queries import url_query
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import World


def _bookings() -> list[dict[str, Any]]:
    statuses = ["booked", "attended", "booked", "cancelled", "booked"]
    return [
        {"id": i, "class_id": 7 if i < 4 else 8, "status": s, "paid_cents": 1000 * (i + 1)}
        for i, s in enumerate(statuses)
    ]


def test_a_url_select_listing_aggregates_groups_by_its_plain_columns() -> None:
    path = "/bookings?select=status,count(),total:paid_cents.sum()&class_id=eq.7"
    grouping = requested_grouping({"path": path})
    assert grouping is not None
    assert grouping.table == "bookings" and grouping.fields == ("status",)
    rows = grouped_rows(_bookings(), grouping)
    assert rows == [
        {"status": "attended", "count": 1, "total": 2000.0},
        {"status": "booked", "count": 3, "total": 9000.0},
        {"status": "cancelled", "count": 1, "total": 4000.0},
    ]
    # An embedded resource's count is a column of each record, not a grouping.
    assert requested_grouping({"path": "/classes?select=id,bookings(count)&id=eq.7"}) is None
    assert requested_grouping({"path": "/bookings?select=status,paid_cents&id=eq.7"}) is None


def test_an_aggregate_function_is_no_embedded_resource() -> None:
    read = url_query("/classes?select=style,count(),price_cents.avg()&level=eq.beginner")
    assert read is not None and read.embedded == ()
    assert ("", "eq", "count") not in read.operands


def test_groupby_and_reduce_steps_answer_rows_of_text() -> None:
    pipeline = (
        "GROUPBY 1 @status REDUCE COUNT 0 AS n REDUCE AVG 1 @paid_cents AS mean "
        "REDUCE SUM 1 @paid_cents SORTBY 2 @n DESC"
    )
    grouping = requested_grouping({"index": "idx:bookings", "query": "*", "pipeline": pipeline})
    assert grouping is not None and grouping.text and grouping.fields == ("status",)
    rows = grouped_rows(_bookings(), grouping)
    assert rows is not None
    assert rows[1] == {
        "status": "booked",
        "n": "3",
        "mean": "3000",
        "__generated_aliassumpaid_cents": "9000",
    }
    assert as_text(39.709956709956706) == "39.70995671"
    # A pipeline of stage objects is MongoDB's, read elsewhere: no words to read here.
    assert requested_grouping({"pipeline": [{"$group": {"_id": "$status"}}]}) is None


def test_a_url_grouping_sums_up_the_records_its_filters_select() -> None:
    state = {"/bookings": _bookings(), "/classes": [{"id": 7}, {"id": 8}]}
    spec = {"name": "rest_get", "description": "GET a path.", "input_schema": {"type": "object"}}
    world = World.model_validate(
        {"world": "t", "title": "T", "description": "A hand-made state.", "state": state}
        | {"tools": [spec]}
    )
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    arguments = {"path": "/bookings?select=status,count()"}
    summary = aggregation_summary(overlay, world.state, [], arguments)
    assert summary is not None
    assert summary.values["rows"][1] == {"status": "booked", "count": 3}

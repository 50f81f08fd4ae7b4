"""The outline's line for partitions of one collection: how many, and where a record is."""

from __future__ import annotations

from mcp_sim.prompting.record_render import collection_line
from tests.runtime.test_state_partitions import stays_by_month


def test_the_outline_tells_where_a_partitions_record_is() -> None:
    state = stays_by_month()
    line = collection_line("/stays/2025", state["stays"]["2025"], False, "stay_id")
    assert "6 partitions of 30 records, record N of partition P at /stays/2025/P/N" in line
    assert "ids S1-0 … S6-4" in line and '"nights"' in line

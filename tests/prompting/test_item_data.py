"""A record an item wraps beside its data is shown in its item."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.grounding import Pick
from mcp_sim.prompting.item_data import with_item_data
from mcp_sim.prompting.records_section import records_section


def matrix() -> dict[str, Any]:
    """A Prometheus range query's series: labels in ``metric``, samples in ``values``."""
    series = [
        {
            "metric": {"__name__": "up", "instance": f"10.0.0.{n}:9100"},
            "values": [[1764554400 + 300 * k, str(n * 10 + k)] for k in range(6)],
        }
        for n in range(4)
    ]
    return {"data": {"result": series}}


def test_the_record_is_shown_in_its_item_with_the_items_data() -> None:
    state = matrix()
    record = state["data"]["result"][2]["metric"]
    at, shown, focus = with_item_data(state, "/data/result/2/metric", record, {"/instance"})
    assert at == "/data/result/2" and shown is state["data"]["result"][2]
    assert focus == {"/metric", "/metric/instance"}
    section = records_section(state, [Pick("/data/result/2/metric", "named")], [], 5_000)
    assert '- /data/result/2: {"metric":{' in section and '[1764554700,"21"]' in section


def test_an_envelope_beside_a_record_is_no_data_of_it() -> None:
    # A GraphQL edge's cursor, a FHIR entry's fullUrl and search mode: the record alone.
    edges = [{"cursor": "Y3Vy", "node": {"id": "a", "title": "x"}, "search": {"mode": "match"}}]
    state = {"edges": edges}
    record = edges[0]["node"]
    assert with_item_data(state, "/edges/0/node", record, set()) == (
        "/edges/0/node",
        record,
        set(),
    )
    # Nor is a record that is an array's item itself in an item.
    rows = {"rows": [{"id": 1, "tags": ["a", "b"]}]}
    assert with_item_data(rows, "/rows/0", rows["rows"][0], set())[0] == "/rows/0"

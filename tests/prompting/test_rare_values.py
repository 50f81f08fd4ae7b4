"""The records a call's rarest argument value names: held deep inside, part of a composed
value, or narrowed by the other values and the collection the tool names."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.grounding import Pick, ground
from mcp_sim.prompting.rare_values import call_values, composed_runs, evident_records
from mcp_sim.prompting.records_section import records_section
from mcp_sim.runtime.state_index import StateIndex, StateOverlay
from mcp_sim.spec.world import World


def world_of(state: dict[str, Any], tool: str) -> World:
    return World.model_validate(
        {
            "world": "t",
            "title": "T",
            "description": "A service.",
            "state": state,
            "tools": [{"name": tool, "description": "Reads.", "input_schema": {"type": "object"}}],
        }
    )


def overlay_of(world: World) -> StateOverlay:
    return StateIndex(world, world.state).overlay_of(world.state)


def calendar_state() -> dict[str, Any]:
    """Events, each with its attendees, and its ``uid`` held deep in its properties: no
    sample shows it to be a key."""
    people = [f"p{n}@example.org" for n in range(6)]
    events = [
        {
            "summary": f"Meeting {e}",
            "props": {"ical": {"uid": f"ev-{e}-x9", "seq": e % 3}},
            "attendees": [
                {"email": people[(e + k) % 6], "status": ["yes", "no"][k % 2]} for k in range(3)
            ],
        }
        for e in range(40)
    ]
    return {"events": events}


def test_a_value_one_record_holds_deep_inside_names_it_before_the_search() -> None:
    world = world_of(calendar_state(), "attendee_status")
    overlay = overlay_of(world)
    arguments = {"event_id": "ev-25-x9", "email": "p1@example.org"}
    found = ground(overlay, world.state, world.tools[0], arguments)
    picks = list(found.picks.values())
    # First, before every record the email alone matches, focused on the attendee named.
    assert picks[0].pointer == "/events/25"
    assert picks[0].reason == "named"
    assert "/attendees/0" in picks[0].focus


def series_state() -> dict[str, Any]:
    """Time series named by a metric and labels: no label value is rare, their pair is."""
    result = []
    for host in range(6):
        for metric in ("load1", "mem_free", "disk_free", "up"):
            result.append(
                {
                    "metric": {"name": metric, "instance": f"10.0.0.{host}:9100", "job": "node"},
                    "values": [[1700000000 + 60 * k, str(host * 10 + k)] for k in range(3)],
                }
            )
    return {"data": {"result": result}}


def test_a_composed_value_names_the_one_record_holding_its_parts() -> None:
    world = world_of(series_state(), "query")
    overlay = overlay_of(world)
    query = 'mem_free{instance="10.0.0.3:9100"}'
    assert "10.0.0.3:9100" in composed_runs(query)
    values = call_values(overlay, [], [query])
    assert {"mem_free", "10.0.0.3:9100"} <= set(values)
    # Neither part alone is rare (4 and 6 records hold them); together they name one series.
    assert [e.pointer for e in evident_records(overlay, world.tools[0], values)] == [
        "/data/result/13"
    ]
    # A part every series holds, alone, names none.
    assert not evident_records(overlay, world.tools[0], call_values(overlay, [], ["up{job}"]))


def cluster_state() -> dict[str, Any]:
    """Nodes and the pods on them: a node's address is also each of its pods' host."""
    nodes = [{"name": f"node-{n}", "address": f"10.1.0.{n}", "zone": "a"} for n in range(4)]
    pods = [{"name": f"pod-{p}", "hostIP": f"10.1.0.{p % 4}"} for p in range(20)]
    return {"nodes": nodes, "pods": pods}


def test_many_holders_are_narrowed_to_the_collection_the_tool_names() -> None:
    world = world_of(cluster_state(), "node_by_ip")
    overlay = overlay_of(world)
    found = evident_records(overlay, world.tools[0], call_values(overlay, ["10.1.0.2"], []))
    assert [e.pointer for e in found] == ["/nodes/2"]
    # A tool naming neither collection is told nothing by six holders.
    other = world_of(cluster_state(), "lookup_address")
    assert not evident_records(overlay, other.tools[0], call_values(overlay, ["10.1.0.2"], []))


def test_records_a_search_meets_come_before_the_evident_ones_when_few() -> None:
    """The search's one match tells which record the call is about: another record holding
    the rare value follows it, shown around the value, not in the match's place."""
    state = cluster_state()
    for p, pod in enumerate(state["pods"]):
        pod["label"] = f"web-{p}"
    for node in state["nodes"]:
        node["history"] = [{"at": f"2025-01-{d:02d}", "note": "x" * 40} for d in range(1, 20)]
    state["nodes"][3]["last_label"] = "web-7"
    world = world_of(state, "find_pods")
    found = ground(overlay_of(world), world.state, world.tools[0], {"label": "web-7"})
    picks = list(found.picks.values())
    assert picks[0].pointer == "/pods/7" and picks[0].complete
    node = found.picks["/nodes/3"]
    assert node.evident and picks.index(node) == 1


def test_an_evident_record_beside_search_matches_takes_a_fair_share() -> None:
    state = cluster_state()
    for node in state["nodes"]:
        node["history"] = [{"at": f"2025-01-{d:02d}", "note": "x" * 40} for d in range(28)]
    # Before more matches than tell the call's record, compactly, so that they keep their
    # room: its scalars and where the value sits.
    matches = [Pick(f"/nodes/{n}", "matched", complete=True) for n in (0, 1, 3)]
    evident = Pick("/nodes/2", "named", {"/address"}, evident=True)
    shown = records_section(state, [evident, *matches], [], 3_000)
    assert all(f"- /nodes/{n} (large parts outlined):" in shown for n in (0, 1, 3))
    assert '- /nodes/2: {"address":"10.1.0.2"' in shown
    # With less room, the matches keep theirs and it takes a fair share.
    shown = records_section(state, [evident, *matches], [], 1_200)
    assert "- /nodes/2 (large parts outlined):" in shown and '"address":"10.1.0.2"' in shown
    assert all(f"- /nodes/{n} " in shown for n in (0, 1, 3))
    # Alone, it is shown whole.
    assert "x" * 40 in records_section(state, [evident], [], 20_000)


def test_the_words_of_a_value_are_no_parts_of_it() -> None:
    assert composed_runs("PAY Sprint 16") == []
    assert "10.0.0.3:9100" in composed_runs('up{job="node", instance="10.0.0.3:9100"}')

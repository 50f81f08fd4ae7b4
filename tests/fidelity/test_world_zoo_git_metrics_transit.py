"""The held-out shapes written on 2026-11-27 hold what the systems they copy hold: a git object
store (``gitstore``), a Prometheus range query's matrix (``prometheus``) and a GTFS feed
converted from CSV (``gtfs``); their answers are computed as those systems compute them, and
their writes change the state as those systems would. (That each shape loads, is deterministic,
makes every kind of call and answers from its state is checked with all the zoo's shapes.)"""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any

import pytest

from benchmarks.zoo.gitstore_api import entry_at, history, resolve, tree_of
from benchmarks.zoo.gitstore_objects import decoded
from benchmarks.zoo.gtfs_feed import clock, runs_on, seconds_of
from benchmarks.zoo.kit import State, ToolError, clone
from benchmarks.zoo.prometheus_promql import evaluate
from tests.fidelity.zoo_calls import run_tool, small_state


def _git_sha(sha: str, item: dict[str, Any]) -> str:
    """The SHA-1 git gives an object, from its fields."""
    if item["type"] == "blob":
        body = decoded(item["content"]).encode()
    elif item["type"] == "tree":
        body = b"".join(
            f"{e['mode'].lstrip('0')} {e['path']}\0".encode() + bytes.fromhex(e["sha"])
            for e in item["tree"]
        )
    else:
        who = item["author"]
        epoch = int(datetime.fromisoformat(who["date"].replace("Z", "+00:00")).timestamp())
        person = f"{who['name']} <{who['email']}> {epoch} +0000"
        lines = [f"tree {item['tree']['sha']}", *(f"parent {p['sha']}" for p in item["parents"])]
        lines += [f"author {person}", f"committer {person}", "", item["message"]]
        body = ("\n".join(lines) + "\n").encode()
    return hashlib.sha1(f"{item['type']} {len(body)}\0".encode() + body).hexdigest()


def test_git_objects_are_keyed_by_the_sha_git_gives_them_and_trees_name_one_component() -> None:
    state = small_state("gitstore")
    objects = state["objects"]
    assert {o["type"] for o in objects.values()} == {"blob", "tree", "commit"}
    assert all(_git_sha(sha, item) == sha for sha, item in objects.items())
    entries = [e for o in objects.values() if o["type"] == "tree" for e in o["tree"]]
    assert all("/" not in e["path"] and e["sha"] in objects for e in entries)
    assert {e["mode"] for e in entries} == {"100644", "040000"}
    blob = next(o for o in objects.values() if o["type"] == "blob")
    assert all(len(line) <= 60 for line in blob["content"].splitlines())  # wrapped as GitHub


def test_a_commit_search_by_path_lists_the_commits_that_changed_it() -> None:
    state = small_state("gitstore")
    head = resolve(state, "main")
    path = sorted(tree_of(state, head))[0]
    found = run_tool("gitstore", state, "list_commits", {"path": path})
    changed = [
        sha
        for sha in history(state, head)
        if entry_at(state, sha, path)
        != (
            entry_at(state, parents[0]["sha"], path)
            if (parents := state["objects"][sha]["parents"])
            else None
        )
    ]
    assert [c["sha"] for c in found] == changed[:30] and changed


def test_writing_a_file_makes_a_blob_trees_and_a_commit_and_moves_the_branch() -> None:
    state = small_state("gitstore")
    head = resolve(state, "main")
    before = tree_of(state, head)
    path = "docs/runbook.md"
    arguments = {"path": path, "content": "# Runbook\n", "message": "Trim the runbook"}
    with pytest.raises(ToolError, match="sha"):  # an update names the blob it replaces
        run_tool("gitstore", clone(state), "create_or_update_file", arguments | {"branch": "main"})
    arguments |= {"branch": "main", "sha": before[path][0]}
    answer = run_tool("gitstore", state, "create_or_update_file", arguments)
    new = resolve(state, "main")
    assert answer["commit"]["sha"] == new != head
    assert state["objects"][new]["parents"] == [{"sha": head}]
    after = tree_of(state, new)
    assert {p: s for p, s in after.items() if p != path} == {
        p: s for p, s in before.items() if p != path
    }
    read = run_tool("gitstore", state, "get_file_contents", {"path": path})
    assert decoded(read["content"]) == "# Runbook\n" and read["sha"] == answer["content"]["sha"]


def _matrix(*series: tuple[dict[str, str], list[list[Any]]]) -> State:
    result = [{"metric": labels, "values": values} for labels, values in series]
    return {"status": "success", "data": {"resultType": "matrix", "result": result}}


LOAD = {"__name__": "node_load1", "instance": "10.0.1.10:9100", "job": "node"}
INFO = {"__name__": "node_uname_info", "instance": "10.0.1.10:9100", "nodename": "ip-10-0-1-10"}


def test_an_instant_query_takes_the_last_sample_of_the_five_minutes_before_it() -> None:
    state = _matrix((LOAD, [[0, "1.5"], [300, "2.25"], [900, "3"]]))
    assert evaluate(state, 'node_load1{job="node"}', 320) == [(LOAD, 2.25)]
    assert evaluate(state, "node_load1", 650) == []  # no sample in (350, 650]
    answer = run_tool(
        "prometheus", state, "query", {"query": "node_load1", "time": "1970-01-01T00:15:00Z"}
    )
    assert answer["data"]["result"] == [{"metric": LOAD, "value": [900, "3"]}]


def test_a_join_drops_the_name_a_filter_keeps_it_and_a_sum_keeps_its_labels() -> None:
    state = _matrix((LOAD, [[0, "2"]]), (INFO, [[0, "1"]]))
    joined = evaluate(state, "node_load1 * on(instance) group_left(nodename) node_uname_info", 0)
    assert joined == [
        ({"instance": LOAD["instance"], "job": "node", "nodename": "ip-10-0-1-10"}, 2.0)
    ]
    assert evaluate(state, "node_load1 > 1.5", 0) == [(LOAD, 2.0)]
    assert evaluate(state, "node_load1 > 2", 0) == []
    assert evaluate(state, "sum by (job) (node_load1)", 0) == [({"job": "node"}, 2.0)]
    assert evaluate(state, "max_over_time(node_load1[1h])", 0) == [
        ({"instance": LOAD["instance"], "job": "node"}, 2.0)
    ]


def test_a_remote_write_appends_samples_in_order_with_milliseconds_as_text() -> None:
    state = _matrix((LOAD, [[300, "2"]]))
    pairs = [{"name": k, "value": v} for k, v in LOAD.items()]
    written = {"labels": pairs, "samples": [{"value": 4.5, "timestamp": "600000"}]}
    assert run_tool("prometheus", state, "remote_write", {"timeseries": [written]}) == ""
    assert state["data"]["result"][0]["values"] == [[300, "2"], [600, "4.5"]]
    with pytest.raises(ToolError, match="out of order"):
        run_tool("prometheus", state, "remote_write", {"timeseries": [written]})


def test_the_metrics_export_holds_label_sets_and_samples_as_unix_times_and_text() -> None:
    state = small_state("prometheus")
    series = state["data"]["result"]
    assert all(isinstance(v, str) for s in series for v in s["metric"].values())
    assert all(isinstance(t, int) and isinstance(v, str) for s in series for t, v in s["values"])
    assert all(
        "nodename" in s["metric"] for s in series if s["metric"]["__name__"] == "node_uname_info"
    )


def test_a_service_runs_on_its_weekdays_less_and_plus_its_dated_exceptions() -> None:
    state = small_state("gtfs")
    # 2025-12-25 is a Thursday: weekday service is cancelled, Sunday service runs.
    assert runs_on(state, "WKDY", "20251224") and not runs_on(state, "WKDY", "20251225")
    assert runs_on(state, "SUN", "20251225") and not runs_on(state, "SUN", "20251224")
    assert not runs_on(state, "WKDY", "20260301")  # after the calendar's end
    run_tool(
        "gtfs",
        state,
        "add_calendar_date",
        {"service_id": "SAT", "date": 20251224, "exception_type": 1},
    )
    assert run_tool("gtfs", state, "service_ids_for_date", {"date": 20251224}) == [
        "SAT",
        "SCHOOL",
        "WKDY",
    ]


def test_the_feed_is_text_and_the_server_answers_numbers_and_times_past_midnight_in_order() -> None:
    state = small_state("gtfs")
    assert all(
        isinstance(v, str) for table in state.values() for row in table for v in row.values()
    )
    stop_time = state["stop_times.txt"][0]
    answer = run_tool(
        "gtfs", state, "get_stop_time", {"trip_id": stop_time["trip_id"], "stop_sequence": 1}
    )
    assert answer["stop_sequence"] == 1 and isinstance(answer["shape_dist_traveled"], float)
    assert seconds_of("25:10:00") > seconds_of("24:59:00") > seconds_of("09:00:00")
    assert clock(seconds_of("25:10:00")) == "25:10:00"
    late = next(
        r
        for r in state["stop_times.txt"]
        if seconds_of(r["departure_time"]) >= 86_400 and r["pickup_type"] == "0"
    )
    trip = next(t for t in state["trips.txt"] if t["trip_id"] == late["trip_id"])
    day = next(
        d for d in ("20251201", "20251206", "20251207") if runs_on(state, trip["service_id"], d)
    )
    departures = run_tool(
        "gtfs",
        state,
        "departures",
        {"stop_id": late["stop_id"], "date": int(day), "start_time": late["departure_time"]},
    )
    times = [seconds_of(d["departure_time"]) for d in departures]
    assert times == sorted(times) and late["trip_id"] in {d["trip_id"] for d in departures}

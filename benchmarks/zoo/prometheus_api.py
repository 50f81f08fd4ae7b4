"""The Prometheus HTTP API of the ``prometheus`` shape, answered from the exported matrix:
instant and range queries (:mod:`benchmarks.zoo.prometheus_promql`), series and label values
by selector, and samples appended through the remote-write receiver."""

from __future__ import annotations

from typing import Any

from benchmarks.zoo.kit import Answer, State, Tool, ToolError, pointer, prop
from benchmarks.zoo.prometheus_promql import evaluate, matchers, meets, seconds, selected
from benchmarks.zoo.prometheus_series import END, number, stamp

RESULT = {
    "type": "object",
    "properties": {
        "status": {"enum": ["success", "error"]},
        "data": {
            "type": "object",
            "properties": {
                "resultType": {"enum": ["matrix", "vector", "scalar", "string"]},
                "result": {"type": "array"},
            },
        },
    },
}
"""A query's answer, as the HTTP API documents it."""


def ok(data: Any) -> dict[str, Any]:
    return {"status": "success", "data": data}


def all_series(state: State) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = state["data"]["result"]
    return found


def query(state: State, args: dict[str, Any]) -> Answer:
    t = seconds(args.get("time", END))
    found = evaluate(state, args["query"], t)
    shown = [{"metric": labels, "value": [stamp(t), number(v)]} for labels, v in found]
    return ok({"resultType": "vector", "result": shown}), []


def query_range(state: State, args: dict[str, Any]) -> Answer:
    step = args["step"]
    every = (
        int(step[:-1]) * {"s": 1, "m": 60, "h": 3600}[step[-1]] if step[-1] in "smh" else int(step)
    )
    start, end = int(seconds(args["start"])), int(seconds(args["end"]))
    if end < start:
        raise ToolError("bad_data: end timestamp must not be before start time")
    rows: dict[str, dict[str, Any]] = {}
    for t in range(start, end + 1, every):
        for labels, value in evaluate(state, args["query"], t):
            row = rows.setdefault(repr(sorted(labels.items())), {"metric": labels, "values": []})
            row["values"].append([t, number(value)])
    return ok({"resultType": "matrix", "result": list(rows.values())}), []


def series(state: State, args: dict[str, Any]) -> Answer:
    low, high = seconds(args.get("start", 0)), seconds(args.get("end", 4e9))
    found = []
    for series in all_series(state):
        times = [sample[0] for sample in series["values"]]
        if not times or times[-1] < low or times[0] > high:
            continue
        if any(meets(series["metric"], matchers(m)) for m in args["match[]"]):
            found.append(series["metric"])
    return ok(found), []


def label_values(state: State, args: dict[str, Any]) -> Answer:
    chosen = args.get("match[]") or ['{__name__=~".+"}']
    values = {
        s["metric"][args["label"]]
        for m in chosen
        for _, s in selected(state, m)
        if args["label"] in s["metric"]
    }
    return ok(sorted(values)), []


def remote_write(state: State, args: dict[str, Any]) -> Answer:
    patch: list[dict[str, Any]] = []
    added = 0
    for written in args["timeseries"]:
        labels = {pair["name"]: pair["value"] for pair in written["labels"]}
        samples = [[int(s["timestamp"]) // 1000, number(s["value"])] for s in written["samples"]]
        for n, series in enumerate(all_series(state)):
            if series["metric"] == labels:
                if series["values"] and samples[0][0] <= series["values"][-1][0]:
                    raise ToolError("out of order sample")
                at = pointer("data", "result", n, "values", "-")
                patch += [{"op": "add", "path": at, "value": s} for s in samples]
                break
        else:
            ordered = {"__name__": labels["__name__"]} | dict(sorted(labels.items()))
            at = pointer("data", "result", len(all_series(state)) + added)
            patch.append({"op": "add", "path": at, "value": {"metric": ordered, "values": samples}})
            added += 1
    return "", patch


def tools() -> list[Tool]:
    """The HTTP API's query endpoints and the remote-write receiver."""
    time = prop("string", "RFC 3339 or Unix seconds; now if left out.")
    match = prop("array", "Series selectors.", items={"type": "string"})
    return [
        Tool(
            "query",
            "Evaluate an instant PromQL query at one time.",
            {"query": prop("string", "PromQL expression."), "time": time},
            query,
            ("query",),
            output=RESULT,
        ),
        Tool(
            "query_range",
            "Evaluate a PromQL query at each step of a time range.",
            {
                "query": prop("string", "PromQL expression."),
                "start": prop("string", "RFC 3339 or Unix seconds."),
                "end": prop("string", "RFC 3339 or Unix seconds."),
                "step": prop("string", "Step, e.g. 300 or 5m."),
            },
            query_range,
            ("query", "start", "end", "step"),
            output=RESULT,
        ),
        Tool(
            "series",
            "Label sets of the series that match any selector.",
            {"match[]": match, "start": time, "end": time},
            series,
            ("match[]",),
        ),
        Tool(
            "label_values",
            "A label's values, over the series that match (all if left out).",
            {"label": prop("string", "Label name, e.g. job."), "match[]": match},
            label_values,
            ("label",),
        ),
        Tool(
            "remote_write",
            "Append samples (the remote-write receiver; labels as name/value pairs, "
            "timestamps in milliseconds).",
            {"timeseries": prop("array", "Series with labels and samples.", items={})},
            remote_write,
            ("timeseries",),
            effect="write",
        ),
    ]

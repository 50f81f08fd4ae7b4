"""``prometheus``: a fleet's metrics as a Prometheus range query exports them: a matrix of
series known only by their label sets, samples as ``[unix, "text"]`` pairs. Tools are the HTTP
API's and take what it takes: PromQL, times as RFC 3339 or Unix seconds, ``match[]`` selectors;
an instant query answers each series' last sample of the 5 minutes before the time asked, at
that time; a range query answers one such sample per step; a host named by its ``nodename`` is
a hop through an info metric to the series of its ``instance``; sums, counts, means and maxima
are over series or over a window; a sample is written through the remote-write receiver (times
in milliseconds, as text, as protobuf's JSON writes an int64) and answers nothing."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

from benchmarks.zoo.kit import Planned, State, Tool, note_tool
from benchmarks.zoo.prometheus_api import all_series, series, tools
from benchmarks.zoo.prometheus_promql import evaluate, selected
from benchmarks.zoo.prometheus_series import END, SERVICES, START, STEP, matrix, number
from benchmarks.zoo.shape import Shape

UNIQUE = ["instance", "mountpoint", "handler", "method", "code"]
"""Labels that, with the metric name, tell one series from another here."""
GAUGES = ["node_load1", "node_memory_MemAvailable_bytes", "node_filesystem_avail_bytes"]
SEARCHED = ["job", "instance", "code", "method", "handler", "mountpoint", "version", "machine"]
SERIES_LIMIT = 20


def rfc3339(t: int) -> str:
    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def selector(labels: dict[str, str], names: list[str]) -> str:
    inside = ", ".join(f'{name}="{labels[name]}"' for name in names if name in labels)
    return f"{labels['__name__']}{{{inside}}}"


def _named(state: State, name: str) -> list[dict[str, Any]]:
    return [s for s in all_series(state) if s["metric"]["__name__"] == name]


class Prometheus(Shape):
    name = "prometheus"
    title = "On-call assistant over Prometheus"
    description = (
        "A production fleet's Prometheus server: node exporters and services, the last six "
        "hours at a 5 minute step. Errors are text starting with 'Error:' and Prometheus's "
        "error type."
    )
    note = ("jot", "text")

    def tools(self) -> list[Tool]:
        return [
            *tools(),
            note_tool("jot", "text", "Jot down a note during the incident (answers nothing)."),
        ]

    def build(self, rng: random.Random, target_bytes: int) -> State:
        return matrix(rng, target_bytes)

    def _a_series(
        self, rng: random.Random, state: State, name: str | None = None
    ) -> dict[str, Any]:
        pool = _named(state, name) if name else all_series(state)
        return rng.choice([s for s in pool if s["values"]])

    def _time(self, rng: random.Random, series: dict[str, Any], exact: bool) -> tuple[str, int]:
        """A time a series has a sample at or just after, as an argument, and that sample's."""
        t = int(rng.choice(series["values"])[0])
        if exact or rng.random() < 0.5:
            return (rfc3339(t) if rng.random() < 0.5 else str(t)), t
        return str(t + rng.randint(1, STEP - 1)), t

    def lookup(self, rng: random.Random, state: State) -> Planned:
        if rng.random() < 0.3:
            info = self._a_series(rng, state, "node_uname_info")
            query = selector(info["metric"], ["nodename"])
            return Planned(
                "lookup", "query", {"query": query, "time": self._time(rng, info, True)[0]}
            )
        series = self._a_series(rng, state)
        names = [n for n in UNIQUE if n in series["metric"]]
        query = selector(series["metric"], names)
        if len(selected(state, query)) > 1:
            query = selector(series["metric"], ["job", *names])
        return Planned(
            "lookup", "query", {"query": query, "time": self._time(rng, series, False)[0]}
        )

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        series = self._a_series(rng, state, rng.choice([*GAUGES, "http_requests_total"]))
        query = selector(series["metric"], UNIQUE)
        t = self._time(rng, series, True)[1]
        step = rng.choice([300, 600, 900])
        start, end = t - step * rng.randint(0, 3), t + step * rng.randint(1, 4)
        args = {"query": query, "start": rfc3339(start), "end": rfc3339(min(end, END))}
        return Planned("nested_lookup", "query_range", args | {"step": f"{step // 60}m"})

    def search(self, rng: random.Random, state: State) -> Planned:
        if rng.random() < 0.4:
            return self._threshold(rng, state)
        labels = self._a_series(rng, state)["metric"]
        usable = [n for n in SEARCHED if n in labels]
        rng.shuffle(usable)
        wanted = [f'__name__="{labels["__name__"]}"']
        for count, name in enumerate(usable[:4], start=1):
            value = labels[name]
            if name in ("instance", "handler") and rng.random() < 0.5:
                wanted.append(f'{name}=~"{value[: max(2, len(value) // 2)]}.*"')
            else:
                wanted.append(f'{name}="{value}"')
            found = series(state, {"match[]": ["{" + ", ".join(wanted) + "}"]})[0]
            if count >= rng.randint(1, 4) and len(found["data"]) <= SERIES_LIMIT:
                break
        return Planned("search", "series", {"match[]": ["{" + ", ".join(wanted) + "}"]})

    def _threshold(self, rng: random.Random, state: State) -> Planned:
        name = rng.choice(GAUGES)
        series = self._a_series(rng, state, name)
        _, t = self._time(rng, series, True)
        inner = name
        if rng.random() < 0.5:
            subnet = series["metric"]["instance"].rsplit(".", 1)[0]
            inner = f'{name}{{instance=~"{subnet}.*"}}'
        values = sorted({v for _, v in evaluate(state, inner, t)})
        op = rng.choice([">", "<"])
        keep = rng.randint(1, SERIES_LIMIT)
        if len(values) <= keep:
            bound = values[0] - 1 if op == ">" else values[-1] + 1
        else:
            bound = values[-keep - 1] if op == ">" else values[keep]
        return Planned(
            "search", "query", {"query": f"{inner} {op} {number(bound)}", "time": str(t)}
        )

    def join(self, rng: random.Random, state: State) -> Planned:
        if rng.random() < 0.6:
            info = self._a_series(rng, state, "node_uname_info")["metric"]
            metric = rng.choice(GAUGES)
            query = f"{metric} * on(instance) group_left(nodename) "
            query += selector(info, ["nodename"])
        else:
            build = self._a_series(rng, state, "app_build_info")["metric"]
            metric = rng.choice(["process_resident_memory_bytes", "up"])
            query = f'{metric}{{job="{build["job"]}"}} * on(instance) group_left(version) '
            query += selector(build, ["version", "job"])
        t = rng.choice(self._a_series(rng, state, "up")["values"])[0]
        return Planned("join", "query", {"query": query, "time": rfc3339(t)})

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        t = rng.choice(range(START + 3_600, END + 1, STEP))
        choice = rng.random()
        if choice < 0.2:
            label = rng.choice(["job", "version", "release", "machine", "handler"])
            args: dict[str, Any] = {"label": label}
            if rng.random() < 0.5:
                args["match[]"] = [f'{{job="{rng.choice(list(SERVICES))}"}}']
            return Planned("aggregate", "label_values", args)
        if choice < 0.5:
            job = rng.choice(list(SERVICES))
            by = rng.choice(["code", "handler", "method", "code, method"])
            op = rng.choice(["sum", "count", "max"])
            query = f'{op} by ({by}) (http_requests_total{{job="{job}"}})'
        elif choice < 0.75:
            series = self._a_series(rng, state, rng.choice(GAUGES))
            window = rng.choice(["30m", "1h", "2h"])
            op = rng.choice(["max", "min", "avg"])
            query = f"{op}_over_time({selector(series['metric'], UNIQUE)}[{window}])"
            t = int(series["values"][-1][0])
        else:
            op = rng.choice(["avg", "max", "min", "count"])
            by = rng.choice(["", " by (job)"])
            query = (
                f"{op}{by} ({rng.choice(['node_load1', 'up', 'process_resident_memory_bytes'])})"
            )
        return Planned("aggregate", "query", {"query": query, "time": str(t)})

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        series = self._a_series(
            rng, state, rng.choice(["node_load1", "up", "node_memory_MemAvailable_bytes"])
        )
        labels = series["metric"]
        t = max(END, int(series["values"][-1][0])) + STEP
        value = 1 if labels["__name__"] == "up" else round(rng.uniform(0.1, 7.9), 2)
        if labels["__name__"] == "node_memory_MemAvailable_bytes":
            value = rng.randint(400_000_000, 15_000_000_000)
        pairs = [{"name": k, "value": v} for k, v in labels.items()]
        written = {"labels": pairs, "samples": [{"value": value, "timestamp": str(t * 1000)}]}
        read = {"query": selector(labels, UNIQUE), "time": rfc3339(t)}
        return Planned("write", "remote_write", {"timeseries": [written]}), Planned(
            "read_after_write", "query", read
        )

    def no_match(self, rng: random.Random, state: State) -> Planned:
        if rng.random() < 0.5:
            return Planned(
                "empty",
                "series",
                {"match[]": [f'up{{instance="10.9.{rng.randint(0, 9)}.1:8080"}}']},
            )
        return Planned("empty", "query", {"query": "node_load1 > 64", "time": str(END)})

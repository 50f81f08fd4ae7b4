"""The part of PromQL the ``prometheus`` shape's tools evaluate, as Prometheus does: a series
selector (``name{label="v", label=~"re", label!="v"}``), ``<agg>_over_time(sel[1h])``, a
filter by comparison (``expr > 6.5``, which keeps the metric name), a one-to-one match with an
info metric (``expr * on(instance) group_left(nodename) info{...}``, which drops it) and
``sum|avg|min|max|count [by (labels)] (expr)``; each evaluated at an instant, a selector taking
each series' last sample of the 5 minutes up to it."""

from __future__ import annotations

import re
import statistics
from bisect import bisect_right
from collections.abc import Callable
from datetime import datetime
from typing import Any

from benchmarks.zoo.kit import State, ToolError
from benchmarks.zoo.prometheus_series import LOOKBACK

Vector = list[tuple[dict[str, str], float]]
Matcher = tuple[str, str, str]
SELECTOR = re.compile(r"^([a-zA-Z_:][\w:]*)?\s*(?:\{(.*)\})?$")
MATCHER = re.compile(r'\s*([a-zA-Z_]\w*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"\s*(?:,|$)')
AGGREGATE = re.compile(r"^(sum|avg|min|max|count)\s*(?:by\s*\(([\w,\s]*)\))?\s*\((.*)\)$")
OVER_TIME = re.compile(r"^(max|min|avg|sum|count)_over_time\((.*)\[(\d+)([smhd])\]\)$")
COMPARISON = re.compile(r"^(.*?)\s*(==|!=|<=|>=|<|>)\s*([-+]?[0-9.]+(?:e[-+]?\d+)?)$")
JOIN = re.compile(r"^(.*?)\s*\*\s*on\s*\((\w+)\)\s*group_left\s*\(([\w,\s]*)\)\s*(.*)$")
SECONDS = {"s": 1, "m": 60, "h": 3_600, "d": 86_400}
SUMMARIES: dict[str, Callable[[list[float]], float]] = {
    "sum": sum,
    "avg": statistics.fmean,
    "min": min,
    "max": max,
    "count": len,
}
TESTS: dict[str, Callable[[float, float], bool]] = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<=": lambda a, b: a <= b,
    ">=": lambda a, b: a >= b,
    "<": lambda a, b: a < b,
    ">": lambda a, b: a > b,
}


def seconds(text: str | float | int) -> float:
    """A time argument: Unix seconds (as text or a number) or RFC 3339."""
    if isinstance(text, int | float) or re.fullmatch(r"[0-9.]+", text):
        return float(text)
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def matchers(selector: str) -> list[Matcher]:
    found = SELECTOR.match(selector.strip())
    if not found or not (found.group(1) or found.group(2)):
        raise ToolError(f'bad_data: invalid parameter "query": parse error in "{selector}"')
    wanted = [("__name__", "=", found.group(1))] if found.group(1) else []
    inside = found.group(2) or ""
    parsed = MATCHER.findall(inside)
    if "".join(MATCHER.sub("", inside).split()):
        raise ToolError(f'bad_data: invalid parameter "query": parse error in "{selector}"')
    unquoted = [(label, op, value.replace("\\\\", "\\")) for label, op, value in parsed]
    return wanted + unquoted


def meets(labels: dict[str, str], wanted: list[Matcher]) -> bool:
    for label, op, value in wanted:
        actual = labels.get(label, "")
        if (op == "=" and actual != value) or (op == "!=" and actual == value):
            return False
        if op in ("=~", "!~") and bool(re.fullmatch(value, actual)) != (op == "=~"):
            return False
    return True


def selected(state: State, selector: str) -> list[tuple[int, dict[str, Any]]]:
    """The series a selector picks: their positions in the state, and them."""
    wanted = matchers(selector)
    result = state["data"]["result"]
    return [(n, series) for n, series in enumerate(result) if meets(series["metric"], wanted)]


def _window(series: dict[str, Any], low: float, high: float) -> list[float]:
    """The values of a series' samples in ``(low, high]``."""
    values = series["values"]
    times = [sample[0] for sample in values]
    start, end = bisect_right(times, low), bisect_right(times, high)
    return [float(sample[1]) for sample in values[start:end]]


def evaluate(state: State, query: str, t: float) -> Vector:
    """The instant vector of ``query`` at ``t``."""
    query = query.strip()
    if found := AGGREGATE.match(query):
        op, by, inner = found.groups()
        keep = [label.strip() for label in (by or "").split(",") if label.strip()]
        groups: dict[tuple[str, ...], tuple[dict[str, str], list[float]]] = {}
        for labels, value in evaluate(state, inner, t):
            key = tuple(labels.get(label, "") for label in keep)
            kept = {label: labels[label] for label in keep if label in labels}
            groups.setdefault(key, (kept, []))[1].append(value)
        return [(labels, float(SUMMARIES[op](values))) for labels, values in groups.values()]
    if found := JOIN.match(query):
        left, on, extra, right = found.groups()
        infos = evaluate(state, right, t)
        joined: Vector = []
        for labels, value in evaluate(state, left, t):
            partners = [(i, v) for i, v in infos if i.get(on) == labels.get(on)]
            if len(partners) > 1:
                raise ToolError("execution: found duplicate series for the match group")
            if partners:
                copied = {k: v for k, v in labels.items() if k != "__name__"}
                for label in (e.strip() for e in extra.split(",") if e.strip()):
                    copied[label] = partners[0][0].get(label, "")
                joined.append((copied, value * partners[0][1]))
        return joined
    if found := COMPARISON.match(query):
        inner, op, bound = found.groups()
        return [(k, v) for k, v in evaluate(state, inner, t) if TESTS[op](v, float(bound))]
    if found := OVER_TIME.match(query):
        op, inner, amount, unit = found.groups()
        low = t - int(amount) * SECONDS[unit]
        over: Vector = []
        for _, series in selected(state, inner):
            if values := _window(series, low, t):
                labels = {k: v for k, v in series["metric"].items() if k != "__name__"}
                over.append((labels, float(SUMMARIES[op](values))))
        return over
    instant: Vector = []
    for _, series in selected(state, query):
        if values := _window(series, t - LOOKBACK, t):
            instant.append((dict(series["metric"]), values[-1]))
    return instant

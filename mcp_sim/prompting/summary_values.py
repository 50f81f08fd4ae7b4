"""A group's statistics as the ``name: value`` pairs a summary shows (see
:mod:`mcp_sim.prompting.summary_names` for the names): the count, then for the fields the
tool's words name (else the group's numbers, dates and enumerations) totals, ranges, means and
distinct values with their counts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from mcp_sim.prompting.summary_names import (
    count_names,
    is_time,
    join,
    plural,
    squeezed,
    stat_names,
    style_of,
    words,
)
from mcp_sim.prompting.summary_stats import MOST_DISTINCT, FieldStats, GroupStats
from mcp_sim.spec.world import ToolSpec

MOST_NUMBERS = 4
MOST_TEXTS = 3
_COUNTED = re.compile(r"how many (\w+)|number of (\w+)|(\w+) count\b", re.IGNORECASE)


@dataclass(frozen=True)
class Stat:
    names: list[str]
    """Best first: a tool's output schema's name, else the common names."""
    value: Any
    fallback: tuple[str, ...] = ()
    """Names it takes only where no other value has them."""


def _tidy(value: float) -> float | int:
    return int(value) if float(value).is_integer() else round(value, 2)


def _is_identifier(stats: FieldStats) -> bool:
    last = words(stats.path[-1])[-1].lower()
    return last in ("id", "ids", "uuid") or stats.path[-1].lower().endswith("id")


def _targets(group: GroupStats, wanted: set[str], constrained: set[str]) -> list[FieldStats]:
    """The fields to sum up: those the tool's words name first, then the others; numbers,
    dates and enumerations (strings of few distinct values), no identifiers."""
    usable = [
        f
        for f in group.fields.values()
        if f.path[-1] not in constrained
        and not _is_identifier(f)
        and f.holders * 2 >= max(1, group.count) // 4
    ]

    def named(f: FieldStats) -> bool:
        return bool({w.lower().rstrip("s") for p in f.path for w in words(p)} & wanted)

    usable.sort(key=lambda f: not named(f))
    numbers = [f for f in usable if f.numbers and not f.texts][:MOST_NUMBERS]
    dates = [f for f in usable if f.dates][:2]
    texts = [
        f
        for f in usable
        if f.texts
        and not f.dates
        and len(set(f.texts)) <= MOST_DISTINCT
        and (len(set(f.texts)) < len(f.texts) or f.holders <= 1 or (named(f) and f.owners))
    ][:MOST_TEXTS]
    return [*numbers, *dates, *texts]


def _field_names(targets: list[FieldStats]) -> dict[tuple[str, ...], str]:
    """Each field's name: its last segment, or its last two where two fields share one."""
    last = [f.path[-1] for f in targets]
    return {
        f.path: f.path[-1] if last.count(f.path[-1]) == 1 else "_".join(f.path[-2:])
        for f in targets
    }


def counted_phrases(tool: ToolSpec) -> list[str]:
    """The words a tool counts: a name part with ``count`` in it (``headcount``), and what its
    description counts ("how many articles", "enrolled count")."""
    phrases = [w for w in words(tool.name) if "count" in w.lower() and w.lower() != "count"]
    for match in _COUNTED.finditer(tool.description.split(". ")[0]):
        phrases += [g.lower() for g in match.groups() if g]
    return phrases


def group_values(
    group: GroupStats, tool: ToolSpec, wanted: set[str], constrained: set[str]
) -> list[Stat]:
    """The group's statistics, each with its names."""
    style = style_of(group.keys)
    stats = [Stat(count_names(group.name, style, counted_phrases(tool)), group.count)]
    targets = _targets(group, wanted, constrained)
    names = _field_names(targets)
    ops: list[tuple[str, FieldStats]] = []
    for f in targets:
        if f.numbers:
            ops += [(op, f) for op in ("sum", "min", "max", "mean")]
        elif f.dates:
            ops += [("min", f), ("max", f)]
    timed = [(o, f) for o, f in ops if f.dates or is_time(names[f.path])]
    for op, f in ops:
        name = names[f.path]
        time = (op, f) in timed
        # A bare "highest" names the one field summed up so; a bare "latest" the one date.
        alike = timed if time else [item for item in ops if item not in timed]
        alone = sum(1 for o, _ in alike if o == op) == 1
        primary, fallback = stat_names(op, name, style, alone=alone, time=time)
        stats.append(Stat(primary, _value(op, f), tuple(fallback)))
    for f in targets:
        name = names[f.path]
        if f.texts and not f.dates and len(f.owners) == len(f.texts) > 1:
            # Each value is one record's (a name): the record's key says which.
            stats.append(Stat([name, plural(name)], f.owners))
        elif f.texts and not f.dates:
            stats.append(Stat([plural(name), name], f.distinct()))
            stats.append(Stat([join([name, "counts"], style)], f.counts()))
    return _schema_named(stats, tool)


def _value(op: str, f: FieldStats) -> Any:
    if f.dates:
        ordered = sorted(f.texts)
        return ordered[0] if op == "min" else ordered[-1]
    if op == "sum":
        return _tidy(sum(f.numbers))
    if op == "mean":
        return round(sum(f.numbers) / len(f.numbers), 2)
    return _tidy(min(f.numbers) if op == "min" else max(f.numbers))


def _schema_named(stats: list[Stat], tool: ToolSpec) -> list[Stat]:
    """``stats`` with the names the tool's output schema gives them, where it names them."""
    properties = (tool.output_schema or {}).get("properties")
    if not isinstance(properties, dict):
        return stats
    by_squeezed = {squeezed(str(p)): str(p) for p in properties}
    named: list[Stat] = []
    for stat in stats:
        found = next((by_squeezed[s] for s in map(squeezed, stat.names) if s in by_squeezed), None)
        named.append(Stat([found], stat.value) if found is not None else stat)
    return named


def flat_values(stats: list[Stat], most_names: int) -> dict[str, Any]:
    """The statistics as one ``name: value`` object, each under its first ``most_names``
    names; a name two values would share goes to the first."""
    flat: dict[str, Any] = {}
    for stat in stats:
        for name in stat.names[:most_names]:
            flat.setdefault(name, stat.value)
    for stat in stats if most_names > 1 else []:
        for name in stat.fallback[:most_names]:
            flat.setdefault(name, stat.value)
    return flat

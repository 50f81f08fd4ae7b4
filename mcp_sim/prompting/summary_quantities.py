"""Totals of quantities written with units, in the unit the answer asks for.

A node's allocation answers ``cpu_requests_millicores`` and ``memory_requests_mib`` from pods
whose containers request ``"250m"`` and ``"1536Mi"``; a shipment's ``total_weight_kg`` sums
its parcels' ``"1.2 kg"`` and ``"800 g"``. No field holds those totals and no rule sums text,
so where a tool's output schema names a number ending in a unit (see
:func:`mcp_sim.runtime.quantities.unit_of`), its value is computed: the field of quantities of
that unit's dimension that its other words name (``cpu requests`` ↔
``spec/containers/resources/requests/cpu``) read by magnitude (see
:func:`mcp_sim.runtime.quantities.quantities`), summed (or its least, greatest or mean, where
the name says so) and written in that unit, under the property's own name.

A description listing some of an enumeration's values ("what a node's active (Pending or
Running) pods request") narrows the records summed to those holding them:
:func:`described_values`.
"""

from __future__ import annotations

import re
from itertools import pairwise
from typing import Any

from mcp_sim.prompting.field_names import name_score, plural_words, tokens
from mcp_sim.prompting.summary_group import Group
from mcp_sim.prompting.summary_names import Stat
from mcp_sim.prompting.summary_stats import (
    MOST_DISTINCT,
    FieldStats,
    GroupStats,
    group_stats,
    tidy,
)
from mcp_sim.runtime.quantities import Unit, quantities, unit_of, without_unit
from mcp_sim.spec.world import ToolSpec

_NUMERIC = frozenset(["number", "integer"])
_OPS = {
    "total": "sum",
    "sum": "sum",
    "max": "max",
    "maximum": "max",
    "largest": "max",
    "min": "min",
    "minimum": "min",
    "smallest": "min",
    "avg": "mean",
    "average": "mean",
    "mean": "mean",
}
_WORD = re.compile(r"[\w-]+")
_LISTS = re.compile(r"\(([^)]*)\)|[\w-]+(?:\s*,\s*[\w-]+)*\s*,?\s*(?:\bor\b|/)\s*[\w-]+")
"""Words a description lists as alternatives: in parentheses, or joined by ``or``."""
_LISTED = re.compile(r"(?:,|\bor|\band|/)\s*$")


def unit_properties(tool: ToolSpec) -> dict[str, Unit]:
    """The numeric properties of ``tool``'s output schema whose names end in a unit."""
    schema = tool.output_schema or {}
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return {}
    found: dict[str, Unit] = {}
    for name, spec in properties.items():
        unit = unit_of(name)
        if unit is not None and isinstance(spec, dict) and spec.get("type") in _NUMERIC:
            found[name] = unit
    return found


def answers_in_units(tool: ToolSpec | None) -> bool:
    """Whether ``tool`` answers with numbers only, some in a unit (``pods``,
    ``cpu_requests_millicores``): a summary no record holds, whatever its name says."""
    if tool is None or tool.effect == "write" or not unit_properties(tool):
        return False
    properties = (tool.output_schema or {}).get("properties", {})
    specs = list(properties.values())
    return len(specs) >= 2 and all(isinstance(s, dict) and s.get("type") in _NUMERIC for s in specs)


def quantity_stats(tool: ToolSpec, group: GroupStats) -> list[Stat]:
    """Each unit-named property's value over the group (see the module)."""
    stats: list[Stat] = []
    read: dict[tuple[str, ...], list[float]] = {}
    for name, unit in unit_properties(tool).items():
        said = [w.lower() for w in without_unit(name)]
        op = next((_OPS[w] for w in said if w in _OPS), "sum")
        phrase = tuple(t for w in said if w not in _OPS for t in tokens(w))
        best: tuple[float, FieldStats] | None = None
        for f in group.fields.values():
            score = name_score(phrase, tuple(tokens(p) for p in f.path)) if phrase else 0.0
            if score <= 0 or (best is not None and score <= best[0]):
                continue
            if f.path not in read:
                found = quantities(f.texts) if f.texts and not f.numbers else None
                read[f.path] = (
                    [q.magnitude for q in found]
                    # A Kubernetes quantity (``"1536Mi"``) is a plain number scaled: the
                    # unit asked for says what it counts.
                    if found is not None and found[0].dimension in ("", unit.dimension)
                    else []
                )
            if read[f.path]:
                best = (score, f)
        if best is not None:
            stats.append(Stat([name], _apply(op, read[best[1].path], unit), asked=True))
    return stats + kind_counts(tool, group)


def kind_counts(tool: ToolSpec, group: GroupStats) -> list[Stat]:
    """The output schema's whole numbers named by the plural of the kind every record of the
    group is (``pods`` over records of ``"kind": "Pod"``; records of several kinds in one
    array tell theirs by such a field): their count."""
    properties = (tool.output_schema or {}).get("properties", {})
    kinds = {
        t.lower()
        for f in group.fields.values()
        if f.single and f.holders == group.count and len(set(f.texts)) == 1
        for t in f.texts[:1]
    }
    return [
        Stat([name], group.count, asked=True)
        for name, spec in properties.items()
        if isinstance(spec, dict)
        and spec.get("type") == "integer"
        and name.lower().endswith("s")
        and name.lower()[:-1] in kinds
    ]


def _apply(op: str, magnitudes: list[float], unit: Unit) -> float | int:
    scaled = [m / unit.size for m in magnitudes]
    if op == "min":
        return tidy(min(scaled))
    if op == "max":
        return tidy(max(scaled))
    if op == "mean":
        return tidy(sum(scaled) / len(scaled))
    # Sums of binary units (``"1536Mi"``) stay exact; a float's last digits are noise.
    return tidy(round(sum(scaled), 6))


def narrowed_group(
    tool: ToolSpec,
    group: Group,
    stats: GroupStats,
    kinds: frozenset[str],
    asked: frozenset[str],
) -> tuple[Group, GroupStats]:
    """``group`` and its statistics narrowed to the records its description names by a value
    (see :func:`described_values`), or as they are."""
    found = described_values(tool, stats, len(group.records))
    found = found or value_before_noun(tool, stats, len(group.records), group.scope)
    if found is None:
        return group, stats
    path, named = found
    held = [_at(r, path) in named for r in group.records]
    keys = [k for k, h in zip(group.keys, held, strict=True) if h] if group.keys else None
    records = [r for r, h in zip(group.records, held, strict=True) if h]
    scope = f"{group.scope}, those whose {'/'.join(path)} is {' or '.join(sorted(named))}"
    narrowed = Group(group.name, scope, records, keys, group.outer, group.id_field, group.listed)
    return narrowed, group_stats(group.name, records, keys, kinds, asked)


def described_values(
    tool: ToolSpec, stats: GroupStats, count: int
) -> tuple[tuple[str, ...], set[str]] | None:
    """The enumeration field (one value in each of the ``count`` records) some but not all
    of whose values the first sentence of ``tool``'s description lists as written (in
    parentheses, or joined by ``or``: ``(Pending or Running)``, ``Stored or Lost``), with
    those values; ``None`` where it lists none. A value written alone is no list: a noun
    that a field happens to hold (a folder's ``kind: "folder"``) narrows nothing."""
    first = tool.description.split(". ")[0]
    lists = (_WORD.findall(m.group(0)) for m in _LISTS.finditer(first))
    # A list naming a statistic ("servers (count, running, types)") lists what is answered.
    listed = {w for said in lists if not {*_OPS, "count"} & set(said) for w in said}
    for f in stats.fields.values():
        if not f.single or f.holders < count or not f.texts:
            continue
        values = set(f.texts)
        named = {v for v in values if len(v) >= 3 and v in listed}
        if named and named != values and len(values) <= MOST_DISTINCT:
            return f.path, named
    return None


def value_before_noun(
    tool: ToolSpec, stats: GroupStats, count: int, scope: str
) -> tuple[tuple[str, ...], set[str]] | None:
    """The enumeration field (one value in each of the ``count`` records, each value held by
    several) one of whose values the description's first sentence writes just before the
    records' own noun, as a kind of them: "Succeeded charges of a month" (``status`` =
    ``succeeded`` of the ``/charges`` a search found), "open tickets"; ``None`` where none."""
    first = tool.description.split(". ")[0]
    said = list(_WORD.finditer(first))
    nouns = {t for word in _WORD.findall(scope) for t in tokens(word)}
    # The last of a list of values ("Stored, Shipped or Lost crates") is no kind alone.
    before = {
        w.group(0).lower()
        for w, noun in pairwise(said)
        if plural_words(noun.group(0)) & nouns and not _LISTED.search(first[: w.start()])
    }
    for f in stats.fields.values():
        if not f.single or f.holders < count or not f.texts:
            continue
        values = set(f.texts)
        named = {v for v in values if len(v) >= 3 and v.lower() in before}
        if named and named != values and 2 * len(values) <= min(len(f.texts), 2 * MOST_DISTINCT):
            return f.path, named
    return None


def _at(record: Any, path: tuple[str, ...]) -> Any:
    for part in path:
        if not isinstance(record, dict):
            return None
        record = record.get(part)
    return record

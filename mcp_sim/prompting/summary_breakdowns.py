"""Breakdowns a tool asks for: its records counted per value of a field, without any query
language to say so.

"Issues per status", "tracks per release decade and album type", "bytes of code per language",
"count and bytes per storage class and per next-level folder": a report's description, its
name (``issues_by_status``), an argument that names the field to group by (``group_by:
"status"``, ``property: "Tier"``) or its output schema (a ``by_status`` property) say which
field splits the records. The answer then holds, per value, how many records hold it
(``"In Progress": 4``), and where the tool also asks for totals (``bytes``), each value's
total beside its count. No record holds those numbers, and no model counts a thousand records
in a view: the summary shows them.

What a phrase names is read off the records' own structure:

- a field the words name (``status`` ↔ ``status_name``), of few values that repeat;
- a period of a date field (``decade``, ``year``, ``month``, ``day``, ``hour``): the dates cut
  to it (``1990s``, ``2024-03``);
- a folder (``folder``, ``directory``, ``prefix``): the next level of a path-like field below
  the prefix the call gives (``logs/`` → ``logs/api/``), as a listing's common prefixes are,
  under the argument's own name (``{"Prefix": "logs/api/", "count": 12}``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from mcp_sim.prompting.split_phrases import measured, split_phrases
from mcp_sim.prompting.summary_asked import asked, fits, resolve
from mcp_sim.prompting.summary_names import Stat, join, spelled, style_of
from mcp_sim.prompting.summary_stats import (
    MOST_DISTINCT,
    MOST_RECORDS,
    FieldStats,
    GroupStats,
    is_identifier,
    is_map,
    tidy,
)
from mcp_sim.runtime.quantities import unit_of
from mcp_sim.spec.world import ToolSpec

PERIODS: dict[str, int] = {"decade": 3, "year": 4, "month": 7, "day": 10, "date": 10, "hour": 13}
"""Period words and how many characters of an ISO date name one (a decade: ``199`` + ``0s``)."""
_FOLDERS = frozenset(["folder", "directory", "dir", "prefix", "subfolder", "path"])
_MOST_VALUES = 40
"""More distinct values than this are no breakdown an answer lists."""
_YEAR = re.compile(r"\d{4}(?:-|$)")
"""A date, or a year alone (a release's ``1973`` beside others' ``1981-06-03``)."""
_MOST_CODES = 12
"""Distinct whole numbers a field of codes holds at most."""
_NAMED = 0.5
"""How well a phrase must fit a field's name to name it."""
_NAMES = frozenset(["name", "label", "title", "value", "displayname", "code", "key"])
"""The fields of an object that name it."""
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


@dataclass(frozen=True)
class Split:
    """What a breakdown splits the records by."""

    phrase: tuple[str, ...]
    """The words naming it, as written."""
    field: FieldStats
    period: int = 0
    """For a date field: the characters of a date that name the period (0: the value)."""
    below: str | None = None
    """For a path-like field: the prefix whose next level names a folder."""
    argument: str = ""
    """The argument holding that prefix: the name a folder goes under."""


def resolve_splits(
    phrases: list[tuple[str, ...]],
    group: GroupStats,
    arguments: dict[str, Any],
) -> list[Split]:
    """The split each phrase names among the group's fields; phrases naming none left out."""
    splits: list[Split] = []
    for phrase in phrases:
        split = _period(phrase, group) or _folder(phrase, group, arguments)
        split = split or _field(phrase, group)
        if split is not None and all(s.field.path != split.field.path for s in splits):
            splits.append(split)
    return splits


def _field(phrase: tuple[str, ...], group: GroupStats) -> Split | None:
    """The field of few repeating values (texts, or codes in whole numbers) the phrase names
    best; of an object the phrase names (an issue's ``status``), its name rather than its
    id or its icon's address."""
    ranked: list[tuple[float, bool, bool, FieldStats]] = []
    for f in group.fields.values():
        # A reference repeats too ("trips per route": ``route_id``; ``direction_id``).
        if f.dates or not _repeats(f):
            continue
        named = f.path[-1].lower() in _NAMES and len(f.path) > 1
        # An object's name stands for it: the phrase names the object (``status/name``).
        owner = fits(phrase, FieldStats(f.path[:-1])) if named else 0.0
        fit = max(fits(phrase, f), _inside(phrase, f), owner)
        if fit >= _NAMED:
            ranked.append((fit, not is_identifier(f), named, f))
    if not ranked:
        return None
    best = max(ranked, key=lambda r: r[:3])
    return Split(phrase, best[3])


def _inside(phrase: tuple[str, ...], f: FieldStats) -> float:
    """A fit for a phrase's last word closing a field's one-word name ("stage":
    ``dealstage``), as services run a kind's words together."""
    last, name = phrase[-1].lower(), f.path[-1].lower()
    return _NAMED if len(last) >= 4 and name.endswith(last) else 0.0


def _repeats(f: FieldStats) -> bool:
    """Whether a field's values are few and repeat: an enumeration's, or codes (a
    direction's ``0`` and ``1``)."""
    if f.texts and not f.numbers:
        distinct = len(set(f.texts))
        return distinct <= min(MOST_DISTINCT, _MOST_VALUES) and distinct < len(f.texts)
    if f.numbers and not f.texts and all(n.is_integer() for n in f.numbers):
        return 2 * len(set(f.numbers)) <= min(len(f.numbers), 2 * _MOST_CODES)
    return False


def _period(phrase: tuple[str, ...], group: GroupStats) -> Split | None:
    """A period of a date field: the one the phrase's other words name, else the date most
    records hold."""
    said = [w.lower() for w in phrase]
    cut = next((PERIODS[w.rstrip("s")] for w in said if w.rstrip("s") in PERIODS), 0)
    if not cut:
        return None
    rest = tuple(w for w in phrase if w.lower().rstrip("s") not in PERIODS)
    dates = [f for f in group.fields.values() if f.texts and all(map(_YEAR.match, f.texts[:50]))]
    if not dates:
        return None
    dates.sort(key=lambda f: (-(fits(rest, f) if rest else 0), -f.holders))
    return Split(phrase, dates[0], period=cut)


def _folder(phrase: tuple[str, ...], group: GroupStats, arguments: dict[str, Any]) -> Split | None:
    """The next level of a path-like field below the prefix an argument gives."""
    if not {w.lower() for w in phrase} & _FOLDERS:
        return None
    paths = [
        f
        for f in group.fields.values()
        if f.texts and f.single and sum("/" in t for t in f.texts[:50]) * 2 > len(f.texts[:50])
    ]
    if not paths:
        return None
    f = max(paths, key=lambda p: p.holders)
    sample = f.texts[:50]
    given = [
        (name, value)
        for name, value in arguments.items()
        if isinstance(value, str) and all(t.startswith(value) for t in sample)
    ]
    name, below = max(given, key=lambda g: len(g[1])) if given else ("prefix", "")
    return Split(phrase, f, below=below, argument=name)


def _number(value: Any) -> float:
    """A value to total: a number, or one written as text (``"82500.00"``); else 0."""
    if isinstance(value, bool):
        return 0.0
    if isinstance(value, int | float):
        return float(value)
    return float(value) if isinstance(value, str) and _NUMBER.fullmatch(value) else 0.0


def _text(value: Any) -> str:
    """A value as a part's name (a code ``1.0`` read as a number: ``1``)."""
    return str(tidy(value)) if isinstance(value, int | float) else str(value)


def _label(split: Split, value: str) -> str | None:
    """The name of the part a value falls in: its period, its folder, or itself."""
    if split.period == 3:
        return value[:3] + "0s" if len(value) >= 4 and value[:4].isdigit() else None
    if split.period:
        return value[: split.period] if len(value) >= split.period else None
    if split.below is not None:
        if not value.startswith(split.below):
            return None
        rest = value[len(split.below) :]
        return split.below + rest.split("/")[0] + "/" if "/" in rest else None
    return value


def values_at(value: Any, path: tuple[str, ...]) -> Iterator[Any]:
    """The scalars at a field's path in a record, maps keyed by data and lists passed
    through as :mod:`mcp_sim.prompting.summary_stats` reads them."""
    if isinstance(value, list):
        for item in value:
            yield from values_at(item, path)
    elif isinstance(value, dict):
        if is_map(value):
            for item in value.values():
                yield from values_at(item, path)
        elif path and path[0] in value:
            yield from values_at(value[path[0]], path[1:])
    elif not path and value is not None:
        yield value


def summed_fields(tool: ToolSpec, group: GroupStats, constrained: set[str]) -> list[FieldStats]:
    """The fields whose totals the tool asks for: those its words total ("total duration"),
    else, where it asks for a measure by its unit alone ("count and bytes"), the one number
    field of the records' own."""
    wanted = asked(tool)
    chosen = resolve(wanted, group, constrained)
    summed = [chosen[a] for a in wanted if a.op == "sum" and a in chosen]
    # Amounts a service writes as text (``"amount": "82500.00"``), where the words name them.
    summed += [
        f
        for a in wanted
        if a.op == "sum" and a not in chosen
        for f in group.fields.values()
        if f.texts and all(map(_NUMBER.fullmatch, f.texts[:50])) and fits(a.phrase, f) >= _NAMED
    ]
    if summed:
        return summed
    units = [a for a in wanted if a.bare and unit_of(join(["total", *a.phrase], "snake"))]
    own = [
        f
        for f in group.fields.values()
        if f.single and f.numbers and not f.texts and not is_identifier(f)
    ]
    return own if units and len(own) == 1 else []


def breakdown_stats(
    tool: ToolSpec,
    arguments: dict[str, Any],
    records: list[Any],
    group: GroupStats,
    constrained: set[str],
) -> list[Stat]:
    """Per split the tool asks for, the records' count per value (``by_status``), and where
    it asks for totals, each value's count and totals."""
    splits = resolve_splits(split_phrases(tool, arguments), group, arguments)
    if not splits:
        return []
    summed = summed_fields(tool, group, constrained)
    splitting = measured(tool)
    style = style_of([*group.keys, *(part for path in group.fields for part in path)])
    stats: list[Stat] = []
    for split in splits:
        # Totals per part where what the phrase splits is a measure ("bytes per language"),
        # counts alone where it is the records ("tracks per decade").
        said = splitting.get(split.phrase)
        totalled = [f for f in summed if said is None or _measures(said, f)]
        parts = _parts(split, records[:MOST_RECORDS], totalled)
        if not parts or len(parts) > _MOST_VALUES:
            continue
        stats += _stats(split, parts, totalled, style)
    return stats


def _measures(said: set[str], f: FieldStats) -> bool:
    """Whether the words ``said`` name field ``f``'s measure: by its name, or by a unit."""
    return fits(tuple(said), f) >= _NAMED or any(unit_of(join(["n", w], "snake")) for w in said)


def _parts(
    split: Split, records: list[Any], summed: list[FieldStats]
) -> dict[str, tuple[int, list[float]]]:
    """Each part's count of records and totals of the ``summed`` fields, in value order."""
    parts: dict[str, tuple[int, list[float]]] = {}
    for record in records:
        labels = {
            label
            for v in values_at(record, split.field.path)
            if (label := _label(split, _text(v))) is not None
        }
        for label in labels:
            count, totals = parts.get(label, (0, [0.0] * len(summed)))
            for at, f in enumerate(summed):
                totals[at] += sum(_number(n) for n in values_at(record, f.path))
            parts[label] = (count + 1, totals)
    return dict(sorted(parts.items()))


def _stats(
    split: Split,
    parts: dict[str, tuple[int, list[float]]],
    summed: list[FieldStats],
    style: str,
) -> list[Stat]:
    """The breakdown under one name (``by_storage_class``): an answer's facts are the parts'
    own names and numbers, whatever it calls the whole."""
    name = [join(["by", *split.phrase], style)]
    count = spelled("count", style)
    if split.below is not None:
        # Folders as a listing gives them: rows under the argument's name for a prefix.
        rows = [
            {split.argument: label, count: n} | _totals(totals, summed)
            for label, (n, totals) in parts.items()
        ]
        return [Stat(name, rows, asked=True)]
    stats = [Stat(name, {label: n for label, (n, _) in parts.items()}, asked=True)]
    if summed:
        # Beside the counts, each part's totals ("count and bytes per storage class").
        totals = {label: {count: n} | _totals(t, summed) for label, (n, t) in parts.items()}
        stats.append(Stat([join([*split.phrase, "totals"], style)], totals))
    return stats


def _totals(totals: list[float], summed: list[FieldStats]) -> dict[str, Any]:
    return {f.path[-1]: tidy(t) for f, t in zip(summed, totals, strict=True)}

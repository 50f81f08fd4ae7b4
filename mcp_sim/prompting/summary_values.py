"""A group's statistics as the ``name: value`` pairs a summary shows (see
:mod:`mcp_sim.prompting.summary_names` for the names): the count, then for the fields the
tool's words name (else the group's numbers, dates and enumerations) totals, ranges, means and
distinct values with their counts.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from mcp_sim.prompting.field_names import tokens
from mcp_sim.prompting.summary_asked import asked_stats, counted
from mcp_sim.prompting.summary_counts import narrowed
from mcp_sim.prompting.summary_names import (
    Stat,
    count_names,
    is_time,
    join,
    plural,
    spelled,
    squeezed,
    stat_names,
    style_of,
    words,
)
from mcp_sim.prompting.summary_stats import (
    MOST_DISTINCT,
    FieldStats,
    GroupStats,
    is_identifier,
    tidy,
    value_of,
)
from mcp_sim.spec.world import ToolSpec

ASKED_NAMES = 10
"""Names a value the tool's words ask for keeps however short the room."""
MOST_NUMBERS = 4
MOST_TEXTS = 3
_TOTALLED = re.compile(r"\btotal\s+(?:of\s+)?(?:the\s+)?([a-z]+)", re.IGNORECASE)
_WANTS_TOTAL = frozenset(["total", "sum", "amount", "spent", "spend", "cost", "value"])
_NOT_COUNTS = frozenset(["", "ac", "dis", "vis"])
"""What goes before ``count`` in a word that is no count (``account``, ``discount``)."""
_NET_WORDS = ("balance", "net", "difference")
_COUNTED = re.compile(r"how many (\w+)|number of (\w+)|(\w+) count\b", re.IGNORECASE)


def _targets(group: GroupStats, wanted: set[str], constrained: set[str]) -> list[FieldStats]:
    """The fields to sum up: those the tool's words name first, then the others; numbers,
    dates and enumerations (strings of few distinct values), no identifiers."""
    usable = [
        f
        for f in group.fields.values()
        if f.path[-1] not in constrained
        and not is_identifier(f)
        and f.holders * 2 >= max(1, group.count) // 4
    ]

    def named(f: FieldStats) -> int:
        """2 where the tool's words name the field itself, 1 where they name only a part it
        sits in (the ``dates`` every field of a calendar is under), else 0."""
        if {w.lower().rstrip("s") for w in words(f.path[-1])} & wanted:
            return 2
        return int(bool({w.lower().rstrip("s") for p in f.path for w in words(p)} & wanted))

    usable.sort(key=lambda f: -named(f))
    numbers = [f for f in usable if f.numbers and not f.texts][:MOST_NUMBERS]
    dates = [f for f in usable if f.dates][:2]
    texts = [
        f
        for f in usable
        if f.texts
        and not f.dates
        and len(set(f.texts)) <= MOST_DISTINCT
        and (len(set(f.texts)) < len(f.texts) or f.holders <= 1 or named(f) == 2)
    ][:MOST_TEXTS]
    return [*numbers, *dates, *texts]


def _field_names(targets: list[FieldStats], group: GroupStats) -> dict[tuple[str, ...], str]:
    """Each field's name: its last segment, or its last two where two fields of the group
    share one (seats and prices per cabin: neither is the bare ``economy``)."""
    last = [path[-1] for path in group.fields]
    return {
        f.path: f.path[-1] if last.count(f.path[-1]) == 1 else "_".join(f.path[-2:])
        for f in targets
    }


def counted_phrases(tool: ToolSpec) -> list[str]:
    """The words a tool counts: a name part with ``count`` in it (``headcount``), and what its
    description counts ("how many articles", "enrolled count")."""
    phrases = [
        w
        for w in words(tool.name)
        if w.lower().endswith("count") and w.lower()[:-5] not in _NOT_COUNTS
    ]
    for match in _COUNTED.finditer(tool.description.split(". ")[0]):
        phrases += [g.lower() for g in match.groups() if g]
    return phrases


def group_values(
    group: GroupStats,
    tool: ToolSpec,
    wanted: set[str],
    constrained: set[str],
    arguments: dict[str, Any] | None = None,
) -> list[Stat]:
    """The group's statistics, each with its names (``arguments``: the call's, whose values
    may name the field an operation listed alone reads)."""
    # Every name the records spell counts: an envelope's ``node`` says nothing of its fields'.
    style = style_of([*group.keys, *(part for path in group.fields for part in path)])
    # A phrase counting part of the records ("unpaid count") is no name for all of them.
    phrases = [p for p in counted_phrases(tool) if narrowed((p,), group) is None]
    phrases += [p for p in counted(tool) if p not in phrases]
    hints = tuple(tuple(words(v)) for v in (arguments or {}).values() if isinstance(v, str))
    stats, guessed = asked_stats(tool, group, constrained, style, hints)
    if group.outer is not None:
        # "How many parcels" a facility scanned counts parcels, not their scans there.
        kind, many = group.outer
        own = [p for p in phrases if set(tokens(p)) & set(tokens(kind))]
        phrases = [p for p in phrases if p not in own]
        bare = spelled("count", style)
        stats.append(Stat([n for n in count_names(kind, style, own) if n != bare], many))
    stats.append(Stat(count_names(group.name, style, phrases), group.count))
    targets = _targets(group, wanted, constrained)
    names = _field_names(targets, group)
    ops: list[tuple[str, FieldStats]] = []
    for f in targets:
        if f.numbers:
            ops += [(op, f) for op in ("sum", "min", "max", "mean")]
        elif f.dates:
            ops += [("min", f), ("max", f)]
    covered = {s.of for s in stats if s.of is not None}
    ops = [(op, f) for op, f in ops if (op, f.path) not in covered]
    timed = [(o, f) for o, f in ops if f.dates or is_time(names[f.path])]
    for op, f in ops:
        name = names[f.path]
        time = (op, f) in timed
        # A bare "highest" names the one field summed up so; a bare "latest" the one date.
        alike = timed if time else [item for item in ops if item not in timed]
        alone = sum(1 for o, _ in alike if o == op) == 1
        primary, fallback = stat_names(op, name, style, alone=alone, time=time)
        stats.append(Stat(primary, value_of(op, f), tuple(fallback)))
    for f in targets:
        name = names[f.path]
        if 0 < f.holders < group.count:
            # Records holding the field at all (scores graded so far), beside all counted.
            stats.append(
                Stat([join(["with", name], style), join([name, "count"], style)], f.holders)
            )
        if f.texts and not f.dates and len(f.owners) == len(f.texts) > 1:
            # Each value is one record's (a name): the record's key says which.
            stats.append(Stat([name, plural(name)], f.owners))
        elif f.texts and not f.dates:
            stats.append(Stat([plural(name), name], f.distinct()))
            stats.append(Stat([join([name, "counts"], style)], f.counts()))
    stats += _product_totals(group, tool, style)
    stats += guessed
    stats += _net(group, targets, tool, style)
    return _schema_named(stats, tool)


def _product_totals(group: GroupStats, tool: ToolSpec, style: str) -> list[Stat]:
    """Where the tool answers with a total, each count × amount total, under the words its
    description totals ("total amount") and the fields' own names."""
    first = tool.description.split(". ")[0]
    said = [
        m.group(1).lower()
        for text in (words_text(tool.name), first)
        for m in _TOTALLED.finditer(text)
        if len(m.group(1)) > 2
    ]
    if not said and not _WANTS_TOTAL & {w.lower() for w in words(tool.name + " " + first)}:
        return []
    fields = {p[-1] for p in group.fields}
    own = [w for w in said if w not in fields]
    return [
        Stat([*own, join([count, "x", amount, "total"], style)], tidy(total))
        for (count, amount), total in group.products.items()
    ]


def _net(group: GroupStats, targets: list[FieldStats], tool: ToolSpec, style: str) -> list[Stat]:
    """Where two summed fields are never held by one record (a posting's ``debit`` or its
    ``credit``), the first's total less the second's, in the order the tool's words name
    them: a balance no field holds."""
    sums = [f for f in targets if f.numbers and not f.texts and len(f.path) == 1]
    said = " ".join([words_text(tool.name), tool.description.split(". ")[0]]).lower()
    pairs = [
        (a, b)
        for i, a in enumerate(sums)
        for b in sums[i + 1 :]
        if a.holders + b.holders <= group.count
    ]
    if len(pairs) != 1:
        return []
    a, b = sorted(pairs[0], key=lambda f: _place(said, f.path[0]))
    names = [w for w in _NET_WORDS if w in said.split()]
    names += [join([a.path[0], "minus", b.path[0]], style), "net"]
    return [Stat(list(dict.fromkeys(names)), tidy(sum(a.numbers) - sum(b.numbers)))]


def _place(text: str, field: str) -> int:
    at = text.find(" ".join(words(field)).lower())
    return at if at >= 0 else len(text)


def words_text(name: str) -> str:
    """A name's words as a phrase (``orderTotal`` → ``order Total``)."""
    return " ".join(words(name))


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
        for name in stat.names[: max(most_names, ASKED_NAMES) if stat.asked else most_names]:
            flat.setdefault(name, stat.value)
    # A fallback two values would share (the ``lowest_economy`` of seats and of prices per
    # cabin) would put one of them under a name that fits both: neither takes it.
    claims = Counter(name for stat in stats for name in stat.fallback[:most_names])
    for stat in stats if most_names > 1 else []:
        for name in stat.fallback[:most_names]:
            if claims[name] == 1:
                flat.setdefault(name, stat.value)
    return flat

"""The records a ranking call answers with: the N with the largest (or smallest) value of a
number, such as ``top_batches_by_ibu(n=5)``.

No view of a thousand records lets a model sort them, so the summary holds the ranking
itself: each of the first N records (by the tool's integer argument) as its key, its names
and the ranked value, under the state's own field names, which an answer copies. The number
ranked is the one the tool's words name (``by_ibu``, "the largest ibu"); where none fits
surely (the state calls it ``bitterness``), each of the records' own numbers gets its ranking,
those whose names fit loosely first.
"""

from __future__ import annotations

import re
from typing import Any

from mcp_sim.prompting.field_names import name_score, tokens
from mcp_sim.prompting.summary_names import Stat, join
from mcp_sim.prompting.summary_stats import MOST_DISTINCT, group_stats, is_identifier
from mcp_sim.spec.world import ToolSpec

_RANK_WORDS = frozenset(["top", "bottom"])
_RANKED = re.compile(
    r"\bwith the (?:largest|highest|smallest|lowest|most|fewest|best|worst)\b", re.IGNORECASE
)
_ASCENDING = frozenset(["asc", "ascending", "smallest", "lowest", "bottom", "least"])
_MOST_RANKED = 25
"""The longest ranking shown; a larger N is cut to it."""
_MOST_RANKINGS = 4
"""Numbers ranked where the tool's words name none."""
_SURE = 0.9
"""A fit of the tool's words to a field's name that leaves no doubt."""
_MOST_NAMES = 1
"""String fields shown beside each ranked record's key: its name (the first of many values)."""


def is_ranking(tool: ToolSpec) -> bool:
    """Whether ``tool`` answers with the first N records by a number: its name says ``top``
    (or ``bottom``), or its description ranks ("the n boats with the largest price")."""
    if _RANK_WORDS & set(tokens(tool.name)):
        return True
    return bool(_RANKED.search(tool.description.split(". ")[0]))


def _how_many(arguments: dict[str, Any]) -> int | None:
    counts = [v for v in arguments.values() if isinstance(v, int) and not isinstance(v, bool)]
    return min(counts[0], _MOST_RANKED) if counts and counts[0] > 0 else None


def _ascending(tool: ToolSpec, arguments: dict[str, Any]) -> bool:
    said = {str(v).lower() for v in arguments.values() if isinstance(v, str)}
    return bool(said & _ASCENDING) or "bottom" in tokens(tool.name)


def _ranked_words(tool: ToolSpec) -> tuple[str, ...]:
    """The words naming the number ranked: after the name's last ``by`` (``top_hives_by_
    honey_kg``), else after the description's "with the largest"."""
    name = tokens(tool.name)
    if "by" in name:
        return name[len(name) - name[::-1].index("by") :]
    found = _RANKED.search(tool.description.split(". ")[0])
    rest = tool.description[found.end() :] if found else ""
    return tokens(" ".join(re.findall(r"[\w-]+", rest)[:1]))


def _own(record: Any) -> dict[str, Any]:
    """A record's own scalar fields, those of its plain sub-objects under their own names."""
    flat: dict[str, Any] = {}
    for key, value in record.items() if isinstance(record, dict) else ():
        if isinstance(value, dict):
            flat |= {k: v for k, v in _own(value).items() if k not in flat}
        elif not isinstance(value, list):
            flat.setdefault(key, value)
    return flat


def ranked_stats(
    tool: ToolSpec, records: list[Any], id_field: str | None, arguments: dict[str, Any]
) -> list[Stat]:
    """The rankings a ranking call asks for, each the first N records as ``{key, names,
    value}``; none where the tool ranks nothing or no integer argument says N."""
    many = _how_many(arguments)
    if many is None or not is_ranking(tool):
        return []
    rows = [_own(r) for r in records]
    stats = group_stats("ranked", rows)
    own = [f for f in stats.fields.values() if len(f.path) == 1 and not is_identifier(f)]
    numbers = [f.path[0] for f in own if f.numbers and not f.texts and f.single]
    names = [
        f.path[0] for f in own if f.texts and not f.dates and len(set(f.texts)) > MOST_DISTINCT
    ][:_MOST_NAMES]
    said = _ranked_words(tool)
    fits = {n: name_score(said, (tokens(n),)) for n in numbers}
    # A name that fits picks the one number; else the loosest fits first, then the rest.
    ordered = sorted(numbers, key=lambda n: -fits[n])
    chosen = ordered[:1] if ordered and fits[ordered[0]] >= _SURE else ordered[:_MOST_RANKINGS]
    shown = [id_field] if id_field is not None else []
    order = _ascending(tool, arguments)
    found = []
    for number in chosen:
        valued = [r for r in rows if isinstance(r.get(number), int | float)]
        valued.sort(key=lambda r: r[number], reverse=not order)
        top = [{k: r[k] for k in [*shown, *names, number] if k in r} for r in valued[:many]]
        found.append(Stat([join(["first", str(many), "by", number], "snake")], top))
    return found

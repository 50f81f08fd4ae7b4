"""Summaries of records computed from the state, for calls whose answer is one.

A call such as ``list_all_product_types``, ``count_orders(status=...)``, ``genre_stats`` or
``order_total(order)`` answers with something no single record holds: the distinct values of a
field, a count, a sum, a range. No view of records lets a model count a thousand of them, so
such a call's view gets the summary itself, over the records the arguments point to:

1. those its field-aware search selects (``genre = "travel"``);
2. else the records its arguments name by key: several (an item's stock in each warehouse),
   or the records nested in the one they name (an order's lines; a unit's members and its
   sub-units' members, a path such as ``ENG/PLT`` walked down the tree);
3. else the collection its name names, or whose fields its words name most.

For each group: the count, and for the fields the tool's words name (else the group's numbers,
dates and enumerations) totals, ranges, means, and distinct values with their counts, under the
names an answer would use (see :mod:`mcp_sim.prompting.summary_names`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from jsonpointer import escape, unescape

from mcp_sim.prompting.field_names import tokens
from mcp_sim.prompting.field_tables import FieldTables
from mcp_sim.prompting.kept_stats import kept_group_stats
from mcp_sim.prompting.mention_names import MentionNames
from mcp_sim.prompting.record_fields import KEY
from mcp_sim.prompting.search_result import SearchResult
from mcp_sim.prompting.summary_breakdowns import breakdown_stats
from mcp_sim.prompting.summary_group import Group, listed_keys, record_keys, told_fields
from mcp_sim.prompting.summary_linked import linked_groups
from mcp_sim.prompting.summary_markup import properties_group
from mcp_sim.prompting.summary_names import singular
from mcp_sim.prompting.summary_quantities import narrowed_group, quantity_stats
from mcp_sim.prompting.summary_ranked import is_ranking, ranked_stats
from mcp_sim.prompting.summary_stats import MOST_RECORDS, is_map, sub_records
from mcp_sim.prompting.summary_values import flat_values, group_values
from mcp_sim.prompting.tool_asks import tool_words
from mcp_sim.runtime.state_index import StateOverlay
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_shape import Collection, normalize, record_pointer
from mcp_sim.spec.world import ToolSpec

SUMMARY_HEADING = "**Summary computed from the state**"
_MOST_VALUES = 60
_MOST_GROUPS = 3
_MOST_REMEMBERED = 256
"""How many calls' summaries a world keeps (see :func:`summarize`)."""
_NAMES_TRIED = (99, 4, 1)
"""How many names each value goes under, most first, until the summary fits."""
_COMPOUND = re.compile(r"\s*[/|:;>]\s*")


@dataclass
class Summary:
    blocks: list[tuple[str, list[Any]]]
    """Each group's scope and its statistics (see :class:`summary_values.Stat`)."""

    @property
    def values(self) -> dict[str, Any]:
        """The first group's statistics, each under all its names."""
        return flat_values(self.blocks[0][1], _NAMES_TRIED[0]) if self.blocks else {}

    def render(self, room: int) -> str:
        """The summary in at most ``room`` characters: each value under fewer names, then
        long lists of values cut (and saying so), until it fits; ``""`` if nothing does."""
        most = _MOST_VALUES
        while True:
            # Names go before values: a value under one name is worth more than a cut list.
            for most_names in _NAMES_TRIED:
                text = self._text(most_names, most)
                if len(text) <= room:
                    return text
            if most == 0:
                return ""
            most //= 2

    def _text(self, most_names: int, most: int) -> str:
        lines = [SUMMARY_HEADING]
        for scope, stats in self.blocks:
            values = {k: _cut(v, most) for k, v in flat_values(stats, most_names).items()}
            lines += [f"- {scope}:", json.dumps(values, ensure_ascii=False)]
        return "\n".join(lines)


def _cut(value: Any, most: int) -> Any:
    if isinstance(value, list) and len(value) > most:
        return [*value[:most], f"… {len(value) - most} more"]
    if not isinstance(value, dict) or len(value) <= most:
        return value
    kept = dict(list(value.items())[:most])
    kept["…"] = f"{len(value) - most} more"
    return kept


def named_collection(tool: ToolSpec, overlay: StateOverlay) -> Collection | None:
    """The collection the tool's words name best: by its name or a part of its pointer
    (``list_all_cities``, ``/locomotives/results``), and by the fields they name (``fleetStats``: "vehicle count, odometer, fuel types" → the
    vehicles, not the depots its description also names)."""
    words = tool_words(tool.name, tool.description)
    tables = FieldTables.of(overlay.base)
    best, score, named_best = None, 0, False
    tied: list[Collection] = []
    for collection in overlay.base.collections:
        # Its own name, else a part of its pointer: the ``/locomotives/results`` of a page.
        parts = [tokens(unescape(p)) for p in reversed(collection.pointer.split("/"))]
        named = any(part and set(part) <= words for part in parts)
        schema = tables.schema(collection)
        fields = {w for i in schema.fields.values() for part in i.words for w in part} & words
        points = len(fields) + (2 if named else 0)
        if points > score:
            best, score, named_best, tied = collection, points, named, []
        elif best is not None and points == score and _siblings(best, collection):
            tied.append(collection)
    # Fields fitting several sibling collections alike (a channel's files, one per day), no
    # name telling them apart: a summary of any one of them would sum up a guess.
    return None if tied and not named_best else best


def _siblings(one: Collection, other: Collection) -> bool:
    return one.pointer.rsplit("/", 1)[0] == other.pointer.rsplit("/", 1)[0]


def _descend(state: Any, pointer: str, parts: list[str]) -> str | None:
    """The place ``parts`` name below ``pointer``, one at a time: a map's key, or a nested
    record holding the part as a value (a path ``ENG/PLT`` down a tree of units)."""
    for part in parts:
        wanted = normalize(part)
        queue: list[tuple[str, Any]] = [(pointer, resolve(state, pointer))]
        found = None
        while queue and found is None:
            here, value = queue.pop(0)
            items = value.items() if isinstance(value, dict) else enumerate(value or [])
            for key, item in items if isinstance(value, dict | list) else []:
                inner = f"{here}/{escape(str(key))}"
                if not isinstance(item, dict | list):
                    continue
                holds = (
                    isinstance(item, dict)
                    and not is_map(item)
                    and any(
                        normalize(v) == wanted
                        for v in item.values()
                        if not isinstance(v, dict | list)
                    )
                )
                if normalize(key) == wanted or holds:
                    found = inner
                    break
                queue.append((inner, item))
        if found is None:
            return None
        pointer = found
    return pointer


def _places(overlay: StateOverlay, state: Any, arguments: dict[str, Any]) -> list[str]:
    """The records the arguments name by key (several of one kind), or the place a compound
    key names down a tree."""
    for value in arguments.values():
        if not isinstance(value, str | int) or isinstance(value, bool):
            continue
        label = normalize(value)
        hits = [h.pointer for h in overlay.key_hits(label) if not h.inner] if label else []
        if hits:
            return hits
        parts = [p for p in _COMPOUND.split(str(value)) if p]
        # A path of one step (``/ridge70``) names a top-level entry as a longer one does.
        for at, part in enumerate(parts if _COMPOUND.search(str(value)) else []):
            tops = [h.pointer for h in overlay.key_hits(normalize(part) or "") if not h.inner]
            if len(tops) == 1:
                place = _descend(state, tops[0], parts[at + 1 :])
                return [place] if place is not None else []
    return []


def _groups_named(state: Any, places: list[str], named: set[str], said: set[str]) -> list[Group]:
    """Several named records as one group (the kind the tool's name names, else the one
    most of them are), or the records nested in the one named."""
    if len(places) > 1:
        kinds: dict[str, list[str]] = {}
        for place in places:
            kinds.setdefault(place.split("/")[1], []).append(place)
        kind, chosen = max(
            kinds.items(),
            key=lambda item: (set(tokens(unescape(item[0]))) <= named, len(item[1])),
        )
        records = [resolve(state, p) for p in chosen]
        return [Group(kind, f"the records {', '.join(chosen[:8])}", records)]
    nested = sub_records(resolve(state, places[0])) if places else {}
    # The lists the tool's words describe first (a playlist's tracks: their duration and
    # album type, not its many artists, nor its cover's images), then the longest.
    told = {name: told_fields(rows, said) for name, rows in nested.items()}
    ranked = sorted(nested.items(), key=lambda item: (-told[item[0]], -len(item[1])))
    most = told[ranked[0][0]] if ranked else 0
    ranked = [item for item in ranked if 2 * told[item[0]] >= most][:_MOST_GROUPS]
    return [Group(name, f"the {name} inside {places[0]}", rows) for name, rows in ranked]


def _searched(state: Any, search: SearchResult) -> Group:
    """The records a search selected or, where a constraint met a part of one (a posting of
    an account in a journal entry, an item in a warehouse's map), those parts."""
    where = "; ".join(c.describe() for c in search.constraints)
    pointer = search.collection.pointer
    name = search.nested or pointer.rsplit("/", 1)[-1] or "records"
    records: list[Any] = []
    whole = True
    # Only a constraint on a nested field or a map's key can meet a part of a record.
    nested = any(
        c.op != "text" and any("/" in f or f.endswith(KEY) for f in c.fields)
        for c in search.constraints
    )
    for place in search.meeting:
        known = search.places.record(place) if search.places is not None else None
        record = known if known is not None else resolve(state, place)
        found = sorted(search.focus_of(place, record)) if nested else []
        focus = _entries(record, found)
        records += [resolve(record, f) for f in focus] if focus else [record]
        whole = whole and not focus
        if focus and len(steps := focus[0].split("/")) > 2:
            name = steps[-2]
    kind = pointer.rsplit("/", 1)[-1]
    scope = f"records of {pointer} where {where}"
    shared = _shared_owners(search, records, whole)
    if shared is not None:
        # Copies of one thing the records embed (the sprint each issue lists) are no unit to
        # sum up: the records holding them are.
        holders = [resolve(state, p) for p in shared]
        held = record_keys(search.collection, shared, holders)
        return Group(kind, scope, holders, held, None, search.collection.id_field)
    keys = record_keys(search.collection, search.meeting, records) if whole else None
    outer = None if whole else (kind, len(search.meeting))
    if search.nested is not None:
        # Nested records searched as their own kind (a parcel's scan events): their owners.
        owners = {record_pointer(search.collection, p) for p in search.meeting}
        outer = (kind, len(owners))
    return Group(name, scope, records, keys, outer, search.collection.id_field)


def _shared_owners(search: SearchResult, parts: list[Any], whole: bool) -> list[str] | None:
    """The records holding the parts a search met, where those parts are one value repeated
    (each a copy of the same embedded object, several records holding it); else ``None``."""
    if whole and search.nested is None:
        return None
    if len(parts) < 2 or not all(isinstance(p, dict) and p == parts[0] for p in parts):
        return None
    owners = search.meeting
    if search.nested is not None:
        owners = [record_pointer(search.collection, p) for p in search.meeting]
    distinct = list(dict.fromkeys(owners))
    return distinct if len(distinct) > 1 else None


def _entries(record: Any, inners: list[str]) -> list[str]:
    """Those of ``inners`` that are entries of a list or of a map keyed by data (an order's
    line, a warehouse's item) rather than plain sub-objects of the record (its ``details``,
    which is the record's own); each parent looked at once (a calendar's hundred days)."""
    entry: dict[str, bool] = {}
    for inner in inners:
        at = inner.rsplit("/", 1)[0]
        if at not in entry:
            parent = resolve(record, at)
            entry[at] = isinstance(parent, list) or (isinstance(parent, dict) and is_map(parent))
    return [inner for inner in inners if entry[inner.rsplit("/", 1)[0]]]


def _groups(
    overlay: StateOverlay,
    state: Any,
    tool: ToolSpec,
    search: SearchResult | None,
    arguments: dict[str, Any],
) -> list[Group]:
    # A ranking's arguments say how many and which way, not which records: it ranks all.
    ranking = is_ranking(tool)
    places = [] if ranking else _places(overlay, state, arguments)
    named = set(tokens(tool.name))
    # Records the arguments name in a collection the tool's name names (an item's stock in
    # each warehouse for ``stock_totals``) come first; else a search nothing meets may have
    # read a key as a field's value: a named place before it.
    kinds = {p.split("/")[1] for p in places if len(places) > 1}
    # Unless the search found records of another collection the name names too: a party's
    # links (``distributor_shipment_totals``: the shipments, not the distributor).
    met = search if search is not None and search.full else None
    links = met is not None and _names(named, met.collection.pointer)
    if met is None or (not links and any(set(tokens(unescape(k))) <= named for k in kinds)):
        said = {singular(w) for w in tool_words(tool.name, tool.description)}
        groups = _groups_named(state, places, named, said)
        if groups:
            return groups
    if search is not None and not ranking:
        # Beside the records found, those of another collection the words name linking to
        # them: a district's stations, and the rides started at them.
        searched = _searched(state, search)
        linked = linked_groups(overlay, state, tool, search)
        # The records linked to say which they link to: the found records' keys, listed.
        searched.listed = bool(linked)
        return [searched, *linked]
    found = named_collection(tool, overlay)
    if found is None:
        return []
    pointers = overlay.pointers(found.pointer)
    records = [resolve(state, p) for p in pointers]
    name = found.pointer.rsplit("/", 1)[-1] or "records"
    keys = record_keys(found, pointers, records)
    return [Group(name, f"all records of {found.pointer}", records, keys, None, found.id_field)]


def _names(named: set[str], pointer: str) -> bool:
    """Whether the words ``named`` name the collection at ``pointer`` by a part of it."""
    return any(tokens(p) and set(tokens(p)) <= named for p in map(unescape, pointer.split("/")))


def summed_search(tool: ToolSpec, searches: list[SearchResult]) -> SearchResult | None:
    """The search whose records a summary sums up: the last that found records of a
    collection the tool's name names (a distributor's ``shipment_totals``: the shipments,
    not the batches that name the distributor too), else the last."""
    named = set(tokens(tool.name))
    found = [s for s in searches if s.full and _names(named, s.collection.pointer)]
    return found[-1] if found else (searches[-1] if searches else None)


def _kinds(overlay: StateOverlay) -> frozenset[str]:
    """The names of the kinds of records the state holds (``rider`` of ``/rider:*:rides``)."""
    parts = (unescape(p) for c in overlay.base.collections for p in c.pointer.split("/"))
    return frozenset(singular(t) for part in parts for t in tokens(part))


def summarize(
    overlay: StateOverlay,
    state: Any,
    tool: ToolSpec,
    search: SearchResult | None,
    arguments: dict[str, Any] | None = None,
) -> Summary | None:
    """The summary a call of ``tool`` with ``arguments`` answers with, over the records
    ``search`` selected, else those the arguments name, else the collection the tool names;
    ``None`` when there are none."""
    # Without a search, and before the session changed anything, the summary depends on the
    # call alone: it is read once per world (a whole collection's, thousands of records).
    once = search is None and not overlay.changed
    memo: dict[str, Summary | None] = overlay.base.derived.setdefault("summaries", {})
    key = json.dumps([tool.name, tool.description, arguments], sort_keys=True, default=str)
    if once and key in memo:
        return memo[key]
    summary = _summary(overlay, state, tool, search, arguments)
    if once:
        if len(memo) >= _MOST_REMEMBERED:
            memo.pop(next(iter(memo)))  # the oldest: a world's calls vary without end
        memo[key] = summary
    return summary


def _summary(
    overlay: StateOverlay,
    state: Any,
    tool: ToolSpec,
    search: SearchResult | None,
    arguments: dict[str, Any] | None,
) -> Summary | None:
    groups = _groups(overlay, state, tool, search, arguments or {})
    marked = properties_group(state, search, arguments or {}, MentionNames(overlay))
    groups = [marked] if marked is not None else groups
    if not groups:
        return None
    constrained: set[str] = set()
    if search is not None:
        constrained = {
            f.rsplit("/", 1)[-1] for c in search.constraints if c.op == "eq" for f in c.fields
        }
    wanted = {w.rstrip("s") for w in tool_words(tool.name, tool.description)}
    blocks = []
    for group in groups:
        stats = kept_group_stats(
            overlay.base, group.name, group.records, group.keys, _kinds(overlay), frozenset(wanted)
        )
        group, stats = narrowed_group(tool, group, stats, _kinds(overlay), frozenset(wanted))
        stats.outer = group.outer
        scope = group.scope
        if stats.count > MOST_RECORDS:
            scope += f" (fields read on the first {MOST_RECORDS} of {stats.count})"
        ranked = ranked_stats(tool, group.records, group.id_field, arguments or {})
        ranked = listed_keys(group, stats) + ranked
        values = quantity_stats(tool, stats) + group_values(
            stats, tool, wanted, constrained, arguments
        )
        # A breakdown some field's value counts already give (``code_counts``) is no news.
        split = breakdown_stats(tool, arguments or {}, group.records, stats, constrained)
        values += [s for s in split if all(s.value != v.value for v in values)]
        blocks.append((scope, ranked + values))
    return Summary(blocks)

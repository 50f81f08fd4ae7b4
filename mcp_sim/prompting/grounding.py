"""Which records of a large state a call needs to see, best first, with no hints required.

For each call, in this order (a record is picked once, at its first reason):

1. **named**: records whose key or id equals an argument value (``get_order(order_id)``), or
   one of whose nested maps has it as a key (an item id finds its product, with the variant);
   a compound key (``GRA12/RID15``) names its parts too; then the few records the call's
   rarest value names (see :mod:`mcp_sim.prompting.rare_values`);
2. **matched**: for a read, the records of the field-aware search (see
   :mod:`mcp_sim.prompting.field_search`): every record meeting all the constraints the
   arguments put on its fields, with the sub-records the arguments name (the date) as the
   focus; for a write, or a tool with hints, the records that hold the most argument values,
   rare values weighing more than common ones;
3. **linked**: records whose key is a value inside a record already picked (an order's user,
   its items' products), in the order they appear there;
4. **partial**: records meeting some of the search's constraints, most first;
5. **recent**: records the recent turns named (their arguments and observations).

A call whose answer summarizes a collection (a count, totals, distinct values) also gets that
summary (see :mod:`mcp_sim.prompting.aggregates`). A tool's ``grounding`` hints in the world
spec narrow step 2 to the collections the tool reads and to the fields each argument matches.
:mod:`mcp_sim.prompting.state_view` shows the picks within the budget.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from mcp_sim.prompting.aggregate_calls import is_aggregate
from mcp_sim.prompting.aggregates import Summary, summarize, summed_search
from mcp_sim.prompting.aggregation_summary import aggregation_summary
from mcp_sim.prompting.appended_items import AppendedItem, appended_item
from mcp_sim.prompting.argument_values import COMPOUND, argument_values, queried_values
from mcp_sim.prompting.call_searches import call_searches
from mcp_sim.prompting.cell_addresses import addressed_rows
from mcp_sim.prompting.composed_ids import composed_records
from mcp_sim.prompting.embedded_records import embedded_records
from mcp_sim.prompting.event_grounding import EventGrounding
from mcp_sim.prompting.event_projection import EventView
from mcp_sim.prompting.field_names import read_argument
from mcp_sim.prompting.field_tables import FieldTables
from mcp_sim.prompting.geo_search import regions_of
from mcp_sim.prompting.link_groups import asks_each_once
from mcp_sim.prompting.link_rows import LinkRows, answer_words
from mcp_sim.prompting.link_values import answer_lists
from mcp_sim.prompting.linked_records import asked_of, linked_records
from mcp_sim.prompting.movement_times import Steps, steps_of
from mcp_sim.prompting.named_beside import answer_itself, named_beside
from mcp_sim.prompting.rare_values import FEW, Evident, call_values, evident_records
from mcp_sim.prompting.read_records import read_records
from mcp_sim.prompting.record_fields import magnitude
from mcp_sim.prompting.search_result import SearchResult, sub_record
from mcp_sim.prompting.selector_matches import selected
from mcp_sim.prompting.tool_asks import field_list_words
from mcp_sim.prompting.tree_entries import TreeEntries, tree_entries
from mcp_sim.prompting.tree_paths import descend, enclosing
from mcp_sim.prompting.two_hop import MOST_STARTS, two_hop_rows
from mcp_sim.prompting.typed_ids import joined_ids
from mcp_sim.prompting.value_matches import MAX_MATCHED, value_matches
from mcp_sim.prompting.value_neighbourhoods import Neighbourhoods
from mcp_sim.prompting.write_targets import newest_records
from mcp_sim.runtime.state_index import StateOverlay
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_shape import normalize, record_pointer
from mcp_sim.spec.world import ToolSpec

MAX_FULL = 150
"""Records meeting every constraint of a search considered per call (the view shows as many as
fit, and says how many there are)."""
MAX_FOCUSED = 60
"""Records of a search whose focus (the sub-records the constraints name) is found: more do
not fit a view."""
MAX_ENCLOSED = 20
"""A nested search with at most this many matches also shows the entry each one sits in (its
scalar fields, its large parts outlined)."""
"""Records of a listed collection considered per call (the view shows those that fit)."""
_TOKEN = re.compile(r"[#A-Za-z0-9_@.+:-]{2,}")


@dataclass
class Pick:
    pointer: str
    reason: str
    """``named``, ``newest`` (the newest records of the collection a write adds to),
    ``matched``, ``enclosing`` (the entry a nested match sits in), ``listed``, ``linked`` or
    ``recent``."""
    focus: set[str] = field(default_factory=set)
    """Places inside the record (relative pointers) that the call is about: shown in full
    even when the rest of a large record is outlined."""
    matched: int = 0
    """How many of the call's argument values the record holds."""
    complete: bool = False
    """Whether the record meets every constraint of a field-aware search."""
    constraints: int = 0
    """How many constraints that search has (0: not found by one)."""
    beside: bool = False
    """A record an argument names beside the records a search of the tool's collection
    found (see :mod:`mcp_sim.prompting.named_beside`): shown within a fair share."""
    by_place: bool = False
    """A row the call names by its cells' address (``Orders!A9:J9``, see
    :mod:`mcp_sim.prompting.cell_addresses`): the call reads cells by position."""
    evident: bool = False
    """A record the call's rarest value names (see :mod:`mcp_sim.prompting.rare_values`):
    shown whole where it fits, within a fair share beside records a search meets (then
    compactly: its scalar fields and where the values sit)."""


class Grounding(EventGrounding):
    """Picks the records a call needs from a session's :class:`StateOverlay`."""

    def __init__(self, overlay: StateOverlay, state: Any, tools: Sequence[ToolSpec] = ()) -> None:
        self.overlay = overlay
        self.state = state
        self.tools = tools
        """The world's tools (what they call an entity's id)."""
        self.events: EventView | None = None
        """An event log's entities the call names or searches (see :class:`EventGrounding`)."""
        self.folded: EventGrounding | None = None
        self.picks: dict[str, Pick] = {}
        self.searches: list[SearchResult] = []
        """The field-aware searches of the call, when its arguments constrain fields."""
        self.summary: Summary | None = None
        """The summary of a collection a call such as ``count_orders`` answers with."""
        self.join: LinkRows | Steps | None = None
        """The links a call's arguments find with the records each refers to, when the tool
        asks for those (``boats_of_owner``: the owner's charters and their boats; through a
        middle collection: :mod:`mcp_sim.prompting.two_hop`); or the steps of a movement the
        searched records made (:mod:`mcp_sim.prompting.movement_times`)."""
        self.appended: AppendedItem | None = None
        """Where a write appends an item to the record it names, and the number it takes."""
        self.tree: TreeEntries | None = None
        """The entries under a tree entry an argument names by path, each with its path."""
        self.resolved: set[str] = set()
        """Parts of the call's paths that led to an entry: they name nothing on their own."""
        self.values: list[str] = []
        """The call's values some record holds (see :func:`call_values`)."""
        self.places: Neighbourhoods | None = None
        """Where the call's rare values sit, for a view no reader's picks make (see
        :mod:`mcp_sim.prompting.value_neighbourhoods`)."""

    def _pick(
        self, pointer: str, reason: str, inner: str = "", matched: int = 0, complete: bool = False
    ) -> Pick:
        pick = self.picks.get(pointer)
        if pick is None:
            pick = self.picks[pointer] = Pick(pointer, reason, matched=matched, complete=complete)
        if inner:
            pick.focus.add(inner)
        return pick

    def for_call(
        self,
        tool: ToolSpec | None,
        arguments: dict[str, Any],
        recent: Iterable[str] = (),
        answers: Sequence[str] = (),
    ) -> list[Pick]:
        """The records the call needs, best first (``answers``: see :func:`ground`)."""
        self.resolved = self._named_paths(arguments)
        bounds = _bounds(arguments)
        unbounded = {k: v for k, v in arguments.items() if k not in bounds}
        labels = [label for label in argument_values(unbounded) if label not in self.resolved]
        # The records a query's values name (``wd:Q5``, ``label:INBOX``) describe what it
        # searches for: they follow the records it finds.
        queried = queried_values(unbounded)
        for label in [*labels, *joined_ids(arguments)]:
            if label not in queried:
                self._key_named(label)
        if self.fold(tool, arguments, answers):
            return self.unlog()
        evident = self._evident(tool, arguments, labels, bounds)
        hinted = tool is not None and tool.grounding is not None
        writes = tool is not None and tool.effect == "write"
        for pointer in newest_records(self.overlay, arguments) if writes else []:
            self._pick(pointer, "newest")
        if not hinted and not writes:
            # A composed identifier names its records: no field holds it to be searched.
            searched = {k: v for k, v in arguments.items() if k not in self.composed}
            self.searches = call_searches(self.overlay, self.state, tool, searched, answers)
        if self.events is None and not writes:
            self._summarize(tool, arguments)
        self._joined(tool, field_list_words(arguments))
        # A search meeting few records tells which the call is about: the evident ones
        # follow them; else they come first. A join's rows are the answer.
        telling = any(1 <= len(s.full) <= FEW for s in self.searches)
        self._show(evident if self.join is None and not telling else [])
        if not self.searches and self.join is None:
            self._match(tool, arguments, labels)
        for search in self.searches:
            self._searched(search, complete=True)
        for label in (label for label in labels if label in queried):
            self._key_named(label)
        self._show(evident if self.join is None and telling else [])
        if not self.picks and self.join is None:
            for pointer in read_records(self.overlay, tool):
                self._pick(pointer, "listed")
        found = [p.pointer for p in self.picks.values() if p.reason == "named" or p.complete]
        for pointer in selected(self.overlay, self.state, found, labels):
            self._pick(pointer, "selected")
        # The rows a request embeds through declared links (a class's bookings' members).
        for pointer in embedded_records(self.overlay, self.state, list(self.picks), arguments):
            self._pick(pointer, "linked")
        self._link(tool)
        named = [p.pointer for p in self.picks.values() if p.reason == "named"]
        for pointer in regions_of(self.overlay, self.state, named):
            self._pick(pointer, "linked")
        for search in self.searches:
            self._searched(search, complete=False)
        self._recent(recent)
        return self.unlog()

    def _summarize(self, tool: ToolSpec | None, arguments: dict[str, Any]) -> None:
        """The summary the call answers with: one its request asks for beside its query
        (a body's ``aggs``, a ``GROUP BY``, facets), else one its tool asks for."""
        asked = aggregation_summary(self.overlay, self.state, self.searches, arguments)
        if asked is not None:
            self.summary = asked
        elif tool is not None and is_aggregate(tool):
            summed = summed_search(tool, self.searches)
            self.summary = summarize(self.overlay, self.state, tool, summed, arguments)

    def _key_named(self, label: str) -> None:
        # A nested map's key names a record only when few records have it (an item id
        # names its product; a date names no sailing: the match below weighs it).
        for hit in self.overlay.key_hits(label):
            self._pick(hit.pointer, "named", hit.inner)

    def _recent(self, recent: Iterable[str]) -> None:
        """The records the recent turns' texts name."""
        for text in recent:
            for token in _TOKEN.findall(text):
                named = normalize(token)
                for hit in self.overlay.key_hits(named) if named is not None else ():
                    self._pick(hit.pointer, "recent", hit.inner)

    def inner(self, overlay: StateOverlay, state: Any) -> Grounding:
        return Grounding(overlay, state, self.tools)

    def _evident(
        self, tool: ToolSpec | None, arguments: dict[str, Any], labels: list[str], bounds: set[str]
    ) -> list[Evident]:
        """The records the call's rarest value names (see :mod:`mcp_sim.prompting.rare_values`).
        A tool's ``grounding`` hints say where its arguments are looked for: not here."""
        if tool is not None and tool.grounding is not None:
            return []
        texts = [v for n, v in arguments.items() if isinstance(v, str) and n not in bounds]
        self.values = call_values(self.overlay, labels, texts)
        return evident_records(self.overlay, tool, self.values)

    def _show(self, evident: list[Evident]) -> None:
        """Picks the evident records, focused on where the call's values sit in them,
        unless already picked."""
        for found in evident:
            if found.pointer not in self.picks:
                pick = self._pick(found.pointer, "named")
                pick.focus |= {f for f in map(sub_record, found.places) if f}
                pick.evident = True

    def _joined(self, tool: ToolSpec | None, asked: set[str]) -> None:
        """Takes a search that found links out of the searches: its rows show them, with the
        fields the tool's description names and those the call asks for (``asked``)."""
        joined = next((s.through for s in self.searches if s.through is not None), None)
        if joined is not None and joined.total <= MOST_STARTS:
            # The records named refer to the targets, but the description may name the
            # records in between (see :func:`mcp_sim.prompting.two_hop.two_hop`).
            hop = two_hop_rows(self.overlay, self.state, tool, self.picks, self)
            if hop is not None:
                for search in self.searches:
                    search.through = None
                self.join = hop
                return
        if joined is None:
            steps = (steps_of(self.state, tool, s) for s in self.searches)
            found = next((found for found in steps if found is not None), None)
            self.join = found or two_hop_rows(self.overlay, self.state, tool, self.picks, self)
            return
        tables = FieldTables.of(self.overlay.base)
        self.join = LinkRows(
            joined,
            tables.schema(joined.links),
            tables.schema(joined.targets),
            answer_words(tool) | asked,
            answer_lists(tool),
            once=asks_each_once(tool),
        )
        self.searches = [s for s in self.searches if s.through is None]

    def _named_paths(self, arguments: dict[str, Any]) -> set[str]:
        """Picks the records that compound arguments (``/alpha82/basalt22``, a unit's path)
        name, focused on the entry the path leads to; the normalized parts of the paths
        that led somewhere (a part alone may name another record: a top-level ``basalt22``)."""
        # An identifier composed of several fields' values names its records too, and so
        # does a spreadsheet's address of cells.
        self.composed = composed_records(self.overlay, self.state, arguments)
        addressed = addressed_rows(self.overlay, self.state, arguments)
        self.composed |= addressed
        for pointer, focus in (p for named in self.composed.values() for p in named.items()):
            self._pick(pointer, "named", focus)
        for pointer in (p for rows in addressed.values() for p in rows):
            self.picks[pointer].by_place = True
        resolved: set[str] = set()
        for value in arguments.values():
            if not isinstance(value, str) or not COMPOUND.search(value.strip()):
                continue
            parts = [p for p in COMPOUND.split(value.strip()) if p]
            outer = normalize(parts[0]) if len(parts) > 1 else None
            for hit in self.overlay.key_hits(outer) if outer is not None else ():
                inner = descend(resolve(self.state, hit.pointer), parts[1:], hit.inner)
                if inner is not None:
                    self._pick(hit.pointer, "named", inner)
                    resolved.update(p for p in map(normalize, parts[1:]) if p is not None)
        return resolved

    def _match(self, tool: ToolSpec | None, arguments: dict[str, Any], labels: list[str]) -> None:
        for match in value_matches(self.overlay, tool, arguments, labels):
            for inner in match.places:
                self._pick(match.pointer, "matched", sub_record(inner), match.count)

    def _searched(self, search: SearchResult, *, complete: bool) -> None:
        """The records meeting every constraint (``complete``), or those meeting some, best
        first, with the sub-records their matching values sit in as focus."""
        wanted = len(search.constraints)
        full = [(p, wanted) for p in search.full[:MAX_FULL]]
        chosen = full if complete else search.partial[:MAX_MATCHED]
        enclose = complete and search.nested is not None and len(chosen) <= MAX_ENCLOSED
        for i, (pointer, met) in enumerate(chosen):
            pick = self._pick(pointer, "matched", matched=met, complete=complete)
            pick.complete = pick.complete or complete
            pick.constraints = pick.constraints or wanted
            if i < MAX_FOCUSED:
                # Finding the focus walks the record: only for those a view can show.
                pick.focus |= search.focus_of(pointer, resolve(self.state, pointer))
            if enclose:
                # A person found in a unit of a tree is answered with the unit they are in;
                # the one record holding the one match, whole (a lookup by a key it holds).
                outer = enclosing(pointer, search.collection.pointer)
                whole = len(chosen) == 1 and outer == record_pointer(search.collection, pointer)
                self._pick(outer, "matched" if whole else "enclosing")

    def _link(self, tool: ToolSpec | None) -> None:
        """Records named by a value inside a record picked so far (one step)."""
        asked = asked_of(self.overlay, tool)
        for pointer, inner in linked_records(self.overlay, self.picks, self.resolved, asked):
            self._pick(pointer, "linked", inner)


def ground(
    overlay: StateOverlay,
    state: Any,
    tool: ToolSpec | None,
    arguments: dict[str, Any],
    recent: Iterable[str] = (),
    answers: Sequence[str] = (),
    tools: Sequence[ToolSpec] = (),
) -> Grounding:
    """What ``tool`` called with ``arguments`` needs: its picks (``picks``, best first) and
    its field-aware search (``search``); ``answers``: the tool's earlier answers, oldest
    first, which may show how it wraps a search's results and their count; ``tools``: the
    world's."""
    grounding = Grounding(overlay, state, tools)
    grounding.for_call(tool, arguments, recent, answers)
    named = [p.pointer for p in grounding.picks.values() if p.reason == "named"]
    grounding.tree = tree_entries(state, named, arguments)
    grounding.appended = appended_item(state, tool, tools, arguments, named)
    for pointer in named_beside(tool, grounding.searches, named):
        grounding.picks[pointer].beside = True
    evident = [
        (p.pointer, facts.collection)
        for p in grounding.picks.values()
        if p.evident and (facts := overlay.facts(p.pointer)) is not None
    ]
    for pointer in answer_itself(tool, grounding.searches, evident):
        grounding.picks[pointer].evident = False
    searched = (
        bool(grounding.searches) or grounding.join is not None or grounding.summary is not None
    )
    grounding.places = Neighbourhoods.of(overlay, grounding.values, grounding.picks, searched)
    return grounding


def _bounds(arguments: dict[str, Any]) -> set[str]:
    """The arguments bounding a range with a number or a time (``min_aperture=440``,
    ``after=2025-01-24``): they name no record, whatever is keyed 440 or by that time."""
    return {
        n
        for n, v in arguments.items()
        if magnitude(v) is not None and read_argument(n).op in ("min", "max")
    }

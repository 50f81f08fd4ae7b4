"""What of the world state the model sees in the prompt, within a hard budget.

A state that fits the budget is shown whole, once, in the anchor turn (see
:mod:`mcp_sim.prompting.native`); each later turn shows the changes committed since, and the
records of declared entities its arguments name.

A larger state (a shop with thousands of orders, a database export of megabytes) is shown as a
view that never exceeds the budget:

- a **skeleton** of the document: small values verbatim, each collection replaced by a
  placeholder, other large values by a note of what they hold;
- an **outline** of the collections (see :mod:`mcp_sim.runtime.state_shape`, found by shape
  when no ``entities`` are declared): pointer, size, ids, the shape of one record;
- the **records the call needs** (see :mod:`mcp_sim.prompting.grounding`: named by the
  arguments, matching them, linked from those, named by recent turns), in full with their JSON
  pointers, best first, while they fit; a record too large for the room left is shown with the
  parts the call is about in full and its other large parts outlined.

Each later turn of a large state shows the changes since the turn before and the records its
call needs, within :attr:`StateView.turn_budget_tokens`. When things do not fit, the view gives
up detail (outlines more), never the budget. Changes always apply to the whole document; the
view is only what is shown.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Sequence
from contextlib import nullcontext
from typing import Any

from jsonpointer import unescape

from mcp_sim.prompting.answer_names import AnswerNames, answer_names
from mcp_sim.prompting.answered_records import answered_records, searched_records
from mcp_sim.prompting.field_tables import FieldTables
from mcp_sim.prompting.grounding import Grounding, ground
from mcp_sim.prompting.key_names import key_names
from mcp_sim.prompting.member_context import member_context
from mcp_sim.prompting.mention_names import MentionNames
from mcp_sim.prompting.native import render_changes, render_state
from mcp_sim.prompting.record_fields import enumerations
from mcp_sim.prompting.record_parts import with_parts
from mcp_sim.prompting.record_render import collection_line, dumps
from mcp_sim.prompting.records_section import records_section
from mcp_sim.prompting.shown_records import MAX_NAMED, known_line
from mcp_sim.prompting.side_maps import labels_line, sides_of
from mcp_sim.prompting.skeleton import skeleton
from mcp_sim.prompting.table_warmup import TableWarmup
from mcp_sim.runtime.decoded_state import decoded_note
from mcp_sim.runtime.entities import EntityIndex, string_values
from mcp_sim.runtime.long_lived import keep_out_of_scans
from mcp_sim.runtime.state_index import StateIndex, StateOverlay
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_shape import within
from mcp_sim.runtime.stored_parts import keeps_stored_parts
from mcp_sim.spec.world import ToolSpec, World

SKELETON_LIMITS = (2000, 400, 80, 0)
"""Largest value (in JSON characters) kept verbatim in the skeleton, tried in order until the
skeleton and outline take at most half the budget: the view gives up detail before it gives
up the records the call needs."""
VIEW_HEADING = (
    "**Current World State** (too large to show whole: its collections are outlined, and the "
    "records this call needs are shown in full as they are now):"
)
LABELS_ROOM = 600
"""Characters at most for the labels of opaque field keys (see :mod:`mcp_sim.prompting.side_maps`)."""
REFERENCED_HEADING = "**Records this call refers to** (as they are now; JSON pointer: record):"


def _chars(budget_tokens: int) -> int:
    """The characters that :func:`~mcp_sim.prompting.native.estimate_tokens` counts as at
    most ``budget_tokens``."""
    return max(0, budget_tokens * 3 - 1)


class StateView:
    """Renders a world's state within a token budget."""

    def __init__(
        self,
        world: World,
        budget_tokens: int,
        turn_budget_tokens: int | None = None,
        *,
        warm: bool = True,
    ) -> None:
        """``warm``: whether a large world's tables are built in the background (see
        :mod:`mcp_sim.prompting.table_warmup`) rather than by the calls that first need them."""
        self.world = world
        self.warm = warm
        self.budget_tokens = budget_tokens
        self.turn_budget_tokens = turn_budget_tokens or max(1, budget_tokens // 2)
        self._index: StateIndex | None = None
        self.warmup: TableWarmup | None = None
        """Building a large world's tables in the background, from when its index is built."""

    @property
    def index(self) -> StateIndex:
        """The world's index, built on first use (once per world and view); a large world's
        tables are then built in the background (see :mod:`mcp_sim.prompting.table_warmup`)."""
        if self._index is None:
            self._index = StateIndex(self.world, self.world.state)
            if self.warm and keep_out_of_scans(self._index.size):
                self.warmup = TableWarmup.start(self.world, self._index)
        return self._index

    def overlay_for(self, state: Any, overlay: StateOverlay | None) -> StateOverlay:
        """``overlay`` if it describes ``state``, else one rebuilt for it (a state replaced
        outside the calls: restore, reset, a fork's copy)."""
        if overlay is not None and overlay.state is state:
            return overlay
        return self.index.overlay_of(state)

    def fits(self, overlay: StateOverlay) -> bool:
        """Whether the whole state fits the budget (then it is shown whole)."""
        if overlay.size // 3 + 1 > self.budget_tokens * 1.2:
            return False
        full = render_state(overlay.state)
        return len(full) <= _chars(self.budget_tokens)

    def render(
        self,
        state: dict[str, Any],
        index: EntityIndex | None,
        references: Iterable[str],
        *,
        tool: ToolSpec | None = None,
        arguments: dict[str, Any] | None = None,
        overlay: StateOverlay | None = None,
        answers: Sequence[str] = (),
        others: Sequence[str] = (),
    ) -> str:
        """The anchor's state section: the whole state if it fits, else a view holding the
        records the call needs (``references``: texts of recent turns naming records;
        ``answers``: the tool's earlier answers, which may show how it wraps a search's;
        ``others``: the other tools' earlier answers, which name fields too)."""
        overlay = self.overlay_for(state, overlay)
        if self.fits(overlay):
            return render_state(state)
        grounding = ground(
            overlay, overlay.view, tool, arguments or {}, references, answers, self.world.tools
        )
        names = answer_names(overlay, overlay.view, answers, tool, others)
        return self._view(overlay.view, overlay, grounding, names)

    def turn_section(
        self,
        state: dict[str, Any],
        index: EntityIndex | None,
        unseen: Sequence[dict[str, Any]] | None,
        arguments: dict[str, Any],
        references: Iterable[str],
        *,
        tool: ToolSpec | None = None,
        overlay: StateOverlay | None = None,
        known: Collection[str] = frozenset(),
        answers: Sequence[str] = (),
        others: Sequence[str] = (),
    ) -> str:
        """The state section of a turn: with ``unseen`` ``None``, the anchor (:meth:`render`);
        otherwise the changes ``unseen`` by the model so far and the records the call needs,
        those in ``known`` (shown whole by the history, see
        :mod:`mcp_sim.prompting.shown_records`) named instead of repeated."""
        # A background warm-up of the world's tables waits meanwhile (see
        # :mod:`mcp_sim.prompting.table_warmup`): the two would take turns at the GIL.
        with self.warmup.paused() if self.warmup is not None else nullcontext():
            if unseen is None:
                return self.render(
                    state,
                    index,
                    references,
                    tool=tool,
                    arguments=arguments,
                    overlay=overlay,
                    answers=answers,
                    others=others,
                )
            # A later turn's changes and records together fit the turn budget (the prompt's
            # bound counts it so), the changes in half of it at most.
            turn_room = _chars(self.turn_budget_tokens)
            changes = render_changes(unseen, turn_room // 2) if unseen else ""
            turn_room -= len(changes)
            parts = [changes] if changes else []
            overlay = self.overlay_for(state, overlay)
            if not self.fits(overlay):
                grounding = ground(
                    overlay, overlay.view, tool, arguments, answers=answers, tools=self.world.tools
                )
                shown = [pointer for pointer in grounding.picks if pointer in known][:MAX_NAMED]
                named = known_line(shown)
                # Records shown in an earlier turn are still relabelled: that turn shows
                # them under the state's names.
                picked = list(grounding.picks)
                for pointer in known:
                    grounding.picks.pop(pointer, None)
                room = turn_room - len(named)
                names = answer_names(overlay, overlay.view, answers, tool, others)
                records = self._records(overlay.view, grounding, room, names, picked, shown)
                parts += [records, named]
            elif self.world.entities:
                index = index if index is not None else EntityIndex.build(self.world, state)
                parts.append(referenced(index, string_values(arguments), turn_room))
            return "\n\n".join(part for part in parts if part)

    def _view(
        self,
        state: dict[str, Any],
        overlay: StateOverlay,
        grounding: Grounding,
        names: AnswerNames | None = None,
    ) -> str:
        budget = _chars(self.budget_tokens)
        outline = self._outline(state, overlay, budget // 4)
        # The smallest skeleton is walked without measuring a value; when even it overflows
        # (a top-level object of thousands of entries: a time series keyed by timestamp), the
        # larger ones are not built at all: each measures every entry, megabytes per call.
        # A skeleton longer than half the budget is given up as soon as it is (``None``).
        head = _head(skeleton(state, 0, overlay, budget // 2), outline)
        if head is not None and len(head) <= budget // 2:
            for limit in SKELETON_LIMITS:
                head = _head(skeleton(state, limit, overlay, budget // 2), outline)
                if head is not None and len(head) <= budget // 2:
                    break
        if head is None or len(head) > budget // 2:
            head = f"{VIEW_HEADING}\n{outline}"
        records = self._records(state, grounding, budget - len(head) - 1, names)
        return f"{head}\n{records}" if records else head

    def _outline(self, state: dict[str, Any], overlay: StateOverlay, room: int) -> str:
        lines = ["**Collections** (JSON pointer: what it holds):"]
        if overlay.base.encoding:
            lines.insert(0, decoded_note(overlay.base.encoding))
        if overlay.base.text:
            lines.insert(0, overlay.base.text.note())
        collections = overlay.base.collections
        for i, collection in enumerate(collections):
            value = _gathered(overlay, collection.pointer, collection.keys is not None, state)
            if not isinstance(value, dict | list):
                continue
            if isinstance(value, list) and (kind := collection.kind) is not None:
                value = [item for item in value if kind.holds(item)]
            line = collection_line(
                collection.pointer,
                value,
                collection.keyed,
                collection.id_field,
                collection.table,
                collection.inner,
                collection.pages,
                collection.kind,
                collection.members,
            )
            values = enumerations(FieldTables.of(overlay.base).schema(collection))
            if values:
                line += f"; fields of few values hold: {values}"
            rest = f"- … and {len(collections) - i} more collections"
            if sum(len(x) + 1 for x in lines) + len(line) + len(rest) + 2 > room:
                lines.append(rest)
                break
            lines.append(line)
        return "\n".join(lines)

    def _records(
        self,
        state: dict[str, Any],
        grounding: Grounding,
        room: int,
        answered: AnswerNames | None = None,
        picked: Sequence[str] | None = None,
        known: Collection[str] = frozenset(),
    ) -> str:
        """The records the call needs that fit in ``room`` characters (see
        :mod:`mcp_sim.prompting.records_section`), and those of them that the tool's answers
        name otherwise, relabelled (``answered``, see :mod:`mcp_sim.prompting.answer_names`;
        ``picked``: the records picked, those an earlier turn shows included; ``known``: those
        an earlier turn shows, named after the section)."""
        picks = with_parts(state, list(grounding.picks.values()))
        relabelled = _relabelled(state, grounding, room // 8, answered, picked)
        room -= len(relabelled) + 2 if relabelled else 0
        names = key_names(self.world, self.index)
        # An event log's entities are folded from its events: they come first.
        folded = grounding.events.render(room * 3 // 4) if grounding.events else ""
        inner = grounding.folded
        if inner is not None:
            found = records_section(
                inner.state,
                list(inner.picks.values()),
                inner.searches,
                room * 3 // 4 - len(folded) - 1,
                inner.summary,
                None,
                inner.join,
            )
            folded = "\n".join(part for part in (folded, found) if part)
        # Entries under a path, by their paths: an answer names each so, no record does.
        tree = grounding.tree.render(room // 3) if grounding.tree else ""
        appended = grounding.appended.render() if grounding.appended else ""
        folded = "\n".join(part for part in (folded, tree, appended) if part)
        room -= len(folded) + 2 if folded else 0
        # Records nested in large members: the members' own fields, which answers carry.
        filed = member_context(grounding.overlay, state, grounding.picks, room // 6)
        room -= len(filed) + 2 if filed else 0
        folded = "\n".join(part for part in (folded, filed) if part)
        # Opaque field keys are labelled once, after the records using them.
        sides = sides_of(self.index, (p.pointer for p in picks))
        labels_room = min(LABELS_ROOM, room // 10) if sides else 0
        after = (grounding.summary, names, grounding.join, _stored(grounding.overlay))
        mentions = MentionNames(grounding.overlay)

        def shown(within: int) -> str:
            left = within - labels_room
            rest = records_section(state, picks, grounding.searches, left, *after, mentions, known)
            labels = [labels_line(s, rest, labels_room // len(sides)) for s in sides]
            return "\n".join([rest, *filter(None, labels)]) if rest else rest

        # Where the call's values sit, beside the records or in room they make for it.
        earlier = [p for p in picked or () if p not in grounding.picks]
        places = grounding.places
        rest, found = places.beside(shown, state, room, earlier) if places else (shown(room), "")
        return "\n\n".join(part for part in (folded, rest, found, relabelled) if part)


def _relabelled(
    state: dict[str, Any],
    grounding: Grounding,
    room: int,
    answered: AnswerNames | None,
    picked: Sequence[str] | None,
) -> str:
    """The records the answer describes, under the names the answers give their fields."""
    if answered is None:
        return ""
    named = answered_records(grounding.picks if picked is None else picked, grounding.join)
    hits = searched_records(grounding.searches)
    return answered.render(grounding.overlay, state, named, room, hits)


def _stored(overlay: StateOverlay) -> Any:
    """The state as stored, where records are shown with parts of them as stored (see
    :mod:`mcp_sim.runtime.stored_parts`); else ``None``."""
    return overlay.state if keeps_stored_parts(overlay.base.encoding) else None


def referenced(index: EntityIndex, texts: Iterable[str], room: int) -> str:
    """The declared entities' records that ``texts`` (a call's arguments) name, as they are
    now, with their JSON pointers, within ``room`` characters; ``""`` when none."""
    room -= len(REFERENCED_HEADING)
    lines: list[str] = []
    for record in index.referenced(texts):
        line = f"- {record.pointer}: {dumps(record.record)}"
        room -= len(line) + 1
        if room < 0:
            break
        lines.append(line)
    return "\n".join([REFERENCED_HEADING, *lines]) if lines else ""


def _head(skeleton: Any | None, outline: str) -> str | None:
    if skeleton is None:
        return None
    text = json.dumps(skeleton, ensure_ascii=False, sort_keys=True, indent=1)
    return f"{VIEW_HEADING}\n```json\n{text}\n```\n{outline}"


def _gathered(overlay: StateOverlay, pointer: str, flat: bool, state: Any) -> Any:
    """The value at ``pointer`` in ``state``, kept once gathered from the starting state.
    A flat store's pattern (``flat``) is gathered from the start and moved on by the records
    changed since: gathering it anew scans every key of the store."""
    if state is not overlay.base.state and not flat:
        return resolve(state, pointer)
    cache = overlay.base.derived.setdefault("outlined", {})
    if pointer not in cache:
        cache[pointer] = resolve(overlay.base.state, pointer)
    if state is overlay.base.state:
        return cache[pointer]
    changed = [(p, f) for p, f in overlay.changed.items() if within(pointer, p)]
    if not changed:
        return cache[pointer]
    records = dict(cache[pointer])
    for at, facts in changed:
        key = unescape(at.rpartition("/")[2])
        if facts is None:
            records.pop(key, None)
        else:
            records[key] = resolve(state, at)
    return records

"""The section of a large state's view that shows the records a call needs, within its room.

Records are shown as ``- POINTER: {compact JSON}`` in the order :mod:`mcp_sim.prompting.grounding`
picked them. For a field-aware search the section says what the arguments were read as
(``author = "Ann Lee"; year ≥ 1990``), how many records meet every constraint, and which of
them are shown: every one when they fit, each compactly (its scalar fields and the sub-record
the arguments name, its other large parts outlined), sharing the room so that all of them are
shown before any record that meets only some constraints. What does not fit is named by
pointer while that fits; nothing is ever cut off silently.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from jsonpointer import unescape

from mcp_sim.prompting.aggregates import Summary
from mcp_sim.prompting.geo_labels import place_label
from mcp_sim.prompting.grounding import Pick
from mcp_sim.prompting.header_rows import HeaderRows, rows_line, table_of_row
from mcp_sim.prompting.item_data import with_item_data
from mcp_sim.prompting.key_names import key_label, kind_key
from mcp_sim.prompting.link_rows import LinkRows
from mcp_sim.prompting.markup_records import rendered_beside, rendered_record
from mcp_sim.prompting.markup_text import Names
from mcp_sim.prompting.movement_times import Steps
from mcp_sim.prompting.record_render import dumps, record_line
from mcp_sim.prompting.search_count import CountField
from mcp_sim.prompting.search_result import SearchResult
from mcp_sim.runtime.keyed_parts import flat_hash
from mcp_sim.runtime.state_keys import part_name
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.stored_parts import shown_record

RECORDS_HEADING = "**Records this call needs** (as they are now; JSON pointer: record):"
NOTE_ROOM = 400
"""Characters kept for the line that says how many records meet a search's constraints."""
_LEAST_SHARE = 160
_LEAST_LINE = 16
"""Characters a record's line takes beyond its pointer, at the least."""
MOST_MISSES = 4
"""Records in a row that do not fit, after which the others are named without being tried."""


def search_note(
    search: SearchResult, shown: list[str], room: int, earlier: Collection[str] = ()
) -> str:
    """The line saying what a search's arguments were read as, how many records meet them all,
    and which are shown (within ``room`` characters): below, or (``earlier``) in an earlier
    turn, named on the line of records the history shows (see
    :mod:`mcp_sim.prompting.shown_records`). A later turn of an episode often searches what an
    earlier one did (a user's orders): its matches are shown already, and naming them again
    as "not shown for room" would both repeat the pointers and say something false."""
    constraints = "; ".join(c.describe() for c in search.constraints)
    total = len(search.full)
    wanted = len(search.constraints)
    where = search.collection.pointer + (
        f" (its {search.nested} at any depth)" if search.nested else ""
    )
    head = f"- Search of {where} ({constraints}): "
    if search.join is not None:
        text = f"{head}{search.join.describe()}; {len(shown)} of them shown below."
        return text if len(text) <= room else text[: max(0, room - 1)] + "…"
    if total == 0:
        # The count (0) is the answer's, though no record holds it.
        body = f"no record meets all {wanted}" if wanted > 1 else "no record meets it"
        body += f" (a count of 0); {len(search.partial)} meet some (shown below while they fit)."
    elif len(shown) + len(earlier) == total:
        body = f"{total} record{'s' if total > 1 else ''} meet{'' if total > 1 else 's'} "
        body += f"{'all of them' if wanted > 1 else 'it'}, all shown below"
        body += " or in an earlier turn." if earlier else "."
    else:
        body = f"{total} record{'s' if total > 1 else ''} meet{'' if total > 1 else 's'} "
        body += f"{'all of them' if wanted > 1 else 'it'}; {len(shown)} "
        body += "shown below" + (f", {len(earlier)} in an earlier turn" if earlier else "")
        held = {*shown, *earlier}
        left = [p for p in search.full if p not in held]
        named = ""
        for pointer in left:
            candidate = f"{named}, {pointer}" if named else pointer
            if len(head) + len(body) + len(candidate) + 30 > room:
                break
            named = candidate
        if named:
            more = len(left) - named.count(", ") - 1
            body += f"; not shown for room: {named}" + (f" and {more} more" if more else "")
        body += "."
    paged = search.page.describe(total) if search.page is not None and total else ""
    body = f"{body[:-1]}; {paged}." if paged else body
    if search.count is not None:
        # The answer's count is of every record meeting them all, whatever a page shows.
        body = f"{_count_part(search.count, total)} {body}"
    text = head + body
    return text if len(text) <= room else text[: max(0, room - 1)] + "…"


def _count_part(count: CountField, total: int) -> str:
    """The answer's count (and, with none found, its empty list) under their names."""
    listed = f' and "{count.listed}": []' if count.listed is not None and not total else ""
    return f"(the answer's {count.entry(total)}{listed})"


def records_section(
    state: dict[str, Any],
    picks: list[Pick],
    searches: list[SearchResult],
    room: int,
    summary: Summary | None = None,
    key_names: dict[str, str] | None = None,
    join: LinkRows | Steps | None = None,
    stored: Any = None,
    names: Names | None = None,
    known: Collection[str] = frozenset(),
) -> str:
    """The ``summary`` (in at most half of ``room``), then the picked records that fit in
    ``room`` characters, best first, and a line naming those left out while that fits;
    ``key_names`` names the keys of records that do not hold theirs (see
    :mod:`mcp_sim.prompting.key_names`); ``stored``: the state as stored, when records
    are shown with their parts as stored (see :mod:`mcp_sim.runtime.stored_parts`);
    ``names``: the names of the records that ids in markup name (see
    :mod:`mcp_sim.prompting.markup_text`); ``known``: the records an earlier turn shows, which
    a search's note counts as shown (see :func:`search_note`)."""
    block = summary.render(room // 2) if summary is not None else ""
    if block:
        left = room - len(block) - 2
        rest = records_section(
            state, picks, searches, left, None, key_names, join, stored, names, known
        )
        return f"{block}\n\n{rest}" if rest else block
    # A join's rows are its answer's rows: they come first, then the other records.
    rows = join.render(state, room * 3 // 4 - len(RECORDS_HEADING), key_names or {}) if join else ""
    if rows:
        left = room - len(rows) - 1
        rest = records_section(
            state, picks, searches, left, None, key_names, None, stored, names, known
        )
        rest = rest.removeprefix(RECORDS_HEADING).lstrip("\n")
        return "\n".join(p for p in (RECORDS_HEADING, rows, rest) if p)
    return _Section(state, picks, searches, room, key_names or {}, stored, names, known).render()


class _Section:
    def __init__(
        self,
        state: dict[str, Any],
        picks: list[Pick],
        searches: list[SearchResult],
        room: int,
        key_names: dict[str, str],
        stored: Any = None,
        names: Names | None = None,
        known: Collection[str] = frozenset(),
    ) -> None:
        self.state, self.picks, self.searches, self.room = state, picks, searches, room
        self.known = known
        """The records an earlier turn shows, named on the line after this section."""
        self.stored, self.names = stored, names
        self.key_names = key_names
        self.lines: list[str] = []
        self.left = room - len(RECORDS_HEADING) - 1
        self.note_room = min(NOTE_ROOM, room // 4) // max(1, len(searches))
        self.left -= (self.note_room + 1) * len(searches)
        self.waiting = self.complete = sum(1 for p in picks if p.complete)
        self.shown: set[str] = set()
        self.missed: list[str] = []
        self.partial_heading = False
        self.misses = 0
        """Records in a row that did not fit."""
        self.trimmed: list[tuple[int, Pick, Any]] = []
        """Lines of records shown with large parts outlined, for the room left at the end."""
        self.alone = {s.full[0] for s in searches if len(s.full) == 1}
        self.flat = False
        """Whether a hash kept as a flat array is shown by its fields."""
        """Records that alone meet every constraint of their search."""
        self.tables: dict[str, HeaderRows] = {}
        """The rows shown of each table under a header row, on one line per table."""
        self.headed: dict[str, bool] = {}
        self.by_place = any(p.by_place for p in picks)
        """A call naming cells by place reads rows by position: they are shown so."""

    def render(self) -> str:
        for pick in self.picks:
            if self.left < len(pick.pointer) + _LEAST_LINE or self.misses >= MOST_MISSES:
                # Trying to fit a large record costs a walk of it per attempt: past a few
                # that did not fit, the rest are named, not tried.
                if not pick.complete:
                    self.missed.append(pick.pointer)
                continue
            if self.add_row(pick):
                continue
            record = resolve(self.state, pick.pointer)
            if self.stored is not None:
                record = shown_record(resolve(self.stored, pick.pointer), record)
            fields = flat_hash(unescape(pick.pointer.rpartition("/")[2]), record)
            if fields is not None:
                # A hash kept as [field, value, ...] is shown by its fields' names, as an
                # answer gives them; where its values are is said once.
                self.flat = True
                record = fields
            if record is not None:
                self.add(pick, record)
        self.widen()
        if self.missed:
            _name_missed(self.lines, self.missed, self.left)
        notes = [
            search_note(
                s,
                [p for p in s.full if p in self.shown],
                self.note_room,
                [p for p in s.full if p in self.known and p not in self.shown],
            )
            for s in self.searches
        ]
        lines = [*notes, *self.lines, *([FLAT_NOTE] if self.flat else [])]
        return "\n".join([RECORDS_HEADING, *lines]) if self.lines or notes else ""

    def add_row(self, pick: Pick) -> bool:
        """Shows ``pick`` on its table's line if it is a row under a header row (not one
        meeting only some of a search's constraints, which says how many); ``False`` if not."""
        if not self.by_place:
            return False
        rows_pointer = table_of_row(self.state, pick.pointer, self.headed)
        if rows_pointer is None or (pick.constraints and not pick.complete):
            return False
        rows = self.tables.get(rows_pointer) or HeaderRows(rows_pointer, len(self.lines))
        before = self.lines[rows.line] if rows_pointer in self.tables else ""
        rows.positions.append(int(pick.pointer.rpartition("/")[2]))
        line = rows_line(self.state, rows)
        if len(line) - len(before) + 1 > self.left:
            rows.positions.pop()
            self.misses += 1
            if not pick.complete:
                self.missed.append(pick.pointer)
            return True
        self.misses = 0
        if before:
            self.lines[rows.line] = line
        else:
            self.tables[rows_pointer] = rows
            self.lines.append(line)
        self.left -= len(line) - len(before) + (not before)
        if pick.complete:
            self.shown.add(pick.pointer)
        return True

    def widen(self) -> None:
        """Shows again, in the room the others left, the records a fair share of it trimmed
        (a fair share is set before the others' sizes are known), or that were too large to
        show whole, in the order picked: with the room, and their lists of records opened
        (see :func:`~mcp_sim.prompting.record_render.record_line`), which would otherwise
        crowd out the records after them."""
        for index, pick, record in self.trimmed:
            if self.left < _LEAST_SHARE:
                return
            shown = self.lines[index]
            line = self.line_of(pick, record, len(shown) + self.left, again=True)
            if line is not None and len(line) > len(shown):
                self.lines[index] = line
                self.left -= len(line) - len(shown)

    def focused(self, pick: Pick) -> bool:
        """Whether ``pick`` is shown around what matched (its other large parts outlined).
        The one record meeting every constraint (of the call, or of its search) is the
        answer's whole source (a lookup by a value held deep in it): shown whole where it
        fits, not around what matched."""
        only = pick.complete and (self.complete == 1 or pick.pointer in self.alone)
        return pick.reason in ("matched", "listed", "enclosing") and not only

    def line_of(
        self, pick: Pick, record: Any, room: int | None = None, again: bool = False
    ) -> str | None:
        focused = self.focused(pick)
        fit = self.left - 1 if room is None else room
        shared = not again and (
            pick.complete or ((pick.beside or pick.evident) and self.waiting > 0)
        )
        if shared:
            # Every record meeting all constraints gets a fair share of the room first, and a
            # record an argument names beside them (a hotel beside its reservations, one the
            # call's rarest value names) no more.
            fit = min(fit, max(_LEAST_SHARE, self.left // max(1, self.waiting + 1 - pick.complete)))
            self.waiting -= pick.complete
        scalars = pick.reason == "enclosing"
        label = key_label(
            pick.pointer, self.key_names, kind_key(pick.pointer, self.key_names, record)
        )
        place = place_label(record)
        fit -= len(label) + len(place)
        whole = fit if again else self.left - 1 - len(label) - len(place)
        # A record an item wraps beside its data (a series' samples) is shown in its item.
        at, shown, focus = with_item_data(self.state, pick.pointer, record, pick.focus)
        whole_fits = not (focused or scalars) and len(at) + len(dumps(shown)) + 4 <= fit
        shown, focus = self.rendered(shown, focus, whole_fits, fit - len(at))
        line = record_line(at, shown, focus, fit, focused=focused, scalars=scalars, opened=again)
        if line is None and shared and fit < whole:
            # More records meet every constraint than have a fair share of room: each is
            # shown as compactly as it can be (its focus and scalar fields), to show most.
            at = pick.pointer
            line = record_line(at, *self.rendered(record, pick.focus, False), whole, scalars=True)
        if line is None or fit <= 0:
            return None
        head = f"- {at}"
        return head + label + _part_label(pick.pointer, record) + place + line[len(head) :]

    def rendered(
        self, record: Any, focus: set[str], whole: bool, room: int = 0
    ) -> tuple[Any, set[str]]:
        """``record`` and its ``focus`` as shown: where it is not shown ``whole``, its texts
        in markup rendered and kept (a page's properties table, outlined with the rest of its
        body, would show none of the page's facts); shown whole, with their renderings
        beside them where those fit in ``room`` too."""
        if whole:
            beside = rendered_beside(record, self.names)
            fits = beside is not None and len(dumps(beside)) + 4 <= room
            return (beside, focus) if fits else (record, focus)
        found = rendered_record(record, self.names)
        return (record, focus) if found is None else (found[0], focus | found[1])

    def add(self, pick: Pick, record: Any) -> None:
        line = self.line_of(pick, record)
        self.misses = 0 if line is not None else self.misses + 1
        if line is None:
            if not pick.complete:
                self.missed.append(pick.pointer)
            return
        if pick.constraints and not pick.complete:
            if not self.partial_heading:
                heading = "- Records meeting some of the constraints (not all), most first:"
                if len(heading) + len(line) + 2 > self.left:
                    self.missed.append(pick.pointer)
                    return
                self.lines.append(heading)
                self.left -= len(heading) + 1
                self.partial_heading = True
            line = f"{line[:2]}(meets {pick.matched} of {pick.constraints}) {line[2:]}"
            if len(line) > self.left:
                self.missed.append(pick.pointer)
                return
        trimmed = " (large parts outlined)" in line and not self.focused(pick)
        if trimmed and (pick.complete or not pick.constraints):
            self.trimmed.append((len(self.lines), pick, record))
        self.lines.append(line)
        self.left -= len(line) + 1
        if pick.complete:
            self.shown.add(pick.pointer)


FLAT_NOTE = (
    "- (A record above whose key holds a flat [field, value, ...] array is shown by its "
    "fields; field N's value is at KEY/(2N+1).)"
)


def _part_label(pointer: str, record: Any) -> str:
    """`` "rides"`` after a flat store's ``/rider:42:rides`` holding a list or a value: the
    part of rider 42 it is, named as an answer gathering the rider's keys names it; so too
    after a member's score in a sorted set (``/rank:boat:length_m/BT-7``: ``"length_m"``)."""
    if isinstance(record, dict):
        return ""
    *_, key, member = ["", *pointer.split("/")]
    part = part_name(unescape(member))
    if part is None and not isinstance(record, list):
        part = part_name(unescape(key))
    return f', "{part}"' if part else ""


def _name_missed(lines: list[str], missed: list[str], left: int) -> None:
    named: list[str] = []
    for pointer in missed:
        candidate = f"- not shown for room: {', '.join([*named, pointer])}"
        if len(candidate) + 1 > left:
            break
        named.append(pointer)
    if named:
        lines.append(f"- not shown for room: {', '.join(named)}")

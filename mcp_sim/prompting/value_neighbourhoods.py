"""Where a call's values sit in the state, shown raw, when the records picked miss them.

The readers (field-aware searches, key lookups, links) know the structures someone wrote one
for; on a structure none knows, a call's values may sit where no pick reaches: in a link
record stored apart, a side table keyed by the record's id, a fragment of a record filed
elsewhere. This view needs no reader. For each of the call's values that few records hold
(see :mod:`mcp_sim.prompting.rare_values`), rarest first, it shows each place the state holds
it with its **neighbourhood**: the object around the value, widened to its parent while that
is small, so the value's siblings come with it (a record's other fields, an entry's other
keys), grouped by where the places sit (their path with positions and keys as ``*``). Then
**one hop**: the identifier-like values of those objects (short scalars few other records
hold: an internal id, a foreign key, a hash) are followed once, to the records holding them
or keyed by them. What does not fit is counted.

It is decided from the picks and the occurrences, never from names: the view is **short**
for a call when none of the records picked holds the call's rarest value (then the view
takes a share of the room, see :data:`SHARE`); otherwise it shows only places outside the
records shown, in the room the records left unused (up to ``1 / LEFTOVER_SHARE`` of all), so
it never takes the room of records a reader found.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from jsonpointer import unescape

from mcp_sim.prompting.record_render import record_line, size
from mcp_sim.runtime.state_index import StateOverlay
from mcp_sim.runtime.state_paths import nested, resolve
from mcp_sim.runtime.state_shape import normalize

MOST_PLACES = 12
"""A value held by more records than this is a search's criterion, not a name of a place."""
HOP_MOST = 3
"""An identifier-like value held by at most this many other records is followed to them."""
HOPS_PER_PLACE = 4
"""Values followed from one place at most (an object's first ids: its own and its links)."""
SMALL = 240
"""An object around a value shorter than this (in JSON characters) is widened to its parent,
whose other parts are the value's siblings."""
RECORD_SIZED = 4000
"""A record up to this long (JSON characters) is the neighbourhood of each value it holds,
shown around where the value sits (its other large parts outlined)."""
SHARE = 3
"""A short call's view takes at most ``1 / SHARE`` of the room from the records."""
UNPICKED_SHARE = 4
"""Beside records holding the rarest value, places of it that no reader picked take at most
``1 / UNPICKED_SHARE`` of the room."""
LEFTOVER_SHARE = 2
"""Beside records that hold the call's values, the view takes at most ``1 / LEFTOVER_SHARE``
of the room, even where the records left more unused."""
LEAST_ROOM = 300
"""Room (characters) below which no place is shown."""
HEADING = (
    "**Where this call's values sit in the state** (each place with the object around it, "
    "rarest value first, then the records its ids lead to; JSON pointer: object):"
)
_ID_CHARS = 80
_TIME = re.compile(r"\d{4}-\d\d-\d\d")
"""A date or a time: many records share one, and it names none of them."""


@dataclass(frozen=True)
class Place:
    """A record holding a value, and where inside it (relative pointer, ``""``: its key)."""

    record: str
    inner: str


@dataclass
class Neighbourhoods:
    """The places of a call's rare values, rarest first, and whether the picks miss them."""

    overlay: StateOverlay
    places: list[tuple[str, list[Place]]] = field(default_factory=list)
    """Each value (normalized), rarest first, with the places holding it."""
    picked: set[str] = field(default_factory=set)
    """The records the readers picked, whether or not the view shows them."""
    searched: bool = False
    """Whether the readers searched, joined or summarized for the call."""
    short: bool = False
    """Whether no record shown holds the call's rarest value (see the module docstring)."""

    @classmethod
    def of(
        cls, overlay: StateOverlay, values: Iterable[str], picked: Iterable[str], searched: bool
    ) -> Neighbourhoods | None:
        """The places of ``values`` (the call's values some record holds) that few records
        hold; ``None`` when there are none. ``picked``: the records the readers picked;
        ``searched``: whether they searched, joined or summarized for the call."""
        found = cls(overlay, picked=set(picked), searched=searched)
        for value in sorted(dict.fromkeys(values), key=overlay.holders):
            if overlay.holders(value) > MOST_PLACES:
                break
            places = places_of(overlay, value)
            if places:
                found.places.append((value, places))
        if not found.places:
            return None
        return found

    def beside(
        self, records: Callable[[int], str], state: Any, room: int, known: Sequence[str] = ()
    ) -> tuple[str, str]:
        """The records section (``records(room)``) and this view beside it, together within
        ``room``: when the records shown miss the call's rarest value (the view is *short*),
        this view takes up to ``1 / SHARE`` of the room and the records the rest; otherwise
        it shows the places outside them in the room they leave. ``known``: records an
        earlier turn shows."""
        shown = records(room)
        seen = "".join(f"\n- {p}:" for p in known)
        value, rarest = self.places[0]
        covered = {*_shown_pointers(shown + seen)}
        held = value in shown.casefold() or any(_covered(p.record, covered) for p in rarest)
        self.short = not held
        # Places of the rarest value no reader picked (a link record stored apart, a side
        # table's row): they take a smaller share beside records that hold it.
        unpicked = [p for p in rarest if not _covered(p.record, covered | self.picked)]
        # A call the readers searched (its arguments read as constraints on fields), joined
        # or summarized is theirs: its records keep their room.
        if self.searched or (not self.short and not unpicked):
            # At most a share of the room even so: a prompt grown by all the room left
            # unused makes the history compact at other turns, and later views change.
            left = min(room - len(shown) - 2, room // LEFTOVER_SHARE)
            return shown, self.render(state, left, shown + seen)
        found = self.render(state, room // (SHARE if self.short else UNPICKED_SHARE), seen)
        return (records(room - len(found) - 2), found) if found else (shown, "")

    def render(self, state: Any, room: int, shown: str = "") -> str:
        """The places not among the records ``shown`` (their section's text), each with its
        neighbourhood, then the records one hop away, within ``room`` characters; ``""``
        when none fits."""
        room -= len(HEADING) + 1
        if room < LEAST_ROOM:
            return ""
        seen = {*_shown_pointers(shown)}
        lines: list[str] = []
        left = 0
        for value, places in self.places:
            open_places = [p for p in places if not _covered(p.record, seen)]
            for pattern, group in _by_pattern(self.overlay, open_places):
                head = f"{_quoted(value)}, {len(group)} place{'s' * (len(group) > 1)} at {pattern}:"
                if len(head) + 1 > room:
                    left += len(group)
                    continue
                shown_any = False
                for place in group:
                    block = self._place(state, place, value, room - len(head) - 1, seen)
                    if not block:
                        left += 1
                        continue
                    if not shown_any:
                        lines.append(head)
                        room -= len(head) + 1
                        shown_any = True
                    lines += block
                    room -= sum(len(line) + 1 for line in block)
        if not lines:
            return ""
        if left:
            lines.append(f"({left} more place{'s' * (left > 1)} not shown for room)")
        return "\n".join([HEADING, *lines])

    def _place(self, state: Any, place: Place, value: str, room: int, seen: set[str]) -> list[str]:
        """The lines of one place: its neighbourhood, then the records its ids lead to."""
        pointer, around = neighbourhood(state, place)
        if around is None or pointer in seen:
            return []
        inner = place.inner[len(pointer) - len(place.record) :] if place.inner else ""
        line = record_line(pointer, around, {inner} if inner else set(), room, focused=True)
        if line is None:
            return []
        seen.add(pointer)
        lines = [line]
        room -= len(line) + 1
        for label, target in self._hops(around, place.record, value, seen):
            record = resolve(state, target)
            lead = f"  leads by {_quoted(label)} to:"
            hop = record_line(target, record, set(), room - len(lead) - 1, focused=True)
            if record is None or hop is None:
                continue
            seen.add(target)
            lines += [lead, hop]
            room -= len(lead) + len(hop) + 2
        return lines

    def _hops(self, around: Any, record: str, value: str, seen: set[str]) -> list[tuple[str, str]]:
        """The records one hop from ``around`` (inside ``record``): those holding or keyed
        by its identifier-like values, which few records hold."""
        hops: list[tuple[str, str]] = []
        # Its own value leads to the other places above; a time names no record.
        for label in (i for i in _identifiers(around) if i != value and not _TIME.match(i)):
            targets = [p.record for p in places_of(self.overlay, label, HOP_MOST + 1)]
            others = [t for t in targets if not nested(t, record) and not _covered(t, seen)]
            if others and len(targets) <= HOP_MOST + 1:
                hops += [(label, t) for t in others[:HOP_MOST]]
            if len(hops) >= HOPS_PER_PLACE:
                break
        return hops[:HOPS_PER_PLACE]


def places_of(overlay: StateOverlay, value: str, most: int = MOST_PLACES) -> list[Place]:
    """The records holding ``value`` or keyed by it, with where (none past ``most``)."""
    if overlay.holders(value) > most:
        return []
    found = {hit.pointer: Place(hit.pointer, hit.inner) for hit in overlay.key_hits(value)}
    for pointer, inner in overlay.value_hits(value).items():
        found.setdefault(pointer, Place(pointer, inner))
    # An item of an array answers to its position: a number the call holds names no item.
    return [p for p in found.values() if not _positional(p, value)][: most + 1]


def _positional(place: Place, value: str) -> bool:
    """Whether ``place`` is a record found by its position in an array equal to ``value``."""
    return not place.inner and value.isdigit() and place.record.endswith(f"/{value}")


def neighbourhood(state: Any, place: Place) -> tuple[str, Any]:
    """The object around ``place``'s value and its pointer: its record, when at most
    :data:`RECORD_SIZED`; else the value's parent, widened to its own parent while smaller
    than :data:`SMALL`."""
    record = resolve(state, place.record)
    if record is None or size(record) <= RECORD_SIZED:
        return place.record, record
    parts = place.inner.split("/")[1:] if place.inner else []
    depth = max(0, len(parts) - 1)
    pointer = place.record + "".join(f"/{p}" for p in parts[:depth])
    around = resolve(state, pointer)
    while depth > 0 and (not isinstance(around, dict | list) or size(around) < SMALL):
        depth -= 1
        pointer = place.record + "".join(f"/{p}" for p in parts[:depth])
        around = resolve(state, pointer)
    return pointer, around


def _identifiers(value: Any) -> list[str]:
    """The identifier-like scalars of ``value`` at any depth (normalized), in order: short
    strings without spaces and whole numbers of several digits."""
    found: dict[str, None] = {}

    def walk(item: Any, depth: int) -> None:
        if depth > 6 or len(found) > 64:
            return
        if isinstance(item, dict):
            for child in item.values():
                walk(child, depth + 1)
        elif isinstance(item, list):
            for child in item[:32]:
                walk(child, depth + 1)
        elif isinstance(item, str) and 4 <= len(item) <= _ID_CHARS and " " not in item.strip():
            label = normalize(item)
            if label is not None:
                found[label] = None
        elif isinstance(item, int) and not isinstance(item, bool) and abs(item) >= 1000:
            found[str(item)] = None

    walk(value, 0)
    return list(found)


def _by_pattern(overlay: StateOverlay, places: list[Place]) -> list[tuple[str, list[Place]]]:
    """``places`` grouped by their path pattern, in order of first appearance."""
    groups: dict[str, list[Place]] = {}
    for place in places:
        groups.setdefault(_pattern(overlay, place), []).append(place)
    return list(groups.items())


def _pattern(overlay: StateOverlay, place: Place) -> str:
    """Where ``place`` sits, its record's key and every position written ``*``."""
    collection = overlay.base.collection_pointer(place.record)
    below = place.record[len(collection) :] if collection else place.record
    parts = [unescape(p) for p in (below + place.inner).split("/")[1:]]
    head = collection + ("/*" if collection and parts else "")
    rest = ["*" if p.isdigit() else p for p in parts[1:]] if collection else parts
    return head + "".join(f"/{p}" for p in rest) or "/"


def _covered(pointer: str, seen: set[str]) -> bool:
    return any(nested(pointer, shown) for shown in seen)


def _shown_pointers(text: str) -> list[str]:
    """The pointers of the records a section's text shows (its ``- POINTER: ...`` lines)."""
    found: list[str] = []
    for line in text.splitlines():
        if line.startswith("- /"):
            found.append(line[2:].split(":", 1)[0].split(" (", 1)[0])
    return found


def _quoted(value: str) -> str:
    return '"' + (value if len(value) <= 60 else value[:57] + "…") + '"'

"""Joins: two-leg trips from A to B that meet in between, and records that refer to the
records a search found.

A search such as ``from=A, to=B, date=D`` over flights (or ``sender=A, receiver=B`` over
transfers) may have no record meeting both ends: the answer is then made of two records, one
leaving A and one reaching B, that meet at a value in between (a connecting airport). Two
equality constraints on two different fields whose values are of one domain (the same
airports appear as origins and as destinations) are such ends; the legs are the records
meeting the first end (and the other constraints) whose far end is a value that some record
meeting the second end starts from, and those records.

A call may ask for records of another collection than the one its arguments select: a
depot's drivers, when drivers name the vehicle they drive and vehicles name their depot. The
records of the collection the tool names whose field holds the keys of the records found are
then searched too (:func:`referring_reading`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from mcp_sim.prompting.constraints import Constraint, Reading
from mcp_sim.prompting.field_names import side_of
from mcp_sim.prompting.named_counts import named_rows
from mcp_sim.prompting.record_fields import SELF, FieldSchema
from mcp_sim.runtime.state_index import StateOverlay
from mcp_sim.runtime.state_shape import normalize

MOST_LEGS = 60
"""Records of each leg kept (the view shows those that fit)."""
FEW_DIRECT = 5
"""A search with fewer records meeting every constraint than this also shows two-leg trips
(after them): a one-stop search has its direct flights too, and they are seldom its answer."""
LEGS_PER_MIDDLE = 4
"""Records of each leg kept per middle value: every way through is shown before many
records of one."""
_TIME = re.compile(r"\d{1,4}[-:]\d")
"""A time of day or a date, as text (``09:30:00``, ``2025-05-07T10:00``)."""
Values = Callable[[str, list[str]], list[tuple[str, list[Any]]]]
"""``(field path, pointers)`` → ``(pointer, values there)`` for those records as they are now."""


@dataclass
class TwoHop:
    """A two-leg answer: records from one end (``first``), records into the other
    (``second``), meeting at ``middle`` values (an airport, a person)."""

    first: Constraint
    second: Constraint
    middle: list[str]
    records: list[str]
    """Both legs' records meeting the other constraints, each first leg followed by the
    second legs it meets (see :func:`_paired`)."""
    direct: int = 0
    """Records that meet every constraint alone (shown before the legs)."""
    timed: str = ""
    """When the legs connect only in time order: ``"B after A"`` (a second leg's start field
    after the first leg's end field)."""

    def describe(self) -> str:
        via = ", ".join(self.middle[:12]) + (" …" if len(self.middle) > 12 else "")
        alone = (
            f"{self.direct} record{'s' if self.direct > 1 else ''} meet{'' if self.direct > 1 else 's'} all of them; "
            if self.direct
            else "no record meets all of them; "
        )
        legs = len(self.records) - self.direct
        when = f" ({self.timed})" if self.timed else ""
        return (
            f"{alone}{legs} {'more ' if self.direct else ''}records make two legs, "
            f"{self.first.describe()} then {self.second.describe()}{when}, meeting at {via}"
        )


def _ends(schema: FieldSchema, reading: Reading) -> tuple[int, int] | None:
    """The two constraints that name the ends: equalities on two single fields of one
    domain (their values overlap)."""
    single = [
        i
        for i, c in enumerate(reading.constraints)
        if c.op == "eq" and len(c.fields) == 1 and not isinstance(c.value, list)
    ]
    for i in single:
        for j in single:
            a, b = reading.constraints[i].fields[0], reading.constraints[j].fields[0]
            if i >= j or a == b:
                continue
            left, right = schema.fields[a].distinct, schema.fields[b].distinct
            if left and right and len(left & right) * 2 >= min(len(left), len(right)):
                return i, j
    return None


def _timing(schema: FieldSchema, ends: tuple[str, ...]) -> tuple[str, str] | None:
    """``(start field, end field)``: the fields of times or dates on the start side
    (``departure_time``) and on the end side (``arrival_time``) of a record, when it has
    exactly one of each; a second leg must start after the first ends."""
    found: dict[int, list[str]] = {0: [], 1: []}
    for path, info in schema.fields.items():
        if path in ends or not info.distinct or not all(map(_TIME.match, info.distinct)):
            continue
        side = side_of(tuple(w for segment in info.words for w in segment))
        if side is not None:
            found[side].append(path)
    if len(found[0]) == 1 and len(found[1]) == 1:
        return found[0][0], found[1][0]
    return None


def two_hop(
    values: Values,
    schema: FieldSchema,
    reading: Reading,
    hits: list[set[str]],
    order: list[str],
    direct: list[str] = [],  # noqa: B006 (never changed)
) -> TwoHop | None:
    """The two legs of a search, or ``None`` when its constraints name no two ends
    (``hits``: the records meeting each constraint; ``order``: document order; ``direct``:
    the records that meet every constraint alone, listed first)."""
    ends = _ends(schema, reading)
    if ends is None:
        return None
    i, j = ends
    first, second = reading.constraints[i], reading.constraints[j]
    others = [h for k, h in enumerate(hits) if k not in (i, j)]
    alone = set(direct)

    def leg(start: set[str]) -> list[str]:
        kept = [p for p in order if p in start and p not in alone and all(p in h for h in others)]
        return kept or [p for p in order if p in start and p not in alone]

    leaving, arriving = leg(hits[i]), leg(hits[j])
    far = {p: _labels(v) for p, v in values(second.fields[0], leaving)}
    near = {p: _labels(v) for p, v in values(first.fields[0], arriving)}
    middle = set().union(*far.values()) & set().union(*near.values()) if far and near else set()
    if not middle:
        return None
    timing = _timing(schema, (first.fields[0], second.fields[0]))
    connects = _connects(values, timing, leaving, arriving)
    records = _paired(leaving, far, arriving, near, middle, connects)
    timed = f"{timing[0]} after the first leg's {timing[1]}" if timing else ""
    return TwoHop(first, second, sorted(middle), [*direct, *records], len(direct), timed)


Connects = Callable[[str, str], bool]


def _connects(
    values: Values, timing: tuple[str, str] | None, leaving: list[str], arriving: list[str]
) -> Connects:
    """Whether a second leg can follow a first: it starts after the first ends (when the
    records have times for both), else always."""
    if timing is None:
        return lambda first, second: True
    ends = {p: str(v[0]) for p, v in values(timing[1], leaving) if v}
    starts = {p: str(v[0]) for p, v in values(timing[0], arriving) if v}

    def connects(first: str, second: str) -> bool:
        end, start = ends.get(first), starts.get(second)
        return end is None or start is None or len(end) != len(start) or start > end

    return connects


def _paired(
    leaving: list[str],
    far: dict[str, set[str]],
    arriving: list[str],
    near: dict[str, set[str]],
    middle: set[str],
    connects: Connects,
) -> list[str]:
    """Both legs' records as a nested-loop join lists trips: each first leg in document order,
    followed by the second legs it meets (in document order, those that ``connects`` allows),
    so that a view with room for a few shows the first whole trips; each middle value keeps at
    most :data:`LEGS_PER_MIDDLE` records of each leg, so every way through shows before many
    of one."""
    records: dict[str, None] = {}
    firsts: dict[str, int] = {}
    seconds: dict[str, int] = {}
    for first in leaving:
        vias = sorted(far.get(first, set()) & middle)
        if not vias or all(firsts.get(v, 0) >= LEGS_PER_MIDDLE for v in vias):
            continue
        followers = [s for s in arriving if near.get(s, set()) & set(vias) and connects(first, s)]
        if not followers:
            continue
        records[first] = None
        for via in vias:
            firsts[via] = firsts.get(via, 0) + 1
        for second in followers:
            via = min(near[second] & set(vias))
            if second not in records and seconds.get(via, 0) < LEGS_PER_MIDDLE:
                records[second] = None
                seconds[via] = seconds.get(via, 0) + 1
    return list(records)[: MOST_LEGS * 2]


def _labels(values: list[Any]) -> set[str]:
    return {label for label in map(normalize, values) if label is not None}


MOST_REFERRED = 400
"""Keys of found records a referring search tests (the first ones, in document order)."""


def referring_reading(schema: FieldSchema, found: str, keys: list[str]) -> Reading | None:
    """The search for ``schema``'s records whose field holds one of ``keys`` (those of the
    records of ``found`` a search found): the field whose values hold most of them, or
    ``None`` when none holds any."""
    labels = {label for label in map(normalize, keys) if label is not None}
    best, field = 0, ""
    for path, info in schema.fields.items():
        shared = len(info.distinct & labels)
        if path != SELF and shared > best:
            best, field = shared, path
    if not field:
        return None
    value = keys[:MOST_REFERRED]
    constraint = Constraint(f"keys of {found}", "eq", value, (field,), 0.0)
    return Reading(schema.collection, (constraint,), 1.0)


def named_records(overlay: StateOverlay, outers: Iterable[str], collection: str) -> set[str]:
    """The records of ``collection`` whose keys the records at ``outers`` hold anywhere
    inside them (a journal entry's postings name their accounts)."""
    return {t for _, named in named_rows(overlay, outers, collection) for t in named}

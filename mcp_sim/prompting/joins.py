"""Two-hop searches: when no record goes from A to B, the legs that meet in between.

A search such as ``from=A, to=B, date=D`` over flights (or ``sender=A, receiver=B`` over
transfers) may have no record meeting both ends: the answer is then made of two records, one
leaving A and one reaching B, that meet at a value in between (a connecting airport). Two
equality constraints on two different fields whose values are of one domain (the same
airports appear as origins and as destinations) are such ends; the legs are the records
meeting the first end (and the other constraints) whose far end is a value that some record
meeting the second end starts from, and those records.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mcp_sim.prompting.constraints import Constraint, Reading
from mcp_sim.prompting.record_fields import FieldSchema
from mcp_sim.runtime.state_shape import normalize

MOST_LEGS = 60
"""Records of each leg kept (the view shows those that fit)."""
LEGS_PER_MIDDLE = 4
"""Records of each leg kept per middle value: every way through is shown before many
records of one."""
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
    """Both legs' records meeting the other constraints, grouped by the middle value they
    meet at (the first leg's records, then the second's)."""

    def describe(self) -> str:
        via = ", ".join(self.middle[:12]) + (" …" if len(self.middle) > 12 else "")
        return (
            f"no record meets all of them; {len(self.records)} records make two legs, "
            f"{self.first.describe()} then {self.second.describe()}, meeting at {via}"
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


def two_hop(
    values: Values, schema: FieldSchema, reading: Reading, hits: list[set[str]], order: list[str]
) -> TwoHop | None:
    """The two legs of a search no record answers alone, or ``None`` when its constraints
    name no two ends (``hits``: the records meeting each constraint; ``order``: document
    order)."""
    ends = _ends(schema, reading)
    if ends is None:
        return None
    i, j = ends
    first, second = reading.constraints[i], reading.constraints[j]
    others = [h for k, h in enumerate(hits) if k not in (i, j)]

    def leg(start: set[str]) -> list[str]:
        kept = [p for p in order if p in start and all(p in h for h in others)]
        return kept or [p for p in order if p in start]

    leaving, arriving = leg(hits[i]), leg(hits[j])
    far = {p: _labels(v) for p, v in values(second.fields[0], leaving)}
    near = {p: _labels(v) for p, v in values(first.fields[0], arriving)}
    middle = set().union(*far.values()) & set().union(*near.values()) if far and near else set()
    if not middle:
        return None
    return TwoHop(first, second, sorted(middle), _paired(leaving, far, arriving, near, middle))


def _paired(
    leaving: list[str],
    far: dict[str, set[str]],
    arriving: list[str],
    near: dict[str, set[str]],
    middle: set[str],
) -> list[str]:
    """Both legs' records, those meeting at one middle value next to each other (the first
    leg's, then the second's), so that a view with room for a few shows whole trips."""
    records: list[str] = []
    for via in sorted(middle):
        records += [p for p in leaving if via in far.get(p, ())][:LEGS_PER_MIDDLE]
        records += [p for p in arriving if via in near.get(p, ())][:LEGS_PER_MIDDLE]
    return list(dict.fromkeys(records))[: MOST_LEGS * 2]


def _labels(values: list[Any]) -> set[str]:
    return {label for label in map(normalize, values) if label is not None}

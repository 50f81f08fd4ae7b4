"""Searches over the entities of an event log: their projections (see
:mod:`mcp_sim.runtime.event_fold`) are the records a search tool answers from, though no
record of the state holds one (``find_accounts(branch, opened_from)`` over a log of events).

Each argument is read as a constraint by its name (:func:`~mcp_sim.prompting.field_names.
read_argument`: ``min_overdraft`` bounds ``overdraftLimit`` from below, ``opened_from`` the time
``openedAt``) and matched to the projection field its name fits best; a string equal to a
field's start meets it too (a name given by its start).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from mcp_sim.prompting.field_names import name_score, read_argument, tokens
from mcp_sim.runtime.event_fold import Projection, Projections

LEAST_FIT = 0.6
_SAMPLED = 300
"""Projections whose fields are read to learn what fields the entities have."""


@dataclass(frozen=True)
class EventConstraint:
    argument: str
    op: str
    value: Any
    field: str

    def describe(self) -> str:
        symbol = {"eq": "=", "ne": "≠", "min": "≥", "max": "≤"}.get(self.op, self.op)
        return f"{self.field} {symbol} {json.dumps(self.value, ensure_ascii=False)}"

    def met(self, fields: dict[str, Any]) -> bool:
        have = fields.get(self.field)
        if have is None:
            return False
        want = self.value
        if isinstance(want, bool) or isinstance(have, bool):
            return self.op == "eq" and have == want
        if isinstance(want, int | float) and isinstance(have, int | float):
            return _compare(self.op, float(have), float(want))
        if isinstance(want, str) and isinstance(have, str):
            return _matches(self.op, have, want)
        return False


def _compare(op: str, have: float, want: float) -> bool:
    return {
        "eq": have == want,
        "ne": have != want,
        "min": have >= want,
        "max": have <= want,
    }.get(op, False)


def _matches(op: str, have: str, want: str) -> bool:
    folded, wanted = have.casefold(), want.casefold()
    if op == "eq":
        return folded == wanted.strip() or folded.startswith(wanted)
    if op == "prefix":
        return folded.startswith(wanted)
    if op in ("contains", "text"):
        return wanted.strip() in folded
    if op == "ne":
        return folded != wanted.strip()
    if op == "min":
        return have >= want
    if op == "max":
        # A bound of a day holds that whole day's times.
        return have[: len(want)] <= want
    return False


def projection_fields(projections: Projections) -> dict[str, tuple[str, ...]]:
    """The fields the entities' projections have, each with its words."""
    names: dict[str, tuple[str, ...]] = {}
    for projection in list(projections.folded.values())[:_SAMPLED]:
        for name, value in projection.fields.items():
            if not isinstance(value, dict | list):
                # A nested value (a link's ``{"id": ...}``) is searched by the usual means.
                names.setdefault(name, tokens(name))
    return names


def read_constraints(
    projections: Projections, arguments: dict[str, Any]
) -> tuple[list[EventConstraint], int]:
    """The constraints the arguments put on the projections' fields, and how many arguments
    select something (control arguments such as ``limit`` left out)."""
    fields = projection_fields(projections)
    found: list[EventConstraint] = []
    selecting = 0
    for name, value in arguments.items():
        how = read_argument(name)
        if how.control or isinstance(value, dict | list) or value is None:
            continue
        selecting += 1
        scored = [(name_score(how.words, (words,)), f) for f, words in fields.items()]
        fits = [(s, f) for s, f in scored if s >= LEAST_FIT]
        if not fits:
            continue
        best = max(fits, key=lambda item: (item[0], _same_kind(projections, item[1], value)))
        found.append(EventConstraint(name, how.op, value, best[1]))
    return found, selecting


def _same_kind(projections: Projections, name: str, value: Any) -> bool:
    for projection in list(projections.folded.values())[:_SAMPLED]:
        have = projection.fields.get(name)
        if have is not None:
            return isinstance(have, str) == isinstance(value, str)
    return False


def search(projections: Projections, constraints: list[EventConstraint]) -> list[Projection]:
    """The entities meeting every constraint, in the log's order."""
    return [p for p in projections.folded.values() if all(c.met(p.fields) for c in constraints)]

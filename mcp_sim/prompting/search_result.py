"""What a field-aware search found in one collection: the records meeting every constraint,
those meeting some, and what the view needs to show them (the sub-records the constraints
name, the page asked for, the legs of a two-hop join, the answer's count field)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from mcp_sim.prompting.constraints import Constraint, Reading
from mcp_sim.prompting.field_tables import Places, value_test
from mcp_sim.prompting.joins import TwoHop
from mcp_sim.prompting.link_join import LinkJoin
from mcp_sim.prompting.record_fields import KEY, SELF, values_at
from mcp_sim.prompting.search_count import CountField
from mcp_sim.prompting.search_page import Page
from mcp_sim.runtime.state_shape import Collection


@dataclass
class SearchResult:
    """The records of one collection ranked by the constraints they meet."""

    collection: Collection
    reading: Reading
    full: list[str]
    """Records meeting every constraint, in document order (then, with a :attr:`join`, the
    records of its legs)."""
    partial: list[tuple[str, int]]
    """Records meeting some: ``(pointer, how many)``, most first."""
    join: TwoHop | None = None
    """When few records meet every constraint: two legs that meet in between (after them)."""
    nested: str | None = None
    """The kind of nested record searched (``members``), when not the collection's own."""
    places: Places | None = None
    """Where the unchanged records hold the values sought, when the search has it."""
    through: LinkJoin | None = None
    """When the records found are links to records of the collection the tool names (an
    owner's charters, for ``boats_of_owner``): each with the records it refers to."""
    page: Page | None = None
    """The page of :attr:`full` the call asks for (its records are put first)."""
    count: CountField | None = None
    """The answer's field for how many records meet every constraint (see
    :mod:`mcp_sim.prompting.search_count`), when the tool tells one."""
    focused: dict[str, frozenset[str]] = field(default_factory=dict, repr=False, compare=False)
    """Each record's :meth:`focus_of`, found once: a summary reads it for every record met,
    the picks again for those a view shows."""

    @property
    def meeting(self) -> list[str]:
        """The records meeting every constraint: :attr:`full` less a join's legs."""
        return self.full[: self.join.direct] if self.join is not None else self.full

    @property
    def constraints(self) -> tuple[Constraint, ...]:
        return self.reading.constraints

    def focus_of(self, pointer: str, record: Any) -> set[str]:
        """The sub-records of ``record`` holding the values the constraints name (a
        calendar's requested date, an order's matching item)."""
        known = self.focused.get(pointer)
        if known is None:
            known = self.focused[pointer] = frozenset(self._focus(pointer, record))
        return set(known)

    def _focus(self, pointer: str, record: Any) -> set[str]:
        found: set[str] = set()
        if self.nested is not None:
            return found
        for constraint in self.constraints:
            if constraint.op == "text":
                continue
            test = value_test(constraint)
            for path in constraint.fields:
                if path == SELF:
                    continue
                known = self.places.of(pointer, path, constraint) if self.places else None
                for inner in known if known is not None else _meeting(record, path, test):
                    # A matching map key focuses its entry (a warehouse's item).
                    found.add(inner if path.endswith(KEY) else sub_record(inner))
        found.discard("")
        return found


def _meeting(record: Any, path: str, test: Callable[[Any], bool]) -> Iterator[str]:
    """Where the values at ``path`` of ``record`` that meet ``test`` sit in it."""
    return (inner for inner, value in values_at(record, path) if test(value))


@lru_cache(maxsize=65_536)
def sub_record(inner: str) -> str:
    """The sub-record a value sits in: ``/dates/2024-05-01/prices/economy`` →
    ``/dates/2024-05-01``, ``/units/3/units/0/code`` → ``/units/3/units/0`` (the nearest
    enclosing entry of an array or a map keyed by id or date); a value in plain objects
    (``/node/city``) focuses itself, and one on the record itself (``/email``) nothing."""
    parts = inner.split("/")[:-1]
    while len(parts) > 2 and not any(c.isdigit() for c in parts[-1]):
        parts.pop()
    if len(parts) == 2 and not any(c.isdigit() for c in parts[1]):
        # In plain objects (``/node/details/genre`` of a paged list's record): the value
        # itself, not a wrapper that may hold the whole record and its calendar.
        return inner
    return "/".join(parts) if len(parts) > 1 else ""

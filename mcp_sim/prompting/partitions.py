"""Collections that are partitions of one: a collection's records kept in one array per
period or shard, as exports of logs, bookings and transactions are written one file per month
(``/stays/2025/01``, ``/stays/month=2025-02``, ``/events/2025-03.json``, ``/rows/part-00007``).

Each partition is a collection of its own in the outline; a call about the records (a
guest's stays, the rooms those stays refer to) is about those of every partition. Two
collections are partitions of one when their pointers differ only in the numbers their parts
hold and their records are filed alike (the same id field, the same kind of container).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol, TypeVar

from mcp_sim.prompting.constraints import Reading
from mcp_sim.runtime.state_shape import Collection

_NUMBER = re.compile(r"\d+")
MOST_PARTITIONS = 64
"""Partitions a call reads: more is an archive, not a collection split for size."""


def partition_pattern(pointer: str) -> str:
    """A collection's pointer with each number replaced (``/stays/#/#``)."""
    return _NUMBER.sub("#", pointer)


def _alike(one: Collection, other: Collection) -> bool:
    return (
        one.keyed == other.keyed
        and one.id_field == other.id_field
        and one.inner == other.inner
        and one.pages == other.pages
        and (one.kind is None) == (other.kind is None)
        and one.table is None
        and other.table is None
    )


def partitions(collections: Iterable[Collection], collection: Collection) -> list[Collection]:
    """The other partitions of the collection ``collection`` is one of, in the state's order
    (none when its pointer holds no number, or when there are more than
    :data:`MOST_PARTITIONS`)."""
    pattern = partition_pattern(collection.pointer)
    if pattern == collection.pointer:
        return []
    found = [
        c
        for c in collections
        if c.pointer != collection.pointer
        and partition_pattern(c.pointer) == pattern
        and _alike(c, collection)
    ]
    return found if len(found) < MOST_PARTITIONS else []


class Searched(Protocol):
    """A search run over one collection."""

    @property
    def collection(self) -> Collection: ...
    @property
    def reading(self) -> Reading: ...
    @property
    def nested(self) -> str | None: ...
    @property
    def full(self) -> list[str]: ...


S = TypeVar("S", bound=Searched)


def searched_partitions(
    collections: Sequence[Collection], results: Sequence[S], run: Callable[[Collection, Reading], S]
) -> list[S]:
    """The searches ``results`` ran, run over the other partitions of their collections not
    searched yet, those finding records: a guest's stays filed one array a month are all
    the guest's stays."""
    searched = {r.collection.pointer for r in results}
    found: list[S] = []
    for result in results if len(results) < MOST_PARTITIONS else ():
        if result.nested is not None:
            continue
        for part in partitions(collections, result.collection):
            if part.pointer not in searched:
                searched.add(part.pointer)
                reading = result.reading
                more = run(part, Reading(part.pointer, reading.constraints, reading.score))
                found += [more] if more.full else []
    return found

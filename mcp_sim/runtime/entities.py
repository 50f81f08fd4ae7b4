"""Where the records of the declared ``entities`` live in a state document.

An entity collection is a JSON pointer to either an array of records or an object mapping ids to
records; each record of an array carries its id in the entity's id field, and a record of an
object is known by its key when it does not. ``EntityIndex`` finds every record
of every entity once per state version, so the state checks, the consistency auditor, the id
allocator and the large-world view all agree on what exists and where.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from jsonpointer import JsonPointer, escape

from mcp_sim.spec.world import World

_MISSING = object()
_TOKEN = re.compile(r"[A-Za-z0-9_@.+-]+")


@dataclass(frozen=True)
class EntityRecord:
    entity: str
    id: str
    pointer: str
    """Where the record sits in the state, e.g. ``/orders/41``."""
    record: dict[str, Any]


class EntityIndex:
    """Every record of every declared entity in one state document, by entity and id."""

    def __init__(self, records: dict[str, dict[str, EntityRecord]]) -> None:
        self._records = records

    @classmethod
    def build(cls, world: World, state: dict[str, Any]) -> EntityIndex:
        records: dict[str, dict[str, EntityRecord]] = {}
        for name, spec in world.entities.items():
            found: dict[str, EntityRecord] = {}
            collection = JsonPointer(spec.collection).resolve(state, _MISSING)
            if isinstance(collection, list):
                places: Iterable[tuple[str, Any, Any]] = (
                    (f"{spec.collection}/{i}", None, r) for i, r in enumerate(collection)
                )
            elif isinstance(collection, dict):
                places = ((f"{spec.collection}/{escape(k)}", k, r) for k, r in collection.items())
            else:
                places = ()
            for pointer, key, record in places:
                if not isinstance(record, dict):
                    continue
                # A record keyed by its id need not repeat it (a database exported as JSON
                # objects rarely does): its key is then its id.
                record_id = record.get(spec.id, key)
                if record_id is not None:
                    found[str(record_id)] = EntityRecord(name, str(record_id), pointer, record)
            records[name] = found
        return cls(records)

    def ids(self, entity: str) -> set[str]:
        return set(self._records.get(entity, {}))

    def get(self, entity: str, record_id: str) -> EntityRecord | None:
        return self._records.get(entity, {}).get(record_id)

    def records(self, entity: str) -> list[EntityRecord]:
        """The records of ``entity`` in document order."""
        return list(self._records.get(entity, {}).values())

    def sample(self, entity: str) -> dict[str, Any] | None:
        """One record of ``entity`` (the first), to compare shapes with."""
        return next((r.record for r in self._records.get(entity, {}).values()), None)

    def size(self, entity: str) -> int:
        return len(self._records.get(entity, {}))

    def entities(self) -> list[str]:
        return list(self._records)

    def referenced(self, texts: Iterable[str]) -> Iterator[EntityRecord]:
        """Records whose id occurs as a whole token in any of ``texts``, each once, in order of
        first mention."""
        seen: set[tuple[str, str]] = set()
        for text in texts:
            for match in _TOKEN.finditer(text):
                token = match.group().strip(".+-")
                for entity, by_id in self._records.items():
                    found = by_id.get(token)
                    if found is not None and (entity, token) not in seen:
                        seen.add((entity, token))
                        yield found


def string_values(value: Any) -> Iterator[str]:
    """Every string inside a JSON value (keys excluded): how arguments name entities."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from string_values(item)
    elif isinstance(value, list):
        for item in value:
            yield from string_values(item)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        yield str(value)

"""Collections split into many partitions of one layout: a collection's records kept in one
array per month of their date (or per hash shard, where they have no date), as exports of logs,
messages and transactions are written one file per period (a Slack export's file per channel
and day, a data lake's ``month=2024-03`` folders, a dump's ``part-00007`` files). Which
partition holds a record follows from its own values; the tools answer the plain records, as
the service would, whichever file they came from. A state then holds one to several dozen
small arrays that are one collection."""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass
from typing import Any

STYLES = ("month", "hive", "file", "nested", "shard")
"""How a partition is named: ``2024-03``, ``month=2024-03``, ``2024-03.json``, a year's object
holding its months (``{"2024": {"03": [..]}}``), or ``part-00007`` by a hash of the id (also
the style of any record without a date)."""
_DATE = re.compile(r"^(\d{4})-(\d{2})-\d{2}")
SHARDS = 48


@dataclass(frozen=True)
class Partitions:
    """How one collection's records are spread over partitions."""

    style: str

    def make(self) -> dict[str, Any]:
        return {}

    def _parts(self, key: str, record: dict[str, Any]) -> tuple[str, ...]:
        """The path of keys from the container to the array that holds ``record``."""
        month = _month(record) if self.style != "shard" else None
        if month is None:
            return (f"part-{zlib.crc32(key.encode()) % SHARDS:05d}",)
        year, number = month
        if self.style == "nested":
            return (year, number)
        name = f"{year}-{number}"
        return {"hive": (f"month={name}",), "file": (f"{name}.json",)}.get(self.style, (name,))

    def put(self, box: dict[str, Any], key: str, record: dict[str, Any]) -> None:
        """Store ``record`` (of id ``key``) in its partition, made when it is the first."""
        *outer, last = self._parts(key, record)
        holder = box
        for part in outer:
            holder = holder.setdefault(part, {})
        holder.setdefault(last, []).append(record)

    def _arrays(self, box: dict[str, Any]) -> list[tuple[tuple[str, ...], list[Any]]]:
        """Each partition's path and array, in the state's order."""
        found: list[tuple[tuple[str, ...], list[Any]]] = []
        for name, held in box.items():
            if isinstance(held, dict):
                found.extend(((name, inner), rows) for inner, rows in held.items())
            else:
                found.append(((name,), held))
        return found

    def rows(self, box: dict[str, Any]) -> list[Any]:
        """The stored records of every partition, in state order."""
        return [record for _, rows in self._arrays(box) for record in rows]

    def locate(self, box: dict[str, Any], row: int) -> tuple[Any, ...]:
        """Pointer parts to the ``row``-th record: its partition's path, its place there."""
        for path, rows in self._arrays(box):
            if row < len(rows):
                return (*path, row)
            row -= len(rows)
        raise IndexError(row)

    def of(self, box: dict[str, Any], row: int) -> dict[str, Any]:
        """No context: a partition is where a record was filed, not part of its answer."""
        return {}


def _month(record: dict[str, Any]) -> tuple[str, str] | None:
    """The year and month of the first date among a record's own top-level values."""
    for value in record.values():
        found = _DATE.match(value) if isinstance(value, str) else None
        if found is not None:
            return found.group(1), found.group(2)
    return None

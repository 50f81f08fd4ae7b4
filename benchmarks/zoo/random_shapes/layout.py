"""How a random shape stores a collection: where it is (a path of wrapping objects), its
container (an array; an object keyed by id, with or without the id as a field; columns and
rows; a paged envelope; GraphQL-style edges), and how its field names are spelt."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from benchmarks.zoo.kit import State, pointer

CONTAINERS = ("array", "keyed", "keyed_bare", "columnar", "envelope", "edges")


def _words(name: str) -> list[str]:
    return [w for w in re.split(r"[_\s]+", name) if w]


CASINGS: dict[str, Callable[[str], str]] = {
    "snake": lambda n: "_".join(_words(n)),
    "camel": lambda n: "".join(
        w if i == 0 else w[:1].upper() + w[1:] for i, w in enumerate(_words(n))
    ),
    "pascal": lambda n: "".join(w[:1].upper() + w[1:] for w in _words(n)),
    "kebab": lambda n: "-".join(_words(n)),
    "upper": lambda n: "_".join(_words(n)).upper(),
}
"""Field-name spellings (the tools' arguments have their own: :mod:`.surface`)."""


@lru_cache(maxsize=4096)
def spelt(casing: str, name: str) -> str:
    """``name`` in ``casing`` (remembered: the shapes' code spells names per record)."""
    return CASINGS[casing](name)


@dataclass(frozen=True)
class Store:
    """One collection's place and container in the state. Records are dicts of stored
    (spelt) field names; ``id_key`` is the stored name of the id field."""

    at: tuple[str, ...]
    container: str
    id_key: str
    columns: tuple[str, ...] = ()
    """The columns of a columnar container (the id first)."""
    key_prefix: str = ""
    """What a keyed container's keys add before the id (``boat:`` of ``boat:BT-00042``)."""

    def make(self) -> Any:
        if self.container == "array":
            return []
        if self.container in ("keyed", "keyed_bare"):
            return {}
        if self.container == "columnar":
            return {"columns": list(self.columns), "rows": []}
        if self.container == "envelope":
            return {"results": [], "count": 0, "next": None}
        return {"edges": [], "pageInfo": {"hasNextPage": False, "endCursor": None}}

    def place(self, state: State) -> None:
        """Make the empty container at its path, making the wrapping objects."""
        holder = state
        for part in self.at[:-1]:
            holder = holder.setdefault(part, {})
        holder[self.at[-1]] = self.make()

    def _box(self, state: State) -> Any:
        box: Any = state
        for part in self.at:
            box = box[part]
        return box

    def append(self, state: State, record: dict[str, Any]) -> None:
        box, key = self._box(state), f"{self.key_prefix}{record[self.id_key]}"
        if self.container == "array":
            box.append(record)
        elif self.container == "keyed":
            box[key] = record
        elif self.container == "keyed_bare":
            box[key] = {k: v for k, v in record.items() if k != self.id_key}
        elif self.container == "columnar":
            box["rows"].append([record.get(c) for c in self.columns])
        elif self.container == "envelope":
            box["results"].append(record)
            box["count"] += 1
        else:
            cursor = f"c{len(box['edges']):x}"
            box["edges"].append({"node": record, "cursor": cursor})
            box["pageInfo"]["endCursor"] = cursor

    def items(self, state: State) -> list[tuple[str, dict[str, Any]]]:
        """``(id as text, record)`` in state order; a record as the service answers it (with
        its id field; a columnar row as a dict)."""
        box = self._box(state)
        if self.container == "array":
            rows = box
        elif self.container == "keyed":
            rows = box.values()
        elif self.container == "keyed_bare":
            return [(self._id(k), {self.id_key: self._typed(k), **box[k]}) for k in box]
        elif self.container == "columnar":
            rows = [dict(zip(self.columns, row, strict=True)) for row in box["rows"]]
        elif self.container == "envelope":
            rows = box["results"]
        else:
            rows = [edge["node"] for edge in box["edges"]]
        return [(str(r[self.id_key]), r) for r in rows]

    def _id(self, key: str) -> str:
        return key.removeprefix(self.key_prefix)

    def _typed(self, key: str) -> Any:
        """The id a bare key holds, all there is of it: a number if it looks like one."""
        ident = self._id(key)
        return int(ident) if ident.isdigit() else ident

    def _ids(self, box: Any) -> list[str]:
        """The ids (as text) of a container that is a list, in order."""
        if self.container == "columnar":
            return [str(row[0]) for row in box["rows"]]
        if self.container == "array":
            return [str(r[self.id_key]) for r in box]
        if self.container == "envelope":
            return [str(r[self.id_key]) for r in box["results"]]
        return [str(edge["node"][self.id_key]) for edge in box["edges"]]

    def get(self, state: State, key: str) -> dict[str, Any] | None:
        """Record ``key`` as :meth:`items` gives it (found without making every record)."""
        box = self._box(state)
        found: dict[str, Any] | None
        if self.container in ("keyed", "keyed_bare"):
            found = box.get(f"{self.key_prefix}{key}")
            if found is None or self.container == "keyed":
                return found
            return {self.id_key: self._typed(key), **found}
        try:
            row = self._ids(box).index(key)
        except ValueError:
            return None
        if self.container == "columnar":
            return dict(zip(self.columns, box["rows"][row], strict=True))
        if self.container == "array":
            found = box[row]
        else:
            found = (
                box["results"][row] if self.container == "envelope" else box["edges"][row]["node"]
            )
        return found

    def keys(self, state: State) -> list[str]:
        """The records' ids (as text), in state order."""
        box = self._box(state)
        if self.container in ("keyed", "keyed_bare"):
            return [self._id(k) for k in box]
        return self._ids(box)

    def pointer(self, state: State, key: str, *inside: str) -> str:
        """A JSON Pointer to the field at ``inside`` (stored names) of record ``key``."""
        if self.container in ("keyed", "keyed_bare"):
            return pointer(*self.at, f"{self.key_prefix}{key}", *inside)
        row = self._ids(self._box(state)).index(key)
        if self.container == "columnar":
            column = self.columns.index(inside[0])
            return pointer(*self.at, "rows", row, column, *inside[1:])
        if self.container == "array":
            return pointer(*self.at, row, *inside)
        if self.container == "envelope":
            return pointer(*self.at, "results", row, *inside)
        return pointer(*self.at, "edges", row, "node", *inside)

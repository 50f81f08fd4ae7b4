"""How a random shape stores a collection: where it is (a path of wrapping objects), its
container (an array; an object keyed by id, with or without the id as a field; columns and
rows; a paged envelope; GraphQL-style edges; arrays inside a few parent records), whether a
real API's list envelope wraps it (:mod:`.envelopes`), and how its field names are spelt."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from benchmarks.zoo.kit import State, pointer
from benchmarks.zoo.random_shapes import envelopes, eventlog, mixed, relay
from benchmarks.zoo.random_shapes.encodings import CODECS, Codec, typed_id
from benchmarks.zoo.random_shapes.mixed import Mixed
from benchmarks.zoo.random_shapes.parents import Parents
from benchmarks.zoo.random_shapes.partitions import Partitions
from benchmarks.zoo.random_shapes.text_store import TextTable

if TYPE_CHECKING:
    from benchmarks.zoo.random_shapes.composite_keys import KeyedRecords

CONTAINERS = ("array", "keyed", "keyed_bare", "columnar", "envelope", "edges")
"""The containers a design draws (an ``events`` seed makes one an event log, and a seed that
draws a mixed-type array puts some collections in one: ``mixed``, :mod:`.mixed`; one that draws
parents keeps records in arrays inside them, one that draws partitions in one array per
partition: ``parented``, :mod:`.parents`, :mod:`.partitions`; one that draws Relay connections
keeps records and parties in them where it can: ``relay``, :mod:`.relay`)."""


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


def _empty(store: Store) -> Any:
    """An empty container of the layout's own kinds."""
    if store.container == "array":
        return []
    if store.container in ("keyed", "keyed_bare"):
        return {}
    if store.container == "columnar":
        return {"columns": list(store.columns), "rows": []}
    if store.container == "envelope":
        return {"results": [], "count": 0, "next": None}
    if store.container == "relay":
        return relay.empty()
    return {"edges": [], "pageInfo": {"hasNextPage": False, "endCursor": None}}


@dataclass(frozen=True)
class Store:
    """One collection's place and container; ``id_key``: the stored name of the id field."""

    at: tuple[str, ...]
    container: str
    id_key: str
    columns: tuple[str, ...] = ()
    """The columns of a columnar container (the id first)."""
    key_prefix: str = ""
    """What a keyed container's keys add before the id (``boat:`` of ``boat:BT-00042``)."""
    codec: Codec = CODECS["plain"]
    """How records are encoded in the container (:mod:`.encodings`)."""
    mixed: Mixed | None = None
    """The shared container of several kinds this collection is stored in, if it is."""
    envelope: str | None = None
    """The style of list envelope around the container (:mod:`.envelopes`), if any."""
    parents: Parents | Partitions | None = None
    """The parents (or partitions) a ``parented`` container keeps the records in."""
    typename: str = ""  # the __typename of a ``relay`` connection's nodes (:mod:`.relay`)
    text: TextTable | KeyedRecords | None = None  # lines or keys (:mod:`.composite_keys`)

    def encoded(self, codec: Codec, logged: bool) -> Store:
        """This store with records encoded by ``codec``: an encoded record is one value, so a
        columnar container becomes an array, and a search export's hits are an array; an
        ``events`` seed's ``logged`` collection is an event log."""
        if codec.name == "plain" or (codec.name == "events" and not logged):
            return self
        if codec.name == "events":
            return replace(self, container="events")
        if codec.name == "elasticsearch":
            return replace(self, container="array", codec=codec)
        container = "array" if self.container == "columnar" else self.container
        return replace(self, container=container, codec=codec)

    def mixing(self, share: Mixed) -> Store:
        """This store kept in a container of several kinds (:mod:`.mixed`)."""
        return replace(self, container="mixed", mixed=share, key_prefix="")

    def seal(self, state: State) -> None:
        """Finish the container once the state is built (text joined into one string)."""
        if self.text is not None:
            self.text.seal(self._box(state))

    def make(self) -> Any:
        if self.mixed is not None:
            return mixed.make(self.mixed.frame)
        if self.parents is not None:
            return self.parents.make()
        if self.text is not None:
            return self.text.make()
        return eventlog.make() if self.container == "events" else _empty(self)

    @property
    def where(self) -> tuple[str, ...]:
        """The container's path: its place, and where its encoding (or envelope) keeps the
        records."""
        if self.mixed is not None:
            return self.mixed.place
        inside = envelopes.records_path(self.envelope, self.at[-1]) if self.envelope else ()
        return (*self.at, *self.codec.within, *inside)

    def place(self, state: State) -> None:
        """Make the empty container at its path, making the wrapping objects."""
        holder = state
        parts = self.at if self.envelope else self.where
        for n, part in enumerate(parts[:-1]):
            # A digit names an item of an array (a workbook's sheets: :mod:`.header_rows`).
            holder = holder.setdefault(part, [] if parts[n + 1].isdigit() else {})
        if isinstance(holder, list):
            holder.append(self.make())
        elif self.envelope:
            holder[parts[-1]] = envelopes.make(self.envelope, parts[-1], self.make())
        elif self.mixed is None or self.where[-1] not in holder:
            holder[self.where[-1]] = self.make()

    def _box(self, state: State) -> Any:
        box: Any = state
        for part in self.where:
            box = box[int(part)] if isinstance(box, list) else box[part]
        return box

    def append(self, state: State, plain: dict[str, Any]) -> None:
        box, key = self._box(state), f"{self.key_prefix}{plain[self.id_key]}"
        if self.container == "events":
            eventlog.append(box, plain, self.id_key)
            return
        if self.text is not None:
            self.text.append(box, plain)
            return
        record = self.codec.encode(plain, self.id_key, self.at[-1])
        if self.mixed is not None:
            stored = record if self.mixed.whole else self.codec.bare(record, self.id_key)
            entry = mixed.wrap(self.mixed, self.codec, str(plain[self.id_key]), stored)
            mixed.entries(box, self.mixed).append(entry)
            return
        if self.parents is not None:
            self.parents.put(box, key, record)
        elif self.container == "array":
            box.append(record)
        elif self.container == "keyed":
            box[key] = record
        elif self.container == "keyed_bare":
            box[key] = self.codec.bare(record, self.id_key)
        elif self.container == "columnar":
            box["rows"].append([record.get(c) for c in self.columns])
        elif self.container == "envelope":
            box["results"].append(record)
            box["count"] += 1
        elif self.container == "relay":
            relay.append(box, record, self.typename)
        else:
            cursor = f"c{len(box['edges']):x}"
            box["edges"].append({"node": record, "cursor": cursor})
            box["pageInfo"]["endCursor"] = cursor
        if self.envelope:
            wrapper: Any = state
            for part in self.at:
                wrapper = wrapper[part]
            envelopes.count(wrapper, self.envelope, len(box))

    def _rows(self, box: Any) -> list[Any]:
        """The stored records of a container that is a list, in order."""
        if self.parents is not None:
            return self.parents.rows(box)
        if self.container == "array":
            rows: list[Any] = box
            return rows
        if self.container == "envelope":
            return list(box["results"])
        return [relay.node(edge) for edge in box["edges"]]  # a node less its __typename

    def _row_at(self, box: Any, row: int) -> tuple[Any, ...]:
        """Pointer parts from a list container to its ``row``-th record."""
        if self.parents is not None:
            return self.parents.locate(box, row)
        if self.container == "array":
            return (row,)
        return ("results", row) if self.container == "envelope" else ("edges", row, "node")

    def _answer(self, box: Any, row: int, stored: Any) -> dict[str, Any]:
        """A list container's ``row``-th record as the service answers it (with the context
        of its parent, where it has one)."""
        found = self.codec.decode(stored, self.id_key)
        return found | self.parents.of(box, row) if self.parents is not None else found

    def items(self, state: State) -> list[tuple[str, dict[str, Any]]]:
        """``(id as text, record)`` in state order; a record as the service answers it (with
        its id field; a columnar row as a dict)."""
        box = self._box(state)
        if self.container == "events":
            return list(eventlog.fold(box).items())
        if self.text is not None:
            return list(self.text.records(box).items())
        if self.mixed is not None:
            return [(key, self._unmixed(key, stored)) for key, stored in self._mine(box)]
        if self.container == "keyed":
            rows = list(box.values())
        elif self.container == "keyed_bare":
            return [(self._id(k), self._bare(k, box[k])) for k in box]
        elif self.container == "columnar":
            rows = [dict(zip(self.columns, row, strict=True)) for row in box["rows"]]
        else:
            rows = self._rows(box)
            decoded = [self._answer(box, n, r) for n, r in enumerate(rows)]
            return [(str(r[self.id_key]), r) for r in decoded]
        decoded = [self.codec.decode(r, self.id_key) for r in rows]
        return [(str(r[self.id_key]), r) for r in decoded]

    def _bare(self, key: str, stored: dict[str, Any]) -> dict[str, Any]:
        return {self.id_key: self._typed(key), **self.codec.decode(stored, self.id_key)}

    def _mine(self, box: Any) -> list[tuple[str, Any]]:
        """(id as text, stored record) of this collection's entries in a mixed container."""
        assert self.mixed is not None
        return mixed.mine(self.mixed, self.codec, self.id_key, box)

    def _unmixed(self, key: str, stored: dict[str, Any]) -> dict[str, Any]:
        if self.mixed is not None and self.mixed.whole:
            return self.codec.decode(stored, self.id_key)
        return {self.id_key: typed_id(key), **self.codec.decode(stored, self.id_key)}

    def _index(self, box: Any, key: str) -> int:
        """Where in a mixed container's array record ``key`` of this collection is."""
        assert self.mixed is not None
        return mixed.index(self.mixed, self.codec, self.id_key, box, key)

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
        ident, id_key = self.codec.ident, self.id_key
        return [ident(r, id_key) for r in self._rows(box)]

    def get(self, state: State, key: str) -> dict[str, Any] | None:
        """Record ``key`` as :meth:`items` gives it (found without making every record)."""
        box = self._box(state)
        found: dict[str, Any] | None
        if self.container == "events":
            return eventlog.fold(box).get(key)
        if self.text is not None:
            return self.text.records(box).get(key)
        if self.mixed is not None:
            found = dict(self._mine(box)).get(key)
            return None if found is None else self._unmixed(key, found)
        if self.container in ("keyed", "keyed_bare"):
            found = box.get(f"{self.key_prefix}{key}")
            if found is None or self.container == "keyed":
                return None if found is None else self.codec.decode(found, self.id_key)
            return self._bare(key, found)
        try:
            row = self._ids(box).index(key)
        except ValueError:
            return None
        if self.container == "columnar":
            return dict(zip(self.columns, box["rows"][row], strict=True))
        return self._answer(box, row, self._rows(box)[row])

    def keys(self, state: State) -> list[str]:
        """The records' ids (as text), in state order."""
        box = self._box(state)
        if self.container == "events":
            return list(eventlog.fold(box))
        if self.text is not None:
            return list(self.text.records(box))
        if self.mixed is not None:
            return [key for key, _ in self._mine(box)]
        if self.container in ("keyed", "keyed_bare"):
            return [self._id(k) for k in box]
        return self._ids(box)

    def pointer(self, state: State, key: str, *inside: str) -> str:
        """A JSON Pointer to the field at ``inside`` (stored names) of record ``key``."""
        if self.container in ("keyed", "keyed_bare"):
            return pointer(*self.where, f"{self.key_prefix}{key}", *inside)
        if self.mixed is not None:
            row, share = self._index(self._box(state), key), self.mixed
            return pointer(*self.where, *share.section, row, *share.inner, *inside)
        box = self._box(state)
        row = self._ids(box).index(key)
        if self.container == "columnar":
            column = self.columns.index(inside[0])
            return pointer(*self.where, "rows", row, column, *inside[1:])
        return pointer(*self.where, *self._row_at(box, row), *inside)

    def adding(self, state: State, key: str, inside: tuple[str, ...], value: Any) -> list[Any]:
        """The JSON Patch adding ``value`` at ``inside`` (decoded field names; ``-`` appends)
        in record ``key``, as the record's encoding stores it."""
        box = self._box(state)
        if self.container == "events":
            return eventlog.adding(box, self.where, key, inside, value)
        if self.text is not None:
            return self.text.adding(box, self.where, key, inside, value)
        if self.codec.name == "plain":
            return [{"op": "add", "path": self.pointer(state, key, *inside), "value": value}]
        record = self.pointer(state, key)
        if self.container in ("keyed", "keyed_bare"):
            stored = box[f"{self.key_prefix}{key}"]
        elif self.mixed is not None:
            entry = mixed.entries(box, self.mixed)[self._index(box, key)]
            stored = mixed.stored_record(self.mixed, entry)
        else:
            stored = self._rows(box)[self._ids(box).index(key)]
        ops = self.codec.add(stored, inside, value)
        return [op | {"path": record + pointer(*op["path"])} for op in ops]

"""Which records of a large state hold a value, or answer to a key: indexed once per world.

:class:`StateIndex` walks the world's starting state once (see
:mod:`mcp_sim.runtime.state_shape`) and keeps

- a *key index*: a record's key → the record, and the keys of a record's nested maps → the
  record and where inside it (a call naming a variant's item id finds its product);
- a *value index*: each scalar value → the records holding it, and where inside them;
- how many records hold each value, so a value most records share (a status) weighs less
  than one few share (an email) when a call's arguments are matched against records.

A session's state moves on with every committed patch. The world's index is shared by every
session and never changes; a :class:`StateOverlay` per session re-indexes only the records its
patches touched (a few per write), so nothing walks the whole document per call.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

from jsonpointer import escape

from mcp_sim.runtime.collection_scopes import CollectionScopes
from mcp_sim.runtime.decoded_state import patched, read_view, view_encoding
from mcp_sim.runtime.fact_maps import Hit, add_facts
from mcp_sim.runtime.fact_updates import FactMaps, moved_on
from mcp_sim.runtime.filed_records import FiledFacts
from mcp_sim.runtime.kind_collections import (
    item_of,
    kind_count_change,
    kind_holding,
    same_array,
    split_kinds,
)
from mcp_sim.runtime.mixed_collections import array_pointer
from mcp_sim.runtime.moved_records import refiled
from mcp_sim.runtime.state_collections import find_collections
from mcp_sim.runtime.state_pages import page_record
from mcp_sim.runtime.state_partitions import appended, slot_records
from mcp_sim.runtime.state_paths import grown_size, raw_value, record_size, resolve
from mcp_sim.runtime.state_shape import (
    Collection,
    RecordFacts,
    is_record,
    record_count,
    record_items,
    record_key,
    record_pointer,
    record_position,
    within,
)
from mcp_sim.runtime.state_tables import row_of
from mcp_sim.runtime.text_rows import find_text_rows, line_collections, moved_lines
from mcp_sim.spec.world import World

FEW_HOLDERS = 3
"""A nested map's key held by at most this many records names them (an item id names its
product); one held by more is a value to match, not a name."""


class StateIndex:
    """The collections, keys and values of a world's starting state."""

    def __init__(self, world: World, state: Mapping[str, Any]) -> None:
        self.stored = state
        """The starting state as the world holds it."""
        self.encoding = view_encoding(world, state)
        """How its values are encoded, when they are and views decode them: ``state`` is
        then the decoded document (see :mod:`mcp_sim.runtime.decoded_state`)."""
        self.text = find_text_rows(state)  # arrays of text lines: ``state`` holds them read
        self.state = read_view(state, self.encoding, self.text)
        self.size = record_size(state)
        found = find_collections(world, self.state)
        self.collections = split_kinds(line_collections(found, self.text, self.state), self.state)
        self.records: dict[str, RecordFacts] = {}
        self.keys: dict[str, list[Hit]] = {}
        self.inner_keys: dict[str, list[Hit]] = {}
        self.values: dict[str, dict[str, str]] = {}
        for collection in self.collections:
            value = resolve(self.state, collection.pointer)
            filed = FiledFacts(collection, self.state)
            for key, pointer, record in record_items(collection, value):
                self._add(pointer, filed.of(key, pointer, record))
        self.order: dict[str, list[str]] = {c.pointer: [] for c in self.collections}
        for pointer, facts in self.records.items():
            self.order[facts.collection].append(pointer)
        self.sizes = {c.pointer: len(self.order[c.pointer]) for c in self.collections}
        self.scopes = CollectionScopes(self.collections)
        self.stores = {c.pointer.rpartition("/")[0] for c in self.collections if c.keys}
        """Where flat key-value exports are (their patterns' collections are inside)."""
        self.derived: dict[str, Any] = {}
        """Tables a reader derives from the starting state on first use and keeps for every
        session (the prompting layer's field columns): the state they describe never changes."""

    def _add(self, pointer: str, facts: RecordFacts) -> None:
        self.records[pointer] = facts
        add_facts(self.keys, self.inner_keys, self.values, pointer, facts)

    def collection_of(self, pointer: str, state: Any = None) -> Collection | None:
        """The collection whose record ``pointer`` is, or is inside (the innermost: a
        series' odd keys hold collections of their own); in a mixed array, the kind's that
        the item is in ``state`` (default: the starting state)."""
        found = self.scopes.holding(pointer)
        kinds = [c for c in found if c.kind is not None]
        if kinds:
            return kind_holding(kinds, pointer, self.state if state is None else state)
        return max(found, key=lambda c: len(c.pointer)) if found else None

    def collection_pointer(self, pointer: str) -> str:
        """The pointer of the collection whose record ``pointer`` is (see
        :meth:`collection_of`); ``""`` where none holds it."""
        collection = self.collection_of(pointer)
        return collection.pointer if collection is not None else ""

    def owner(self, pointer: str, state: Any) -> str | None:
        """The pointer of the record that ``pointer`` is, or is inside (``-`` resolved
        against ``state``, the state after the change)."""
        collection = self.collection_of(pointer, state)
        if collection is None:
            return None
        if collection.kind is not None:
            return item_of(collection, pointer, state) + collection.inner
        if collection.keys is not None:
            return record_pointer(collection, pointer)
        if collection.slots:
            below = pointer[len(collection.pointer) + 1 :]
            return appended(record_pointer(collection, pointer), state) if "/" in below else None
        below = pointer[len(collection.pointer) + 1 :]
        rest = below.split("/", 1)[0]
        if collection.table is not None:
            # A table's row is named by its position, whatever cell or column changed.
            found = row_of(collection.table, below, resolve(state, collection.pointer))
            return None if found is None else f"{collection.pointer}/{found}"
        if collection.pages:
            found = page_record(below, collection.pages, resolve(state, collection.pointer))
            return None if found is None else f"{collection.pointer}/{found}"
        if rest == "-":
            items = resolve(state, collection.pointer)
            rest = str(len(items) - 1) if isinstance(items, list) and items else "0"
        return f"{collection.pointer}/{rest}{collection.inner}"

    def overlay_of(self, state: Any) -> StateOverlay:
        """A session's view of this index for ``state``: at the world's starting state, no
        record differs; any other state is compared with it record by record (once, after a
        restore or a reset: committed patches move an overlay on by :meth:`StateOverlay.advance`)."""
        if state is self.stored:
            return StateOverlay(self, state=state, size=self.size, view=self.state)
        stored, state = state, read_view(state, self.encoding, self.text)
        changed: dict[str, RecordFacts | None] = {}
        for collection in self.collections:
            was = resolve(self.state, collection.pointer)
            now = resolve(state, collection.pointer)
            if record_count(collection, was) != record_count(collection, now):
                changed.update({p: None for p in self.order[collection.pointer]})
            filed = FiledFacts(collection, state)
            for key, pointer, record in record_items(collection, now):
                if pointer in changed or resolve(self.state, pointer) != record:
                    changed[pointer] = filed.of(key, pointer, record)
            for pointer in self.order[collection.pointer]:
                if resolve(state, pointer) is None:
                    changed[pointer] = None
        overlay = StateOverlay(self, state=stored, size=record_size(stored), view=state)
        overlay.loose = self._loose(state)
        return overlay._rebuilt(changed, state)

    def _loose(self, state: Any) -> set[str]:
        """The keys of each flat store in ``state`` that it did not hold at the start and no
        key pattern of it follows (a type the store had none of)."""
        loose: set[str] = set()
        for store in self.stores:
            was, now = resolve(self.state, store), resolve(state, store)
            if isinstance(was, dict) and isinstance(now, dict):
                added = (f"{store}/{escape(k)}" for k in now.keys() - was.keys())
                loose.update(p for p in added if self.collection_of(p) is None)
        return loose


@dataclass
class StateOverlay:
    """One session's state as the index knows it: the world's index, plus the records its
    committed patches touched, re-indexed from the state they left."""

    base: StateIndex
    changed: dict[str, RecordFacts | None] = field(default_factory=dict)
    """Touched records by pointer; ``None`` for a record that no longer exists."""
    keys: dict[str, list[Hit]] = field(default_factory=dict)
    inner_keys: dict[str, list[Hit]] = field(default_factory=dict)
    values: dict[str, dict[str, str]] = field(default_factory=dict)
    state: Any = None
    """The state this overlay describes: a different state object means the session's state
    was replaced outside the calls (restore, reset), and the overlay is rebuilt."""
    size: int = 0
    """The length of the state's compact JSON, kept up to date record by record."""
    shifted: set[str] = field(default_factory=set)
    """Array collections whose items moved (an insert or removal before the end): re-indexed."""
    loose: set[str] = field(default_factory=set)
    """Keys added to a flat store that follow none of its patterns (pointers): no collection
    holds them, and the store's outline names them beside its patterns."""
    view: Any = None
    """The state as views read it: ``state``, or its values decoded, its lines of records read."""
    derived: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """What views read from this state version once for all its calls (a commit makes a new
    overlay, with none): see :mod:`mcp_sim.prompting.changed_records`."""

    def advance(self, before: Any, state: Any, patch: Iterable[Mapping[str, Any]]) -> StateOverlay:
        """The overlay after ``patch`` was committed on ``before``, leaving ``state``: only
        the records it touched are filed again, and those after an item it moved."""
        touched, paths, ops, text = set[str](), set[str](), list(patch), self.base.text
        shifts: set[str] = set()  # array collections whose items this patch moved
        lines = text.reread(self.view, state, ops) if text else state  # a dump's tables told apart
        for pointer in text.rewritten(ops) if text else ():
            shifts.update(same_array(self.base.collections, pointer))
        for op in ops:
            for path in (op.get("path"), op.get("from")):
                if isinstance(path, str):
                    self._touch(path, lines, op, touched, shifts)
                    paths.add(path)
        self.shifted |= shifts
        view = lines if text else self._view_after(state, touched, paths)
        updates: dict[str, RecordFacts | None] = {}
        grown = 0
        # In a fixed order: the order of changed records is the order a lookup lists them.
        for pointer in sorted(touched):
            updates[pointer] = self._facts(pointer, view)
            grown += grown_size(pointer, raw_value(before, pointer), raw_value(state, pointer))
        changed = self.changed | updates
        if shifts:
            advanced = self._rebuilt(changed, view, shifts)
        else:
            maps = FactMaps(self.keys, self.inner_keys, self.values)
            advanced = self._moved_on(changed, moved_on(maps, self.changed, changed, updates), view)
        advanced.state = state
        advanced.size = self.size + grown
        return advanced

    def _view_after(self, state: Any, touched: set[str], paths: set[str]) -> Any:
        """The decoded state after a patch left ``state``: the records it touched, the
        collections whose items moved and the parts outside any record decoded anew."""
        encoding = self.base.encoding
        if not encoding:
            return state
        outside = {p for p in paths if self.base.collection_of(p) is None}
        return patched(self.view, state, touched | self.shifted | outside, encoding)

    def _touch(
        self, path: str, state: Any, op: Mapping[str, Any], touched: set[str], shifts: set[str]
    ) -> None:
        collection = self.base.collection_of(path, state)
        if collection is None:
            parent = path.rpartition("/")[0]
            if parent in self.base.stores and op.get("op") in ("add", "copy", "move"):
                self.loose.add(path)
            return
        depth = path[len(array_pointer(collection.pointer)) + 1 :].count("/")
        table = collection.table
        # A row of a table kept by column is an item of each column, one level further down;
        # rows named by label do not move when one before them goes.
        row_depth = 1 if (table is not None and table.by_column) or collection.slots else 0
        row_depth = collection.pages.count("/") + 2 if collection.pages else row_depth
        moves = not collection.keyed and not (table is not None and table.labelled)
        if moves and depth == row_depth and op.get("op") in ("add", "remove", "move"):
            last = path.rsplit("/", 1)[1]
            items = resolve(state, path.rsplit("/", 1)[0])
            appended = last == "-" or (
                isinstance(items, list) and last.isdigit() and int(last) >= len(items) - 1
            )
            moved = moved_lines(self.base.text, path, items)
            if moved is not None:  # a line added or removed near the end: the few after it
                touched.update(moved)
            elif not appended:
                shifts.update(same_array(self.base.collections, collection.pointer))
        if collection.pages and depth == 0:
            # A page added or dropped adds or drops its records: no one record is touched.
            shifts.add(collection.pointer)
        if collection.slots and depth == 0:
            # A time added, replaced or dropped whole: each of its readings, then and now.
            touched.update(slot_records(path, resolve(state, path)))
            touched.update(
                p for p in (*self.base.records, *self.changed) if p.startswith(path + "/")
            )
        owner = self.base.owner(path, state)
        if owner is not None:
            touched.add(owner)

    def _facts(self, pointer: str, state: Any) -> RecordFacts | None:
        record = resolve(state, pointer)
        collection = self.base.collection_of(pointer, state)
        if record is None or collection is None or not is_record(collection, record):
            return None
        key = record_key(collection, record_position(collection, pointer), record)
        return FiledFacts(collection, state).of(key, pointer, record)

    def _rebuilt(
        self,
        changed: dict[str, RecordFacts | None],
        state: Any,
        moved: AbstractSet[str] = frozenset(),
    ) -> StateOverlay:
        """The overlay of ``changed`` and the records of the ``moved`` collections (filed
        again, each record this overlay knew keeping its facts), its maps built whole."""
        arrays = {array_pointer(p) + "/" for p in moved}  # each kind's, cleared once
        for stale in [p for p in {*self.base.records, *changed} if p.startswith(tuple(arrays))]:
            changed[stale] = None
        for collection in (c for c in self.base.collections if c.pointer in moved):
            for where, filed in refiled(collection, state, self.view, self.facts):
                changed[where] = filed
        maps = FactMaps()
        for pointer, facts in changed.items():
            if facts is not None:
                add_facts(maps.keys, maps.inner_keys, maps.values, pointer, facts)
        return self._moved_on(changed, maps, state)

    def _moved_on(
        self, changed: dict[str, RecordFacts | None], maps: FactMaps, state: Any
    ) -> StateOverlay:
        return StateOverlay(
            self.base,
            changed,
            maps.keys,
            maps.inner_keys,
            maps.values,
            self.state if self.base.encoding or self.base.text else state,
            self.size,
            set(self.shifted),
            set(self.loose),
            state,
        )

    def key_hits(self, label: str) -> list[Hit]:
        """The records answering to the key ``label`` (normalized): their own key, or a
        nested map's key that few records have; and where inside them."""
        if not (
            label in self.base.keys
            or label in self.keys
            or label in self.base.inner_keys
            or label in self.inner_keys
        ):
            return []  # most values a record holds are no key (a linked record's names)
        hits = [h for h in self.base.keys.get(label, ()) if h.pointer not in self.changed]
        hits += self.keys.get(label, [])
        return hits + self.inner_hits(label, FEW_HOLDERS)

    def inner_hits(self, label: str, most: int) -> list[Hit]:
        """The records one of whose nested maps has the key ``label`` (normalized), with
        where; none when more than ``most`` records do (a date most sailings have names
        none of them)."""
        base = self.base.inner_keys.get(label, ())
        mine = self.inner_keys.get(label, [])
        if len(base) + len(mine) > most + len(self.changed):
            return []
        hits = [h for h in base if h.pointer not in self.changed] + mine
        return hits if len(hits) <= most else []

    def value_hits(self, label: str) -> dict[str, str]:
        """The records holding the value ``label`` (normalized): pointer → where inside."""
        base = self.base.values.get(label, {})
        mine = self.values.get(label, {})
        if not self.changed:
            return base
        hits = {p: w for p, w in base.items() if p not in self.changed}
        hits.update(mine)
        return hits

    def holders(self, label: str) -> int:
        """How many records hold ``label``: the rarer, the more a match on it says."""
        return len(self.base.values.get(label, ())) + len(self.values.get(label, ()))

    def pointers(self, collection: str) -> list[str]:
        """The records of ``collection`` now, in document order (new ones last)."""
        found = [p for p in self.base.order.get(collection, ()) if self.exists(p)]
        found += [
            p
            for p, f in self.changed.items()
            if f and f.collection == collection and p not in self.base.records
        ]
        return found

    def facts(self, pointer: str) -> RecordFacts | None:
        """The facts of the record at ``pointer`` as the session's state is: re-indexed if a
        change touched it (``None``: it is gone), else the world's."""
        if pointer in self.changed:
            return self.changed[pointer]
        return self.base.records.get(pointer)

    def exists(self, pointer: str) -> bool:
        return self.facts(pointer) is not None

    def record_count(self, collection: str) -> int:
        count = self.base.sizes.get(collection, 0)
        if array_pointer(collection) != collection:
            return count + kind_count_change(collection, self.changed, self.base.records)
        for pointer, facts in self.changed.items():
            if within(collection, pointer):
                count += (facts is not None) - (pointer in self.base.records)
        return count

"""How one record, or the outline of a collection, is written into a prompt within a budget.

A record is shown as ``- POINTER: {compact JSON}``, so the model has the pointer to patch. A
record too large for the room left (a flight with a year of days, a product with hundreds of
variants) is shown with its focus in full (the parts the call is about) and its other large
parts replaced by a short note of what they hold; only what does not fit even so is left out,
and then the view says so.
"""

from __future__ import annotations

import json
from typing import Any

from jsonpointer import escape

from mcp_sim.prompting.record_fields import is_map
from mcp_sim.runtime.mixed_collections import Kind, array_pointer
from mcp_sim.runtime.state_pages import paged_count, paged_ends
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_tables import Table, row_at, row_count

OUTLINE_KEYS = 6
"""Keys named in the note that replaces a large part of a record (first and last ones)."""


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def size(value: Any) -> int:
    """The length of ``value``'s compact JSON (unsorted: sorting is most of the cost)."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def shape(value: Any, depth: int = 0) -> Any:
    """The shape of a value: field names and JSON types, two levels deep."""
    if isinstance(value, dict):
        if depth >= 2:
            return "object"
        return {k: shape(v, depth + 1) for k, v in sorted(value.items())[:24]}
    if isinstance(value, list):
        return [shape(value[0], depth + 1)] if value and depth < 2 else "array"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "null" if value is None else "string"


def note(value: Any, brief: bool = False) -> str:
    """What stands in for a large part of a record: its size and some keys (``brief``: its
    size alone)."""
    if isinstance(value, dict):
        keys = list(value)
        if brief:
            return f"<outlined: object of {len(keys)} entries>"
        shown = keys if len(keys) <= OUTLINE_KEYS else [*keys[:3], "…", *keys[-3:]]
        return f"<outlined: object of {len(keys)} entries: {', '.join(shown)}>"
    if isinstance(value, list):
        return f"<outlined: array of {len(value)} items>"
    return f"<outlined: {len(str(value))} characters>"


def trimmed(
    value: Any,
    focus: set[str],
    limit: int,
    pointer: str = "",
    sizes: dict[int, int] | None = None,
    brief: bool = False,
    opened: bool = False,
) -> Any:
    """``value`` with every part larger than ``limit`` characters, and not on the way to a
    focus, replaced by its :func:`note` (``brief`` or not); focus parts are kept whole.
    ``sizes`` remembers the JSON size of the parts by id, for trying several limits on one
    record; ``opened``: a list of records near the top (see :data:`OPENED_DEPTH`) is kept,
    each item with its own large parts outlined, rather than outlined whole."""
    trimmer = _Trimmer(focus, limit, sizes if sizes is not None else {}, brief, opened)
    return trimmer.trim(value, pointer)


class _Trimmer:
    def __init__(
        self,
        focus: set[str],
        limit: int,
        sizes: dict[int, int],
        brief: bool = False,
        opened: bool = False,
    ) -> None:
        self.focus, self.limit, self.sizes, self.brief = focus, limit, sizes, brief
        self.opened = opened
        # Each focus and the places on the way to it, looked up rather than compared with
        # every focus at every part (a search's focus may hold hundreds of places).
        self.ways = {f[:at] for f in focus for at, c in enumerate(f) if c == "/"} | focus

    def size(self, value: Any) -> int:
        known = self.sizes.get(id(value))
        if known is None:
            known = self.sizes[id(value)] = size(value)
        return known

    def on_focus(self, pointer: str) -> bool:
        """Whether ``pointer`` is a focus or on the way to one."""
        return pointer in self.ways

    def inside_focus(self, pointer: str) -> bool:
        """Whether ``pointer`` is a focus or inside one."""
        if pointer in self.focus:
            return True
        at = pointer.find("/")
        while at != -1:
            if pointer[:at] in self.focus:
                return True
            at = pointer.find("/", at + 1)
        return False

    def trim(self, value: Any, pointer: str, item: bool = False) -> Any:
        if pointer and self.inside_focus(pointer):
            return value
        if not isinstance(value, dict | list) or self.size(value) <= self.limit:
            return value
        if not pointer or self.on_focus(pointer):
            if isinstance(value, dict):
                return self.trim_object(value, pointer)
            return [self.trim(v, f"{pointer}/{i}", item=True) for i, v in enumerate(value)]
        if self.opened and pointer.count("/") <= OPENED_DEPTH and _records(value):
            # Each record of the list by its own fields, its large parts outlined.
            return [
                {k: self.trim(v, f"{pointer}/{i}/{escape(k)}") for k, v in item.items()}
                for i, item in enumerate(value)
            ]
        short = note(value, self.brief)
        # A part shorter than its note (a list of two tags) is kept as it is; beside the
        # scalar fields, so is a field's value of a few scalars little longer (a name's two
        # parts), whose outline would save a few characters and lose the values; a list's
        # items (a parcel's scans) stay outlined.
        compound = (
            self.brief
            and not item
            and isinstance(value, dict)
            and not any(map(_nested, value.values()))
        )
        kept = len(short) * (2 if compound else 1)
        return value if self.size(value) <= kept else short

    def trim_object(self, value: dict[str, Any], pointer: str) -> Any:
        """An object on the way to a focus: the focus path in full, small siblings while they
        add up to the limit, and the rest named in one ``"…"`` entry (a sailing's other days)."""
        kept: dict[str, Any] = {}
        left_out: list[str] = []
        spent = 0
        # The other entries of a map keyed by date or id (a calendar's other days) are not
        # what the call is about: only the focused ones are kept.
        entries = bool(pointer) and is_map(value)
        for key, item in value.items():
            inner = f"{pointer}/{escape(key)}"
            if self.on_focus(inner) or self.inside_focus(inner):
                kept[key] = self.trim(item, inner)
                continue
            if (
                pointer
                and not entries
                and (not isinstance(item, dict | list) or self.size(item) <= _SMALL)
            ):
                # A wrapped record's own fields (``node``'s name beside its matched value), and
                # parts no longer than their note would be (a reference ``{"id": ...}``).
                kept[key] = item
                continue
            if pointer and self.focus and (spent >= self.limit or entries):
                left_out.append(key)
                continue
            small = self.trim(item, inner)
            cost = self.size(item) if small is item else size(small)
            if pointer and self.focus and spent + cost > self.limit:
                left_out.append(key)
                continue
            spent += cost
            kept[key] = small
        if left_out:
            shown = (
                left_out if len(left_out) <= OUTLINE_KEYS else [*left_out[:3], "…", *left_out[-3:]]
            )
            kept["…"] = f"<outlined: {len(left_out)} more entries: {', '.join(shown)}>"
        return kept


def _nested(value: Any) -> bool:
    return isinstance(value, dict | list)


def _records(value: Any) -> bool:
    """Whether ``value`` is a list of records (objects), two at least and at most
    :data:`MOST_OPENED`."""
    if not isinstance(value, list) or not 1 < len(value) <= MOST_OPENED:
        return False
    return all(isinstance(v, dict) for v in value)


MOST_OPENED = 100
"""Records at most in a list that is opened: more would not fit a view's room even so."""


OPENED_DEPTH = 2
"""How deep a list of records in a record too large to show whole is opened (its records
each shown by their own fields) before it is outlined: a record's field (a page's blocks, a
unit's sub-units) or a field's (an issue's ``comments.edges``)."""


_SMALL = 60
"""A part this short is kept beside a focus: its note would not be shorter."""
OPENED_LIMITS = (2000, 600, 200)
"""The limits a record is trimmed at with its lists of records opened (see
:func:`record_line`): below the last, an item would keep too little to be worth its place."""
FOCUSED_LIMIT = 400
"""Parts larger than this beside a record's focus are outlined even when the record would fit
whole: a sailing matched on one date is shown with that date, not its whole timetable."""


def record_line(
    pointer: str,
    record: Any,
    focus: set[str],
    room: int,
    *,
    focused: bool = False,
    scalars: bool = False,
    opened: bool = False,
) -> str | None:
    """The line showing ``record`` in at most ``room`` characters: whole if it fits (unless
    ``focused``: then its parts beside the focus are outlined first; or ``scalars``: then
    only its scalar fields are shown, every other part outlined), else trimmed ever harder
    around its focus (``opened``: first with its lists of records opened, see
    :func:`trimmed`); ``None`` if not even that fits."""
    if len(f"- {pointer}: ") + _least_size(record) > room:
        # However hard it is trimmed, a record keeps every one of its own keys (a sorted set
        # of 20,000 members): trying each limit on it would cost a dump of it each.
        return None
    limits: tuple[int, ...] = (2000, 600, 200, 60, 0)
    if scalars:
        limits = (0,)
    elif focused:
        limits = (FOCUSED_LIMIT, 200, 60, 0)
    else:
        line = f"- {pointer}: {dumps(record)}"
        if len(line) <= room:
            return line
    sizes: dict[int, int] = {}
    # Opened, a record's lists of records show each record by its own fields (a page's
    # blocks by their ids and times): outlined whole, the list an answer lists is lost.
    tries = [(limit, True) for limit in OPENED_LIMITS if opened and not (scalars or focused)]
    for limit, opened in [*tries, *((limit, False) for limit in limits)]:
        # Only the scalar fields: many records are shown so, and a part's keys would crowd
        # them out.
        shown = trimmed(record, focus, limit, sizes=sizes, brief=scalars, opened=opened)
        label = "" if shown == record else " (large parts outlined)"
        line = f"- {pointer}{label}: {dumps(shown)}"
        if len(line) <= room:
            return line
    return None


def _least_size(record: Any) -> int:
    """A floor on the length of ``record``'s compact JSON however it is trimmed: :func:`trimmed`
    keeps every key of an object (each with a value of a character at least) and every item
    of a list, outlining only what they hold."""
    if isinstance(record, dict):
        return 1 + sum(len(str(key)) + 5 for key in record) if record else 2
    if isinstance(record, list):
        return 2 * len(record) + 1 if record else 2
    return 0


def collection_line(
    pointer: str,
    value: Any,
    keyed: bool,
    id_field: str | None,
    table: Table | None = None,
    inner: str = "",
    pages: str = "",
    kind: Kind | None = None,
    members: bool = False,
) -> str:
    """One line of the outline: where a collection is, how many records, their ids and
    the shape of one (``inner``: where in each item its record is; ``pages``: the field of
    each page holding its records, ``members``: pages that are members with fields of their
    own; ``kind``: the kind of record, of those of an array of several, that ``value``'s
    items are)."""
    if table is not None:
        return table_line(pointer, value, id_field, table)
    if pages:
        records = paged_ends(value, pages)
        page = "member" if members else "page"
        held = f"{len(value)} {page}s of {paged_count(value, pages)} records, record N of {page} P "
        held += f"at {pointer}/P/{pages}/N"
        sample = records[0] if records else None
        ids = [str(r.get(id_field)) for r in records if isinstance(r, dict)] if id_field else []
    elif isinstance(value, list):
        array = array_pointer(pointer)
        held = f"array of {len(value)} items"
        if kind is not None:
            held = f"the {len(value)} items of {array} whose {kind.field[1:]} is {kind.value!r}"
        if inner and value and isinstance(value[0], dict):
            # A new record goes in an item like the others, not bare.
            item = {k: "RECORD" if f"/{k}" == inner else v for k, v in shape(value[0]).items()}
            held += f", each record at {array}/N{inner} in an item like {dumps(item)}"
        records = [resolve(r, inner) for r in value[:1] + value[1:][-1:]]
        sample = records[0] if records else None
        ids = [str(r.get(id_field)) for r in records if isinstance(r, dict)] if id_field else []
    elif not keyed and value and all(isinstance(part, list) for part in value.values()):
        # Partitions of one collection (see :mod:`mcp_sim.runtime.state_partitions`).
        records = [r for part in value.values() for r in part[:1] + part[1:][-1:]]
        held = f"{len(value)} partitions of {sum(map(len, value.values()))} records, record N "
        held += f"of partition P at {pointer}/P/N"
        sample = records[0] if records else None
        records = records[:1] + records[1:][-1:]
        ids = [str(r.get(id_field)) for r in records if isinstance(r, dict)] if id_field else []
    else:
        held = f"object with {len(value)} keys"
        sample = next(iter(value.values()), None) if value else None
        ids = list(value) if keyed else []
    line = f"- {pointer}: {held}"
    if keyed:
        line += " (records keyed by their id)"
    elif id_field:
        line += f" (records with id field {id_field!r})"
    if ids:
        line += f", ids {ids[0]} … {ids[-1]}" if len(ids) > 1 else f", id {ids[0]}"
    if sample is not None:
        line += f"; one record looks like {dumps(shape(sample))}"
    return line


def table_line(pointer: str, value: Any, id_field: str | None, table: Table) -> str:
    """The outline's line for a table whose rows hold no field names: its columns in order,
    how its rows are shown (named by their columns) and where a row's field is patched."""
    count = row_count(table, value)
    columns = ", ".join(table.columns)
    line = f"- {pointer}: table of {count} rows"
    if id_field:
        ends = sorted({0, count - 1}) if count else []
        ids = [str(row_at(table, value, i).get(id_field)) for i in ends]
        line += f" keyed by column {id_field!r}" + (f", ids {' … '.join(ids)}" if ids else "")
    if table.by_column:
        line += f", kept as one array per column ({columns}); row N is shown below as "
        return line + f"{pointer}/N with its fields named; field F of row N is at {pointer}/F/N"
    if table.cells:
        line += '; each row is {"f": [{"v": value}, ...]}, its cells in the column order '
        line += f"[{columns}]; a row is shown below by its fields' names; a field's value is at "
        return line + f"{pointer}/ROW/f/POSITION/v (counting columns from 0)"
    line += f"; each row is an array of values in the column order [{columns}]"
    if table.first:
        line += f" (row 0 is that header; rows start at {pointer}/{table.first})"
    line += f"; a row is shown below by its fields' names; a field's value is at {pointer}/ROW/"
    return line + "POSITION (counting columns from 0); a new row is appended at " + f"{pointer}/-"

"""Collections kept as lines of text, read as the records they hold.

A store may keep a collection as an array of text lines, or as one text of them: a ``sqlite3
.dump`` (``CREATE TABLE`` lines naming each table's columns, then one ``INSERT INTO t
VALUES(...)`` line per row), a CSV or TSV file under its header, ``key=value`` or access-log
lines, JSON lines. Nothing that reads records by their fields (keys, values, searches, joins,
summaries) could see a record in a string. :func:`find_text_rows` finds the arrays (outside
records keyed by id) most of whose lines read as records of one layout (see
:mod:`mcp_sim.runtime.line_layouts`); :func:`line_collections` makes each a collection, a
dump's each table one.

:meth:`TextRows.read` gives the view of the state in which each such line is the record it
stands for (see :mod:`mcp_sim.runtime.line_layouts`: a dict of its fields in column order, a
SQL row one that knows its table) at the line's own pointer, so a record's pointer is the one
a patch rewrites; lines that hold no record (a header, ``CREATE TABLE``, ``COMMIT;``) stay as
they are. Reading is done once per world; a committed patch re-reads only the lines
it touched (:meth:`TextRows.reread`), or an array whose lines moved.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from jsonpointer import escape, unescape

from mcp_sim.runtime.line_layouts import (
    LEAST_LINES,
    SAMPLE,
    TABLE,
    LineLayout,
    TableKind,
    layout_of,
)
from mcp_sim.runtime.mixed_collections import kind_pointer
from mcp_sim.runtime.record_ids import id_field_of
from mcp_sim.runtime.state_paths import stored_at
from mcp_sim.runtime.state_shape import Collection, looks_keyed

_HEAD = 10
"""The first lines of a text that must read as records before the whole text is tried."""
_FEW_MOVED = 64
"""A line added or removed at most this far from the end re-indexes the lines after it alone
(a dump's row inserted before its closing statements), not the whole array."""
_MAX_DEPTH = 8
_FEW_KEYS = 12


@dataclass(frozen=True)
class TextRows:
    """The arrays of a state whose lines are records: array pointer → how they are read."""

    layouts: dict[str, LineLayout]

    def read(self, state: Any) -> Any:
        """``state`` with each array's record lines replaced by their records (the arrays and
        the containers above them copied, everything else shared)."""
        for pointer, layout in self.layouts.items():
            lines = layout.lines(stored_at(state, pointer))
            if lines is not None:
                state = _put(state, _parts(pointer), _read_lines(layout, lines))
        return state

    def rewritten(self, patch: Iterable[Mapping[str, Any]]) -> list[str]:
        """The arrays of lines, and texts of lines, that ``patch`` replaced whole (or replaced
        a container of): their records are all read anew, and re-indexed."""
        paths = [p for op in patch if isinstance(p := op.get("path"), str)]
        return [
            p for p in self.layouts if any(p == path or p.startswith(path + "/") for path in paths)
        ]

    def reread(self, view: Any, state: Any, patch: Iterable[Mapping[str, Any]]) -> Any:
        """``view`` moved on to the stored ``state`` after ``patch``: a line replaced, added
        or removed is read (or dropped) alone, the view's other records kept where they move
        to; an array replaced, or changed by several operations at once, is read whole."""
        ops = [op for op in patch if isinstance(op.get("path"), str)]
        changes = [(op, found) for op in ops for found in self._arrays_at(op["path"])]
        for op, (pointer, layout) in changes:
            lines, held = layout.lines(stored_at(state, pointer)), stored_at(view, pointer)
            rest = op["path"][len(pointer) + 1 :] if len(op["path"]) > len(pointer) else ""
            alone = len(ops) == 1 and op.get("op") in ("replace", "add", "remove") and rest
            if isinstance(lines, list) and isinstance(held, list) and alone and "/" not in rest:
                moved = _line_changed(layout, held, lines, str(op["op"]), rest)
                if moved is not None:
                    view = _put(view, _parts(pointer), moved)
                    continue
            read = _read_lines(layout, lines) if lines is not None else stored_at(state, pointer)
            view = _put(view, _parts(pointer), read)
        return view

    def _arrays_at(self, path: str) -> list[tuple[str, LineLayout]]:
        """The arrays of lines a change at ``path`` is in, or replaces whole."""
        return [
            (pointer, layout)
            for pointer, layout in self.layouts.items()
            if path in ("", pointer)
            or path.startswith(pointer + "/")
            or pointer.startswith(path + "/")
        ]

    def note(self) -> str:
        """The line telling the model how the records it is shown are stored."""
        arrays = " | ".join(layout.describe(p) for p, layout in self.layouts.items())
        whole = any(layout.joined for layout in self.layouts.values())
        return (
            "Lines of text holding records are shown as the records they hold (fields named by "
            "their columns; a cell holding JSON as its value, columns named by one object's "
            f"path, `props.floor`, as that object's fields): {arrays}. A state patch writes a record as its line, in the "
            "stored form, at the same pointer"
            + ("; a text of lines held in one string is rewritten whole." if whole else ".")
        )


def line_collections(
    found: Sequence[Collection], text: TextRows | None, view: Any
) -> list[Collection]:
    """``found`` (the collections of the ``view`` that ``text`` read) with each array of lines
    a collection of the records its lines hold, whether or not the walk found it (a dump's
    first lines are statements); a dump's rows one collection per table, its kind."""
    if text is None:
        return list(found)
    # The walk's own reading of an array of lines (its few records, or none) gives way.
    inside = tuple(f"{p}/" for p in text.layouts)
    kept = [c for c in found if not (c.pointer in text.layouts or c.pointer.startswith(inside))]
    for pointer, layout in text.layouts.items():
        if any(within(pointer, c) for c in kept):
            continue  # inside a record: a field of that record
        lines = stored_at(view, pointer)
        records = (
            [item for item in lines if isinstance(item, dict)] if isinstance(lines, list) else []
        )
        if layout.form != "sql":
            kept.append(Collection(pointer, False, id_field_of(records), len(records), lines=True))
            continue
        for table, _ in layout.tables:
            kind = TableKind(TABLE, table)
            rows = [r for r in records if kind.holds(r)]
            at = kind_pointer(pointer, kind)
            kept.append(Collection(at, False, id_field_of(rows), len(rows), kind=kind, lines=True))
    return sorted(kept, key=lambda c: c.pointer)


def within(pointer: str, collection: Collection) -> bool:
    """Whether the array at ``pointer`` is inside one of ``collection``'s records."""
    return pointer.startswith(collection.pointer + "/")


def moved_lines(text: TextRows | None, path: str, lines: Any) -> list[str] | None:
    """The lines whose place a line added or removed at ``path`` moved (``lines``: the array
    after it), and the place one past them that a removal emptied, when ``path`` is in an
    array of lines and they are few; ``None`` otherwise (the array's records all move)."""
    array, _, last = path.rpartition("/")
    if text is None or array not in text.layouts or not isinstance(lines, list):
        return None
    if text.layouts[array].joined:
        return None
    at = len(lines) - 1 if last == "-" else int(last) if last.isdigit() else -1
    if at < 0 or len(lines) - at > _FEW_MOVED:
        return None
    return [f"{array}/{k}" for k in range(at, len(lines) + 1)]


def _line_changed(
    layout: LineLayout, held: list[Any], lines: list[Any], op: str, rest: str
) -> list[Any] | None:
    """The view's array ``held`` after one line at ``rest`` was replaced, added or removed,
    leaving the stored ``lines``; ``None`` when the two do not line up (read it whole)."""
    grown = len(lines) - len(held)
    at = len(lines) - 1 if rest == "-" else int(rest) if rest.isdigit() else -1
    if not 0 <= at < len(lines) + (op == "remove") or grown != {"add": 1, "remove": -1}.get(op, 0):
        return None
    items = list(held)
    if op == "remove":
        del items[at]
        return items
    record = layout.record(lines[at], layout.table_columns())
    line = lines[at] if record is None else record
    if op == "add":
        items.insert(at, line)
    else:
        items[at] = line
    return items


def _read_lines(layout: LineLayout, lines: list[Any]) -> list[Any]:
    columns = layout.table_columns()
    return [
        record if (record := layout.record(line, columns)) is not None else line for line in lines
    ]


def find_text_rows(state: Any) -> TextRows | None:
    """The arrays of ``state`` whose lines are records (see the module's docstring); ``None``
    when it has none."""
    layouts = dict(_arrays(state, "", 0))
    return TextRows(layouts) if layouts else None


def _arrays(value: Any, pointer: str, depth: int) -> Iterator[tuple[str, LineLayout]]:
    if depth > _MAX_DEPTH:
        return
    if isinstance(value, dict) and not (len(value) > _FEW_KEYS and looks_keyed(value)):
        # Not into records keyed by id: a record's list of notes is a field of that record
        # (a few collections' texts side by side, each under a ``content`` key, look keyed).
        for key, item in value.items():
            yield from _arrays(item, f"{pointer}/{escape(key)}", depth + 1)
    elif isinstance(value, list) and len(value) >= LEAST_LINES:
        sample = value[:: max(1, len(value) // SAMPLE)]
        if sum(isinstance(line, str) for line in sample) * 5 >= len(sample) * 4:
            layout = layout_of(value)
            if layout is not None:
                yield pointer, layout
    elif isinstance(value, str) and value.count("\n", 0, 100_000) >= LEAST_LINES:
        # A file's text is most often no records: its first lines tell, before all are split.
        if layout_of(value.split("\n", _HEAD)[:_HEAD]) is None:
            return
        layout = layout_of(value.split("\n"))
        if layout is not None:
            yield pointer, replace(layout, joined=True)


def _parts(pointer: str) -> list[str]:
    return [unescape(p) for p in pointer.split("/")[1:]] if pointer else []


def _put(view: Any, parts: list[str], value: Any) -> Any:
    """``view`` with the value at ``parts`` set to ``value``, the containers on the way
    copied."""
    if not parts:
        return value
    head, rest = parts[0], parts[1:]
    if isinstance(view, dict):
        return {**view, head: _put(view.get(head), rest, value)}
    if isinstance(view, list) and head.isdigit() and int(head) < len(view):
        items = list(view)
        items[int(head)] = _put(items[int(head)], rest, value)
        return items
    return view

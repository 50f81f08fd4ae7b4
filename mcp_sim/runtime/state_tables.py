"""Tables whose rows carry no field names, read as records named by their columns.

Spreadsheet, warehouse and dataframe APIs keep a table as column names beside rows of bare
values. A row holds no field name, so nothing that reads records by their fields (keys,
values, searches, joins, summaries) could see it as a record. :func:`table_at` recognises
these encodings at a node of the state:

- an object with a list of columns and a list of rows: ``{"columns"|"fields"|"header"|
  "schema": [...], "rows"|"data"|"values": [[...], ...]}``; a column is a name or an object
  naming it (``{"name": ..., "type": ...}``, as BigQuery and Sheets return; a schema may wrap
  them in ``{"fields": [...]}``); pandas' ``orient="split"`` adds the rows' labels as
  ``"index"``;
- an array of arrays whose first row is a header of distinct names;
- an object of equal-length arrays of scalars, one per column (``{"id": [...], "name": [...]}``),
  or of objects mapping the same row labels to scalars (pandas' default ``to_json``:
  ``{"id": {"0": ..., "1": ...}, "name": {...}}``).

A table's records are its rows, each seen as an object of its columns' names (:func:`named`)
at the pointer of the row (``/tables/visits/rows/12``); in a table kept by column, row ``i``
is at ``/TABLE/i`` (``i`` its label in a table of labelled columns) and its field ``f`` lives
at ``/TABLE/f/i``. :func:`row_of` maps a change
to the record it touches.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

COLUMN_KEYS = ("columns", "fields", "header", "headers", "schema")
ROW_KEYS = ("rows", "data", "values")
INDEX_KEY = "index"
"""Where pandas' ``orient="split"`` keeps the rows' labels."""
_NAME_KEYS = ("name", "field", "id", "label", "key", "title")
_TYPE_KEYS = ("type", "dataType", "data_type")
"""What a schema's ``{name: {"type": ...}}`` entry says about its column."""
CELLS_KEY, VALUE_KEY = "f", "v"
"""BigQuery's rows: ``{"f": [{"v": value}, ...]}``, one cell per column."""
_SAMPLE = 24
_MIN_COLUMNS = 2
"""A table guessed from its shape alone has two columns at least; one whose columns and rows
are named as such may have a single column."""


@dataclass(frozen=True)
class Table:
    """How a table's rows are laid out; its records are named by ``columns``."""

    columns: tuple[str, ...]
    by_column: bool = False
    """Kept as one array per column: record ``i`` is item ``i`` of each."""
    labelled: bool = False
    """Kept by column, each column an object of row label → value: record ``i`` is the
    value under label ``i`` in each."""
    first: int = 0
    """Rows before the first record (1: the array's first row is its header)."""
    labels: tuple[str, ...] = ()
    """The rows' labels (pandas' index) in the starting state, when the table has them."""
    cells: bool = False
    """Each row is BigQuery's ``{"f": [{"v": value}, ...]}``, not an array of values."""


def column_names(value: Any, least: int = 1) -> tuple[str, ...] | None:
    """The distinct names a list of columns gives (strings, or objects naming them), or a
    schema of ``{name: type}`` gives (its names, in order); ``None`` for fewer than
    ``least``."""
    if isinstance(value, dict) and isinstance(value.get("fields"), list):
        value = value["fields"]
    elif isinstance(value, dict) and value and all(map(_type_of_column, value.values())):
        value = list(value)
    if not isinstance(value, list) or len(value) < least:
        return None
    names: list[str] = []
    for entry in value:
        if isinstance(entry, dict):
            entry = next((entry[k] for k in _NAME_KEYS if isinstance(entry.get(k), str)), None)
        if not isinstance(entry, str) or not entry.strip():
            return None
        names.append(entry)
    return tuple(names) if len(set(names)) == len(names) else None


def _type_of_column(value: Any) -> bool:
    """A schema's entry for one column: a type's name, or an object giving it."""
    if isinstance(value, dict):
        return any(isinstance(value.get(k), str) for k in _TYPE_KEYS)
    return isinstance(value, str) and 0 < len(value) <= 40 and " " not in value.strip()


def row_values(row: Any) -> list[Any] | None:
    """A row's bare values: the row itself, or the values of its cells (BigQuery's
    ``{"f": [{"v": ...}]}``); ``None`` for what is not a row."""
    if isinstance(row, list):
        return row
    cells = row.get(CELLS_KEY) if isinstance(row, dict) and len(row) == 1 else None
    if isinstance(cells, list) and all(isinstance(c, dict) and VALUE_KEY in c for c in cells):
        return [c[VALUE_KEY] for c in cells]
    return None


def _rows_fit(rows: list[Any], width: int) -> bool:
    """Rows are arrays (or rows of cells) no wider than the columns (a sheet drops a row's
    trailing blanks)."""
    for row in rows[:_SAMPLE]:
        values = row_values(row)
        if values is None or not 0 < len(values) <= width:
            return False
    return True


def _row_table(value: dict[str, Any]) -> tuple[str, Table] | None:
    names = next(
        (found for key in COLUMN_KEYS if (found := column_names(value.get(key))) is not None), None
    )
    if names is None:
        return None
    for key in ROW_KEYS:
        rows = value.get(key)
        if isinstance(rows, list) and _rows_fit(rows, len(names)):
            index = value.get(INDEX_KEY)
            labels: tuple[str, ...] = ()
            if isinstance(index, list) and len(index) == len(rows):
                labels = tuple(str(label) for label in index)
            cells = bool(rows) and isinstance(rows[0], dict)
            return key, Table(names, labels=labels, cells=cells)
    return None


def _header_table(value: list[Any]) -> Table | None:
    # Two rows at least below the header: a pair of pairs of words is as likely a lookup list.
    if len(value) < 3 or not isinstance(value[0], list) or not isinstance(value[1], list):
        return None
    names = value[0]
    if len(names) < _MIN_COLUMNS or not all(isinstance(n, str) and n.strip() for n in names):
        return None
    if len(set(names)) != len(names) or not _rows_fit(value[1:], len(names)):
        return None
    return Table(tuple(names), first=1)


def _scalar(value: Any) -> bool:
    return not isinstance(value, dict | list)


def _column_table(value: dict[str, Any]) -> Table | None:
    if len(value) < _MIN_COLUMNS:
        return None
    lengths = {len(v) if isinstance(v, list | dict) else -1 for v in value.values()}
    if len(lengths) != 1 or min(lengths) < 2:
        return None
    columns = list(value.values())
    if all(isinstance(c, dict) for c in columns):
        return _labelled_table(value, columns)
    if not all(isinstance(c, list) and all(map(_scalar, c[:_SAMPLE])) for c in columns):
        return None
    return Table(tuple(value), by_column=True)


def _labelled_table(value: dict[str, Any], columns: list[dict[str, Any]]) -> Table | None:
    """Columns of row label → scalar, the labels the rows' positions (``"0"``, ``"1"``): a
    collection keyed by id has fields, not numbers, for keys."""
    labels = list(columns[0])[:_SAMPLE]
    if not all(label.isdigit() for label in labels):
        return None
    if not all(label in c and _scalar(c[label]) for c in columns for label in labels):
        return None
    return Table(tuple(value), by_column=True, labelled=True)


def table_at(value: Any) -> tuple[str, Table] | None:
    """The table ``value`` is, if any, and the part of it holding the rows (``"/rows"``,
    ``""`` for a table that is its rows or is kept by column)."""
    if isinstance(value, list):
        table = _header_table(value)
        return ("", table) if table is not None else None
    if not isinstance(value, dict):
        return None
    found = _row_table(value)
    if found is not None:
        return f"/{found[0]}", found[1]
    table = _column_table(value)
    return ("", table) if table is not None else None


def named(columns: tuple[str, ...], row: Any) -> dict[str, Any]:
    """A row (its values, or its cells) as the record it is: each value under its column's
    name."""
    return dict(zip(columns, row_values(row) or [], strict=False))


def under_header(columns: tuple[str, ...], row: Any) -> dict[str, Any]:
    """A row under a header row, named; a cell holding a JSON object or array as text (a sheet
    keeps a record's list so) read as that value, as a loader reads it."""
    return {name: _json_cell(cell) for name, cell in named(columns, row).items()}


def _json_cell(cell: Any) -> Any:
    if not isinstance(cell, str) or cell[:1] not in ("{", "[") or cell[-1:] not in ("}", "]"):
        return cell
    try:
        return json.loads(cell)
    except ValueError:
        return cell


def column_row(value: dict[str, Any], index: str) -> dict[str, Any] | None:
    """Row ``index`` (a position, or a label) of a table kept by column, named; ``None``
    where it has none."""
    row: dict[str, Any] = {}
    for name, column in value.items():
        if isinstance(column, dict) and index in column:
            row[name] = column[index]
        elif isinstance(column, list) and index.isdigit() and int(index) < len(column):
            row[name] = column[int(index)]
    return row or None


def _labels(value: dict[str, Any]) -> list[str]:
    first = next((c for c in value.values() if isinstance(c, dict)), {})
    return list(first)


def row_count(table: Table, value: Any) -> int:
    """How many records the table holds (``value``: its rows, or its columns)."""
    if table.by_column and isinstance(value, dict):
        return max((len(v) for v in value.values() if isinstance(v, list | dict)), default=0)
    return max(0, len(value) - table.first) if isinstance(value, list) else 0


def row_at(table: Table, value: Any, index: int) -> dict[str, Any]:
    """Record ``index`` (counting from the first record) of the table, named."""
    if table.by_column and isinstance(value, dict):
        at = _labels(value)[index] if table.labelled else str(index)
        return column_row(value, at) or {}
    row = value[table.first + index] if isinstance(value, list) else None
    return under_header(table.columns, row) if table.first else named(table.columns, row)


def table_rows(table: Table, value: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(position or label, named row)`` for each record of the table."""
    if table.by_column:
        if isinstance(value, dict):
            every = _labels(value) if table.labelled else map(str, range(row_count(table, value)))
            for at in every:
                yield at, column_row(value, at) or {}
        return
    if isinstance(value, list):
        read = under_header if table.first else named
        for i in range(table.first, len(value)):
            yield str(i), read(table.columns, value[i])


def row_of(table: Table, rest: str, value: Any) -> str | None:
    """The position of the record that a change at ``rest`` (the pointer below the table's
    rows, ``value`` after the change) touches: ``12/4`` → ``12``; in a table kept by column,
    ``name/3`` → ``3``; ``-`` (appended) → the last row."""
    parts = rest.split("/")
    if table.by_column:
        if len(parts) < 2:
            return None
        position = parts[1]
        if position == "-" and not table.labelled:
            return str(row_count(table, value) - 1) if row_count(table, value) else "0"
        return position if position.isdigit() or table.labelled else None
    position = parts[0]
    if position == "-":
        size = len(value) if isinstance(value, list) else 0
        return str(max(size - 1, table.first))
    return position


def step_into_row(container: Any, key: str) -> Any:
    """The named record that ``key`` picks from ``container`` when ``container`` is a table's
    rows (an array under a header) or a table kept by column; ``None`` when it is not one."""
    if isinstance(container, list) and key.isdigit():
        position = int(key)
        if position >= 1 and position < len(container) and isinstance(container[position], list):
            table = _header_table(container)
            if table is not None:
                return under_header(table.columns, container[position])
        return None
    # Only a position that is not one of its keys can name a row of a table kept by column,
    # and telling that shape apart takes a pass over every column.
    missing = isinstance(container, dict) and key.isdigit() and key not in container
    if missing and _column_table(container) is not None:
        return column_row(container, key)
    return None


def rows_columns(container: dict[str, Any], key: str) -> tuple[str, ...] | None:
    """The column names when ``container[key]`` may be a table's rows (``key`` a rows key
    beside a list of columns); each row is checked as it is stepped into, not all of them on
    every step."""
    if key not in ROW_KEYS or not isinstance(container.get(key), list):
        return None
    return next(
        (found for k in COLUMN_KEYS if (found := column_names(container.get(k))) is not None), None
    )


def held_tables(value: Any) -> bool:
    """An array of a few objects each holding one table's rows under a header row beside its
    own few scalars (a spreadsheet's ``valueRanges``: ``{"range": "Orders!A1:J500", "values":
    [[header], ...]}``): each table is a collection of its own, named by its header, not one
    collection of records that a header row would leave unnamed."""
    if not isinstance(value, list) or not 2 <= len(value) <= _SAMPLE:
        return False
    for item in value:
        if not isinstance(item, dict):
            return False
        tables = [v for v in item.values() if isinstance(v, list) and _header_table(v)]
        if len(tables) != 1 or any(isinstance(v, dict) for v in item.values()):
            return False
    return True


def held_header(value: Any) -> bool:
    """Whether ``value`` is an array of rows under a header row of distinct names."""
    return isinstance(value, list) and _header_table(value) is not None

"""Values at JSON pointers in a state: a table's row named by its columns (``/rows/3`` gives
the row as an object of its columns' names, a cell still reached by its place in the row as
stored), records of a flat export's key pattern (each read whole from its keys: see
:mod:`mcp_sim.runtime.keyed_parts`), and the value as stored where a caller needs
the bytes (:func:`raw_value`)."""

from __future__ import annotations

import json
from typing import Any

from jsonpointer import unescape

from mcp_sim.runtime.keyed_parts import whole_records
from mcp_sim.runtime.mixed_collections import is_kind_part
from mcp_sim.runtime.state_keys import pattern_of
from mcp_sim.runtime.state_tables import named, row_values, rows_columns, step_into_row


def nested(one: str, other: str) -> bool:
    """Whether one of two JSON pointers is the other or inside it."""
    return one == other or one.startswith(other + "/") or other.startswith(one + "/")


def stored_at(state: Any, pointer: str) -> Any:
    """The value at ``pointer`` as stored, read key by key (``None`` where there is none): no
    table's row named, no key pattern's records gathered."""
    value = state
    for part in pointer.split("/")[1:] if pointer else []:
        key = unescape(part)
        if isinstance(value, dict) and key in value:
            value = value[key]
        elif isinstance(value, list) and key.isdigit() and int(key) < len(value):
            value = value[int(key)]
        else:
            return None
    return value


def resolve(state: Any, pointer: str) -> Any:
    """The value at ``pointer`` (``None`` where there is none), a table's row named by its columns (a row's cell is still
    reached by its position: ``/rows/12/4``)."""
    value = state
    columns: tuple[str, ...] | None = None
    """Set while ``value`` is a table's rows under an object naming their columns."""
    row: Any = None
    """The row as stored, while ``value`` is that row named."""
    for part in pointer.split("/")[1:] if pointer else []:
        key = unescape(part)
        if row is not None and key not in value:
            # A cell is reached by its place in the row as stored (``/rows/3/f/2/v``).
            if isinstance(row, dict) and key in row:
                value, row = row[key], None
                continue
            if isinstance(row, list) and key.isdigit() and int(key) < len(row):
                value, row = row[int(key)], None
                continue
        row = None
        rows, columns = columns, None
        if isinstance(value, dict) and key in value:
            columns = rows_columns(value, key)
            value = value[key]
        elif rows is not None and isinstance(value, list) and _row_at(value, key, len(rows)):
            row = value[int(key)]
            value = named(rows, row)
        elif isinstance(value, dict) and (pattern := pattern_of(key)) is not None:
            value = whole_records(value, pattern)
        elif (found := step_into_row(value, key)) is not None:
            row = value[int(key)] if isinstance(value, list) else None
            value = found
        elif isinstance(value, list) and key.isdigit() and int(key) < len(value):
            value = value[int(key)]
        elif isinstance(value, list) and is_kind_part(key):
            continue  # the records of one kind in a mixed array: the array
        else:
            return None
    return value


def _row_at(rows: list[Any], key: str, width: int) -> bool:
    """Whether ``key`` picks a row of bare values no wider than the table's columns."""
    if not key.isdigit() or int(key) >= len(rows):
        return False
    row = row_values(rows[int(key)])
    return row is not None and 0 < len(row) <= width


def raw_value(state: Any, pointer: str) -> Any:
    """The value at ``pointer`` as stored (a table's row as its bare values; a row of a table
    kept by column, which no single place stores, as its values in a list)."""
    value = stored_at(state, pointer)
    if value is None:
        record = resolve(state, pointer)
        return list(record.values()) if isinstance(record, dict) else record
    return value


def record_size(value: Any) -> int:
    """The length of ``value``'s compact JSON (0 for nothing)."""
    if value is None:
        return 0
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def grown_size(pointer: str, was: Any, now: Any) -> int:
    """How much longer the state's compact JSON got where ``pointer``'s record changed from
    ``was`` to ``now`` (``None``: absent), its key and separator included."""
    grown = record_size(now) - record_size(was)
    if (was is None) != (now is None):
        key = unescape(pointer.rsplit("/", 1)[1])
        framing = 1 if key.isdigit() else record_size(key) + 2
        grown += framing if was is None else -framing
    return grown

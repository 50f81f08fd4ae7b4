"""Which format an array of text lines is written in, and how its lines are read as records.

:func:`layout_of` tells, by structure and not by name, whether most lines of an array read as
records of one layout, in one of the formats of :mod:`mcp_sim.runtime.text_lines`: a SQL
dump's ``INSERT`` lines as rows of the tables its ``CREATE TABLE`` lines name; delimited lines
as wide as the header line above them; ``key=value`` lines or JSON lines of mostly one set of
keys; log lines of unnamed fields that start with a time or an address. A
:class:`LineLayout` reads one line as its record; a SQL row is a :class:`Row` that knows its
table, which makes each table a kind of record of the dump's array (see
:mod:`mcp_sim.runtime.mixed_collections`) without a field that no line holds.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mcp_sim.runtime.mixed_collections import Kind
from mcp_sim.runtime.text_lines import (
    create_columns,
    delimited_record,
    field_name,
    header_names,
    json_record,
    pairs_record,
    shaped,
    sql_record,
    token_record,
    tokens,
)

TABLE = "/table"
"""How the outline says which table a kind's rows are of (``whose table is 'objects'``)."""
LEAST_LINES = 8
SAMPLE = 200
"""Lines sampled (spread over the array) to tell its format."""
_LEAST_READ = 0.9
"""The share of sampled lines (outside a dump's statements) that must read as records."""
_MOST_FIELDS = 12
"""A log line's unnamed fields: the first tokens, the rest of the line the last."""
_DELIMITERS = (",", "\t", "|", ";")
_FORMS = {
    "sql": "SQL `INSERT` lines (a row's values in the order of its table's `CREATE TABLE` columns)",
    "delimited": "delimited lines under the header line",
    "pairs": "`key=value` lines",
    "json": "JSON lines",
    "tokens": "log lines of unnamed fields (`field1`, `field2`, ... in the line's order, the "
    "last one the rest of the line; a quoted or bracketed part one field)",
}


class Row(dict[str, Any]):
    """A SQL row read from its line: its fields, and the table the line fills, which is no
    field of it (a search or an answer never sees it)."""

    table: str = ""

    @classmethod
    def of(cls, table: str, fields: dict[str, Any]) -> Row:
        row = cls(fields)
        row.table = table
        return row


@dataclass(frozen=True)
class TableKind(Kind):
    """The rows of one table of a dump's array of lines."""

    def holds(self, item: Any) -> bool:
        return isinstance(item, Row) and item.table == self.value


@dataclass(frozen=True)
class LineLayout:
    """How the lines of one array are read as records."""

    form: str
    """``sql``, ``delimited``, ``pairs`` or ``json``."""
    tables: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """A SQL dump's tables and their columns, in the order its ``CREATE TABLE`` lines give."""
    delimiter: str = ""
    header: str = ""
    """A delimited file's header line, as stored."""
    columns: tuple[str, ...] = ()
    """A delimited file's columns (its header's names)."""
    example: str = ""
    """One record's line as stored: the form a patch writes."""
    joined: bool = False
    """The lines are one string's, split at its line breaks (a CSV file's text): record ``N``
    is its line ``N``, and a patch rewrites the whole string."""

    def lines(self, stored: Any) -> list[Any] | None:
        """The lines as stored at the layout's place (``None`` where there are none)."""
        if self.joined:
            return stored.split("\n") if isinstance(stored, str) else None
        return stored if isinstance(stored, list) else None

    def record(self, line: Any, columns: Mapping[str, tuple[str, ...]]) -> dict[str, Any] | None:
        """The record ``line`` stands for, ``None`` for a line that holds none (``columns``:
        a SQL dump's tables, :meth:`table_columns`)."""
        if not isinstance(line, str):
            return None
        if self.form == "sql":
            found = sql_record(line, columns)
            return None if found is None else Row.of(found[0], shaped(found[1]))
        if self.form == "tokens":
            return token_record(line, len(self.columns))
        if self.form == "json":
            return json_record(line)
        if self.form == "delimited":
            fields = (
                None
                if line == self.header
                else delimited_record(line, self.delimiter, self.columns)
            )
        else:
            fields = pairs_record(line)
        return None if fields is None else shaped(fields)

    def table_columns(self) -> dict[str, tuple[str, ...]]:
        return dict(self.tables)

    def describe(self, pointer: str) -> str:
        """What the model is told of the array: its format, each table's columns in order
        (as a service answering rows as arrays lists them), one line as stored."""
        text = f"{pointer}: {'one text of ' if self.joined else ''}{_FORMS[self.form]}"
        if self.tables:
            named = "; ".join(f"{t} {_columns(c)}" for t, c in self.tables)
            text += f"; tables: {named}"
        elif self.form == "delimited":
            text += f" {_columns(self.columns)}"
        return f"{text}; a line as stored: `{self.example}`" if self.example else text


def _columns(names: tuple[str, ...]) -> str:
    return json.dumps({"columns": list(names)}, ensure_ascii=False)


def layout_of(lines: list[Any]) -> LineLayout | None:
    """How ``lines`` are records, if most of them are, in one format."""
    texts = [line for line in lines if isinstance(line, str)]
    sample = texts[:: max(1, len(texts) // SAMPLE)]
    return _sql(texts, sample) or _by_line(sample) or _delimited(texts, sample) or _tokens(sample)


def _tokens(sample: list[str]) -> LineLayout | None:
    """Log lines of unnamed fields (an access log, syslog): nearly every line as many tokens
    long at least, and its first or second holding a digit in nearly every line (a time, an
    address), which prose lines do not."""
    counts = sorted(len(tokens(line)) for line in sample)
    if len(counts) < LEAST_LINES:
        return None
    width = min(counts[int(len(counts) * (1 - _LEAST_READ))], _MOST_FIELDS)
    records = [r for line in sample if (r := token_record(line, width)) is not None]
    if width < 3 or len(records) < _LEAST_READ * len(sample):
        return None
    names = tuple(field_name(n) for n in range(1, width + 1))
    # A log line starts with its time or its source (``Oct 11 22:14:15``, ``10.0.0.7``).
    held = [sum(any(c.isdigit() for c in r[name]) for r in records) for name in names[:2]]
    if max(held) < _LEAST_READ * len(records):
        return None
    example = next(line for line in reversed(sample) if token_record(line, width) is not None)
    return LineLayout("tokens", columns=names, example=example)


def _sql(texts: list[str], sample: list[str]) -> LineLayout | None:
    """A SQL dump: its ``CREATE TABLE`` lines' columns, and most sampled ``INSERT`` lines rows
    of them."""
    inserts = [line for line in sample if line.lstrip()[:6].upper() == "INSERT"]
    if len(inserts) < 3:
        return None
    creates = (line for line in texts if line.lstrip()[:6].upper() == "CREATE")
    tables = [found for line in creates if (found := create_columns(line)) is not None]
    columns = dict(tables)
    read = [line for line in inserts if sql_record(line, columns) is not None]
    if len(read) < 3 or len(read) < _LEAST_READ * len(inserts):
        return None
    return LineLayout("sql", tuple(tables), example=read[-1])


def _by_line(sample: list[str]) -> LineLayout | None:
    """``key=value`` lines or JSON lines, most of one set of keys."""
    for form, reader in (("json", json_record), ("pairs", pairs_record)):
        records = [r for line in sample if (r := reader(line)) is not None]
        if len(records) < LEAST_LINES or len(records) < _LEAST_READ * len(sample):
            continue
        first = set(records[0])
        alike = sum(len(first & set(r)) * 2 >= len(first | set(r)) for r in records)
        if alike >= _LEAST_READ * len(records):
            example = next(line for line in reversed(sample) if reader(line) is not None)
            return LineLayout(form, example=example)
    return None


def _delimited(texts: list[str], sample: list[str]) -> LineLayout | None:
    """Lines under a header line, each as wide as the header in one delimiter."""
    header = texts[0]
    rows = [line for line in sample if line != header]
    for delimiter in _DELIMITERS:
        if delimiter not in header:
            continue
        columns = header_names(header, delimiter)
        if columns is None:
            continue
        read = [line for line in rows if delimited_record(line, delimiter, columns) is not None]
        if len(read) >= LEAST_LINES - 1 and len(read) >= _LEAST_READ * len(rows):
            return LineLayout("delimited", (), delimiter, header, columns, read[-1])
    return None

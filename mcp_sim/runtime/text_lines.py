"""Reading one line of text as a record: the line formats that hold one record a line.

Some stores keep a collection as lines of text, not as JSON objects: a SQLite database as
``sqlite3 .dump`` writes it (``CREATE TABLE t (a, b, ...)``, then ``INSERT INTO t VALUES(1,
'x');`` lines of positional values), a CSV or TSV file under its header line, ``key=value``
(logfmt) lines, JSON objects one a line. Each parser here reads one line, given what the
lines before it said (a table's columns, a header), into the record it stands for: a dict of
its fields in their order, values as the line types them (a SQL literal's number as a number,
``NULL`` as ``None``; a CSV cell as its text, as the file holds it). ``None`` for a line that
is no record of the format. :mod:`mcp_sim.runtime.text_rows` finds which format an array of
lines is written in.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Mapping
from typing import Any

_NAME = r'(?:"[^"]+"|`[^`]+`|\[[^\]]+\]|[A-Za-z_][\w$]*)'
_INSERT = re.compile(
    rf"^\s*INSERT\s+(?:OR\s+\w+\s+)?INTO\s+(?:{_NAME}\.)?({_NAME})\s*(\([^)]*\))?\s*VALUES\s*\(",
    re.IGNORECASE,
)
_CREATE = re.compile(
    rf"^\s*CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(?:{_NAME}\.)?({_NAME})\s*\(", re.IGNORECASE
)
_LITERAL = re.compile(
    r"(\s*(?:'((?:[^']|'')*)'|(-?\d+)|(-?\d*\.?\d+(?:[eE][-+]?\d+)?)|(NULL)|([^,')]*?))\s*"
    r"(,|\)\s*;?\s*$))",
    re.IGNORECASE,
)
"""One value of a row and what follows it: a quoted text (``''`` for a quote), a whole number,
a number, ``NULL``, or a bare word (``TRUE``, ``X'00'`` as written)."""
_FIRST_NAME = re.compile(rf"\s*({_NAME})")
_CONSTRAINTS = ("primary", "foreign", "unique", "check", "constraint")
"""What starts a table constraint, not a column, in ``CREATE TABLE``'s list."""
_TOKEN = re.compile(r'\s*("(?:[^"\\]|\\.)*"|\[[^\]]*\]|[^\s=]+(?=\s|$))')
_PAIR = re.compile(r'\s*([A-Za-z_][\w.\-/]*)=("(?:[^"\\]|\\.)*"|\S*)')
_PATH = re.compile(r"[./]")
"""What joins the parts of a flattened column's name (``props.floor``, ``SPECS/GAUGE``)."""
_HEADER_NAME = re.compile(r"^[A-Za-z_][\w.\-/#%()]{0,40}(?: [A-Za-z_(][\w.\-/#%()]*){0,2}(?<!\.)$")
"""A column's name: a word or a few (``unit_price``, ``Unit Price (NOK)``), not a sentence."""


def unquoted(name: str) -> str:
    """A SQL name without its quotes (``"a b"``, ```a```, ``[a]``)."""
    if name[:1] in '"`[' and len(name) > 1:
        return name[1:-1]
    return name


def insert_table(line: str) -> tuple[str, tuple[str, ...] | None, int] | None:
    """The table an ``INSERT`` line fills, the columns it names (if it names them) and where
    its values start; ``None`` for another line."""
    match = _INSERT.match(line)
    if match is None:
        return None
    named = match.group(2)
    columns = None
    if named:
        columns = tuple(unquoted(c.strip()) for c in named[1:-1].split(",") if c.strip())
    return unquoted(match.group(1)), columns, match.end()


def sql_values(line: str, start: int) -> list[Any] | None:
    """The positional values of a one-row ``VALUES(...)`` from ``start`` (just after its
    parenthesis); ``None`` when the line holds more than one row or no such list."""
    found = _LITERAL.findall(line, start)
    # The values follow each other up to the line's end: a second row's are not skipped over.
    if not found or sum(len(whole) for whole, *_ in found) != len(line) - start:
        return None
    return [_typed(*groups[1:6]) for groups in found]


def _typed(text: str, digits: str, number: str, null: str, word: str) -> Any:
    """A value as the group of :data:`_LITERAL` it matched types it."""
    if digits:
        return int(digits)
    if number:
        return float(number)
    if null:
        return None
    return word if word else text.replace("''", "'")


def create_columns(line: str) -> tuple[str, tuple[str, ...]] | None:
    """The table and its columns in order that a ``CREATE TABLE`` line names."""
    match = _CREATE.match(line)
    if match is None:
        return None
    body = line[match.end() : line.rfind(")")]
    columns: list[str] = []
    depth, part = 0, ""
    for char in body + ",":
        if char == "," and depth == 0:
            name = _FIRST_NAME.match(part)
            if name and name.group(1).casefold() not in _CONSTRAINTS:
                columns.append(unquoted(name.group(1)))
            part = ""
            continue
        depth += (char == "(") - (char == ")")
        part += char
    return (unquoted(match.group(1)), tuple(columns)) if columns else None


def sql_record(
    line: str, tables: Mapping[str, tuple[str, ...]]
) -> tuple[str, dict[str, Any]] | None:
    """An ``INSERT`` line's table and its row named by the table's columns (those the line
    names, else those ``tables`` gives: its ``CREATE TABLE``)."""
    found = insert_table(line)
    if found is None:
        return None
    table, named, start = found
    columns = named or tables.get(table)
    values = sql_values(line, start)
    if columns is None or values is None or len(values) != len(columns):
        return None
    return table, dict(zip(columns, values, strict=True))


def cells(line: str, delimiter: str) -> list[str]:
    """A delimited line's cells (quotes as CSV writes them)."""
    return next(csv.reader([line], delimiter=delimiter), [])


def header_names(line: str, delimiter: str) -> tuple[str, ...] | None:
    """A header line's column names: two or more distinct names, none a number."""
    names = [name.strip() for name in cells(line, delimiter)]
    if len(names) < 2 or len(set(names)) != len(names):
        return None
    if not all(_HEADER_NAME.match(name) for name in names):
        return None
    return tuple(names)


def delimited_record(line: str, delimiter: str, columns: tuple[str, ...]) -> dict[str, Any] | None:
    """A delimited line as its cells named by the header's columns; ``None`` for a line of
    another width."""
    found = cells(line, delimiter)
    if len(found) != len(columns):
        return None
    return dict(zip(columns, found, strict=True))


def tokens(line: str) -> list[str]:
    """A log line's tokens: words, a quoted string or a bracketed group each one token
    (``[10/Oct/2026:13:55:36 +0000]``, ``"GET /a HTTP/1.1"``), quotes and brackets kept."""
    return _TOKEN.findall(line)


def field_name(position: int) -> str:
    """The name of a line's ``position``-th unnamed field (``field1``): a log line names
    none of its own."""
    return f"field{position}"


def pairs_record(line: str) -> dict[str, Any] | None:
    """A ``key=value`` line (logfmt: values quoted where they hold spaces) as its pairs, two
    at least; bare words before the first pair (a time, a level) are fields of their
    position, and nothing but pairs may follow."""
    record: dict[str, Any] = {}
    at, bare = 0, 0
    text = line.rstrip()
    while at < len(text):
        match = _PAIR.match(text, at)
        if match is None:
            word = _TOKEN.match(text, at) if not record or bare == len(record) else None
            if word is None:
                return None
            bare += 1
            record[field_name(bare)] = word.group(1)
            at = word.end()
            continue
        value = match.group(2)
        if value.startswith('"'):
            value = value[1:-1].replace('\\"', '"')
        record[match.group(1)] = value
        at = match.end()
    return record if len(record) - bare >= 2 else None


def token_record(line: str, width: int) -> dict[str, Any] | None:
    """A log line of unnamed fields: its first ``width - 1`` tokens, then the rest of the
    line (a message of any length) as the last; ``None`` for a shorter line."""
    record: dict[str, Any] = {}
    at = 0
    for position in range(1, width):
        match = _TOKEN.match(line, at)
        if match is None:
            return None
        record[field_name(position)] = match.group(1)
        at = match.end()
    rest = line[at:].strip()
    if not rest:
        return None
    record[field_name(width)] = rest
    return record


def json_record(line: str) -> dict[str, Any] | None:
    """A line holding one JSON object (JSON lines)."""
    text = line.strip()
    if not text.startswith("{"):
        return None
    try:
        found = json.loads(text)
    except ValueError:
        return None
    return found if isinstance(found, dict) and found else None


def shaped(fields: dict[str, Any]) -> dict[str, Any]:
    """A line's fields as the record a loader makes of them, the form an answer gives: a
    cell holding a JSON object or array as that value, and columns named by one object's
    path (``props.floor``, ``props.surface``; ``SPECS/GAUGE``) as that object's fields. A
    path that no other column shares stays a name (``unit.price`` alone)."""
    record = {name: _parsed(value) for name, value in fields.items()}
    paths = {name: _PATH.split(name) for name in record if _PATH.search(name)}
    heads: dict[str, int] = {}
    for parts in paths.values():
        heads[parts[0]] = heads.get(parts[0], 0) + 1
    nested = {n: p for n, p in paths.items() if heads[p[0]] > 1 and p[0] not in record and all(p)}
    if not nested:
        return record
    out: dict[str, Any] = {}
    for name, value in record.items():
        if name not in nested:
            out[name] = value
            continue
        *outer, last = nested[name]
        place = out
        for part in outer:
            inner = place.setdefault(part, {})
            if not isinstance(inner, dict):
                break
            place = inner
        else:
            place[last] = value
    return out


def _parsed(value: Any) -> Any:
    if isinstance(value, str) and value[:1] in ("{", "[") and value[-1:] in ("}", "]"):
        try:
            found = json.loads(value)
        except ValueError:
            return value
        return found if isinstance(found, dict | list) else value
    return value

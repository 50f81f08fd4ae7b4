"""Records written as lines of text, as exports and logs keep them: CSV (``,`` or ``;``) and
TSV with a header line, an SQL dump (``CREATE TABLE`` then one ``INSERT INTO .. VALUES``
line a record, SQLite's or MySQL's quoting), logfmt (``boat_id=BT-1 name="Sea Breeze"``),
JSON lines, and a spreadsheet's ``values`` (a header row, then rows of cells all text, a row's
trailing empty cells left out as the Google Sheets API leaves them). A record's sub-objects
are flattened into columns named by their path (``details.hull``), or kept whole as JSON text
in one column, by seed; arrays and the calendar are JSON text in a cell; a missing value is an
empty cell (``NULL``; left out of a logfmt line). Reading a line back types a cell as its text
says (a number where it reads as one, JSON where it is JSON), as a loader would."""

from __future__ import annotations

import csv
import io
import json
import random
import re
from dataclasses import dataclass
from typing import Any

FORMATS = ("csv", "tsv", "sql", "logfmt", "jsonl", "sheets")
APPENDED = ("logfmt", "jsonl")
"""Formats of logs: a write appends a line, the latest line of an id being the record."""
TEXT_KEYS = ("content", "text", "data", "body", "dump")
LINE_KEYS = ("lines", "rows", "entries", "log")
SHARE = 0.7
"""The share of the seeds with a collection free to hold as text that draw it (3 in 10)."""
_NUMBER = re.compile(r"^-?\d+(\.\d+)?$")
_SQL_VALUE = re.compile(r"'((?:[^']|'')*)'|(NULL)|(-?\d+(?:\.\d+)?)")
_LOGFMT = re.compile(r'([^\s=]+)=("(?:[^"\\]|\\.)*"|\S*)')
Path = tuple[str, ...]


@dataclass(frozen=True)
class TextStyle:
    """How a seed writes records as text."""

    format: str
    as_lines: bool
    """An array of lines (a spreadsheet's rows) rather than one string."""
    key: str
    """The container's key holding the text (or the lines)."""
    flatten: str
    """The separator of flattened sub-objects' paths (``""``: sub-objects kept as JSON)."""
    delimiter: str = ","
    mysql: bool = False
    """An SQL dump as mysqldump writes it (backquotes, column lists) rather than SQLite."""
    links: bool = False
    """Whether the links are held as text too (where they can be)."""
    book: tuple[str, ...] = ()
    """Where one value-range document keeps every table side by side (``()``: each table in
    its collection's place; :mod:`.header_rows`)."""
    labels: str = ""
    """How a book's header row spells the columns (:mod:`.header_rows`)."""
    address: str = "a1"
    """How a book's tools name cells: ``a1`` or ``r1c1``."""

    @property
    def names(self) -> str:
        held = "lines" if self.as_lines else "text"
        book = f" book {self.labels} {self.address}" if self.book else ""
        return f"text {self.format} {held}{' +links' if self.links else ''}{book}"


def draw_text(seed: int) -> TextStyle | None:
    """The text seed ``seed`` draws, if any (a generator of its own)."""
    rng = random.Random(f"text-lines/{seed}")
    drawn, kind = rng.random() < SHARE, rng.choice(FORMATS)
    as_lines = kind == "sheets" or rng.random() < (0.7 if kind in APPENDED else 0.3)
    key = "values" if kind == "sheets" else rng.choice(LINE_KEYS if as_lines else TEXT_KEYS)
    flatten = rng.choice(("", ".", ".", "/")) if kind != "jsonl" else ""
    delimiter = rng.choice((",", ",", ";")) if kind == "csv" else "\t"
    mysql, links = rng.random() < 0.5, rng.random() < 0.5
    return TextStyle(kind, as_lines, key, flatten, delimiter, mysql, links) if drawn else None


def cell(value: Any) -> str:
    """A value as a cell's text (``""``: none)."""
    if value is None:
        return ""
    if isinstance(value, dict | list):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def typed(text: str) -> Any:
    """A cell's value, as its text reads."""
    if text == "":
        return None
    if _NUMBER.match(text):
        return float(text) if "." in text else int(text)
    if text[0] in "[{":
        return json.loads(text)
    return text


def _quoted(name: str, mysql: bool) -> str:
    return f"`{name}`" if mysql else f'"{name}"'


def _sql_literal(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return "'" + cell(value).replace("'", "''") + "'"


def header(style: TextStyle, table: str, names: list[str]) -> list[str]:
    """The lines before the records (none for logs)."""
    if style.format in ("csv", "tsv"):
        return [_csv_line(style, names)]
    if style.format == "sql":
        columns = ", ".join(f"{_quoted(n, style.mysql)} TEXT" for n in names)
        return [f"CREATE TABLE {_quoted(table, style.mysql)} ({columns});"]
    return []


def _csv_line(style: TextStyle, cells: list[str]) -> str:
    out = io.StringIO()
    csv.writer(out, delimiter=style.delimiter, lineterminator="").writerow(cells)
    return out.getvalue()


def line(style: TextStyle, table: str, names: list[str], values: list[Any]) -> str:
    """One record as a line of ``style`` (``values`` in the order of ``names``)."""
    if style.format in ("csv", "tsv"):
        return _csv_line(style, [cell(v) for v in values])
    if style.format == "sql":
        listed = ", ".join(_sql_literal(v) for v in values)
        if style.mysql:
            columns = ",".join(_quoted(n, True) for n in names)
            return f"INSERT INTO `{table}` ({columns}) VALUES ({listed});"
        return f'INSERT INTO "{table}" VALUES({listed});'
    if style.format == "logfmt":
        return " ".join(
            f"{n}={_logfmt(v)}" for n, v in zip(names, values, strict=True) if v is not None
        )
    raise ValueError(style.format)


def _logfmt(value: Any) -> str:
    text = cell(value)
    plain = isinstance(value, int | float) or not (
        text == "" or _NUMBER.match(text) or re.search(r'[\s="\\]', text) or text[0] in "[{"
    )
    return text if plain else json.dumps(text)


def read_line(style: TextStyle, names: list[str], text: str) -> dict[str, Any]:
    """The cells of a line by column name (a logfmt line: the pairs it has)."""
    if style.format in ("csv", "tsv"):
        (cells,) = csv.reader([text], delimiter=style.delimiter)
        return {n: typed(c) for n, c in zip(names, cells, strict=True)}
    if style.format == "sql":
        values: list[Any] = []
        listed = text[text.rindex("VALUES") + 6 :]
        for quoted, null, number in _SQL_VALUE.findall(listed):
            if null:
                values.append(None)
            elif number:
                values.append(typed(number))
            else:
                values.append(_sql_text(quoted.replace("''", "'")))
        return dict(zip(names, values, strict=True))
    found: dict[str, Any] = {}
    for name, raw in _LOGFMT.findall(text):
        found[name] = _sql_text(json.loads(raw)) if raw.startswith('"') else typed(raw)
    return found


def _sql_text(text: str) -> Any:
    """A quoted value: text, or JSON where it holds an object or array."""
    return json.loads(text) if text[:1] in ("[", "{") else text

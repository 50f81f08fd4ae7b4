"""A collection held as lines of text (:mod:`.text_lines`): the records a seed draws so are
written as CSV, TSV, an SQL dump, logfmt, JSON lines or a spreadsheet's rows, in one string
or an array of lines, and every tool reads them back from the parsed lines. A write rewrites
the record's line where the text is a table (one line replaced, or the whole string where it
is one), and appends a line where it is a log (the latest line of an id being the record), as
the stores that keep such text do (:mod:`.text_holding` says which collections are)."""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from benchmarks.zoo.kit import pointer
from benchmarks.zoo.random_shapes.header_rows import Lookup, full_range, headers, sheet_title
from benchmarks.zoo.random_shapes.text_lines import (
    APPENDED,
    Path,
    TextStyle,
    cell,
    header,
    line,
    read_line,
    typed,
)

EXTENSIONS = {"csv": "csv", "tsv": "tsv", "sql": "sql", "logfmt": "log", "jsonl": "jsonl"}
Parsed = tuple[tuple[str | None, ...], dict[str, dict[str, Any]]]
"""The id each line holds (none: a header line), and the records by id, in order."""


@dataclass(frozen=True)
class TextTable:
    style: TextStyle
    table: str
    id_key: str
    paths: tuple[Path, ...]
    """The columns: where each is in a record (the id first)."""
    lookup: Lookup | None = None
    """A column of formulas after them, looking a value up in another sheet (a workbook's)."""

    @property
    def names(self) -> list[str]:
        names = [(self.style.flatten or ".").join(p) for p in self.paths]
        if self.lookup is not None:
            names.append(self.lookup.name)
        return headers(names, self.style.labels) if self.style.book else names

    def make(self) -> dict[str, Any]:
        if self.style.format == "sheets":
            title = sheet_title(self.table) if self.style.book else self.table.title()
            return {"range": f"{title}!A1", "majorDimension": "ROWS", "values": [self.names]}
        made: dict[str, Any] = {"name": f"{self.table}.{EXTENSIONS[self.style.format]}"}
        return made | {self.style.key: header(self.style, self.table, self.names)}

    def _written(self, record: dict[str, Any], row: int = 0) -> Any:
        """A record as its line (a spreadsheet's row: its cells, trailing empty ones left out;
        ``row``: its 1-based row, which its formulas name)."""
        if self.style.format == "jsonl":
            return json.dumps(record, separators=(",", ":"))
        values = [_at(record, p) for p in self.paths]
        if self.style.format != "sheets":
            return line(self.style, self.table, self.names, values)
        cells = [cell(v) for v in values]
        if self.lookup is not None:
            return [*cells, self.lookup.formula(row)]
        while cells and cells[-1] == "":
            cells.pop()
        return cells

    def append(self, box: dict[str, Any], record: dict[str, Any]) -> None:
        held = box[self.style.key]
        if isinstance(held, str):
            box[self.style.key] = (
                f"{held}\n{self._written(record)}" if held else self._written(record)
            )
        else:
            held.append(self._written(record, len(held) + 1))

    def seal(self, box: dict[str, Any]) -> None:
        """Join the lines written while the state was built into one string, where the seed
        holds the text so (appending to a long string record by record would take minutes)."""
        held = box[self.style.key]
        if not self.style.as_lines and isinstance(held, list):
            box[self.style.key] = "\n".join(held)
        if self.style.book:
            box["range"] = full_range(sheet_title(self.table), len(held), len(self.names))

    def _record(self, written: Any) -> dict[str, Any]:
        """A line read back into a record (a flattened column into its sub-object)."""
        if self.style.format == "jsonl":
            found: dict[str, Any] = json.loads(written)
            return found
        if self.style.format == "sheets":
            cells = [*written, *[""] * (len(self.paths) - len(written))][: len(self.paths)]
            names = self.names[: len(self.paths)]
            read = {n: typed(c) for n, c in zip(names, cells, strict=True)}
        else:
            read = read_line(self.style, self.names, written)
        record: dict[str, Any] = {}
        for path, name in zip(self.paths, self.names[: len(self.paths)], strict=True):
            if name not in read:
                continue
            holder = record
            for part in path[:-1]:
                holder = holder.setdefault(part, {})
            holder[path[-1]] = read[name]
        return record

    def parsed(self, box: dict[str, Any]) -> Parsed:
        held = box[self.style.key]
        if isinstance(held, str):
            return _parse_text(self, held)
        rows = [tuple(r) if isinstance(r, list) else r for r in held]
        return _parse_rows(self, rows)

    def records(self, box: dict[str, Any]) -> dict[str, dict[str, Any]]:
        return self.parsed(box)[1]

    def adding(
        self, box: dict[str, Any], where: tuple[str, ...], key: str, inside: Path, value: Any
    ) -> list[Any]:
        """The patch writing ``value`` at ``inside`` of record ``key``: its line replaced (or
        a line appended to a log), or the whole text where it is one string."""
        ids, records = self.parsed(box)
        record = copy.deepcopy(records[key])
        holder: Any = record
        for part in inside[:-1]:
            holder = holder[part]
        if inside[-1] == "-":
            holder.append(value)
        else:
            holder[inside[-1]] = value
        row = max(n for n, ident in enumerate(ids) if ident == key)
        written, held = self._written(record, row + 1), box[self.style.key]
        path = pointer(*where, self.style.key)
        appended = self.style.format in APPENDED
        if isinstance(held, str):
            lines = held.split("\n")
            lines = [*lines, written] if appended else [*lines[:row], written, *lines[row + 1 :]]
            return [{"op": "replace", "path": path, "value": "\n".join(lines)}]
        if appended:
            return [{"op": "add", "path": f"{path}/-", "value": written}]
        return [{"op": "replace", "path": f"{path}/{row}", "value": written}]


def _at(record: dict[str, Any], path: Path) -> Any:
    value: Any = record
    for part in path:
        value = value.get(part) if isinstance(value, dict) else None
    return value


@lru_cache(maxsize=8)
def _parse_text(table: TextTable, text: str) -> Parsed:
    return _parse_rows(table, tuple(text.split("\n")) if text else ())


def _parse_rows(table: TextTable, rows: Any) -> Parsed:
    skip = 1 if table.style.format in ("csv", "tsv", "sql", "sheets") else 0
    ids: list[str | None] = [None] * skip
    records: dict[str, dict[str, Any]] = {}
    for written in rows[skip:]:
        record = _parse_line(table, written)
        ident = str(record[table.id_key])
        ids.append(ident)
        records[ident] = record
    return tuple(ids), records


@lru_cache(maxsize=1 << 16)
def _parse_line(table: TextTable, written: Any) -> dict[str, Any]:
    return table._record(written)

"""The links a schema document declares: which column of which table refers to which other
table, read from a part of the state that describes the other parts' fields.

A database served over an API often comes with its schema beside the rows, and only the
schema says where a column points: PostgREST's OpenAPI document notes a foreign key in the
column's description (``Note:\\nThis is a Foreign Key to `customers.id`.<fk table='customers'
column='id'/>``), a JSON Schema marks it (``"owner": {"type": "integer", "x-foreign-key":
"users.id"}``, ``references``, a ``$ref`` to another definition), and SQL DDL writes it
(``owner integer REFERENCES users(id)``, ``FOREIGN KEY (owner) REFERENCES users (id)``). One
reader serves them all by structure: tables are the entries of a ``definitions``, ``$defs``,
``schemas`` or ``tables`` object (each with ``properties`` or ``columns``: an object of column
descriptions, or a list of them with their ``name``), or a list of table descriptions each
with its ``name`` (``table``) and columns; DDL is any text holding ``CREATE TABLE``. A link
whose column names no target (``<fk/>`` without a table) is none.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from mcp_sim.prompting.url_queries import split_top

Declared = tuple[str, str, str]
"""``(table, column, target table)``."""
MOST_DEPTH = 4
"""How deep in the state a schema document is looked for (it describes the state, so it sits
near its top)."""
MOST_DDL_CHARS = 200_000
"""A longer text is data (an SQL dump's rows), not a schema."""
_TABLES = frozenset(["definitions", "$defs", "schemas", "tables", "entities", "models"])
"""Keys of an object whose entries describe tables (OpenAPI, JSON Schema, a catalog)."""
_COLUMNS = ("properties", "columns", "fields")
_NAMES = ("name", "table", "table_name", "title")
_MARKS = (
    "x-foreign-key",
    "x-foreignKey",
    "x-references",
    "x-fk",
    "foreign_key",
    "foreignKey",
    "references",
    "fk",
)
"""Keys of a column description that name the table it refers to."""
_FK_TAG = re.compile(r"<fk\b[^>]*\btable=['\"](?P<table>[^'\"]+)['\"]")
_FK_WORDS = re.compile(r"foreign\s+key\s+to\s+`?(?P<table>[\w.\"-]+?)`?(?:\.\w+)?`?[\s.]", re.I)
_CREATE = re.compile(
    r"create\s+table\s+(?:if\s+not\s+exists\s+)?(?P<table>[\w.\"`\[\]-]+)\s*\((?P<body>.*?)\)\s*;",
    re.I | re.S,
)
_NAME = r"(?:\"[^\"]+\"|`[^`]+`|\[[^\]]+\]|\w+)"
"""An identifier, bare or quoted (``"ref-a"``, ```ref-a```, ``[ref-a]``)."""
_TABLE = rf"{_NAME}(?:\.{_NAME})*"
_INLINE = re.compile(
    rf"^\s*(?P<column>{_NAME})\s.*?\breferences\s+(?P<table>{_TABLE})", re.I | re.S
)
_CONSTRAINT = re.compile(
    rf"foreign\s+key\s*\(\s*(?P<column>{_NAME})\s*\)\s*references\s+(?P<table>{_TABLE})", re.I
)


def declared_links(state: Any) -> list[Declared]:
    """Every link the schema documents in ``state`` declare, in document order, each once."""
    found = list(dict.fromkeys(_walk(state, 0)))
    return found


def _walk(node: Any, depth: int) -> Iterator[Declared]:
    if isinstance(node, str):
        if len(node) <= MOST_DDL_CHARS and "create table" in node.lower():
            yield from ddl_links(node)
        return
    if depth > MOST_DEPTH:
        return
    if isinstance(node, list):
        # A list of table descriptions, each named; any other list is records, not read.
        if node and all(isinstance(t, dict) and _table_name(t) for t in node[:50]):
            for table in node:
                yield from _columns(_table_name(table) or "", table)
        return
    if not isinstance(node, dict):
        return
    for key, value in node.items():
        if key in _TABLES and isinstance(value, dict):
            for name, table in value.items():
                if isinstance(table, dict):
                    yield from _columns(str(name), table)
        yield from _walk(value, depth + 1)


def _table_name(table: dict[str, Any]) -> str | None:
    if not any(isinstance(table.get(k), dict | list) for k in _COLUMNS):
        return None
    return next((str(table[k]) for k in _NAMES if isinstance(table.get(k), str)), None)


def _columns(table: str, description: dict[str, Any]) -> Iterator[Declared]:
    """The links of one table's column descriptions."""
    for key in _COLUMNS:
        columns = description.get(key)
        if isinstance(columns, dict):
            pairs = [(str(n), c) for n, c in columns.items() if isinstance(c, dict)]
        elif isinstance(columns, list):
            pairs = [(str(c.get("name", "")), c) for c in columns if isinstance(c, dict)]
        else:
            continue
        for column, about in pairs:
            target = column_target(about)
            if column and target:
                yield _bare(table), column, _bare(target)


def column_target(about: dict[str, Any]) -> str | None:
    """The table a column description says the column refers to, if any."""
    for mark in _MARKS:
        value = about.get(mark)
        if isinstance(value, dict):
            value = next((value[k] for k in ("table", "$ref", "target") if k in value), None)
        if isinstance(value, str) and value.strip():
            return _table_of(value)
    ref = about.get("$ref")
    if isinstance(ref, str) and "/" in ref:
        return ref.rstrip("/").rsplit("/", 1)[-1]
    text = about.get("description")
    if isinstance(text, str):
        tagged = _FK_TAG.search(text) or _FK_WORDS.search(text)
        if tagged:
            return _table_of(tagged["table"])
    return None


def _table_of(text: str) -> str:
    """The table of ``users.id``, ``users(id)``, ``#/definitions/users`` or ``users``."""
    text = text.strip().split("(", 1)[0]
    if "/" in text:
        return text.rstrip("/").rsplit("/", 1)[-1]
    parts = [p for p in text.split(".") if p]
    # ``schema.table.column``, ``table.column`` or ``table``.
    return parts[-2] if len(parts) >= 2 else (parts[0] if parts else "")


def _bare(name: str) -> str:
    """A table's name without quotes and schema (``public."Users"`` → ``Users``)."""
    return name.strip('"`[] ').rsplit(".", 1)[-1].strip('"`[] ')


def ddl_links(text: str) -> Iterator[Declared]:
    """The links SQL DDL declares: a column's ``REFERENCES`` and a ``FOREIGN KEY`` clause."""
    for table in _CREATE.finditer(text):
        name = _bare(table["table"])
        for part in split_top(table["body"]):
            match = _CONSTRAINT.search(part)
            if match is None and not part.lstrip().lower().startswith(("constraint", "primary")):
                match = _INLINE.match(part)
            if match is not None:
                yield name, _bare(match["column"]), _bare(match["table"])

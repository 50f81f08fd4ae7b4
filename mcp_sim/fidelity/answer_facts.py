"""An answer's facts, and whether a prompt holds them: what grounding recall counts (see
:mod:`mcp_sim.fidelity.grounding_recall`).

A JSON answer's facts are its ``"key": value`` pairs (strings of 3+ characters and all numbers;
an array's scalar items under the array's key marked ``[]``; a positional row's cells under
their columns' names), less the values the call's own arguments hold; a text answer's are the
values written in it that hold a digit. A fact is present when its value stands beside its key
(in any casing of the key's words), an array item inside the array after its key; value
presence asks only whether the value is anywhere.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from mcp_sim.runtime.state_shape import normalize


def _pairs(value: Any, key: str | None = None) -> list[tuple[str | None, Any]]:
    """``(key, value)`` for each checkable scalar; an array's scalar items take the array's
    key marked with a ``[]`` suffix (``"orders": ["#W1", "#W2"]`` gives ``orders[]``), and a
    positional row's cells the names of their columns (:func:`_row_columns`)."""
    if isinstance(value, dict):
        columns = _row_columns(value)
        if columns is not None:
            names, rows_key = columns
            cells = [
                p
                for row in value[rows_key]
                for name, cell in zip(names, row, strict=True)
                for p in _pairs(cell, name)
            ]
            rest = [p for k, v in value.items() if k != rows_key for p in _pairs(v, str(k))]
            return cells + rest
        return [p for k, v in value.items() for p in _pairs(v, str(k))]
    if isinstance(value, list):
        inner = f"{key}[]" if key is not None and not key.endswith("[]") else key
        return [p for v in value for p in _pairs(v, key if isinstance(v, dict) else inner)]
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, str) and len(value) < 3:
        return []
    return [(key, value)]


_COLUMNS_KEY = re.compile(r"(?i)(columns?|cols|fields|headers?)([_ -]?names)?")
"""The keys that name rows' columns in the answers of SQL and table services."""


def _row_columns(value: dict[str, Any]) -> tuple[list[str], str] | None:
    """The column names and the rows' key of an object holding rows as positional arrays
    beside a list naming their columns (Datasette's ``{"columns": [...], "rows": [[...]]}``,
    a SQL result's ``fields`` and ``values``): a cell's fact is its value under its column's
    name, not under ``rows``, which no store keeps it beside (and only the first row's cells
    were found beside it, in the first array after the key)."""
    names = [
        k
        for k, v in value.items()
        if _COLUMNS_KEY.fullmatch(k) and isinstance(v, list) and all(isinstance(n, str) for n in v)
    ]
    for rows_key, rows in value.items():
        if not isinstance(rows, list) or not rows or not all(isinstance(r, list) for r in rows):
            continue
        for name in names:
            columns = value[name]
            if all(len(row) == len(columns) for row in rows):
                return columns, rows_key
    return None


def facts(response: str, arguments: dict[str, Any]) -> list[tuple[str | None, Any]]:
    """The answer's checkable ``(key, value)`` pairs, less those the arguments hold."""
    given = {normalize(v) for _, v in _pairs(arguments)} | {
        normalize(v) for v in scalars(arguments)
    }
    try:
        # A JSON answer's facts are its scalars (``null`` has none).
        pairs = _pairs(json.loads(response))
    except json.JSONDecodeError:
        pairs = [(None, value) for value in text_values(response)]
    return [(k, v) for k, v in pairs if normalize(v) not in given]


_TEXT_VALUE = re.compile(r"[\w#:/.+-]*\d[\w#:/.+-]*")


def text_values(text: str) -> list[Any]:
    """The values a text answer states (``Saved BT-7's entry on 2026-06-09: rate 62.53``:
    ``BT-7``, ``2026-06-09``, ``62.53``): its words that hold a digit, numbers as numbers. A
    sentence as a whole is in no prompt; the values it is made of can be."""
    values: list[Any] = []
    for match in _TEXT_VALUE.finditer(text):
        word = match.group().strip(".,:;/+-")
        if re.fullmatch(r"-?\d+", word):
            values.append(int(word))
        elif re.fullmatch(r"-?\d+\.\d+", word):
            values.append(float(word))
        elif len(word) >= 3:
            values.append(word)
    return values


def scalars(value: Any) -> list[Any]:
    """Every scalar of ``value``, at any depth."""
    if isinstance(value, dict):
        return [s for v in value.values() for s in scalars(v)]
    if isinstance(value, list):
        return [s for v in value for s in scalars(v)]
    return [value]


_KEY_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def key_pattern(key: str) -> str:
    """A regex for ``key`` quoted as JSON in any casing of its words (``arrival_date`` finds
    ``"arrival_date"``, ``"ArrivalDate"``, ``"arrival-date"``, ``"ARRIVAL_DATE"``): a state
    that spells its field names in another convention than the answer holds the same fact
    beside the same name. A key of other characters matches as written, in any case."""
    words = _KEY_WORD.findall(key)
    if not words or "".join(words) != re.sub(r"[_\- ]", "", key):
        return "(?i:" + re.escape(json.dumps(key, ensure_ascii=False)) + ")"
    # Marks before or after the words are part of the name (``__typename``, ``_id``,
    # Prometheus's ``__name__``), not a casing.
    lead = re.escape(key[: len(key) - len(key.lstrip("_-"))])
    trail = re.escape(key[len(key.rstrip("_-")) :])
    return '(?i:"' + lead + r"[_\- ]?".join(re.escape(word) for word in words) + trail + '")'


def present(key: str | None, value: Any, text: str) -> bool:
    if key is None:
        return str(value) in text
    in_array = key.endswith("[]")
    quoted = key_pattern(key.removesuffix("[]"))
    before = r"\s*:\s*"
    if in_array:
        # An array item counts where it stands inside the array that follows its key, every
        # item alike, those of arrays inside it too (a series' ``[time, value]`` pairs).
        starts = re.finditer(quoted + r"\s*:\s*\[", text)
        arrays = (_array_after(text, found.end()) for found in starts)
        if isinstance(value, int | float):
            return any(anywhere(value, held) for held in arrays)
        forms = {json.dumps(value, ensure_ascii=False), json.dumps(value)}
        held = list(arrays)
        if any(form in part for part in held for form in forms):
            return True
        return any(
            any(f"{form}:" in text[m.end() : m.end() + 4000] for form in forms)
            for m in re.finditer(quoted + r"\s*:\s*\{", text)
        )
    if isinstance(value, int | float):
        # A number a store writes as text (``"battery": "78"``) holds the same fact.
        number = r'"?(?<![0-9.])(-?[0-9][0-9.eE+-]*)'
        for match in re.finditer(quoted + before + number, text):
            try:
                if math.isclose(float(match.group(1)), float(value), abs_tol=1e-9):
                    return True
            except ValueError:
                continue
        return False
    forms = {json.dumps(value, ensure_ascii=False), json.dumps(value)}
    return any(re.search(quoted + before + re.escape(form), text) for form in forms)


def _array_after(text: str, start: int) -> str:
    """The text of the array whose ``[`` ends just before ``start``, up to its matching ``]``
    (brackets inside strings left alone), or to the text's end."""
    depth = 1
    for token in _BRACKETS.finditer(text, start):
        mark = token.group()
        if mark == "[":
            depth += 1
        elif mark == "]":
            depth -= 1
            if not depth:
                return text[start : token.start()]
    return text[start:]


_BRACKETS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]]')
"""A JSON string (skipped whole) or a bracket."""


def anywhere(value: Any, text: str) -> bool:
    """Whether ``value`` appears anywhere in ``text``: a number by value (``12.5`` matches
    ``12.50``), a string as JSON writes it or as is."""
    if isinstance(value, int | float):
        for match in re.finditer(r"(?<![0-9.])-?[0-9][0-9.eE+-]*", text):
            try:
                if math.isclose(float(match.group(0)), float(value), abs_tol=1e-9):
                    return True
            except ValueError:
                continue
        return False
    return json.dumps(value, ensure_ascii=False) in text or str(value) in text

"""Records holding texts in markup (see :mod:`mcp_sim.prompting.markup_text`): shown with
those texts rendered, and summed up with their key/value rows read as fields.

A page's properties (``Severity``, ``Incident lead``) are no fields of the page: a summary of
one property over a hundred pages (counts per lead, the total duration) reads them off the
bodies' rows, each value as the page shows it (a mention by the person's name).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from jsonpointer import escape

from mcp_sim.prompting.markup_text import MARKUP_NOTE, Names, is_markup, markup_fields, rendered

_NUMBER = re.compile(r"-?\d+(\.\d+)?")
BESIDE = ", rendered from its markup"
"""What the name of a text's rendering beside it adds to the text's field name."""
_MOST_DEPTH = 6
"""How deep a record is searched for texts in markup (a page's ``body.storage.value``)."""


def rendered_record(
    record: Any, names: Names | None = None, pointer: str = ""
) -> tuple[Any, set[str]] | None:
    """``record`` with its texts in markup rendered (see :func:`rendered`), and the pointers
    (from the record) of those texts; ``None`` where it holds none."""
    if isinstance(record, str):
        return (rendered(record, names), {pointer}) if is_markup(record) else None
    if isinstance(record, dict):
        items: Iterable[tuple[Any, Any]] = record.items()
    elif isinstance(record, list):
        items = enumerate(record)
    else:
        return None
    changed: dict[Any, Any] = {}
    found: set[str] = set()
    for key, value in items:
        inner = rendered_record(value, names, f"{pointer}/{escape(str(key))}")
        if inner is not None:
            changed[key], more = inner
            found |= more
    if not changed:
        return None
    if isinstance(record, dict):
        return record | changed, found
    return [changed.get(i, v) for i, v in enumerate(record)], found


def rendered_beside(record: Any, names: Names | None = None, depth: int = 0) -> Any | None:
    """``record`` with each text in markup a field holds kept as it is and rendered beside it,
    under the field's name and :data:`BESIDE` (a record shown whole: a page fetched by id
    answers its body as stored, a record read from its body's rows answers those rows);
    ``None`` where it holds none."""
    if depth >= _MOST_DEPTH or not isinstance(record, dict | list):
        return None
    if isinstance(record, list):
        items = [rendered_beside(v, names, depth + 1) for v in record]
        if all(i is None for i in items):
            return None
        return [v if i is None else i for v, i in zip(record, items, strict=True)]
    shown: dict[str, Any] = {}
    for key, value in record.items():
        inner = None if isinstance(value, str) else rendered_beside(value, names, depth + 1)
        shown[key] = value if inner is None else inner
        if isinstance(value, str) and is_markup(value):
            shown[f"{key}{BESIDE}"] = rendered(value, names)[MARKUP_NOTE]
    return shown if len(shown) > len(record) or shown != record else None


def with_markup_fields(record: Any, names: Names | None = None) -> Any:
    """``record`` with the key/value rows of its texts in markup as fields beside its own
    (never in their place; see :func:`markup_rows`), and those texts left out: summed up,
    each would be one more distinct value of a thousand characters."""
    found = markup_rows(record, names)
    return _without_markup(record, 0) | found if found else record


def _without_markup(value: Any, depth: int) -> Any:
    if isinstance(value, str):
        return None if is_markup(value) else value
    if depth >= _MOST_DEPTH:
        return value
    if isinstance(value, dict):
        return {k: _without_markup(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_markup(v, depth + 1) for v in value]
    return value


def markup_rows(record: Any, names: Names | None = None) -> dict[str, Any]:
    """The key/value rows of ``record``'s texts in markup, under keys its own fields do not
    take; numbers written as text read as numbers. A key is lower-cased (a wiki's capitals,
    ``Owner``, are no say in how a summary's names are spelled) unless the record's own
    field has that name (a page's ``status`` beside its properties' ``Status``)."""
    if not isinstance(record, dict):
        return {}
    found: dict[str, Any] = {}
    for text in _markup_texts(record, 0):
        for key, value in _fields(text):
            named = names(value) if names is not None else None
            key = next((k for k in (key.casefold(), key) if k not in record), "")
            if key:
                found.setdefault(key, named or _typed(value))
    return found


def _markup_texts(value: Any, depth: int) -> Iterable[str]:
    if isinstance(value, str):
        if is_markup(value):
            yield value
    elif depth < _MOST_DEPTH and isinstance(value, dict | list):
        for item in value.values() if isinstance(value, dict) else value:
            yield from _markup_texts(item, depth + 1)


@lru_cache(maxsize=8192)
def _fields(text: str) -> tuple[tuple[str, str], ...]:
    """A text's key/value rows, read once per text (a summary reads every page's body)."""
    return tuple(markup_fields(text).items())


def _typed(value: str) -> Any:
    if _NUMBER.fullmatch(value):
        number = float(value)
        return int(number) if number.is_integer() and "." not in value else number
    return value

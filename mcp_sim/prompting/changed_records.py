"""The records a session changed in one collection, read once per state version.

A write that moves an array's items (an insert or removal before its end) leaves every record
after it changed (see :attr:`StateOverlay.shifted`): thousands of them in a large world. A
search reads the changed records of its collection for each path its constraints name, and
every call until the next write reads them again. So each collection's changed records, each
path's values in them and their words are read once per :class:`StateOverlay` (one state
version: a commit makes a new overlay, which starts with none of them) and kept on it, for
the very state object they were read from (a view of another state reads its own).
"""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.field_tables import held_values, record_terms
from mcp_sim.prompting.link_kinds import holding
from mcp_sim.prompting.record_fields import SELF
from mcp_sim.runtime.state_index import StateOverlay
from mcp_sim.runtime.state_paths import resolve

_KEPT = "changed records"

Changed = list[tuple[str, str, Any]]
"""``(pointer, key, record)`` of each changed record still existing, in the order of
:attr:`StateOverlay.changed`."""


def _kept(overlay: StateOverlay, state: Any, what: tuple[str, ...]) -> Any | None:
    memo: dict[tuple[str, ...], tuple[Any, Any]] = overlay.derived.setdefault(_KEPT, {})
    found = memo.get(what)
    return found[1] if found is not None and found[0] is state else None


def _keep(overlay: StateOverlay, state: Any, what: tuple[str, ...], value: Any) -> None:
    overlay.derived.setdefault(_KEPT, {})[what] = (state, value)


def changed_records(overlay: StateOverlay, state: Any, collection: str) -> Changed:
    """The records of ``collection`` (a pointer) the session changed, as ``state`` has them."""
    found: Changed | None = _kept(overlay, state, ("records", collection))
    if found is not None:
        return found
    held = holding(overlay, collection)
    records = [
        (pointer, facts.key, resolve(state, pointer))
        for pointer, facts in overlay.changed.items()
        if facts is not None and held(pointer)
    ]
    _keep(overlay, state, ("records", collection), records)
    return records


def changed_values(
    overlay: StateOverlay, state: Any, collection: str, path: str
) -> list[tuple[str, list[Any]]]:
    """``(pointer, values at path)`` of each of :func:`changed_records`."""
    found: list[tuple[str, list[Any]]] | None = _kept(overlay, state, ("values", collection, path))
    if found is not None:
        return found
    records = changed_records(overlay, state, collection)
    read = _values_read(overlay, path)
    values = [(pointer, _held(read, key, record, path)) for pointer, key, record in records]
    _keep(overlay, state, ("values", collection, path), values)
    return values


def changed_terms(
    overlay: StateOverlay, state: Any, collection: str
) -> list[tuple[str, frozenset[str]]]:
    """``(pointer, the words of its text)`` of each of :func:`changed_records`."""
    found: list[tuple[str, frozenset[str]]] | None = _kept(overlay, state, ("terms", collection))
    if found is not None:
        return found
    records = changed_records(overlay, state, collection)
    terms = [(pointer, record_terms(record)) for pointer, _, record in records]
    _keep(overlay, state, ("terms", collection), terms)
    return terms


ValuesRead = dict[int, tuple[Any, list[Any]]]
"""One path's values in records, by the record's identity, each beside its record."""
MOST_VALUES_READ = 100_000
"""Records whose values at one path are kept per world."""


def _values_read(overlay: StateOverlay, path: str) -> ValuesRead:
    """The values at ``path`` read in earlier state versions: the records an insert moved are
    changed records of every later version, but the very objects they were (a commit copies
    only the containers on its paths), holding the same values."""
    kept: dict[str, ValuesRead] = overlay.base.derived.setdefault("changed values read", {})
    read = kept.setdefault(path, {})
    if len(read) >= MOST_VALUES_READ:
        read.clear()
    return read


def _held(read: ValuesRead, key: str, record: Any, path: str) -> list[Any]:
    if path == SELF:  # the record's key, not the record, holds them
        return held_values(key, record, path)
    found = read.get(id(record))
    if found is None or found[0] is not record:
        found = read[id(record)] = (record, held_values(key, record, path))
    return found[1]

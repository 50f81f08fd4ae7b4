"""A collection kept as an append-only event log, as event-sourced services keep one: each
record is ``created`` with part of its fields, ``updated`` with the rest (and a field or two
it was created with changed), and now and then a record is created and later ``deleted``.
The records are what the events fold to; a write appends an ``updated`` event."""

from __future__ import annotations

import copy
from typing import Any

from benchmarks.zoo.kit import pointer

GHOST_EVERY = 7
"""Every this many records, one more is created and later deleted."""


def make() -> dict[str, Any]:
    return {"events": []}


def _event(box: dict[str, Any], kind: str, ident: Any, data: dict[str, Any] | None) -> Any:
    seq = len(box["events"]) + 1
    stamp = f"2025-{1 + seq // 40000 % 12:02d}-{1 + seq // 1440 % 28:02d}T"
    stamp += f"{seq // 60 % 24:02d}:{seq % 60:02d}:00Z"
    event = {"seq": seq, "type": kind, "id": ident, "at": stamp}
    return event | ({"data": data} if data is not None else {})


def append(box: dict[str, Any], record: dict[str, Any], id_key: str) -> None:
    """Log ``record``: created with its first fields, updated with the rest."""
    ident = record[id_key]
    keys = [k for k in record if k != id_key]
    half = max(1, len(keys) // 2)
    first = {k: record[k] for k in keys[:half]}
    changed = {k: _older(v) for k, v in record.items() if k in keys[half:] and _older(v) != v}
    events = box["events"]
    events.append(_event(box, "created", ident, {id_key: ident, **first, **changed}))
    events.append(_event(box, "updated", ident, {k: record[k] for k in keys[half:]}))
    created = sum(1 for e in events if e["type"] == "created")
    if created % GHOST_EVERY == 0:
        ghost = ident * 10 + 1 if isinstance(ident, int) else f"{ident}x"
        events.append(_event(box, "created", ghost, {**record, id_key: ghost}))
        events.append(_event(box, "deleted", ghost, None))


def _older(value: Any) -> Any:
    """A value as it was before an update changed it (numbers only change)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return value
    return value + 1 if isinstance(value, int) else round(value * 0.9, 2)


def fold(box: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The records the events fold to, by id as text, in the order they were created."""
    records: dict[str, dict[str, Any]] = {}
    for event in box["events"]:
        key = str(event["id"])
        if event["type"] == "deleted":
            records.pop(key, None)
        elif event["type"] == "created":
            records[key] = copy.deepcopy(event["data"])
        else:
            records[key].update(copy.deepcopy(event["data"]))
    return records


def adding(
    box: dict[str, Any], at: tuple[str, ...], key: str, inside: tuple[str, ...], value: Any
) -> list[Any]:
    # The id is the first field a created event gives.
    """The patch logging that ``value`` was added at ``inside`` of record ``key``: an
    ``updated`` event carrying the changed top-level field whole."""
    record = fold(box)[key]
    field, *rest = inside
    new = copy.deepcopy(record[field])
    holder = new
    for part in rest[:-1]:
        holder = holder[part]
    if rest[-1] == "-":
        holder.append(value)
    else:
        holder[rest[-1]] = value
    ident = record[next(iter(record))]
    event = _event(box, "updated", ident, {field: new})
    return [{"op": "add", "path": pointer(*at, "events", "-"), "value": event}]

"""Groups a call asks for as an aggregation pipeline's stages, as MongoDB writes them:
``[{"$match": {...}}, {"$group": {"_id": "$status", "n": {"$sum": 1}, "total": {"$sum":
"$amount"}}}, {"$sort": {"n": -1}}, {"$limit": 5}]``.

The ``$group`` stage's ``_id`` names the grouped field (``"$status"``; ``null`` groups all the
records as one; an object of several, ``{"city": "$address.city"}``); each other entry is an
accumulator over the group's records under the name given: ``$sum`` of ``1`` (a count) or of a
field, ``$avg``, ``$min``, ``$max``, ``$addToSet`` (the distinct values), ``$count``. A
``$count`` stage answers how many records the stages before it pass. A ``$sort`` and a
``$limit`` after the group order and cut the groups; else they go in the order of their
``_id``. The ``$match`` is the search's to read: the groups are computed over the records it
selects.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcp_sim.prompting.bucket_stats import field_values, metric

_ACCUMULATORS = {"$sum": "sum", "$avg": "avg", "$min": "min", "$max": "max"}
_MOST_GROUPS = 200
"""More groups than this are no rows a view lists: the request is not read."""


@dataclass(frozen=True)
class Pipeline:
    group: dict[str, Any] | None
    """The ``$group`` stage's body, or ``None`` for a ``$count`` stage alone."""
    sort: dict[str, Any]
    limit: int | None
    count_name: str = ""
    """A ``$count`` stage's name for its count."""


def requested_pipeline(arguments: dict[str, Any]) -> Pipeline | None:
    """The pipeline of an argument whose value is a list of stages with a ``$group`` or a
    ``$count``; ``None`` where none."""
    for value in arguments.values():
        stages = [s for s in value if isinstance(s, dict)] if isinstance(value, list) else []
        found = _read(stages)
        if found is not None:
            return found
    return None


def _read(stages: list[dict[str, Any]]) -> Pipeline | None:
    group: dict[str, Any] | None = None
    sort: dict[str, Any] = {}
    limit: int | None = None
    for stage in stages:
        if isinstance(stage.get("$group"), dict) and "_id" in stage["$group"]:
            group = stage["$group"]
        elif isinstance(stage.get("$count"), str) and group is None:
            return Pipeline(None, {}, None, stage["$count"])
        elif group is not None and isinstance(stage.get("$sort"), dict):
            sort = stage["$sort"]
        elif group is not None and isinstance(stage.get("$limit"), int):
            limit = stage["$limit"]
    return Pipeline(group, sort, limit) if group is not None else None


def pipeline_rows(records: list[Any], pipeline: Pipeline) -> list[dict[str, Any]] | None:
    """The documents the pipeline answers over ``records``: one per group."""
    if pipeline.group is None:
        return [{pipeline.count_name: len(records)}]
    key_spec = pipeline.group["_id"]
    groups: dict[str, tuple[Any, list[Any]]] = {}
    for record in records:
        key = _key(record, key_spec)
        groups.setdefault(repr(key), (key, []))[1].append(record)
    if len(groups) > _MOST_GROUPS or (
        key_spec is not None and all(k is None for k, _ in groups.values())
    ):
        return None
    rows = [
        {"_id": key}
        | {
            name: _accumulated(spec, members)
            for name, spec in pipeline.group.items()
            if name != "_id"
        }
        for key, members in groups.values()
    ]
    rows.sort(key=lambda row: (row["_id"] is None, str(row["_id"])))
    for field, direction in reversed(list(pipeline.sort.items())):
        rows.sort(key=lambda row: _sortable(row.get(field)), reverse=direction == -1)
    return rows[: pipeline.limit] if pipeline.limit is not None else rows


def _key(record: Any, spec: Any) -> Any:
    if isinstance(spec, str) and spec.startswith("$"):
        values = field_values(record, spec[1:])
        return values[0] if values else None
    if isinstance(spec, dict):
        return {name: _key(record, part) for name, part in spec.items()}
    return spec  # a constant (``null``): every record in one group


def _accumulated(spec: Any, records: list[Any]) -> Any:
    if not isinstance(spec, dict) or len(spec) != 1:
        return None
    ((op, operand),) = spec.items()
    if op == "$count":
        return len(records)
    if op == "$sum" and not isinstance(operand, str):
        number = operand if isinstance(operand, int | float) else 0
        return number * len(records)  # ``{"$sum": 1}``: a count
    if not isinstance(operand, str) or not operand.startswith("$"):
        return None
    values = [v for r in records for v in field_values(r, operand[1:])]
    if op == "$addToSet":
        return sorted({str(v) for v in values})
    if op in _ACCUMULATORS:
        value = metric(_ACCUMULATORS[op], values)["value"]
        whole = isinstance(value, float) and value.is_integer() and op == "$sum"
        return int(value) if whole and all(isinstance(v, int) for v in values) else value
    return None


def _sortable(value: Any) -> tuple[int, Any]:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return (0, value)
    return (1, str(value))

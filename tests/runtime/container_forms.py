"""One collection of records stored in the containers services and exports use, to check that
each is read as the same records with the same ids as the plain array form.

A :class:`Form` stores plain records (each with its id under ``id_name``) in one container:
keyed objects several wrappers deep, paged envelopes, GraphQL edges, records each wrapped
alone in one key, column tables (BigQuery's
``{"f": [{"v": ...}]}`` rows, schemas as ``{name: type}``), single-column tables, and flat
key-value exports; ``append`` gives the JSON Patch a service would commit to add one record.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Records = list[dict[str, Any]]


@dataclass(frozen=True)
class Form:
    """A container form: the state holding ``records``, and the patch adding one more."""

    name: str
    state: Callable[[Records, str], dict[str, Any]]
    append: Callable[[dict[str, Any], str, int], list[dict[str, Any]]]
    """``(record, id_name, how many records there were)`` → the patch."""
    keeps_id: bool = True
    """Whether the stored record holds its id as a field (a bare keyed record does not)."""
    stringly: bool = False
    """Whether every value is stored as text (BigQuery's rows)."""


def _columns(records: Records) -> list[str]:
    return list(records[0])


def _bare(record: dict[str, Any], id_name: str) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k != id_name}


def _cells(record: dict[str, Any]) -> dict[str, Any]:
    return {"f": [{"v": None if v is None else str(v)} for v in record.values()]}


def _bigquery(records: Records, _: str) -> dict[str, Any]:
    fields = [{"name": c, "type": "STRING", "mode": "NULLABLE"} for c in _columns(records)]
    return {
        "result": {
            "kind": "bigquery#queryResponse",
            "schema": {"fields": fields},
            "rows": [_cells(r) for r in records],
            "totalRows": str(len(records)),
            "jobComplete": True,
        }
    }


def _typed_schema(records: Records, _: str) -> dict[str, Any]:
    schema = {c: type(v).__name__ for c, v in records[0].items()}
    return {"warehouse": {"items": {"schema": schema, "rows": [list(r.values()) for r in records]}}}


def _store(records: Records, id_name: str) -> dict[str, Any]:
    store: dict[str, Any] = {"meta:version": "3"}
    for r in records:
        store[f"item:{r[id_name]}"] = _bare(r, id_name)
    return {"kv": store}


FORMS: tuple[Form, ...] = (
    Form(
        "array",
        lambda rs, _: {"items": list(rs)},
        lambda r, _, n: [{"op": "add", "path": "/items/-", "value": r}],
    ),
    Form(
        "keyed by id, several wrappers deep",
        lambda rs, i: {"api": {"v2": {"catalog": {"byId": {str(r[i]): r for r in rs}}}}},
        lambda r, i, n: [{"op": "add", "path": f"/api/v2/catalog/byId/{r[i]}", "value": r}],
    ),
    Form(
        "keyed by id without the id",
        lambda rs, i: {"catalog": {"entries": {str(r[i]): _bare(r, i) for r in rs}}},
        lambda r, i, n: [{"op": "add", "path": f"/catalog/entries/{r[i]}", "value": _bare(r, i)}],
        keeps_id=False,
    ),
    Form(
        "keyed by a typed key",
        lambda rs, i: {"catalog": {f"item:{r[i]}": r for r in rs}},
        lambda r, i, n: [{"op": "add", "path": f"/catalog/item:{r[i]}", "value": r}],
    ),
    Form(
        "pages of records",
        lambda rs, _: {
            "export": {"pages": [{"page": 1, "items": rs[:4]}, {"page": 2, "items": rs[4:]}]}
        },
        lambda r, _, n: [{"op": "add", "path": "/export/pages/1/items/-", "value": r}],
    ),
    Form(
        "paged data envelope",
        lambda rs, _: {"data": {"items": list(rs), "next_page": "p2", "has_more": True}},
        lambda r, _, n: [{"op": "add", "path": "/data/items/-", "value": r}],
    ),
    Form(
        "results and count",
        lambda rs, _: {"listing": {"results": list(rs), "count": len(rs), "next": None}},
        lambda r, _, n: [
            {"op": "add", "path": "/listing/results/-", "value": r},
            {"op": "replace", "path": "/listing/count", "value": n + 1},
        ],
    ),
    Form(
        "graphql edges",
        lambda rs, _: {
            "data": {
                "catalog": {
                    "edges": [{"node": r, "cursor": f"c{n:x}"} for n, r in enumerate(rs)],
                    "pageInfo": {"hasNextPage": False},
                }
            }
        },
        lambda r, _, n: [
            {"op": "add", "path": "/data/catalog/edges/-", "value": {"node": r, "cursor": "cz"}}
        ],
    ),
    Form(
        "each record wrapped alone in one key",
        lambda rs, _: {"result": {"value": [{"fields": r} for r in rs], "count": len(rs)}},
        lambda r, _, n: [{"op": "add", "path": "/result/value/-", "value": {"fields": r}}],
    ),
    Form(
        "bigquery rows of cells",
        _bigquery,
        lambda r, _, n: [{"op": "add", "path": "/result/rows/-", "value": _cells(r)}],
        stringly=True,
    ),
    Form(
        "schema of name to type",
        _typed_schema,
        lambda r, _, n: [
            {"op": "add", "path": "/warehouse/items/rows/-", "value": list(r.values())}
        ],
    ),
    Form(
        "flat key-value store",
        _store,
        lambda r, i, n: [{"op": "add", "path": f"/kv/item:{r[i]}", "value": _bare(r, i)}],
        keeps_id=False,
    ),
)


def records_of(id_name: str, ids: list[Any]) -> Records:
    """Plain records with their id under ``id_name`` first, as a catalogue's would be."""
    return [
        {
            id_name: ident,
            "title": f"Lamp model {n}",
            "colour": ("amber", "teal", "slate")[n % 3],
            "price": 10 + n * 3,
        }
        for n, ident in enumerate(ids)
    ]


ID_NAMES = ("id", "ref", "code", "key", "uuid", "sku", "itemId", "item-id", "ITEM_REF")
IDS: dict[str, list[Any]] = {
    "codes": [f"LM-{400 + n}" for n in range(8)],
    "numbers": [1001 + n for n in range(8)],
    "uuids": [f"7f3c{n:04d}-1b2a-4c5d-9e8f-00000000{n:04d}" for n in range(8)],
}

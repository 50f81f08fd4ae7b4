"""Facets a call asks for beside its query: for each field it names, how many of the records
the query selects hold each value.

Search services take the fields to facet by as an argument named for it (Datasette's
``_facet``, Solr's ``facet.field``, Typesense's ``facet_by``, Algolia's and Meilisearch's
``facets``), a field's name or a list of them, and answer each value with its count, most
first. No record holds these counts; the view must. A field's facet says its name and that
it is of a column's values (``"type": "column"``, as Datasette writes it, beside its date and
array facets); each value goes with its ``count`` and itself as its ``label`` (a service may
label a key by the record it refers to; that needs a join this does not make).
"""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.bucket_stats import field_values
from mcp_sim.prompting.field_names import tokens

_FACET_WORDS = frozenset(["facet", "facets"])
_MOST_VALUES = 30
"""How many values of a field a facet lists (Datasette's default page of them)."""


def requested_facets(arguments: dict[str, Any]) -> tuple[str, ...]:
    """The fields an argument named for facets lists (``_facet: ["medium"]``,
    ``facet_by: "genre,year"``); ``()`` where none."""
    for name, value in arguments.items():
        if not set(tokens(name)) & _FACET_WORDS:
            continue
        listed = value if isinstance(value, list) else str(value).split(",")
        fields = [str(f).strip() for f in listed if isinstance(f, str) and f.strip()]
        if fields:
            return tuple(fields)
    return ()


def facet_counts(records: list[Any], fields: tuple[str, ...]) -> dict[str, Any] | None:
    """Each field's values over ``records`` with their counts, most first (ties in order of
    the values); ``None`` where no record holds any of the fields."""
    facets: dict[str, Any] = {}
    for field in fields:
        counts: dict[Any, int] = {}
        for record in records:
            for value in dict.fromkeys(map(_hashable, field_values(record, field))):
                counts[value] = counts.get(value, 0) + 1
        if not counts:
            continue
        ranked = sorted(counts.items(), key=lambda item: (-item[1], str(item[0])))
        facets[field] = {
            "name": field,
            "type": "column",
            "results": [
                {"value": value, "label": value, "count": count}
                for value, count in ranked[:_MOST_VALUES]
            ],
            "truncated": len(ranked) > _MOST_VALUES,
        }
    return facets or None


def _hashable(value: Any) -> Any:
    return value if isinstance(value, str | int | float | bool) else str(value)

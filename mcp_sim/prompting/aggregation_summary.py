"""The summary a call answers when its request asks for one beside its query, computed over
the records its query selects, else over the collection an argument names (an index, a table,
an object's type):

- a search body's ``aggs`` (see :mod:`mcp_sim.prompting.bucket_requests`), as the answer's
  ``aggregations`` object;
- a grouping with aggregate items (``GROUP BY``; see :mod:`mcp_sim.prompting.grouped_rows`)
  or a pipeline's ``$group`` (see :mod:`mcp_sim.prompting.pipeline_groups`), as its rows;
- facets (see :mod:`mcp_sim.prompting.facet_counts`), as each field's value counts.

The tool need not look like a summary (Elasticsearch's ``search``, Datasette's table rows):
the request says it is one, and no record holds its figures.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jsonpointer import unescape

from mcp_sim.prompting.aggregates import Summary
from mcp_sim.prompting.bucket_requests import requested_aggregations
from mcp_sim.prompting.bucket_stats import aggregated
from mcp_sim.prompting.facet_counts import facet_counts, requested_facets
from mcp_sim.prompting.grouped_rows import grouped_rows, requested_grouping
from mcp_sim.prompting.pipeline_groups import pipeline_rows, requested_pipeline
from mcp_sim.prompting.search_result import SearchResult
from mcp_sim.prompting.summary_names import Stat
from mcp_sim.runtime.state_index import StateOverlay
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_shape import normalize

ANSWER_KEY = "aggregations"
ROWS_KEY = "rows"
FACETS_KEY = "facet_results"


Computed = Callable[[list[Any]], tuple[str, list[Stat]] | None]
"""Over the records a request selects: how the summary was made, and its values."""


def aggregation_summary(
    overlay: StateOverlay,
    state: Any,
    searches: list[SearchResult],
    arguments: dict[str, Any],
) -> Summary | None:
    """The aggregations, grouped rows or facets the arguments ask for, computed; ``None``
    where they ask for none or no records are found to compute them over."""
    asked = _asked(arguments)
    if asked is None:
        return None
    table, compute = asked
    found = _records(overlay, state, searches, arguments, table)
    computed = compute(found[1]) if found is not None else None
    if found is None or computed is None:
        return None
    how, stats = computed
    return Summary([(f"{found[0]}, {how} as the request asks", stats)])


def _asked(arguments: dict[str, Any]) -> tuple[str, Computed] | None:
    """The collection the request names in its text (``FROM Opportunity``), and how to
    compute what it asks for; ``None`` where it asks for no summary."""
    aggregations = requested_aggregations(arguments)
    if aggregations:
        return "", lambda records: (
            "aggregated",
            [Stat([ANSWER_KEY], aggregated(records, aggregations))],
        )
    pipeline = requested_pipeline(arguments)
    if pipeline is not None:
        return "", lambda records: _rows("grouped", pipeline_rows(records, pipeline))
    grouping = requested_grouping(arguments)
    if grouping is not None:
        return grouping.table, lambda records: _rows("grouped", grouped_rows(records, grouping))
    facets = requested_facets(arguments)
    if facets:

        def faceted(records: list[Any]) -> tuple[str, list[Stat]] | None:
            counted = facet_counts(records, facets)
            return None if counted is None else ("faceted", [Stat([FACETS_KEY], counted)])

        return "", faceted
    return None


def _rows(how: str, rows: list[dict[str, Any]] | None) -> tuple[str, list[Stat]] | None:
    if rows is None:
        return None
    return f"{how} (a row per group)", [
        Stat([ROWS_KEY], rows),
        Stat([f"{ROWS_KEY}_count"], len(rows)),
    ]


def _records(
    overlay: StateOverlay,
    state: Any,
    searches: list[SearchResult],
    arguments: dict[str, Any],
    table: str,
) -> tuple[str, list[Any]] | None:
    """The records the request's query selects (its last search, where that searched the
    collection the request names), else all those of the collection it names."""
    named = _named_collection(overlay, [table, *arguments.values()])
    search = next(
        (s for s in reversed(searches) if named is None or s.collection.pointer == named), None
    )
    if search is not None:
        pointers = search.meeting
        where = "; ".join(c.describe() for c in search.constraints)
        scope = f"records of {search.collection.pointer} where {where}"
    elif named is not None:
        pointers = overlay.pointers(named)
        scope = f"all records of {named}"
    else:
        return None
    return f"{scope} ({len(pointers)} records)", [resolve(state, p) for p in pointers]


def _named_collection(overlay: StateOverlay, values: list[Any]) -> str | None:
    """The collection a top-level argument's value names by a part of its pointer (an
    ``index`` of ``listings``: ``/listings/hits``); ``None`` unless exactly one."""
    named = {normalize(v) for v in values if isinstance(v, str) and v} - {None}
    found = [
        c.pointer
        for c in overlay.base.collections
        # A part escaping a path (``/~1classes``: ``/classes``) names it without its slashes.
        if any(normalize(unescape(p).strip("/")) in named for p in c.pointer.split("/") if p)
    ]
    return found[0] if len(found) == 1 else None

"""Aggregations asked through a family's own request, not a dedicated stats tool: the tool takes
the request as the service does and answers buckets or rows computed over the records meeting
the request's filter. The families:

- an Elasticsearch ``_search`` body with ``size: 0``, a ``bool`` query and ``aggs`` (``terms``
  with ``size`` and ``order`` and metric sub-aggregations, ``date_histogram`` with
  ``calendar_interval``, top-level ``sum`` / ``avg`` / ``min`` / ``max`` / ``value_count`` /
  ``cardinality``);
- a MongoDB aggregation pipeline (``$match``, ``$group`` with ``$sum`` / ``$avg`` / ``$min`` /
  ``$max``, ``$sort``, ``$limit``);
- Hasura's ``<table>_aggregate`` (a GraphQL document with its ``where`` in the variables);
- Prisma's ``groupBy`` and ``aggregate`` arguments (``by``, ``where``, ``_count``, ``_sum``,
  ``_avg``, ``orderBy``, ``take``);
- SQL text (``SELECT hull, COUNT(*) AS n .. GROUP BY hull ORDER BY n DESC LIMIT 5``) and SOQL
  (``SELECT Hull, COUNT(Id) FROM Boat GROUP BY Hull``, answered as ``AggregateResult``s).

A request is first drawn as an :class:`AggRequest` (fields by canonical name), then written
in the seed's family (:mod:`.aggregation_writing`), read back by the tool
(:mod:`.aggregation_parsing`) and answered (:mod:`.aggregation_answers`). The class is drawn
from a generator of its own, so a seed that does not draw it is as it was."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

FAMILIES = ("elastic", "mongo", "hasura", "prisma", "sql", "soql")
DRAWN = ("elastic", "elastic", "mongo", "hasura", "prisma", "sql", "sql", "soql")
"""Families as drawn (Elasticsearch and SQL more often: the most used)."""
SHARE = 0.28
"""The share of seeds that draw aggregation requests."""
OPS = {
    "elastic": ("sum", "avg", "min", "max", "value_count", "cardinality"),
    "mongo": ("sum", "avg", "min", "max"),
    "hasura": ("sum", "avg", "min", "max"),
    "prisma": ("sum", "avg", "min", "max"),
    "sql": ("sum", "avg", "min", "max", "cardinality"),
    "soql": ("sum", "avg", "min", "max", "cardinality"),
}
"""The metrics a family computes besides a count of records."""
TOOLS = {
    "elastic": ("{plural}_search", "es_search", "search_index"),
    "mongo": ("aggregate", "{plural}_aggregate", "run_pipeline"),
    "hasura": ("graphql", "run_graphql", "hasura_query"),
    "prisma": ("{singular}_{op}", "prisma_{singular}_{op}"),
    "sql": ("run_sql", "query_db", "sql_query", "execute_sql"),
    "soql": ("soql_query", "run_soql", "query"),
}
"""A family's tool names (Prisma's, one per operation: ``group_by``, ``aggregate``)."""
ARGS = {
    "elastic": ("body", "request", "search_body"),
    "mongo": ("pipeline", "stages"),
    "hasura": ("query",),
    "prisma": ("args", "params", "query"),
    "sql": ("sql", "query", "statement"),
    "soql": ("q", "soql", "query"),
}
METRIC_NAMES = (
    {"count": "n", "sum": "total_{}", "avg": "avg_{}", "min": "min_{}", "max": "max_{}"},
    {"count": "count", "sum": "sum_{}", "avg": "mean_{}", "min": "lowest_{}", "max": "highest_{}"},
    {"count": "doc_count", "sum": "{}_sum", "avg": "{}_avg", "min": "{}_min", "max": "{}_max"},
)
"""How a seed names the metrics it asks for (families that let the caller name them)."""
EXTRA_NAMES = {"value_count": "{}_count", "cardinality": "distinct_{}"}
BUCKET_NAMES = ("by_{}", "{}_terms", "group_by_{}", "{}s")


@dataclass(frozen=True)
class Metric:
    """One figure a request asks for: its name (as the caller named it, or the family's
    fixed one), the operation and the canonical field (none for a count of records)."""

    name: str
    op: str
    field: str | None = None


@dataclass(frozen=True)
class AggRequest:
    """An aggregation, family apart: the records meeting ``filters`` (canonical field,
    ``eq`` / ``in`` / ``ge`` / ``le``, value), grouped by ``group`` (none: one group of all),
    by a date's ``interval`` (``year`` / ``month``: a histogram), each group's ``metrics``;
    groups ordered by ``order`` (``count``, ``key`` or a metric's name) and cut at ``size``."""

    filters: tuple[tuple[str, str, Any], ...] = ()
    group: str | None = None
    metrics: tuple[Metric, ...] = ()
    order: str = "count"
    descending: bool = True
    size: int | None = None
    interval: str | None = None
    name: str = ""
    """The bucket aggregation's name (Elasticsearch's ``aggs`` key)."""


@dataclass(frozen=True)
class AggStyle:
    """How a seed asks for aggregations."""

    family: str
    arg: str
    tool: str
    """The tool's name pattern (``{plural}``, ``{singular}``, ``{op}`` filled in)."""
    naming: int = 0
    """Which of the metric and bucket names (and of a family's optional spellings)."""
    wrapped: bool = True
    """MongoDB: answer ``{"documents": [..]}`` (else the bare list); SQL: ``columns`` and
    ``rows`` (else a list of row objects); SOQL: name each aggregate (else ``expr0``..)."""

    @property
    def names(self) -> str:
        return f"aggregation requests {self.family} {self.arg}"

    def metric_name(self, op: str, column: str) -> str:
        pattern = EXTRA_NAMES.get(op) or METRIC_NAMES[self.naming % len(METRIC_NAMES)][op]
        return pattern.format(column)

    def bucket_name(self, column: str) -> str:
        return BUCKET_NAMES[self.naming % len(BUCKET_NAMES)].format(column)

    @property
    def grouping(self) -> bool:
        """Whether the family groups (Hasura's ``_aggregate`` answers one group)."""
        return self.family != "hasura"

    @property
    def named(self) -> bool:
        """Whether the caller names the metrics (Hasura's and Prisma's are fixed)."""
        return self.family not in ("hasura", "prisma")


def draw_requests(seed: int) -> AggStyle | None:
    """The aggregation requests seed ``seed`` draws (none: not so), from a generator of its
    own (every draw made, whether kept or not)."""
    rng = random.Random(f"aggregation-requests/{seed}")
    drawn, family = rng.random() < SHARE, rng.choice(DRAWN)
    style = AggStyle(
        family,
        rng.choice(ARGS[family]),
        rng.choice(TOOLS[family]),
        rng.randrange(12),
        rng.random() < 0.5,
    )
    return style if drawn else None

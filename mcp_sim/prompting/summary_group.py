"""The records a summary sums up, with where they are and what selected them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jsonpointer import unescape

from mcp_sim.prompting.field_names import tokens
from mcp_sim.prompting.summary_names import Stat, count_names, singular, style_of
from mcp_sim.prompting.summary_stats import GroupStats
from mcp_sim.runtime.state_shape import Collection, record_key

_MOST_LISTED = 20
_MOST_READ = 20
"""Records of a group whose field names are read to tell what the group holds."""


@dataclass
class Group:
    """Records a summary sums up: where they are, and what selected them."""

    name: str
    scope: str
    records: list[Any]
    keys: list[str] | None = None
    """Each record's key (its id field's value, else its place), where it has one."""
    outer: tuple[str, int] | None = None
    """For parts of records (a parcel's scans at a facility): the records' kind and number."""
    id_field: str | None = None
    """The field holding each record's key, where the records are a collection's."""
    listed: bool = False
    """Whether the summary lists the records' keys (the stations whose rides it sums up)."""


def listed_keys(group: Group, stats: GroupStats) -> list[Stat]:
    """The keys of a group's records under their plural noun (``stations``), first, where
    the group lists them and they are few."""
    if not group.listed or not group.keys or len(group.keys) > _MOST_LISTED:
        return []
    style = style_of(stats.keys)
    return [Stat(count_names(group.name, style, [])[:1], sorted(group.keys))]


def record_keys(collection: Collection, pointers: list[str], records: list[Any]) -> list[str]:
    """Each record's key: its id field's value, else its place in the collection (of a flat
    export's key, its id part: ``OSL-07`` of ``station:OSL-07``)."""
    return [
        record_key(collection, unescape(p.rsplit("/", 1)[-1]), r)
        for p, r in zip(pointers, records, strict=True)
    ]


def told_fields(records: list[Any], said: set[str]) -> int:
    """How many of the words ``said`` (singular, lower case) the field names of ``records``
    hold, at any depth: of the lists nested in one record (a playlist's tracks, its artists,
    its images), the one a tool's words describe ("duration, popularity, album type") is
    the one it sums up."""
    names: set[str] = set()
    stack: list[Any] = list(records[:_MOST_READ])
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            # A field's own name, not a container's: a unit's ``units`` below it say
            # nothing of what the tool's "people in a unit" counts.
            names.update(k for k, v in value.items() if not isinstance(v, dict | list))
            stack.extend(v for v in value.values() if isinstance(v, dict | list))
        elif isinstance(value, list):
            stack.extend(v for v in value[:_MOST_READ] if isinstance(v, dict | list))
    return len({singular(t) for n in names for t in tokens(n)} & said)

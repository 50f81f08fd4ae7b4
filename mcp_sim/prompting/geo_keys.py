"""Arguments that name a colon-namespaced property key rather than a value.

Tags written as OpenStreetMap writes them (and GeoJSON exports of it keep) put what a feature
has in the key: a station with Type 2 sockets holds ``"socket:type2": "4"``, not ``"socket":
"type2"``. A call asking ``socket=type2`` names the key ``socket:type2``: an argument whose
name's words are the key's namespace and whose value is its last part selects the records
holding that key, whatever it holds.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from typing import Any

from mcp_sim.prompting.constraints import Constraint
from mcp_sim.prompting.field_names import tokens
from mcp_sim.prompting.field_search import FieldSearch
from mcp_sim.prompting.field_tables import held_values
from mcp_sim.prompting.record_fields import FieldSchema
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_shape import Collection, within

NAMESPACE = ":"


def _spelled(value: str) -> str:
    return value.strip().casefold().replace("-", "_").replace(" ", "_")


def namespaced_constraints(
    schema: FieldSchema, arguments: dict[str, Any], claimed: Set[str]
) -> list[Constraint]:
    """A constraint holding the key for each argument (not in ``claimed``) whose name and
    value spell a namespaced key of the records (``socket`` and ``type2``)."""
    found: list[Constraint] = []
    for name, value in arguments.items():
        if name in claimed or not isinstance(value, str) or not value.strip():
            continue
        words = set(tokens(name))
        paths = tuple(
            path
            for path in schema.fields
            if _names(path.rsplit("/", 1)[-1], words, _spelled(value))
        )
        if paths:
            found.append(Constraint(name, "ne", "", paths, 1.0))
    return found


def _names(key: str, words: set[str], value: str) -> bool:
    """Whether ``key`` (``socket:type2``) is the namespace ``words`` with ``value`` last."""
    *space, last = key.split(NAMESPACE)
    if not space or _spelled(last) != value:
        return False
    return bool(words & set(tokens(" ".join(space))))


def holding(search: FieldSearch, collection: Collection, paths: Sequence[str]) -> set[str]:
    """The records of ``collection`` (as they are now) holding a value at any of ``paths``."""
    changed = search.overlay.changed
    found: set[str] = set()
    for path in paths:
        for pointers in search.tables.label_index(collection, path).values():
            found |= pointers
    found -= changed.keys()
    for pointer, facts in changed.items():
        if facts is None or not within(collection.pointer, pointer):
            continue
        record = resolve(search.state, pointer)
        if any(v is not None for p in paths for v in held_values(facts.key, record, p)):
            found.add(pointer)
    return found

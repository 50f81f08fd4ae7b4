"""Records whose own array of keys lists the record a call names: ``boats_listing_owner``,
"The boats whose member_ids include an owner".

A collection may keep, in each record, an array of the keys of the parties it involves
(a boat's ``member_ids``, a hive's ``keeperIds``). When the tool's description names such an
array of a collection the tool's name names, and the array holds an argument's value that is
the key of another collection's record, the
answer is the records whose array lists it, in the state's order: a search on that array,
not the records that links referring to the argument's record point to (an owner's charters'
boats), which the same shape may hold too; unless the description names those links too
("the reels a researcher has requests for": the array of researchers is named only by the
word for the researcher).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mcp_sim.prompting.constraints import Constraint, Reading
from mcp_sim.prompting.field_names import tokens
from mcp_sim.prompting.field_tables import FieldTables
from mcp_sim.prompting.link_join import named_collections, said_collections
from mcp_sim.prompting.link_keys import target_keys
from mcp_sim.prompting.scalar_arguments import scalar_arguments
from mcp_sim.prompting.value_fields import ID_WORDS
from mcp_sim.runtime.state_shape import Collection, normalize
from mcp_sim.spec.world import ToolSpec

ITEMS = "/*"
"""How a field path names the items of an array."""


def named_arrays(tables: FieldTables, collection: Collection, said: set[str]) -> list[str]:
    """The paths of ``collection``'s arrays of scalars whose names ``said`` (the words of a
    description) holds every word of, other than a bare ``ids``."""
    found: list[str] = []
    for path in tables.schema(collection).fields:
        if not path.endswith(ITEMS):
            continue
        words = tokens(path.removesuffix(ITEMS).rsplit("/", 1)[-1])
        if words and set(words) <= said and not set(words) <= ID_WORDS:
            found.append(path)
    return found


def listing_reading(
    tables: FieldTables,
    collections: Iterable[Collection],
    tool: ToolSpec | None,
    arguments: dict[str, Any],
) -> Reading | None:
    """The search for the records of a collection the tool names whose array, named by the
    tool's description, holds an argument's value; ``None`` when there is no such array or
    no array holds any argument's value."""
    if tool is None or not tool.description:
        return None
    said = set(tokens(tool.description))
    named = set(tokens(tool.name))
    values = [(name, value) for name, value in scalar_arguments(arguments)]
    every = list(collections)
    for collection in named_collections(every, named, set(), inner=True):
        others = [c for c in every if c.pointer != collection.pointer]
        for path in named_arrays(tables, collection, said):
            index = tables.label_index(collection, path)
            for name, value in values:
                label = normalize(value)
                if label is None or label not in index:
                    continue
                owners = [c for c in others if label in target_keys(tables, c)]
                # "The reels a researcher has requests for": the array of researchers is
                # not what the description lists them by, the requests are.
                rest = [c for c in others if c not in owners]
                if owners and not said_collections(rest, said, [collection, *owners]):
                    constraint = Constraint(name, "eq", value, (path,), 1.0)
                    return Reading(collection.pointer, (constraint,), 2.0)
    return None

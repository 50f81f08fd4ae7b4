"""A query's ``field:value`` whose value is a record's name where the field holds records'
keys: ``label:travel`` of messages whose ``labelIds`` hold ``Label_8``, the key of the label
named ``Travel``.

A ``field:value`` that the field's values never equal may name, by a value it holds, a
record of another collection (a label by its name, a user by their login); when the field
holds that record's key, the operand selects the records holding the key. At most
:data:`MOST_NAMED` records may hold the value: more, and it names no record in particular.
"""

from __future__ import annotations

from mcp_sim.prompting.constraints import Constraint, Reading
from mcp_sim.prompting.field_names import read_argument
from mcp_sim.prompting.field_tables import FieldTables
from mcp_sim.prompting.value_labels import equal_labels
from mcp_sim.runtime.state_index import StateOverlay
from mcp_sim.runtime.state_shape import Collection, normalize

MOST_NAMED = 3
"""Records holding a name that it may stand for."""


def keyed_by_names(
    overlay: StateOverlay, tables: FieldTables, collection: Collection, reading: Reading
) -> Reading:
    """``reading`` with each query ``field:value`` naming a record's key read as that key."""
    found = tuple(keyed_by_name(overlay, tables, collection, c) for c in reading.constraints)
    return (
        reading
        if found == reading.constraints
        else Reading(reading.collection, found, reading.score)
    )


def keyed_by_name(
    overlay: StateOverlay, tables: FieldTables, collection: Collection, constraint: Constraint
) -> Constraint:
    """``constraint`` on the keys of the records its value names (see the module), when it
    is a query's ``field:value`` that no record of ``collection`` meets as written and its
    fields hold such keys; else ``constraint`` as it is."""
    if constraint.op != "eq" or read_argument(constraint.argument).op != "match":
        return constraint
    indexes = [tables.label_index(collection, path) for path in constraint.fields]
    wanted = equal_labels(constraint.value)
    if any(label in index for label in wanted for index in indexes):
        return constraint
    keys: list[str] = []
    for label in wanted:
        named = list(overlay.value_hits(label))
        facts = [overlay.facts(p) for p in named] if len(named) <= MOST_NAMED else []
        keys += [f.key for f in facts if f is not None and f.collection != collection.pointer]
    held = [k for k in keys if any(normalize(k) in index for index in indexes)]
    if not held:
        return constraint
    return Constraint(constraint.argument, "eq", held, constraint.fields, constraint.fit)

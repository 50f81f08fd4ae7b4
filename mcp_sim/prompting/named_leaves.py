"""The leaf of an object that a value names it by, when the argument names the object.

``artist:"Chiara Kovac"`` fits a track's ``artists/*/id`` (and ``href``, ``uri``) by name (an
``artist`` is its key), but the value is the artist's name: none of the keys the name fits
holds it, and the field beside them in the same object that does (``artists/*/name``) is the
one it constrains. A name fitting a field that is no key (``from`` ↔ a ``From`` header) is
left alone: the value is part of that field's. The
sample of records a schema is read from may hold no record with the value; a name of several
words is then sought in the text fields beside them that name things: not identifiers, nor a
field of one constant value (an object's ``type``).
"""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.field_names import names_key
from mcp_sim.prompting.record_fields import SELF, FieldSchema
from mcp_sim.runtime.state_shape import normalize

MOST_LEAVES = 3
"""Fields beside the named ones a value may stand for, at most."""


def beside_named(schema: FieldSchema, fields: list[str], value: Any) -> list[str]:
    """The fields beside ``fields`` (which a name fits) that ``value`` constrains instead
    (see the module); none when one of ``fields`` holds it, or none beside them fits."""
    parents = {f.rpartition("/")[0] for f in fields if f != SELF} - {""}
    wanted = {normalize(v) for v in (value if isinstance(value, list) else [value])} - {None}
    if not all(names_key(schema.fields[f].words) for f in fields):
        return []  # a name fitting a field of what it names (``from`` ↔ a ``From`` header)
    if not parents or not wanted or any(schema.fields[f].distinct & wanted for f in fields):
        return []
    beside = [p for p in schema.fields if p.rpartition("/")[0] in parents and p not in fields]
    held = [p for p in beside if schema.fields[p].distinct & wanted]
    if held or not isinstance(value, str) or " " not in value.strip():
        return held
    named = [
        p
        for p in beside
        if (info := schema.fields[p]).kind == "string"
        and len(info.distinct) > 1
        and not names_key(info.words)
    ]
    return named if len(named) <= MOST_LEAVES else []

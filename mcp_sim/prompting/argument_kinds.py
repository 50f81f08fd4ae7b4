"""Arguments that name a kind of record: ``sailor_id`` names a sailor, never a vessel.

Where the kinds of a mixed array number their records alike (sailor 7 and vessel 7; see
:mod:`mcp_sim.runtime.mixed_collections`), an argument's value matches the ids of every kind.
Its name says which: the words before its id word (``sailor`` of ``sailor_id``,
``crewMember`` of ``crewMemberNo``) name a kind as the state spells it (plural or singular, in
any casing; :func:`mcp_sim.runtime.typed_references.kind_word`). Such an argument selects no
record of another kind by that record's own id.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Set

from mcp_sim.prompting.constraints import Constraint, Reading, weight_of
from mcp_sim.prompting.field_names import tokens
from mcp_sim.prompting.record_fields import SELF, FieldSchema
from mcp_sim.prompting.value_fields import ID_WORDS
from mcp_sim.runtime.typed_references import collection_word, kind_word


def own_kind(reading: Reading, kinds: Set[str], id_fields: Mapping[str, str | None]) -> Reading:
    """``reading`` without the constraints on its records' own ids by arguments that name
    another kind of record the state holds (``kinds``: see :func:`state_kinds`)."""
    own = collection_word(reading.collection)
    ids = {SELF, id_fields.get(reading.collection)}
    kept = tuple(
        c for c in reading.constraints if not (set(c.fields) <= ids and _names_other(c, own, kinds))
    )
    if len(kept) == len(reading.constraints):
        return reading
    dropped = sum(weight_of(c) for c in reading.constraints if c not in kept)
    return Reading(reading.collection, kept, reading.score - dropped)


def state_kinds(schemas: Iterable[FieldSchema]) -> frozenset[str]:
    """The kinds of record the collections of ``schemas`` hold (see :func:`collection_word`):
    worked out once per call, not once per collection, as a state may hold hundreds."""
    return frozenset(collection_word(s.collection) for s in schemas)


def _names_other(constraint: Constraint, own: str, kinds: Set[str]) -> bool:
    """Whether the argument's name names a kind of ``kinds`` other than ``own``."""
    words = tokens(constraint.argument)
    ends = range(len(words) + 1)
    spans = {kind_word("".join(words[i:j])) for i in ends for j in ends if i < j}
    return own not in spans and bool(spans & (kinds - {own}))


def names_kind(argument: str, collection: str) -> bool:
    """Whether an argument's name, its id word aside, is the name of the kind of record
    ``collection`` holds (``deployment`` or ``deployment_id`` of ``/items/@Deployment``)."""
    words = [w for w in tokens(argument) if w not in ID_WORDS]
    return bool(words) and kind_word("".join(words)) == collection_word(collection)

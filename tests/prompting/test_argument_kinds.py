"""Arguments that name a kind of record select no record of another kind by its own id."""

from __future__ import annotations

from mcp_sim.prompting.argument_kinds import own_kind, state_kinds
from mcp_sim.prompting.constraints import Constraint, Reading
from mcp_sim.prompting.record_fields import SELF, FieldSchema


def schema(collection: str) -> FieldSchema:
    return FieldSchema(collection, {}, 0)


def test_the_state_kinds_are_each_collections_kind_singular() -> None:
    schemas = [schema("/harbour/items/@Vessel"), schema("/sailors"), schema("/berths")]
    assert state_kinds(schemas) == {"vessel", "sailor", "berth"}


def test_an_argument_naming_another_kind_drops_its_constraint_on_the_own_id() -> None:
    kinds = state_kinds([schema("/vessels"), schema("/sailors")])
    by_sailor = Constraint("sailor_id", "eq", "7", (SELF,), 1.0)
    by_flag = Constraint("flag", "eq", "NO", ("flag",), 1.0)
    reading = Reading("/vessels", (by_sailor, by_flag), 4.0)
    kept = own_kind(reading, kinds, {"/vessels": "id"})
    assert kept.constraints == (by_flag,)
    assert own_kind(Reading("/sailors", (by_sailor,), 2.0), kinds, {}).constraints == (by_sailor,)

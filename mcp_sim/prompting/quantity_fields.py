"""The fields a bound named with a unit constrains: those holding quantities it measures.

``min_power_kw: 50`` names no field (an OpenStreetMap charging station tags each socket's
output apart: ``"socket:type2:output": "22 kW"``, ``"socket:chademo:output": "50 kW"``), but
its unit says what it bounds: power. Of a collection's fields, those whose values are
quantities of that dimension (see :mod:`mcp_sim.runtime.quantities`) are the ones it bounds,
any of them meeting it (the station has a socket of 50 kW or more), before any guess by the
values' kind alone.
"""

from __future__ import annotations

from mcp_sim.prompting.record_fields import FieldSchema
from mcp_sim.runtime.quantities import unit_of

_MOST_FIELDS = 12
"""More fields of one dimension than this say too little (a sensor dump of many readings)."""


def of_unit(schema: FieldSchema, argument: str) -> list[str]:
    """The fields of ``schema`` holding quantities of the dimension the unit ending
    ``argument``'s name measures (``min_power_kw``: watts); none where the name ends in no
    unit, or its unit is a plain number's (cores), which any number field could be."""
    unit = unit_of(argument)
    if unit is None or not unit.dimension:
        return []
    found = [p for p, info in schema.fields.items() if unit.dimension in info.dimensions]
    return found if len(found) <= _MOST_FIELDS else []

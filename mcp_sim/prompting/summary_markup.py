"""A summary of a property the records keep in markup (a page's Page Properties rows).

"Counts per Incident lead over the incident pages of one month" searches the pages by their
labels and ancestors, parts of the pages: summed up, those parts (a label, an ancestor) say
nothing of the leads. Where an argument names a key of the rows the selected records' texts
in markup hold (see :mod:`mcp_sim.prompting.markup_records`), the summary is of the records
themselves, those rows read as their fields (a mention by the person's name).
"""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.markup_records import markup_rows, with_markup_fields
from mcp_sim.prompting.markup_text import Names
from mcp_sim.prompting.search_result import SearchResult
from mcp_sim.prompting.summary_group import Group, record_keys
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_shape import record_pointer

_FIRST = 5
"""Records read for the keys of their rows before the rest are."""


def properties_group(
    state: Any, search: SearchResult | None, arguments: dict[str, Any], names: Names
) -> Group | None:
    """The records ``search`` selected, with the rows of their markup as fields, where an
    argument's value is one of those rows' keys; else ``None``."""
    if search is None:
        return None
    said = {v.strip().casefold() for v in arguments.values() if isinstance(v, str)}
    pointers = list(dict.fromkeys(record_pointer(search.collection, p) for p in search.meeting))
    holders = [resolve(state, p) for p in pointers]
    # The first records say whether the rows hold such a key: most calls name none, and
    # reading a thousand pages' bodies to learn so would cost a second.
    if not any(said & {k.casefold() for k in markup_rows(r)} for r in holders[:_FIRST]):
        return None
    marked = [with_markup_fields(r, names) for r in holders]
    where = "; ".join(c.describe() for c in search.constraints)
    pointer = search.collection.pointer
    kind = pointer.rsplit("/", 1)[-1] or "records"
    keys = record_keys(search.collection, pointers, holders)
    scope = f"records of {pointer} where {where}, with the rows of their markup as fields"
    return Group(kind, scope, marked, keys, None, search.collection.id_field)

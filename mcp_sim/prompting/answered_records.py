"""The records of a call's view that its answer describes, in the order it would list them.

A lookup's answer describes the records the call picked; a join's, the records its links
refer to (a room's guests, not the stays linking them: the links are how, the targets what);
a search's, the first records meeting every constraint. Those records are the ones worth
showing under the answers' own names (see :mod:`mcp_sim.prompting.answer_names`).
"""

from __future__ import annotations

from collections.abc import Iterable

from mcp_sim.prompting.link_rows import LinkRows
from mcp_sim.prompting.search_result import SearchResult

MOST_SEARCHED = 12
"""Records read from one search's hits: a few show the names; more would crowd the records
out of the room they share."""


def answered_records(picked: Iterable[str], join: object) -> list[str]:
    """The pointers of ``picked`` records, then of the records that ``join``'s links refer
    to (a :class:`LinkRows`; other joins carry no rows of pointers), each once."""
    found = list(picked)
    if isinstance(join, LinkRows):
        found += [target for _, targets in join.join.rows for target in targets]
    return list(dict.fromkeys(found))


def searched_records(searches: Iterable[SearchResult]) -> list[str]:
    """The first records each search finds meeting every constraint (or through its links,
    the records they refer to), each once."""
    found: list[str] = []
    for search in searches:
        if search.through is not None:
            found += [target for _, targets in search.through.rows for target in targets]
        found += search.full[:MOST_SEARCHED]
    return list(dict.fromkeys(found))

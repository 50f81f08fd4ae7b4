"""A join whose links refer to the same records again and again, shown by record reached.

``doctor_patients(doctor_id)`` over visits: a doctor's 500 visits refer to 490 patients, and
the answer lists each patient once ("with their number of visits"). Rows of links would repeat
a patient seen twice and spend the room on the links; here each record reached is shown once,
with how many of the links refer to it (and, at the richest detail, the first of them):

    - Join: 510 records of /tables/visits/rows meet doctor_id = "D027", referring (by
      patient_id) to 494 /tables/patients/rows records, each shown once, followed by how many
      of those records refer to it (as "visits") (and, room allowing, which); 37 shown:
    - /tables/patients/rows/0 {"patient_id":"P-100000","surname":"Weber"} {"visits": 2}

Only a tool whose description asks for the records reached each once, or counted, is
answered so (``the boats an owner has charters for, with the charters' dates`` lists links).
The count is written under the name the tool's description or output schema gives the links'
collection in the plural (``visits`` for ``/tables/visits/rows``), else as plain text.
"""

from __future__ import annotations

import json
import re

from mcp_sim.prompting.field_names import tokens
from mcp_sim.prompting.link_join import LinkJoin
from mcp_sim.prompting.link_values import Lists
from mcp_sim.spec.world import ToolSpec

LISTED_LINKS = 3
"""Links named after the record they reach (the others are counted)."""


_EACH_ONCE = re.compile(
    r"\b(once|distinct|unique|deduplicated|number of|how (many|often)|counts?)\b", re.I
)
"""A description asking for each record reached once, or for how many links reach it."""


def asks_each_once(tool: ToolSpec | None) -> bool:
    """Whether the tool's description asks for the records reached each once or counted
    (``each once, with their number of visits``), not for the links themselves."""
    return tool is not None and _EACH_ONCE.search(tool.description) is not None


def groups(join: LinkJoin) -> dict[str, list[str]] | None:
    """Each record reached → the links referring to it, in the links' order (a link naming
    several, such as an entry's postings naming accounts, counts for each)."""
    found: dict[str, list[str]] = {}
    for link, targets in join.rows:
        for target in targets:
            found.setdefault(target, []).append(link)
    return found or None


def count_name(join: LinkJoin, lists: Lists) -> str | None:
    """The name the tool gives the links in the plural (``visits``), if it names them; else
    the one other thing it names in the plural than the records reached (``entries`` in "the
    accounts on the other side of an account's entries, with how often")."""
    for part in reversed(join.links.pointer.split("/")):
        for word in tokens(part):
            if word in lists:
                return lists[word][0]
    reached = set(tokens(join.targets.pointer))
    others = [name for word, (name, _) in lists.items() if word not in reached]
    return others[0] if len(others) == 1 else None


def group_line(
    target: str, body: str, links: list[str], name: str | None, *, listed_links: bool = True
) -> str:
    """A record reached, its count of links (under ``name``) and the first of them (when
    ``listed_links``)."""
    count = json.dumps({name: len(links)}) if name else f"({len(links)} of them)"
    if not listed_links:
        return f"- {target} {body} {count}".replace("  ", " ")
    listed = ", ".join(links[:LISTED_LINKS])
    more = len(links) - LISTED_LINKS
    listed += f" and {more} more" if more > 0 else ""
    return f"- {target} {body} {count} ← {listed}".replace("  ", " ")


def group_heading(join: LinkJoin, reached: int, shown: int, name: str | None) -> str:
    total = join.total
    rest = f"{shown} shown" if shown == reached else f"the first {shown} shown"
    counted = f' (as "{name}")' if name else ""
    return (
        f"- Join: {total} records of {join.links_named} meet "
        f"{join.found_by or 'the arguments'}, referring (by {join.referred_by}) to {reached} "
        f"{join.targets.pointer} records, each shown once, followed by how many of those "
        f"records refer to it{counted} (and, room allowing, which); {rest}:"
    )

"""When a record's sequence of entries moved from one place straight to the next, under the
names the tool gives those steps: "parcels that departed one facility and next arrived at
another" over parcels whose scan events (``{"at", "code": "DEPARTED", "facility"}``) record
where they were.

A search whose two ends are places in one sequence of nested entries (see
:func:`mcp_sim.prompting.nested_records.movement`) finds records that passed both; the answer
lists each step straight from the first to the second, with the times of the two entries,
named by what happened there: an entry's text value that is a word of the tool's description
(``DEPARTED`` beside "departed") names its time (``"departed": "2025-06-16T22:15"``). The
records shown whole outline most entries; these rows give each step in a line:

    - Steps: 37 of the 130 records of /parcels go from "COR-3" straight to "STO-19" (…); the
      first 12 shown:
    - /parcels/TRK61 {"departed":"2025-06-16T22:15","arrived":"2025-06-17T07:02"}
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from mcp_sim.prompting.constraints import Constraint
from mcp_sim.prompting.key_names import key_label
from mcp_sim.prompting.nested_records import movement
from mcp_sim.prompting.search_result import SearchResult
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_shape import normalize
from mcp_sim.spec.world import ToolSpec

MOST_SCANNED = 2000
"""Records whose entries are walked (in the search's order)."""
_TIME = re.compile(r"\d{4}-\d\d-\d\d|\d\d:\d\d")
_WORD = re.compile(r"[A-Za-z]+")


@dataclass
class Steps:
    """Each step of a record's entries straight from one end of a search to the other."""

    pointer: str
    """The collection searched."""
    start: Constraint
    end: Constraint
    scanned: int
    rows: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    """``(record pointer, {step name: time})`` in the search's order."""
    count: str | None = None
    """The answer's field for how many steps there are, when the tool names one."""

    def render(self, state: Any, room: int, key_names: dict[str, str]) -> str:
        """The heading and the rows that fit in ``room`` characters (``state``: unused, the
        rows hold their times already)."""
        lines: list[str] = []
        spent = 0
        for pointer, named in self.rows:
            body = json.dumps(named, ensure_ascii=False, separators=(",", ":"))
            line = f"- {pointer}{key_label(pointer, key_names)} {body}"
            if spent + len(line) + 1 > room - 400:
                break
            lines.append(line)
            spent += len(line) + 1
        total = len(self.rows)
        counted = f' (the answer\'s "{self.count}": {total})' if self.count else ""
        shown = f"{len(lines)} shown" if len(lines) == total else f"the first {len(lines)} shown"
        heading = (
            f"- Steps: {total} step{'s' if total != 1 else ''}{counted} of the {self.scanned} "
            f"records of {self.pointer} go from {json.dumps(self.start.value)} straight to "
            f"{json.dumps(self.end.value)} ({self.start.fields[0]}), each with the times of "
            f"its two entries named as the description names what happened there; {shown}:"
        )
        return "\n".join([heading, *lines])


def steps_of(state: Any, tool: ToolSpec | None, search: SearchResult) -> Steps | None:
    """The steps of ``search``'s records straight from its start to its end whose entries
    the tool's description names, or ``None`` (no movement, no named steps)."""
    ends = movement(search.reading)
    if tool is None or ends is None:
        return None
    listed, _, place = ends[0].fields[0].rpartition("/*/")
    if not listed or "*" in listed or "/" in place:
        return None
    words = {w.lower() for w in _WORD.findall(tool.description)}
    a, b = normalize(ends[0].value), normalize(ends[1].value)
    found = Steps(search.collection.pointer, *ends, len(search.full))
    for pointer in search.full[:MOST_SCANNED]:
        entries = resolve(state, f"{pointer}/{listed}")
        for left, right in pairwise(entries if isinstance(entries, list) else []):
            if not isinstance(left, dict) or not isinstance(right, dict):
                continue
            if normalize(left.get(place)) != a or normalize(right.get(place)) != b:
                continue
            named = [_named_time(e, place, words) for e in (left, right)]
            if named[0] and named[1]:
                found.rows.append((pointer, {**named[0], **named[1]}))
    found.count = search.count.name if search.count is not None else None
    return found if found.rows else None


def _named_time(entry: dict[str, Any], place: str, words: set[str]) -> dict[str, Any]:
    """``{word: time}``: the entry's time under its text value that the description says as a
    word (``DEPARTED`` → ``departed``), or ``{}``."""
    times = [v for v in entry.values() if isinstance(v, str) and _TIME.match(v)]
    names = [
        v.lower()
        for k, v in entry.items()
        if k != place and isinstance(v, str) and v.isalpha() and v.lower() in words
    ]
    return {names[0]: times[0]} if len(names) == 1 and len(times) == 1 else {}

"""The section of a large state's view that shows the records a call needs, within its room.

Records are shown as ``- POINTER: {compact JSON}`` in the order :mod:`mcp_sim.prompting.grounding`
picked them. For a field-aware search the section says what the arguments were read as
(``author = "Ann Lee"; year ≥ 1990``), how many records meet every constraint, and which of
them are shown: every one when they fit, each compactly (its scalar fields and the sub-record
the arguments name, its other large parts outlined), sharing the room so that all of them are
shown before any record that meets only some constraints. What does not fit is named by
pointer while that fits; nothing is ever cut off silently.
"""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.aggregates import Summary
from mcp_sim.prompting.field_search import SearchResult
from mcp_sim.prompting.grounding import Pick
from mcp_sim.prompting.record_render import record_line
from mcp_sim.runtime.state_shape import resolve

RECORDS_HEADING = "**Records this call needs** (as they are now; JSON pointer: record):"
NOTE_ROOM = 600
"""Characters kept for the line that says how many records meet a search's constraints."""
_LEAST_SHARE = 160


def search_note(search: SearchResult, shown: list[str], room: int) -> str:
    """The line saying what a search's arguments were read as, how many records meet them all,
    and which are shown (within ``room`` characters)."""
    constraints = "; ".join(c.describe() for c in search.constraints)
    total = len(search.full)
    wanted = len(search.constraints)
    head = f"- Search of {search.collection.pointer} ({constraints}): "
    if total == 0:
        body = f"no record meets all {wanted}" if wanted > 1 else "no record meets it"
        body += f"; {len(search.partial)} meet some (shown below while they fit)."
    elif len(shown) == total:
        body = f"{total} record{'s' if total > 1 else ''} meet{'' if total > 1 else 's'} "
        body += f"{'all of them' if wanted > 1 else 'it'}, all shown below."
    else:
        body = f"{total} records meet {'all of them' if wanted > 1 else 'it'}; {len(shown)} "
        body += "shown below"
        left = [p for p in search.full if p not in set(shown)]
        named = ""
        for pointer in left:
            candidate = f"{named}, {pointer}" if named else pointer
            if len(head) + len(body) + len(candidate) + 30 > room:
                break
            named = candidate
        if named:
            more = len(left) - named.count(", ") - 1
            body += f"; not shown for room: {named}" + (f" and {more} more" if more else "")
        body += "."
    text = head + body
    return text if len(text) <= room else text[: max(0, room - 1)] + "…"


def records_section(
    state: dict[str, Any],
    picks: list[Pick],
    search: SearchResult | None,
    room: int,
    summary: Summary | None = None,
) -> str:
    """The ``summary`` (in at most half of ``room``), then the picked records that fit in
    ``room`` characters, best first, and a line naming those left out while that fits."""
    block = summary.render(room // 2) if summary is not None else ""
    if block:
        rest = records_section(state, picks, search, room - len(block) - 2)
        return f"{block}\n\n{rest}" if rest else block
    lines: list[str] = []
    left = room - len(RECORDS_HEADING) - 1
    note_at: int | None = None
    if search is not None:
        note_at, left = 0, left - min(NOTE_ROOM, left // 4)
    complete = [p for p in picks if p.complete]
    partial_heading = False
    shown: list[str] = []
    missed: list[str] = []
    for pick in picks:
        record = resolve(state, pick.pointer)
        if record is None:
            continue
        focused = pick.reason in ("matched", "listed")
        fit = left - 1
        if pick.complete:
            # Every record meeting all constraints gets a fair share of the room first.
            waiting = len(complete) - len(shown)
            fit = min(fit, max(_LEAST_SHARE, left // max(1, waiting)))
        line = (
            record_line(pick.pointer, record, pick.focus, fit, focused=focused) if fit > 0 else None
        )
        if line is None and pick.complete and fit < left - 1:
            line = record_line(pick.pointer, record, pick.focus, left - 1, focused=True)
        if line is None:
            if not pick.complete:
                missed.append(pick.pointer)
            continue
        if search is not None and pick.reason == "matched" and not pick.complete:
            if not partial_heading:
                heading = (
                    f"- Records meeting some of the {len(search.constraints)} constraints "
                    "(not all), most first:"
                )
                if len(heading) + len(line) + 2 > left:
                    missed.append(pick.pointer)
                    continue
                lines.append(heading)
                left -= len(heading) + 1
                partial_heading = True
            line = f"{line[:2]}(meets {pick.matched} of {len(search.constraints)}) {line[2:]}"
        lines.append(line)
        left -= len(line) + 1
        if pick.complete:
            shown.append(pick.pointer)
    if missed:
        _name_missed(lines, missed, left)
    if search is not None and note_at is not None:
        note = search_note(search, shown, min(NOTE_ROOM, room // 4))
        lines.insert(note_at, note)
    return "\n".join([RECORDS_HEADING, *lines]) if lines else ""


def _name_missed(lines: list[str], missed: list[str], left: int) -> None:
    named: list[str] = []
    for pointer in missed:
        candidate = f"- not shown for room: {', '.join([*named, pointer])}"
        if len(candidate) + 1 > left:
            break
        named.append(pointer)
    if named:
        lines.append(f"- not shown for room: {', '.join(named)}")

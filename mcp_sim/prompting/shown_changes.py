"""The state changes a later turn shows, within the room a turn has.

A later turn shows the JSON Patch each call committed since the turn before (see
:mod:`mcp_sim.prompting.native`). Most patches are a few small operations; two kinds are not. A
write to a collection kept as text (a dump, a CSV file, a log held as one string) replaces the
whole string with a copy a line longer, and a write of a large document adds it whole. Shown as
committed, one such operation can outgrow the whole prompt's budget (300,000 tokens for a 1 MB
text), so:

- when a call commits, a replaced text of many lines is kept as its edit (the lines it changed,
  see :mod:`mcp_sim.prompting.text_edits`) beside a note standing for the value
  (:func:`shown_patch`); the state takes the whole value, this is only what the model is shown;
- when a turn is rendered (:func:`bounded_changes`), an operation larger than half the room has
  its large parts outlined as a record's are (and a long string clipped), and the operations
  past the room are left out, counted and named by path.

The room is half the later-turn budget, and the records take what the changes leave of it (so
a later turn stays within the share of the prompt's bound counted for it). Patches within the
room are shown as committed, byte for byte.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from mcp_sim.prompting.record_render import note, trimmed
from mcp_sim.prompting.text_edits import text_edit
from mcp_sim.runtime.state import PatchOp
from mcp_sim.runtime.state_paths import nested, stored_at

LONG_TEXT = 2_000
"""Characters past which a replaced text is shown as its edit."""
CLIPPED_TEXT = 400
"""Characters of a long string kept when an operation is cut down to its share of the room."""
NAMED_PATHS = 4
"""Paths of left-out operations named in the note that counts them."""


def shown_patch(before: Any, patch: Sequence[PatchOp]) -> list[PatchOp]:
    """``patch`` as the model is shown it: a ``replace`` of a long text of many lines (in
    ``before``, the state it applies to) by another as an edit of it. Only an operation whose
    path no earlier operation of the patch touched is read so, as ``before`` still holds its
    value."""
    shown: list[PatchOp] = []
    touched: list[str] = []
    for op in patch:
        path, value = op.get("path"), op.get("value")
        if (
            op.get("op") == "replace"
            and isinstance(path, str)
            and isinstance(value, str)
            and len(value) > LONG_TEXT
            and not any(nested(path, other) for other in touched)
        ):
            op = _as_edit(op, path, value, stored_at(before, path))
        touched.extend(p for p in (op.get("path"), op.get("from")) if isinstance(p, str))
        shown.append(op)
    return shown


def _as_edit(op: PatchOp, path: str, value: str, old: Any) -> PatchOp:
    edit = text_edit(old, value) if isinstance(old, str) else None
    if edit is None:
        return op
    lines = value.count("\n") + 1
    return {
        "op": "replace",
        "path": path,
        "value": f"<text of {lines:,} lines: the text before, changed as the edit shows>",
        "edit": edit,
    }


def op_line(op: PatchOp) -> str:
    """One operation as a turn shows it: a line of the patch's JSON array."""
    return " " + json.dumps(op, ensure_ascii=False, sort_keys=True)


def bounded_changes(patch: Sequence[PatchOp], room: int) -> tuple[list[str], str]:
    """The lines of ``patch``'s operations within ``room`` characters, and a note of those left
    out (``""`` when none is): an operation longer than half the room is cut down first."""
    lines: list[str] = []
    spent = 0
    for index, op in enumerate(patch):
        line = op_line(op)
        if len(line) > room // 2:
            line = op_line(_cut(op, room // 2))
        if spent + len(line) + 2 > room:
            return lines, _left_out(patch[index:])
        lines.append(line)
        spent += len(line) + 2
    return lines, ""


def _cut(op: PatchOp, share: int) -> PatchOp:
    """``op`` with its value's large parts outlined, its long strings clipped, or, when even so
    it is longer than ``share``, the value's note alone."""
    cut = {key: _clipped(value) for key, value in op.items()}
    if "value" in cut:
        cut["value"] = trimmed(cut["value"], set(), max(1, share // 8))
        if len(op_line(cut)) > share:
            cut["value"] = note(op["value"], brief=True)
    return cut


def _clipped(value: Any) -> Any:
    if isinstance(value, str) and len(value) > CLIPPED_TEXT:
        return f"{value[:CLIPPED_TEXT]}<… {len(value) - CLIPPED_TEXT:,} more characters>"
    if isinstance(value, dict):
        return {key: _clipped(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_clipped(item) for item in value]
    return value


def _left_out(ops: Sequence[PatchOp]) -> str:
    paths = [str(op.get("path", "")) for op in ops]
    named = ", ".join(paths[:NAMED_PATHS]) + (
        f" and {len(paths) - NAMED_PATHS:,} more" if len(paths) > NAMED_PATHS else ""
    )
    return (
        f"*({len(ops):,} more operations are not shown for room, on {named}; the records "
        "below are shown as they are now.)*"
    )

"""A long text's edit: the lines one version of it changed in another, as a unified diff.

A collection kept as text (an SQL dump, a CSV file, a log held as one string) is written by
replacing the whole string: a JSON Patch cannot change one line of a string. Shown to the model
as the patch was committed, a one-line write to a 1 MB dump is 1 MB of prompt; as its edit it
is the line it changed. The edit is a unified diff without context lines (``@@ -57 +57 @@``,
``-`` the line as it was, ``+`` as it is), the form models read most often.
"""

from __future__ import annotations

from difflib import SequenceMatcher

MIN_LINES = 8
"""Texts of fewer lines are shown whole: an edit would say no less than the text."""
MOST_CHANGED_LINES = 50_000
"""Lines at most in the changed stretch that is diffed (both versions together; a 20,000-line
dump with two edits far apart takes some 100 ms, once, when the write commits): past it the
text is not shown as an edit."""


def text_edit(before: str, after: str) -> str | None:
    """``after`` as an edit of ``before``: a unified diff without context lines, its line
    numbers those of the whole texts; ``None`` when either text has few lines, when the changed
    stretch is long, or when the edit would not be shorter than half of ``after``."""
    old, new = before.split("\n"), after.split("\n")
    if len(old) < MIN_LINES or len(new) < MIN_LINES:
        return None
    # The lines both texts start and end with are found first, so the diff itself runs over the
    # changed stretch only (a write touches a line or two of thousands).
    start = 0
    while start < min(len(old), len(new)) and old[start] == new[start]:
        start += 1
    end = 0
    while end < min(len(old), len(new)) - start and old[-1 - end] == new[-1 - end]:
        end += 1
    old_part, new_part = old[start : len(old) - end], new[start : len(new) - end]
    if len(old_part) + len(new_part) > MOST_CHANGED_LINES:
        return None
    hunks: list[str] = []
    matcher = SequenceMatcher(None, old_part, new_part, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        hunks.append(f"@@ -{_span(start + i1, i2 - i1)} +{_span(start + j1, j2 - j1)} @@")
        hunks.extend("-" + line for line in old_part[i1:i2])
        hunks.extend("+" + line for line in new_part[j1:j2])
    edit = "\n".join(hunks)
    return edit if hunks and len(edit) < len(after) // 2 else None


def _span(first: int, count: int) -> str:
    """A hunk's range as unified diffs write it: ``first`` is the 0-based index of its first
    line; an empty range names the line before it."""
    if count == 0:
        return f"{first},0"
    return str(first + 1) if count == 1 else f"{first + 1},{count}"

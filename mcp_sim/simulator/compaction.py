"""When the shown history is compacted, and how far.

Each compaction changes the start of the prompt's history, so a prefix cache recomputes all
that follows it. Sliding the history one turn per call (drop the oldest, add the newest) would
do that on every call once the budget is reached. Instead, the history grows append-only until
it outgrows its budget; then one cut drops the oldest turns down to a share of the budget (and
to at most ``keep_turns``), leaving room for many more turns to be appended before the next
cut.
"""

from __future__ import annotations

from collections.abc import Sequence


def compaction_start(
    sizes: Sequence[int], budget: int, *, keep_turns: int, keep_share: float
) -> int:
    """The index of the first turn to keep of the turns of ``sizes`` tokens (oldest first):
    0 while they fit ``budget``; otherwise the newest ``keep_turns`` at most, and no more than
    fit ``keep_share`` of ``budget``."""
    kept = sum(sizes)
    if kept <= budget:
        return 0
    target = keep_share * budget
    start = max(0, len(sizes) - keep_turns)
    kept = sum(sizes[start:])
    while start < len(sizes) and kept > target:
        kept -= sizes[start]
        start += 1
    return start

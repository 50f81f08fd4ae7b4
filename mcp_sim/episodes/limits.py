"""Caps on what a server's episodes may hold: how many episodes, in all and per world, and how
large a snapshot (and so an episode's starting state) may be, counted in JSON values.

Bytes alone do not bound memory: ``[{},{},...]`` is 3 bytes a value on the wire and over 60 in
the parsed document, so a 16 MB body could grow the server by hundreds of megabytes. A
snapshot is therefore refused on the number of its JSON values as well, counted on the raw
text before it is parsed (:func:`json_values_at_most`), so a refused one costs no memory.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcp_sim.errors import CapacityReached, SnapshotInvalid

DEFAULT_MAX_EPISODES = 10_000
DEFAULT_MAX_SNAPSHOT_VALUES = 500_000


@dataclass(frozen=True)
class EpisodeLimits:
    """How many episodes a server (one worker) holds at once, in all and of one world, and
    how many JSON values a snapshot it restores may have."""

    max_episodes: int = DEFAULT_MAX_EPISODES
    max_world_episodes: int = DEFAULT_MAX_EPISODES
    max_snapshot_values: int = DEFAULT_MAX_SNAPSHOT_VALUES

    def check_room(self, held: int, held_of_world: int, world: str) -> None:
        """Raise :class:`CapacityReached` when one more episode (of ``world``) is too many."""
        if held >= self.max_episodes:
            raise CapacityReached(
                f"this server holds {held} episodes, its limit (--max-episodes): delete "
                "finished ones, or wait for idle ones to expire"
            )
        if held_of_world >= self.max_world_episodes:
            raise CapacityReached(
                f"this server holds {held_of_world} episodes of {world}, its limit per world "
                "(--max-world-episodes)"
            )

    def check_snapshot(self, raw: str | bytes) -> None:
        """Raise :class:`SnapshotInvalid` when JSON text ``raw`` may have more values than a
        snapshot may (before it is parsed)."""
        values = json_values_at_most(raw)
        if values > self.max_snapshot_values:
            raise SnapshotInvalid(
                f"the snapshot has up to {values} JSON values, over the limit of "
                f"{self.max_snapshot_values} (--max-snapshot-values)"
            )


def json_values_at_most(raw: str | bytes) -> int:
    """An upper bound on the number of values in JSON text ``raw``, without parsing it: every
    value but the outermost is an array's first (after its ``[``), an object's first member's
    (its ``{``), or a later one (after a ``,``). An empty ``{}`` or ``[]`` opens no value, so
    it is taken off. Inside strings, a ``{}`` or ``[]`` takes off no more than its bracket
    added, and the rest only make the bound looser. (Scans in C: milliseconds for 16 MB.)"""
    text = raw.encode() if isinstance(raw, str) else raw
    opened = text.count(b"[") + text.count(b"{") - text.count(b"[]") - text.count(b"{}")
    return 1 + text.count(b",") + opened

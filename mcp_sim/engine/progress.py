"""How the engine reports what it is doing: one short line per step or heartbeat."""

from __future__ import annotations

from collections.abc import Callable

EngineProgress = Callable[[str], None]
"""Receives one short human-readable line per step or heartbeat."""


def ignore_progress(_: str) -> None:
    """The progress of a caller that asked for none."""

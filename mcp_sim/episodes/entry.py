"""What the hub keeps per episode besides its session, and what an episode's id may be."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass

from mcp_sim.journal import JournalRecord

EPISODE_ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
"""What an id given by a client may look like: bounded, and safe in a URL path."""


def new_incarnation() -> str:
    return secrets.token_hex(8)


def check_episode_id(given: str) -> None:
    if not EPISODE_ID_PATTERN.fullmatch(given):
        raise ValueError(
            "an episode id is 1-128 letters, digits, '.', '_' or '-', starting with a letter "
            "or digit"
        )


@dataclass(frozen=True, slots=True)
class EpisodeEntry:
    """The hub's entry for an episode, next to its session: who may reach it and what it is
    for. (The public handle on an episode is :class:`mcp_sim.api.Episode`.)"""

    id: str
    world: str
    token: str
    incarnation: str
    """Which creation of ``id`` this is: random per creation, kept by the store, so a copy or
    a token of an earlier episode of the same id is never taken for this one."""
    task: str | None = None
    parent: str | None = None
    """The episode this one was forked from."""
    inherited: tuple[JournalRecord, ...] = ()
    """The parent's calls up to the fork, which the fork's verdict counts as its own."""

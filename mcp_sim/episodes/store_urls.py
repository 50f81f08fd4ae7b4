"""The URLs ``--episode-store`` takes, checked without loading any store (the command line
checks them while it parses; see :mod:`mcp_sim.episodes.store_opening` for what they open)."""

from __future__ import annotations

STORE_SCHEMES = ("memory", "sqlite:///PATH", "redis://HOST:PORT/DB")


def check_store_url(url: str) -> str:
    """``url`` if it names a store, else a ValueError saying what would."""
    if url == "memory" or url.startswith(("redis://", "rediss://")):
        return url
    if url.startswith("sqlite:///") and len(url) > len("sqlite:///"):
        return url
    raise ValueError(f"not an episode store: {url!r} (use {', '.join(STORE_SCHEMES)})")

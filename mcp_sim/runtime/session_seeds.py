"""A session's seed. Each session owns a ``random.Random``; every model request draws its
sampling seed from it, so the same session seed and the same sequence of calls send the same
seeds, and a deterministic backend answers the same.

A session's seed is the one the client names (``_meta`` ``mcp-sim/seed`` or the control API);
failing that, one derived from ``--seed`` and the session id, so parallel episodes of one run
differ but each is reproducible by name; failing that, a random one (reported by the control
API, so any session can be replayed).
"""

from __future__ import annotations

import hashlib
import secrets

SEED_BITS = 63


def session_seed(base: int | None, session_id: str) -> int:
    """The seed of a session that did not name its own: derived from ``base`` and the id, or
    random without a ``base`` (see the module docstring)."""
    if base is None:
        return secrets.randbits(SEED_BITS)
    digest = hashlib.sha256(f"{base}:{session_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> (64 - SEED_BITS)

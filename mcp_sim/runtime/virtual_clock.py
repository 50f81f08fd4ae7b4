"""The virtual clock: the time the model is told for the ``k``-th call of a session is
``clock.start + (k - 1) * clock.step_seconds``. It depends on the call count only, never on the
wall clock, so a replayed session sees the same times. Like the session's fresh ids
(:mod:`mcp_sim.runtime.fresh_ids`) and seeds (:mod:`mcp_sim.runtime.session_seeds`), it is
decided by the session itself instead of asked of the model.
"""

from __future__ import annotations

from datetime import timedelta

from mcp_sim.spec.world import World


def virtual_now(world: World, call_number: int) -> str | None:
    """The time of the ``call_number``-th call (1-based) as ISO 8601, or ``None`` without a
    clock. UTC times end in ``Z``."""
    if world.clock is None:
        return None
    start = world.clock.start_time()
    now = start + timedelta(seconds=world.clock.step_seconds * (call_number - 1))
    text = now.isoformat()
    return text.removesuffix("+00:00") + "Z" if now.utcoffset() == timedelta(0) else text

"""Per-step rewards as increments: harnesses that reward every step (OpenEnv's ``every_step``)
add the step rewards up into the episode's return, so each step carries the change in the
verdict's reward since the step before, and an episode's steps add up to its final reward.

"Add up" is meant exactly, in floating point, left to right as a harness adds them. A
decimal reward such as 0.190111 is not always reachable as a sum ending in another such
number (round-half-even ties can skip it), so the running sum before the last step is kept on
a grid of 2**-53, within 1.2e-16 of the running verdict; from there the last step's
increment is exact, and the sum lands on the verdict's reward bit for bit (unless a reward
falls by more than the size of its own binade, e.g. from 1.0 to 0.3, which no increment
can reach exactly).
"""

from __future__ import annotations

GRID = 2.0**-53
"""Every double in [0.5, 1] is a multiple of it, so the rewards most steps carry stay as they
are; a sum on this grid plus an exact difference is exact."""


class RewardIncrements:
    """The rewards one episode has paid out so far, and what its next step is owed."""

    def __init__(self) -> None:
        self.paid = 0.0

    def owed(self, reward: float, *, last: bool) -> float:
        """The increment that brings the rewards paid so far to ``reward`` (exactly when
        ``last``, the step that ends the episode; else to the grid next to it); it is counted
        as paid."""
        target = reward if last else round(reward / GRID) * GRID
        step = target - self.paid
        self.paid += step
        return step

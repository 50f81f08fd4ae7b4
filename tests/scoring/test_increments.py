"""Per-step rewards as increments (``reward: every_step``): added up left to right, as a
harness adds them, they land on the final verdict's reward bit for bit."""

from __future__ import annotations

import random

from mcp_sim.scoring.increments import RewardIncrements


def summed(increments: list[float]) -> float:
    total = 0.0
    for increment in increments:  # left to right, as a harness's running return
        total += increment
    return total


def test_plain_differences_can_miss_the_verdict_and_increments_do_not() -> None:
    rewards = [0.190111, 0.499662]
    plain = [rewards[0], rewards[1] - rewards[0]]
    assert summed(plain) != rewards[-1]  # a round-half-even tie skips 0.499662
    ledger = RewardIncrements()
    steps = [ledger.owed(rewards[0], last=False), ledger.owed(rewards[1], last=True)]
    assert summed(steps) == rewards[-1] and ledger.paid == rewards[-1]


def test_rising_rewards_sum_exactly_and_the_running_sum_keeps_close() -> None:
    draw = random.Random(23)
    for _ in range(5000):
        rewards = sorted(round(draw.random(), 6) for _ in range(draw.randint(1, 8)))
        ledger = RewardIncrements()
        steps, running = [], 0.0
        for i, reward in enumerate(rewards):
            steps.append(ledger.owed(reward, last=i == len(rewards) - 1))
            running += steps[-1]
            assert abs(running - reward) <= 1.2e-16
        assert summed(steps) == rewards[-1], rewards


def test_a_reward_that_stays_pays_nothing_more() -> None:
    ledger = RewardIncrements()
    steps = [ledger.owed(r, last=False) for r in (0.2, 0.2, 0.2)] + [ledger.owed(1.0, last=True)]
    assert steps[1:3] == [0.0, 0.0] and summed(steps) == 1.0

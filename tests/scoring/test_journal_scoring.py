"""An episode scored from Python from nothing but its world and journal, as ``mcp-sim verify``
scores it, and a journal file read with its failures said."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_sim.errors import SimError, VerifyError
from mcp_sim.journal import load_journal
from mcp_sim.models.openai import EndpointSettings
from mcp_sim.scoring.journal_scoring import score_journal
from mcp_sim.spec.world import World
from tests.scoring.test_scoring import tent_episode

NOBODY = EndpointSettings(base_urls=["http://127.0.0.1:9/v1"], model="judge")
"""A judge nothing listens for: contacting it would fail the test."""


async def test_an_episode_is_scored_from_its_journal(shop: World, tmp_path: Path) -> None:
    journal = tmp_path / "calls.jsonl"
    await tent_episode(shop, journal)
    verdict = await score_journal(shop, load_journal(journal), task="tent-for-ola", judge=NOBODY)
    assert verdict["episode"] == "e1" and verdict["task"] == "tent-for-ola"
    assert verdict["reward"] == 1.0
    assert all(check["passed"] for check in verdict["checks"])


async def test_one_episode_of_several_must_be_named(shop: World, tmp_path: Path) -> None:
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    await tent_episode(shop, first, session="e1")
    await tent_episode(shop, second, session="e2")
    records = [*load_journal(first), *load_journal(second)]
    with pytest.raises(VerifyError):
        await score_journal(shop, records, task="tent-for-ola")
    verdict = await score_journal(shop, records, episode="e2", task="tent-for-ola")
    assert verdict["episode"] == "e2" and verdict["reward"] == 1.0


def test_a_journal_that_cannot_be_read_says_why(tmp_path: Path) -> None:
    with pytest.raises(SimError, match=r"cannot read journal .*missing\.jsonl"):
        load_journal(tmp_path / "missing.jsonl")
    other = tmp_path / "notes.txt"
    other.write_text("not json\nnor this\n", encoding="utf-8")
    with pytest.raises(SimError, match=r"notes\.txt is not an mcp-sim journal"):
        load_journal(other)

"""The example prompt of docs/state.md is the one the code builds, not a hand-written likeness."""

from __future__ import annotations

import re
from pathlib import Path

from benchmarks.prefix_sharing import ROOT, example_prompt
from mcp_sim.spec.loading import load_world

README = Path(__file__).resolve().parents[2] / "docs" / "state.md"


def test_the_readme_shows_the_prompt_the_code_builds() -> None:
    shown = re.search(
        r"\n````text\n(\[system\]\n.*?)\n````\n", README.read_text(encoding="utf-8"), re.S
    )
    assert shown is not None, "docs/state.md's example prompt (a ````text block) is missing"
    built = example_prompt(load_world(ROOT / "worlds" / "shop.yaml"))
    assert shown.group(1) == built, (
        "docs/state.md's example prompt is out of date: paste the output of "
        "`python benchmarks/prefix_sharing.py --example` into it"
    )
    # Earlier turns are repeated as they were sent: the anchor, then the changes since.
    assert built.index("### Turn 1\n**Current World State:**") < built.index("### Turn 3")

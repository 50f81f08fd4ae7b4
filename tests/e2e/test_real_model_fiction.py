"""Fictional worlds on the real tiny model (Gemma 3 270M on vLLM CPU): the page store's plumbing
end to end, the rate at which its results support a reference answer, and `world new`.

The tiny model proves the plumbing, not fidelity: these tests check shapes, identity and the
clear failure paths, and *report* the support rate rather than demand one.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client

from mcp_sim.prompting.canon import supports
from mcp_sim.prompting.search_formats import parse_results
from mcp_sim.spec.loading import load_world
from tests.processes import ROOT, request_meta, serving_http
from tests.real_model import embedded_like_args, text_of

pytestmark = pytest.mark.real_model

VELANDRE = ROOT / "worlds" / "search.yaml"
SAMPLE_EVERY = 3
"""Every third reference question: four searches of about a minute and a half each on vLLM CPU."""


async def test_a_page_of_a_tiny_model_result_repeats_its_title_twice_and_after_a_restart(
    real_model_url: str, tmp_path: Path
) -> None:
    args = embedded_like_args(real_model_url, "--world-memory", str(tmp_path / "m.db"))
    with serving_http(VELANDRE, *args, log=tmp_path / "first.log") as url:
        async with Client(url) as client:
            with anyio.fail_after(900):
                found = await client.call_tool("web_search", {"queries": ["Lantern Regatta"]})
                assert not found.is_error, text_of(found)
                results = parse_results(text_of(found))
                assert results, text_of(found)
                first = await client.call_tool("open_page", {"url": results[0].url})
                second = await client.call_tool("open_page", {"url": results[0].url})
    assert not first.is_error, text_of(first)
    assert text_of(first).startswith(f"# {results[0].title}\n")
    assert text_of(second) == text_of(first)
    with serving_http(VELANDRE, *args, log=tmp_path / "second.log") as url:
        async with Client(url) as client:
            with anyio.fail_after(120):
                restarted = await client.call_tool("open_page", {"url": results[0].url})
    assert text_of(restarted) == text_of(first)


async def test_the_tiny_models_rate_of_supporting_reference_answers_is_reported(
    real_model_url: str, tmp_path: Path
) -> None:
    sample = load_world(VELANDRE).reference_answers[::SAMPLE_EVERY]
    supported = answered = 0
    with serving_http(VELANDRE, *embedded_like_args(real_model_url), log=tmp_path / "s.log") as url:
        async with Client(url) as client:
            for i, ref in enumerate(sample):
                with anyio.fail_after(900):
                    result = await client.call_tool(
                        "web_search",
                        {"queries": [ref.question]},
                        meta=request_meta({"mcp-sim/session": f"reference-{i}"}),
                    )
                if result.is_error:
                    continue
                answered += 1
                supported += supports(text_of(result), ref)
    total = len(sample)
    print(
        f"\nreference answers supported by the tiny model's results: {supported}/{total} "
        f"({answered} answered)",
        file=sys.stderr,
    )
    # Every answer that came back is in the native format (the rate itself is what we report).
    assert answered >= total // 2


def test_world_new_on_the_tiny_model_gives_a_valid_spec_or_a_clear_error(
    real_model_url: str, tmp_path: Path
) -> None:
    out = tmp_path / "drafted.yaml"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mcp_sim",
            "world",
            "new",
            "a small ferry company's booking API for two islands",
            "--domain",
            "mcp",
            "-o",
            str(out),
            "--model-url",
            real_model_url,
            "--bounded-output",
            "--timeout",
            "600",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=1500,
    )
    print(f"\nworld new on the tiny model: exit {done.returncode}\n{done.stderr}", file=sys.stderr)
    if done.returncode == 0:
        assert load_world(out).tools
    else:
        assert done.returncode == 1
        assert "could not draft a valid world spec" in done.stderr or "world model" in done.stderr
        assert not out.exists()

"""The command line of perturbations: ``mcp-sim perturbations``, and ``--perturb`` with
``--seed`` on ``call`` and ``serve``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcp_sim.journal import read_journal
from mcp_sim.perturb.planner import BUILTIN_PROFILES
from tests.cli.test_cli import DEAD_MODEL, cli
from tests.conftest import BOOKSTORE, ROOT, WorldWriter
from tests.processes import run_cli

PROFILES = """
perturbations:
  coin:
    - {kind: error, probability: 0.5, message: "heads", verbatim: true}
  slow-search:
    - {kind: latency, seconds: 0.01, tools: [search_books]}
  semantic:
    - {kind: empty, tools: [search_books]}
  down:
    - {kind: error, message: "down", verbatim: true}
"""


@pytest.fixture
def world(write_world: WorldWriter) -> Path:
    return write_world(BOOKSTORE.read_text() + PROFILES)


def test_perturbations_without_a_world_lists_the_builtin_profiles_and_their_rules(
    capsys: pytest.CaptureFixture[str],
) -> None:
    run = cli(capsys, "perturbations")
    assert run.code == 0
    headers = [line.split()[0] for line in run.out.splitlines() if not line.startswith(" ")]
    assert headers == list(BUILTIN_PROFILES)
    assert "  0. rate_limit (server) on *: limit=5, window=10.0" in run.out.splitlines()


def test_perturbations_of_a_world_lists_its_own_profiles_as_json(
    capsys: pytest.CaptureFixture[str], world: Path
) -> None:
    run = cli(capsys, "perturbations", str(world), "--json")
    listing = json.loads(run.out)
    assert listing["coin"]["source"] == "world"
    assert listing["coin"]["rules"] == [
        {"kind": "error", "probability": 0.5, "message": "heads", "verbatim": True}
    ]
    assert listing["flaky"]["source"] == "built-in"


def test_call_with_an_unknown_profile_exits_2_naming_the_known_ones(world: Path) -> None:
    run = run_cli("call", str(world), "get_book", "--perturb", "coin,cion", *DEAD_MODEL)
    assert run.returncode == 2
    assert "'cion'" in run.stderr and "slow-search" in run.stderr
    assert "Traceback" not in run.stderr


def test_serve_with_an_unknown_profile_exits_2(world: Path) -> None:
    run = run_cli("serve", str(world), "--perturb", "nope", *DEAD_MODEL)
    assert run.returncode == 2
    assert "'nope'" in run.stderr


def test_call_with_the_same_seed_makes_the_same_decision(
    capsys: pytest.CaptureFixture[str], world: Path
) -> None:
    def outcomes() -> list[str]:
        found = []
        for seed in range(12):
            args = ["--args", '{"query": "glass"}', "--perturb", "coin", "--seed", str(seed)]
            found.append(cli(capsys, "call", str(world), "search_books", *args).out)
        return found

    first = outcomes()
    assert first == outcomes()
    assert {"heads\n"} < set(first), "some seeds inject, others do not"


def test_call_without_a_seed_says_which_one_reproduces_it(
    capsys: pytest.CaptureFixture[str], world: Path
) -> None:
    run = cli(
        capsys,
        "call",
        str(world),
        "search_books",
        "--args",
        '{"query": "glass"}',
        "--perturb",
        "coin",
    )
    assert "pass --perturb-seed" in run.err


def test_call_journals_the_injected_perturbation(
    capsys: pytest.CaptureFixture[str], world: Path, tmp_path: Path
) -> None:
    journal = tmp_path / "j.jsonl"
    args = ["--args", '{"query": "glass"}', "--perturb", "slow-search", "--journal", str(journal)]
    run = cli(capsys, "call", str(world), "search_books", *args)
    assert run.code == 0
    assert "injected: latency (profile slow-search, rule 0)" in run.err
    (record,) = read_journal(journal)
    assert record.perturbations[0]["profile"] == "slow-search"


def test_call_answered_by_an_injected_error_starts_no_model(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, world: Path
) -> None:
    def no_model(*args: object) -> None:
        raise AssertionError("mcp-sim call started a world model it did not need")

    monkeypatch.setattr("mcp_sim.api.model_launch.LaunchingModel.start", no_model)
    run = cli(
        capsys, "call", str(world), "get_book", "--args", '{"book_id": "b1"}', "--perturb", "down"
    )
    assert (run.code, run.out) == (1, "down\n")


def test_call_of_a_pinned_call_with_a_semantic_perturbation_asks_the_model(
    capsys: pytest.CaptureFixture[str], world: Path
) -> None:
    args = ["--args", '{"query": "glass"}', "--perturb", "semantic"]
    run = cli(capsys, "call", str(world), "search_books", *args, *DEAD_MODEL)
    assert run.code == 1
    assert "source: model_error" in run.err


def test_the_docs_example_profile_is_a_valid_world_section(
    capsys: pytest.CaptureFixture[str], write_world: WorldWriter
) -> None:
    readme = (ROOT / "docs" / "perturbations.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Stress-testing agents") :]
    example = section[section.index("```yaml\n") + 8 : section.index("```\n\nKinds")]
    world = write_world(BOOKSTORE.read_text() + example)
    run = cli(capsys, "perturbations", str(world), "--json")
    assert run.code == 0, run.err
    assert [r["kind"] for r in json.loads(run.out)["checkout-trouble"]["rules"]] == [
        "error",
        "latency",
        "injection",
    ]


def test_perturb_seed_seeds_decisions_like_seed_does(
    capsys: pytest.CaptureFixture[str], world: Path
) -> None:
    def decided(flag: str, seed: int) -> str:
        args = ["--args", '{"query": "glass"}', "--perturb", "coin", flag, str(seed)]
        return cli(capsys, "call", str(world), "search_books", *args).out

    assert [decided("--perturb-seed", s) for s in range(8)] == [
        decided("--seed", s) for s in range(8)
    ]

"""``mcp-sim suite generate|check|export`` from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import httpx2
import pytest

from mcp_sim.cli.main import main
from mcp_sim.suites.environment_drafting import SUITE_DRAFT_MAX_TOKENS
from mcp_sim.suites.layout import read_json
from tests.openai_double import OpenAIDouble, Reply
from tests.processes import serving_http
from tests.suites.environment_drafts import environment
from tests.suites.suite_builds import small_suite


def test_generate_with_the_stand_in_model_records_each_failure_for_a_rerun(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inputs = tmp_path / "inputs.jsonl"
    inputs.write_text(json.dumps({"id": "ferry", "description": "a ferry booking API"}) + "\n")
    status = main(
        [
            "suite",
            "generate",
            "--from",
            str(inputs),
            "--out",
            str(tmp_path / "s"),
            "--model-url",
            "stub:",
            "--tries",
            "1",
        ]
    )
    out, err = capsys.readouterr()
    assert status == 1
    assert json.loads(out)["failed"]["ferry"].startswith("no valid draft in 1 tries")
    assert (tmp_path / "s" / "failed" / "ferry.json").is_file()
    assert "1/1 environments (1 failed)" in err and "ETA" in err


def test_generate_asks_under_the_settings_sampling_and_output_bounds(tmp_path: Path) -> None:
    """Asked as ``world new`` asks: a small model's bounds cut every string and list of the
    draft's schema and ask for a compact world, ``--max-tokens`` is each draft's limit, and
    ``--no-model-seeds`` keeps the item's seed (still stamped) from the model."""
    inputs = tmp_path / "inputs.jsonl"
    inputs.write_text(json.dumps({"id": "desk-ticket", "description": "tickets"}) + "\n")
    with OpenAIDouble() as double:
        double.respond_with(lambda request: Reply(content=environment("ticket")))
        common = ["suite", "generate", "--from", str(inputs), "--model-url", double.base_url]
        assert main([*common, "--out", str(tmp_path / "plain")]) == 0
        bounded = ["--bounded-output", "--max-tokens", "900", "--temperature", "0.2"]
        bounded += ["--no-model-seeds", "--seed", "5"]
        assert main([*common, "--out", str(tmp_path / "small"), *bounded]) == 0
        plain, small = (r.body for r in double.completion_requests)
    assert plain["max_completion_tokens"] == SUITE_DRAFT_MAX_TOKENS
    assert small["max_completion_tokens"] == 900 and small["temperature"] == 0.2
    assert plain["seed"] == 0 and "seed" not in small
    assert read_json(tmp_path / "small" / "worlds" / "desk-ticket" / "stamp.json")["seed"] == 5
    schemas = [b["response_format"]["json_schema"]["schema"] for b in (plain, small)]
    tools = [s["properties"]["world"]["properties"]["tools"] for s in schemas]
    assert [t["maxItems"] for t in tools] == [8, 3]
    canon = [s["properties"]["world"]["properties"]["canon"]["items"] for s in schemas]
    assert "maxLength" not in canon[0] and canon[1]["maxLength"] == 400


def test_check_prints_the_pass_rates_and_quarantines_the_failures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    layout = anyio.run(small_suite, tmp_path, ("ticket", "parcel"), "free_reward")
    assert main(["suite", "check", str(layout.root)]) == 1
    out, err = capsys.readouterr()
    assert "empty_fails" in out and "67%" in out
    assert "quarantined flawed: empty_fails: task cancel-t1: doing nothing scores" in err
    assert [i.id for i in layout.items()] == ["desk-parcel", "desk-ticket"]
    assert main(["suite", "check", str(layout.root)]) == 0


@pytest.mark.parametrize(
    ("fmt", "columns"),
    [
        ("trl", {"prompt", "world", "task"}),
        ("verifiers", {"question", "info"}),
        ("openenv", {"world", "task", "instruction"}),
    ],
)
def test_export_writes_a_row_per_task_in_the_manifest_split(
    tmp_path: Path, fmt: str, columns: set[str]
) -> None:
    layout = anyio.run(small_suite, tmp_path)
    out = tmp_path / "rows"
    assert main(["suite", "export", str(layout.root), "--format", fmt, "--out", str(out)]) == 0
    manifest = read_json(layout.manifest)
    for split in ("train", "test"):
        rows = [json.loads(line) for line in (out / f"{split}.jsonl").read_text().splitlines()]
        worlds = [w for w in manifest["worlds"] if w["split"] == split]
        assert len(rows) == sum(len(w["tasks"]) for w in worlds)
        assert all(set(row) == columns for row in rows)
    assert (out / f"load_{fmt}.py").is_file()


def test_a_suite_is_served_over_http_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    layout = anyio.run(small_suite, tmp_path, ("ticket",))
    with pytest.raises(SystemExit) as exited:
        main(["serve", str(layout.root)])
    assert exited.value.code == 2
    assert "is served over --http only" in capsys.readouterr().err


def test_serve_opens_episodes_across_a_suite_over_http(tmp_path: Path) -> None:
    layout = anyio.run(small_suite, tmp_path, ("ticket", "parcel"))
    log = tmp_path / "serve.log"
    with serving_http(layout.root, "--model-url", "stub:", log=log) as url:
        base = url.removesuffix("/mcp")
        made = httpx2.post(f"{base}/episodes", json={"world": "desk-parcel", "task": "cancel-p2"})
        unknown = httpx2.post(f"{base}/episodes", json={"world": "desk-nowhere"})
    assert made.status_code == 201 and made.json()["world"] == "desk-parcel"
    assert unknown.status_code == 404
    assert "serving a suite's worlds, each loaded on its first episode" in log.read_text()

"""Parsing the ``mcp-sim`` command line: every flag of every command refuses a bad value with
exit status 2 and one line naming the flag; flags that only make sense together are checked
the same way; and parsing imports none of the machinery the commands run."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import get_args

import pytest

from mcp_sim.cli.main import main
from mcp_sim.cli.parser import build_parser
from mcp_sim.cli.world_config import DOMAINS
from mcp_sim.settings import PromptSettings
from mcp_sim.spec.world import Domain
from tests.conftest import BOOKSTORE, ROOT
from tests.processes import run_cli

FOLDER = str(ROOT / "worlds")
"""A path that exists but is a folder: no file to read, and no file to write."""
MISSING = str(ROOT / "worlds" / "absent.yaml")

BAD_VALUES = {
    "--model-url": "ftp://x/v1",
    "--model-urls-file": MISSING,
    "--model": " ",
    "--api-key": "",
    "--vllm": "",
    "--vllm-arg": "",
    "--timeout": "0",
    "--retries": "-1",
    "--max-concurrency": "0",
    "--temperature": "3",
    "--top-p": "0",
    "--top-k": "-2",
    "--max-tokens": "-1",
    "--seed": "x",
    "--cache": FOLDER,
    "--history-budget": "0",
    "--keep-turns": "0",
    "--state-budget": "many",
    "--turn-budget": "0",
    "--action-budget": "0",
    "--context-window": "-5",
    "--reference-turns": "-1",
    "--history-keep-share": "1.5",
    "--output-string-limit": "0",
    "--output-items-limit": "x",
    "--config": MISSING,
    "--perturb": "",
    "--max-body-bytes": "10",
    "--episode-store": "postgres://db",
    "--episode-lease": "0",
    "--episode-store-timeout": "0",
    "--max-episodes": "0",
    "--max-world-episodes": "-1",
    "--max-snapshot-values": "x",
    "--max-websockets": "0",
    "--websocket-idle-timeout": "-1",
    "--max-message-bytes": "10",
    "--header-timeout": "0",
    "--body-timeout": "-1",
    "--max-header-bytes": "1",
    "--snapshot-dir": MISSING,
    "--episode": " ",
    "--task": "",
    "--perturb-seed": "1.5",
    "--http": "nohost:99999",
    "--address": "127.0.0.1:0",
    "--auth-token": "",
    "--allow-host": "",
    "--session-idle-timeout": "nan",
    "--journal": FOLDER,
    "--replay": MISSING,
    "--world-memory": FOLDER,
    "--args": "{query: glass",
    "--output": FOLDER,
    "--dataset": FOLDER,
    "--mcp-sim-source": MISSING,
    "--out": str(BOOKSTORE),
    "--openapi": MISSING,
    "--world": " ",
    "--url": "ftp://host/mcp",
    "--header": "no colon",
    "--env": "NO_EQUALS",
    "--world-out": FOLDER,
    "--json": FOLDER,
    "--html": FOLDER,
    "--predictions": FOLDER,
    "--session": "",
    "--max-calls": "0",
    "--judge-url": "localhost:8000",
    "--server-url": "127.0.0.1:8765",
    "--judge-model": "",
    "--judge-api-key": "",
    "--judge-max-tokens": "0",
    "--example": "no-such-world",
    "--inputs": MISSING,
    "--concurrency": "0",
    "--tries": "11",
}
"""One bad value per flag that takes a value; flags with choices get one outside them, and
flags that take no value get ``--flag=oops``."""


def _flags(
    parser: argparse.ArgumentParser, command: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.Action]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, subparser in action.choices.items():
                yield from _flags(subparser, (*command, name))
        elif action.option_strings:
            yield command, action


FLAGS = list(_flags(build_parser()))


def _bad(action: argparse.Action) -> list[str]:
    flag = max(action.option_strings, key=len)
    if action.nargs == 0:
        return [f"{flag}=oops"]
    if action.choices is not None:
        return [flag, "not-a-choice"]
    if flag not in BAD_VALUES:
        pytest.fail(f"{flag} has no bad value in BAD_VALUES: add one for the new flag")
    return [flag, BAD_VALUES[flag]]


@pytest.mark.parametrize(
    ("command", "action"),
    FLAGS,
    ids=[" ".join((*c, max(a.option_strings, key=len))) for c, a in FLAGS],
)
def test_every_flag_refuses_a_bad_value_in_one_line_with_status_2(
    capsys: pytest.CaptureFixture[str], command: tuple[str, ...], action: argparse.Action
) -> None:
    argv = [*command, *_bad(action)]
    with pytest.raises(SystemExit) as exited:
        main(argv)
    err = capsys.readouterr().err
    assert exited.value.code == 2, argv
    assert len(err.splitlines()) == 1, err
    assert any(flag in err for flag in action.option_strings), err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["--model-url", "ftp://x/v1"], "--model-url"),
        (["--timeout", "0"], "--timeout"),
        (["--max-tokens", "-1"], "--max-tokens"),
        (["--http", "nohost:99999"], "--http"),
    ],
)
def test_the_command_refuses_bad_values_before_it_starts_anything(
    argv: list[str], flag: str
) -> None:
    done = run_cli("serve", str(BOOKSTORE), *argv)
    assert done.returncode == 2
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"mcp-sim serve: error: argument {flag}: ")


def test_a_urls_file_with_a_bad_url_names_the_file_and_the_url(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    listed = tmp_path / "replicas.txt"
    listed.write_text("http://gpu1:8000/v1\n# spare\nftp://gpu2/v1\n", encoding="utf-8")
    with pytest.raises(SystemExit) as exited:
        main(["call", str(BOOKSTORE), "get_book", "--model-urls-file", str(listed)])
    (line,) = capsys.readouterr().err.splitlines()
    assert exited.value.code == 2
    assert "--model-urls-file" in line and "ftp://gpu2/v1" in line


@pytest.mark.parametrize(
    "argv",
    [
        ["import", "-o", "w.yaml"],
        ["import", "-o", "w.yaml", "--url", "http://h/mcp", "--", "server"],
        ["import", "-o", "w.yaml", "--openapi", str(BOOKSTORE), "--url", "http://h/mcp"],
        ["record", "--journal", "j.jsonl"],
    ],
)
def test_flags_that_exclude_each_other_are_a_usage_error(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    (line,) = capsys.readouterr().err.splitlines()
    assert exited.value.code == 2
    assert line.startswith(f"mcp-sim {argv[0]}: error: argument --")


def test_a_missing_argument_is_one_line_too(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["call", str(BOOKSTORE)])
    (line,) = capsys.readouterr().err.splitlines()
    assert exited.value.code == 2
    assert "tool" in line and "mcp-sim call --help" in line


def _modules_loaded_by(*argv: str) -> set[str]:
    script = (
        "import json, sys\n"
        "from mcp_sim.cli.main import main\n"
        "try:\n"
        f"    main({list(argv)!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(json.dumps(sorted(sys.modules)), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    return set(json.loads(done.stderr.splitlines()[-1]))


def test_version_imports_none_of_the_machinery() -> None:
    loaded = _modules_loaded_by("--version")
    heavy = {"pydantic", "httpx2", "mcp", "anyio", "mcp_sim.spec", "mcp_sim.simulator"}
    assert not heavy & loaded


def test_validate_imports_the_spec_and_not_the_simulator_or_server() -> None:
    loaded = _modules_loaded_by("validate", str(BOOKSTORE))
    assert "mcp_sim.spec.world" in loaded
    assert (
        not {"mcp", "httpx2", "mcp_sim.simulator", "mcp_sim.server", "mcp_sim.models.openai"}
        & loaded
    )


def test_the_listed_domains_are_the_spec_domains() -> None:
    assert get_args(Domain) == DOMAINS


def test_help_shows_the_simulator_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert f"(default {PromptSettings().history_budget:g};" in out
    assert f"(default {PromptSettings().keep_turns})" in out
    assert "3000 for the embedded model" in out


def test_serve_without_a_world_or_an_example_says_to_give_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["serve"])
    assert exited.value.code == 2
    assert "--example NAME" in capsys.readouterr().err


def test_examples_lists_every_world_of_the_checkout(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["examples"]) == 0
    names = [line.split()[0] for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert names[:-1] == sorted(p.stem for p in (ROOT / "worlds").glob("*.yaml"))

"""Settings come from flags, ``MCP_SIM_*`` variables and a TOML config file, in that order of
precedence, each declared once; a bad value is refused naming where it was given, and
``--print-config`` prints what a config file would hold."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from mcp_sim.api import Worlds
from mcp_sim.cli.main import main
from mcp_sim.cli.parser import build_parser
from mcp_sim.cli.settings_flags import read_settings
from mcp_sim.errors import SettingsError
from mcp_sim.settings import PromptSettings, Settings
from mcp_sim.settings.combined import GROUPS, SETTINGS
from mcp_sim.settings.declare import flag_of
from tests.conftest import BOOKSTORE

GOOD_TEXT = {
    "model_url": "http://gpu:8000/v1",
    "model_urls_file": "URLS_FILE",
    "perturb": "flaky",
    "journal": "FOLDER/j.jsonl",
    "cache": "FOLDER/c.sqlite",
    "world_memory": "FOLDER/m.sqlite",
    "replay": "URLS_FILE",
    "episode_store": "sqlite:///FOLDER/episodes.sqlite",
    "snapshot_dir": "FOLDER",
    "http": "127.0.0.1:8765",
    "temperature": "0.25",
    "top_p": "0.5",
    "history_keep_share": "0.25",
}
"""A valid value, as text, for each setting whose type alone does not give one."""


def sample_text(name: str, folder: Path) -> str:
    """A valid value of setting ``name`` as a flag or a variable would hold it."""
    urls = folder / "urls.txt"
    urls.write_text("http://gpu:8000/v1\n", encoding="utf-8")
    if name in GOOD_TEXT:
        return GOOD_TEXT[name].replace("URLS_FILE", str(urls)).replace("FOLDER", str(folder))
    setting = SETTINGS[name][1]
    kinds = set(getattr(setting.info.annotation, "__args__", ())) or {setting.info.annotation}
    if bool in kinds:
        return "false" if setting.default is True else "true"
    if int in kinds:
        return "2048"
    if float in kinds:
        return "7.5"
    return "some-text"


def settings_of(*argv: str, command: str = "serve") -> Settings:
    args = build_parser().parse_args([command, str(BOOKSTORE), *argv])
    return read_settings(args)


def test_every_setting_is_declared_once_with_a_flag_and_a_unique_name() -> None:
    fields = [name for group in GROUPS.values() for name in group.model_fields]
    assert len(fields) == len(set(fields)) == len(SETTINGS)
    for group in GROUPS.values():
        for name, info in group.model_fields.items():
            assert flag_of(info) is not None, f"{name} has no Flag: it cannot be set"


@pytest.mark.parametrize("name", sorted(SETTINGS))
def test_every_setting_reads_from_its_variable(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    setting = SETTINGS[name][1]
    text = sample_text(name, tmp_path)
    monkeypatch.setenv(setting.env, text)
    group = SETTINGS[name][0]
    value = getattr(getattr(settings_of(), group), name)
    assert value != setting.default, f"{setting.env}={text} did not change {name}"


def test_flags_beat_variables_which_beat_the_config_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "mcp-sim.toml"
    config.write_text(
        "history_budget = 1000\nkeep-turns = 3\n[prompt]\nstate_budget = 1500\n", encoding="utf-8"
    )
    monkeypatch.setenv("MCP_SIM_HISTORY_BUDGET", "2000")
    monkeypatch.setenv("MCP_SIM_STATE_BUDGET", "2500")
    prompt = settings_of("--config", str(config), "--state-budget", "3500").prompt
    assert (prompt.history_budget, prompt.keep_turns, prompt.state_budget) == (2000, 3, 3500)
    monkeypatch.setenv("MCP_SIM_CONFIG", str(config))
    assert settings_of().prompt.keep_turns == 3


@pytest.mark.parametrize(
    ("given", "where", "why"),
    [
        ({"MCP_SIM_HISTORY_BUDGET": "0"}, "MCP_SIM_HISTORY_BUDGET", "at least 1"),
        ({"MCP_SIM_MODEL_URL": "ftp://x/v1"}, "MCP_SIM_MODEL_URL", "http"),
        ({"MCP_SIM_JSON_RESPONSE": "maybe"}, "MCP_SIM_JSON_RESPONSE", "true or false"),
    ],
)
def test_a_bad_variable_is_a_usage_error_naming_it(
    given: dict[str, str],
    where: str,
    why: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for key, value in given.items():
        monkeypatch.setenv(key, value)
    with pytest.raises(SystemExit) as exited:
        main(["serve", str(BOOKSTORE)])
    (line,) = capsys.readouterr().err.splitlines()
    assert exited.value.code == 2
    assert where in line and why in line


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("histroy_budget = 10\n", "did you mean 'history_budget'"),
        ("history_budget = 0\n", "history_budget"),
        ("history_budget = [\n", "not a TOML file"),
        ("[a]\n[a.b]\nc = 1\n", "one level"),
    ],
)
def test_a_bad_config_file_names_the_file_and_the_key(
    text: str, found: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "bad.toml"
    config.write_text(text, encoding="utf-8")
    with pytest.raises(SystemExit) as exited:
        main(["call", str(BOOKSTORE), "get_book", "--config", str(config)])
    err = capsys.readouterr().err
    assert exited.value.code == 2
    assert str(config) in err and found in err


def test_a_config_file_may_hold_settings_a_command_does_not_take(tmp_path: Path) -> None:
    config = tmp_path / "shared.toml"
    config.write_text('http = "127.0.0.1:9000"\nhistory_budget = 1234\n', encoding="utf-8")
    args = build_parser().parse_args(["call", str(BOOKSTORE), "get_book", "--config", str(config)])
    settings = read_settings(args)
    assert settings.prompt.history_budget == 1234
    assert settings.server.http is None


def test_print_config_reads_back_as_the_same_settings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCP_SIM_API_KEY", "s3cret")
    argv = ["--model-url", "http://gpu:8000/v1", "--perturb", "flaky", "--http", "[::1]:8765"]
    with pytest.raises(SystemExit) as exited:
        main(["serve", str(BOOKSTORE), *argv, "--history-budget", "900", "--print-config"])
    printed = capsys.readouterr().out
    assert exited.value.code == 0
    assert "s3cret" not in printed and "MCP_SIM_API_KEY" in printed
    assert "history_budget = 900  # --history-budget" in printed
    config = tmp_path / "printed.toml"
    config.write_text(printed.replace('"********"', '"s3cret"'), encoding="utf-8")
    document: dict[str, Any] = tomllib.loads(config.read_text(encoding="utf-8"))
    assert document["server"]["http"] == "[::1]:8765"
    monkeypatch.delenv("MCP_SIM_API_KEY")
    read_back = settings_of("--config", str(config)).flat()
    given = settings_of(*argv, "--history-budget", "900", "--api-key", "s3cret").flat()
    assert read_back == given


def test_print_config_shows_the_embedded_models_defaults(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["call", str(BOOKSTORE), "get_book", "--print-config"])
    printed = capsys.readouterr().out
    assert "history_budget = 3000  # default for the embedded model" in printed
    assert "keep_turns = 8  # default" in printed


def test_settings_of_names_an_unknown_setting_and_a_bad_value() -> None:
    with pytest.raises(SettingsError, match="did you mean 'journal'"):
        Settings.of(jornal="calls.jsonl")
    with pytest.raises(SettingsError, match="keep_turns"):
        Settings.of(keep_turns=0)
    assert Settings.of(history_budget=10).prompt == PromptSettings(history_budget=10)


def test_the_embedded_defaults_apply_only_where_nothing_was_given() -> None:
    given = Settings.of(history_budget=16_000).for_model()
    assert given.prompt.history_budget == 16_000
    assert given.prompt.state_budget == 2000
    assert Settings.of(model_url=["http://gpu:8000/v1"]).for_model().prompt == PromptSettings()


def test_print_config_needs_no_world(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["serve", "--print-config", "--http", "127.0.0.1:8765"])
    assert exited.value.code == 0
    assert 'http = "127.0.0.1:8765"  # --http' in capsys.readouterr().out


def test_settings_updated_by_name_keep_the_embedded_defaults_of_what_stays_unset() -> None:
    updated = Settings.of(journal="calls.jsonl").updated(keep_turns=4)
    assert (updated.records.journal, updated.prompt.keep_turns) == (Path("calls.jsonl"), 4)
    assert updated.for_model().prompt.history_budget == 3000


async def test_worlds_open_given_settings_and_names_keeps_the_embedded_defaults(
    tmp_path: Path,
) -> None:
    settings = Settings.of(journal=tmp_path / "calls.jsonl")
    async with await Worlds.open(BOOKSTORE, settings=settings, keep_turns=4) as worlds:
        options = worlds.simulator().options
    assert (options.keep_turns, options.history_budget) == (4, 3000)

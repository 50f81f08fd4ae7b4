"""Settings gathered from Python as a command gathers them: given values over ``MCP_SIM_*``
over the config file, each with where it came from; and the names of a group's settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_sim.errors import SettingsError
from mcp_sim.settings.combined import GROUP_TITLES, GROUPS, group_names
from mcp_sim.settings.sources import CONFIG_ENV, gather

NAMES = ("history_budget", "keep_turns", "seed")


def test_given_values_win_over_the_environment_over_the_config_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "mcp-sim.toml"
    config.write_text("history_budget = 1000\nkeep_turns = 2\nseed = 3\n", encoding="utf-8")
    monkeypatch.setenv("MCP_SIM_KEEP_TURNS", "4")
    monkeypatch.setenv("MCP_SIM_SEED", "5")
    gathered = gather(NAMES, {"seed": (9, "--seed")}, config)
    settings = gathered.settings()
    assert (settings.prompt.history_budget, settings.prompt.keep_turns) == (1000, 4)
    assert settings.sampling.seed == 9
    assert gathered.sources == {
        "history_budget": f"{config}: history_budget",
        "keep_turns": "MCP_SIM_KEEP_TURNS",
        "seed": "--seed",
    }


def test_the_config_file_may_be_named_by_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "named.toml"
    config.write_text("[prompt]\nhistory_budget = 1500\n", encoding="utf-8")
    monkeypatch.setenv(CONFIG_ENV, str(config))
    assert gather(NAMES, {}).settings().prompt.history_budget == 1500
    config.write_text("history_budget = 'lots'\n", encoding="utf-8")
    with pytest.raises(SettingsError) as refused:
        gather(NAMES, {}).settings()
    assert refused.value.source == f"{config}: history_budget"


def test_every_group_has_a_title_and_its_settings_by_name() -> None:
    assert set(GROUP_TITLES) == set(GROUPS)
    assert "history_budget" in group_names("prompt")
    assert set(group_names("model", "sampling")) >= {"model_url", "seed"}

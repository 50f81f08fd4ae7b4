"""The configuration snippets in ``examples/`` that the README tells users to copy into each
host (Claude Desktop, Claude Code, Cursor, VS Code, Codex): each parses as its host reads it
(JSON or TOML, under the host's own key) and starts a command line mcp-sim accepts, serving the
bookstore."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from mcp_sim.cli.parser import build_parser
from mcp_sim.cli.serve_config import ServeConfig
from tests.conftest import BOOKSTORE, ROOT

EXAMPLES = ROOT / "examples"
HOSTS = {
    # file: (how the host reads it, the key its servers are under, the fields of an entry)
    "claude_desktop_config.json": ("json", "mcpServers", {"command", "args", "env"}),
    "claude_code_mcp.json": ("json", "mcpServers", {"type", "command", "args", "env"}),
    "cursor_mcp.json": ("json", "mcpServers", {"command", "args", "env"}),
    "vscode_mcp.json": ("json", "servers", {"type", "command", "args", "env"}),
    "codex_config.toml": (
        "toml",
        "mcp_servers",
        {"command", "args", "env", "startup_timeout_sec", "tool_timeout_sec"},
    ),
}


def servers(name: str) -> dict[str, dict[str, Any]]:
    kind, key, _ = HOSTS[name]
    text = (EXAMPLES / name).read_text(encoding="utf-8")
    loaded = json.loads(text) if kind == "json" else tomllib.loads(text)
    entries: dict[str, dict[str, Any]] = loaded[key]
    return entries


def test_every_host_the_readme_names_has_a_snippet() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name in HOSTS:
        assert f"examples/{name}" in readme, name
        assert (EXAMPLES / name).is_file(), name


@pytest.mark.parametrize("name", sorted(HOSTS))
def test_each_snippet_starts_mcp_sim_serving_the_bookstore(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, _, fields = HOSTS[name]
    entries = servers(name)
    assert "paperlane" in entries
    for server, entry in entries.items():
        assert set(entry) <= fields, (server, set(entry) - fields)
        if "type" in entry:
            assert entry["type"] == "stdio", server
        # Hosts start servers with a nearly empty PATH: the command must be absolute.
        assert entry["command"] == "/ABSOLUTE/PATH/.venv/bin/mcp-sim", server
        argv = [a.replace("/ABSOLUTE/PATH", str(ROOT)) for a in entry["args"]]
        for variable in entry.get("env", {}):
            monkeypatch.setenv(variable, "k3y")
        config = ServeConfig.from_args(build_parser().parse_args(argv))
        assert config.worlds == (BOOKSTORE,), server
        assert Path(config.worlds[0]).is_file()
        if "--model-url" in argv:
            assert config.settings.model.model_url == ["http://gpu-box:8000/v1"]

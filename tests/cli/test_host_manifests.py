"""What MCP hosts install mcp-sim from: ``server.json`` for the MCP registry and the Claude
Desktop bundle's ``mcpb/manifest.json``. Both must start a command mcp-sim accepts, name the
released version and read the API key where mcp-sim reads it; the bundle's manifest must pass
the MCPB CLI's own schema and ``mcpb validate`` (from npm, pinned in ``scripts/test``)."""

from __future__ import annotations

import json
import os
import re
import struct
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from mcp_sim import __version__
from mcp_sim.cli.desktop_bundle import serve_argv
from mcp_sim.cli.parser import build_parser
from mcp_sim.cli.serve_config import ServeConfig
from mcp_sim.spec.world_files import example_names, example_path
from tests.conftest import BOOKSTORE, ROOT
from tests.reference_servers import NODE22_BIN

SERVER_JSON = json.loads((ROOT / "server.json").read_text(encoding="utf-8"))
MANIFEST = json.loads((ROOT / "mcpb" / "manifest.json").read_text(encoding="utf-8"))
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
BUNDLE_PROJECT = tomllib.loads((ROOT / "mcpb" / "pyproject.toml").read_text(encoding="utf-8"))[
    "project"
]
MCPB_TOOLS = os.environ.get("MCP_SIM_NPM_MCPB", "")
MCPB = Path(MCPB_TOOLS) / "@anthropic-ai" / "mcpb"

uses_mcpb = pytest.mark.skipif(
    not MCPB_TOOLS,
    reason="MCP_SIM_NPM_MCPB is unset: run `bash scripts/test` to install the MCPB CLI",
)


def serve_config(
    argv: list[str], monkeypatch: pytest.MonkeyPatch, env: dict[str, str]
) -> ServeConfig:
    """The configuration ``mcp-sim ARGV`` serves with, in this environment."""
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    # Built after the environment is set: flags take their defaults from it.
    return ServeConfig.from_args(build_parser().parse_args(argv))


def registry_argv(package: dict[str, Any]) -> list[str]:
    argv: list[str] = []
    for argument in package["packageArguments"]:
        if argument["type"] == "named":
            argv += [argument["name"], argument["default"]]
        else:
            argv.append(argument["value"])
    return argv


def test_the_registry_entry_is_the_released_package() -> None:
    (package,) = SERVER_JSON["packages"]
    assert SERVER_JSON["version"] == package["version"] == PROJECT["version"] == __version__
    assert (package["registryType"], package["identifier"]) == ("pypi", PROJECT["name"])
    assert len(SERVER_JSON["description"]) <= 100
    # PyPI ownership: the registry looks for the server's name in the package's README.
    readme = (ROOT / PROJECT["readme"]).read_text(encoding="utf-8")
    assert f"mcp-name: {SERVER_JSON['name']}" in readme


def test_the_registry_entry_starts_a_server_mcp_sim_accepts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (package,) = SERVER_JSON["packages"]
    (example,) = (a for a in package["packageArguments"] if a.get("name") == "--example")
    assert example["choices"] == example_names()
    (key,) = package["environmentVariables"]
    config = serve_config(registry_argv(package), monkeypatch, {key["name"]: "k3y"})
    assert config.world.name == f"{example['default']}.yaml"
    assert config.settings.model.api_key == "k3y"


REGISTRY_SCHEMAS = ROOT / "schemas" / "registry"


def registry_schema(url: str) -> dict[str, Any]:
    """The copy kept in ``schemas/registry`` of the registry schema at ``url``."""
    match = re.fullmatch(
        r"https://static\.modelcontextprotocol\.io/schemas/(\d{4}-\d{2}-\d{2})/server\.schema\.json",
        url,
    )
    assert match, f"server.json declares a schema that is not the registry's: {url}"
    path = REGISTRY_SCHEMAS / f"server.schema.{match[1]}.json"
    assert path.is_file(), f"no copy of {url} in {REGISTRY_SCHEMAS}: add it (see its README)"
    schema: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    assert schema["$id"] == url
    return schema


def test_the_registry_entry_fits_the_registrys_current_schema() -> None:
    schema = registry_schema(SERVER_JSON["$schema"])
    checker = jsonschema.Draft7Validator.FORMAT_CHECKER
    jsonschema.Draft7Validator(schema, format_checker=checker).validate(SERVER_JSON)
    # The newest copy kept is the one declared: moving to a newer schema is not forgotten.
    newest = max(REGISTRY_SCHEMAS.glob("server.schema.*.json"))
    assert newest.name == f"server.schema.{SERVER_JSON['$schema'].split('/')[-2]}.json"


@pytest.mark.parametrize(
    "url",
    [
        "https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json",
        "https://static.modelcontextprotocol.io/schemas/2031-01-01/server.schema.json",
        "https://example.com/server.schema.json",
    ],
)
def test_a_schema_without_a_copy_is_refused(url: str) -> None:
    with pytest.raises(AssertionError):
        registry_schema(url)


def test_the_registry_schema_copy_refuses_what_the_registry_refuses() -> None:
    schema = registry_schema(SERVER_JSON["$schema"])
    validator = jsonschema.Draft7Validator(schema)
    long_description = {**SERVER_JSON, "description": "x" * 101}
    no_transport = {
        **SERVER_JSON,
        "packages": [{k: v for k, v in SERVER_JSON["packages"][0].items() if k != "transport"}],
    }
    latest = {**SERVER_JSON, "packages": [{**SERVER_JSON["packages"][0], "version": "latest"}]}
    for bad in (long_description, no_transport, latest, {**SERVER_JSON, "name": "no-slash"}):
        assert not validator.is_valid(bad)


def bundle_argv(settings: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    """The mcp-sim command line and environment Claude Desktop runs the bundle with, the
    user's ``settings`` filled into the manifest's environment."""

    def filled(text: str) -> str:
        return re.sub(r"\$\{user_config\.(\w+)\}", lambda m: settings[m[1]], text)

    mcp_config = MANIFEST["server"]["mcp_config"]
    env = {name: filled(value) for name, value in mcp_config["env"].items()}
    return serve_argv(env), env


def test_the_bundle_installs_the_released_package_with_desktops_uv() -> None:
    assert MANIFEST["version"] == BUNDLE_PROJECT["version"] == __version__
    assert BUNDLE_PROJECT["dependencies"] == [f"{PROJECT['name']}=={__version__}"]
    assert BUNDLE_PROJECT["requires-python"] == PROJECT["requires-python"]
    server = MANIFEST["server"]
    assert (server["type"], server["mcp_config"]["command"]) == ("uv", "uv")
    # Desktop's uv installs the bundle's environment when it installs the bundle: starting
    # it must not sync again (a cold sync outlasts the host's wait for ``initialize``).
    assert server["mcp_config"]["args"] == [
        "run",
        "--no-sync",
        "--directory",
        "${__dirname}",
        server["entry_point"],
    ]
    assert (ROOT / "mcpb" / server["entry_point"]).is_file()


def test_the_bundle_runs_the_chosen_example_with_the_users_settings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert MANIFEST["tools_generated"] is True
    settings = {
        "example": "shop",
        "world_file": "",
        "model_url": "http://gpu:8000/v1",
        "api_key": "k3y",
    }
    argv, env = bundle_argv(settings)
    config = serve_config(argv, monkeypatch, env)
    assert config.worlds == (example_path("shop"),)
    assert config.settings.model.model_url == ["http://gpu:8000/v1"]
    assert config.settings.model.api_key == "k3y"
    assert set(MANIFEST["user_config"]) == set(settings)


def test_a_world_file_chosen_in_the_bundle_wins_over_the_example(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    defaults = {name: str(s.get("default", "")) for name, s in MANIFEST["user_config"].items()}
    argv, env = bundle_argv({**defaults, "world_file": str(BOOKSTORE)})
    assert serve_config(argv, monkeypatch, env).worlds == (BOOKSTORE,)


def test_the_bundle_with_its_defaults_serves_the_bookstore_without_an_api_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    user_config = MANIFEST["user_config"]
    assert not any(s.get("required") for n, s in user_config.items() if n != "model_url")
    defaults = {name: str(s.get("default", "")) for name, s in user_config.items()}
    argv, env = bundle_argv(defaults)
    config = serve_config(argv, monkeypatch, env)
    assert config.worlds == (example_path("bookstore"),)
    assert config.settings.model.api_key is None
    # The setting's description names every example a user can type.
    described = user_config["example"]["description"]
    assert all(re.search(rf"\b{name}\b", described) for name in example_names())


def test_the_bundle_icon_is_a_square_png_desktop_shows() -> None:
    png = (ROOT / "mcpb" / MANIFEST["icon"]).read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png[12:16] == b"IHDR"
    width, height = struct.unpack(">II", png[16:24])
    # MCPB's validator recommends 512 by 512 for Claude Desktop.
    assert width == height == 512


@pytest.mark.peers
@uses_mcpb
def test_the_bundle_manifest_fits_the_mcpb_schema() -> None:
    version = MANIFEST["manifest_version"]
    schema = json.loads(
        (MCPB / "schemas" / f"mcpb-manifest-v{version}.schema.json").read_text(encoding="utf-8")
    )
    jsonschema.validate(MANIFEST, schema)
    node = Path(NODE22_BIN) / "node"
    done = subprocess.run(
        [str(node), str(MCPB / "dist" / "cli" / "cli.js"), "validate", "mcpb/manifest.json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr

"""Where settings come from, lowest precedence first: the defaults, a config file
(``--config FILE`` or ``MCP_SIM_CONFIG``), the environment (``MCP_SIM_NAME``), the command
line. Each source yields values by flat name and says where each came from, so that a bad
value is reported at its source and ``--print-config`` can show it."""

from __future__ import annotations

import os
import tomllib
from argparse import ArgumentTypeError
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import Any

from mcp_sim.errors import SettingsError
from mcp_sim.settings import values
from mcp_sim.settings.combined import SETTINGS, Settings, from_flat, unknown_setting
from mcp_sim.settings.declare import Declared

CONFIG_ENV = "MCP_SIM_CONFIG"


class Gathered:
    """Values by flat name with their sources, merged so that a later source wins."""

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}
        self.sources: dict[str, str] = {}

    def put(self, name: str, value: Any, source: str) -> None:
        self.values[name] = value
        self.sources[name] = source

    def settings(self) -> Settings:
        return from_flat(self.values, self.sources)


def reader(setting: Declared) -> Callable[[str], Any]:
    """How text given for ``setting`` becomes one value of it."""
    return setting.flag.parse or values.for_field(setting.info)


def parsed(setting: Declared, text: str, source: str) -> Any:
    """The value of ``text`` given for ``setting`` (a list's as a comma list)."""
    if not setting.repeated:
        return _read_one(setting, text, source)
    return [_read_one(setting, p.strip(), source) for p in text.split(",") if p.strip()]


def _read_one(setting: Declared, text: str, source: str) -> Any:
    try:
        return reader(setting)(text)
    except ArgumentTypeError as exc:
        raise SettingsError(source, str(exc)) from None


def from_environment(
    gathered: Gathered, names: Collection[str], environ: Mapping[str, str] | None = None
) -> None:
    """The ``MCP_SIM_*`` variables of the settings ``names``; an empty one counts as unset
    (a list's is a comma list)."""
    environ = os.environ if environ is None else environ
    for name in names:
        setting = SETTINGS[name][1]
        text = environ.get(setting.env, "")
        if text.strip():
            gathered.put(name, parsed(setting, text, setting.env), setting.env)


def config_path(given: Path | None, environ: Mapping[str, str] | None = None) -> Path | None:
    """The config file: the one given, else ``$MCP_SIM_CONFIG``, else none."""
    environ = os.environ if environ is None else environ
    if given is not None:
        return given
    named = environ.get(CONFIG_ENV, "").strip()
    return Path(named) if named else None


def from_config_file(gathered: Gathered, path: Path, names: Collection[str]) -> None:
    """A TOML file of settings by flat name (``history_budget = 3000`` or ``history-budget``),
    at the top or in one level of tables (``[prompt]``). Settings the command does not take
    are skipped, so one file serves every command; a name no setting has is an error."""
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SettingsError(str(path), f"cannot read the config file: {exc.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SettingsError(str(path), f"not a TOML file: {exc}") from None
    for key, value in _flattened(document, path):
        name = key.replace("-", "_")
        source = f"{path}: {key}"
        if name not in SETTINGS:
            raise SettingsError(source, unknown_setting(name))
        if name in names:
            gathered.put(name, _config_value(SETTINGS[name][1], value, source), source)


def gather(
    names: Collection[str], given: Mapping[str, tuple[Any, str]], config: Path | None = None
) -> Gathered:
    """The settings ``names`` as a command takes them: ``given`` (each value with where it was
    given, e.g. its flag) over the ``MCP_SIM_*`` variables over the config file (``config``,
    else ``$MCP_SIM_CONFIG``). A bad value raises :class:`~mcp_sim.errors.SettingsError`
    naming where it was given."""
    gathered = Gathered()
    path = config_path(config)
    if path is not None:
        from_config_file(gathered, path, names)
    from_environment(gathered, names)
    for name, (value, source) in given.items():
        gathered.put(name, value, source)
    return gathered


def _flattened(document: dict[str, Any], path: Path) -> list[tuple[str, Any]]:
    found: list[tuple[str, Any]] = []
    for key, value in document.items():
        if isinstance(value, dict):
            for inner, inner_value in value.items():
                if isinstance(inner_value, dict):
                    raise SettingsError(f"{path}: {key}.{inner}", "tables nest one level only")
                found.append((inner, inner_value))
        else:
            found.append((key, value))
    return found


def _config_value(setting: Declared, value: Any, source: str) -> Any:
    """A file's value: text is read as the flag's text would be; other TOML values are
    checked by the setting's type."""
    if setting.repeated and isinstance(value, list):
        return [_read_one(setting, v, source) if isinstance(v, str) else v for v in value]
    if isinstance(value, str) and setting.flag.parse is not None:
        return parsed(setting, value, source)
    return value

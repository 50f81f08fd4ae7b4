"""``--print-config``: the merged settings as a TOML config file that can be read back, each
value with where it came from, secrets masked."""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from mcp_sim.settings.combined import Settings, each_setting

MASK = "********"


def render(settings: Settings, sources: Mapping[str, str], names: Collection[str]) -> str:
    """The settings ``names`` of ``settings`` (as resolved for the model that answers), one
    table per concern; a value given nowhere says ``default``."""
    given = settings.for_model()
    lines: list[str] = []
    current = ""
    for group, setting in each_setting():
        if setting.name not in names:
            continue
        if group != current:
            lines += ["", f"[{group}]"] if lines else [f"[{group}]"]
            current = group
        value = getattr(getattr(given, group), setting.name)
        source = sources.get(setting.name) or _default_source(settings, group, setting.name)
        if value is None or value == []:
            lines.append(f"# {setting.name} =  (unset; {source})")
            continue
        if setting.flag.secret:
            value = MASK
        lines.append(f"{setting.name} = {_toml(value)}  # {source}")
    return "\n".join(lines) + "\n"


def _default_source(settings: Settings, group: str, name: str) -> str:
    embedded = settings.model.embedded and group == "prompt"
    if embedded and name not in settings.prompt.model_fields_set:
        return "default for the embedded model"
    return "default"


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, Path):
        return json.dumps(str(value))
    if isinstance(value, tuple):  # a HOST:PORT address, written as its flag takes it
        host, port = value
        return json.dumps(f"[{host}]:{port}" if ":" in host else f"{host}:{port}")
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(str(value), ensure_ascii=False)

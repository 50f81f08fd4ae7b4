"""The lines of a suite's input file (JSONL), each one environment to generate: a sentence
describing it, a real server's MCP tool list, or an OpenAPI document.

An imported input keeps its tools as the real server has them (mcp_sim.authoring's importers);
the model still drafts its state, canon and tasks. Each input has an id, its own or one derived
from its text, so a rerun finds what it already made whatever order the lines come in.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from mcp.types import Tool
from pydantic import ValidationError

from mcp_sim.authoring.mcp_import import tool_data, world_id
from mcp_sim.authoring.openapi_import import world_from_openapi
from mcp_sim.errors import ImportFailed, SimError
from mcp_sim.spec.world import Domain

InputKind = Literal["description", "tools", "openapi"]
_DOMAINS = ("mcp", "search", "terminal", "swe", "web", "os", "android")
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


class InputError(SimError):
    """A line of the input file that names no environment to generate."""


@dataclass(frozen=True)
class SuiteInput:
    """One environment to generate."""

    id: str
    kind: InputKind
    domain: Domain
    description: str
    """What the model is told the environment is."""
    imported: dict[str, Any] | None
    """The world data an importer made of a tool list or OpenAPI document (tools kept)."""
    line: str
    """The input line as given, for the stamp."""

    @property
    def line_hash(self) -> str:
        return hashlib.sha256(self.line.encode()).hexdigest()


def read_inputs(path: Path) -> list[SuiteInput]:
    """Every input of the file, in order; a bad line or two lines with one id is an error."""
    inputs: list[SuiteInput] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = parse_input(line.strip())
        except InputError as exc:
            raise InputError(f"{path}:{number}: {exc}") from None
        if item.id in seen:
            raise InputError(f"{path}:{number}: id {item.id!r} is also on line {seen[item.id]}")
        seen[item.id] = number
        inputs.append(item)
    return inputs


def parse_input(line: str) -> SuiteInput:
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InputError(f"not JSON ({exc.msg})") from None
    if not isinstance(data, dict):
        raise InputError("a line is a JSON object")
    given = data.get("id")
    item_id = given if isinstance(given, str) else _derived_id(data, line)
    if not _ID.match(item_id):
        raise InputError(f"id {item_id!r} is not a world id (letters, digits, . _ -)")
    kind, domain, description, imported = _contents(data)
    return SuiteInput(item_id, kind, domain, description, imported, line)


def _contents(data: dict[str, Any]) -> tuple[InputKind, Domain, str, dict[str, Any] | None]:
    if "tools" in data:
        imported = _tool_list_world(data)
        return "tools", "mcp", _imported_description(imported), imported
    document = data.get("openapi")
    if isinstance(document, str) and "paths" in data:
        document = data
    if isinstance(document, dict):
        try:
            imported = world_from_openapi(document)
        except ImportFailed as exc:
            raise InputError(str(exc)) from None
        return "openapi", "mcp", _imported_description(imported), imported
    description = data.get("description")
    if not isinstance(description, str) or not description.strip():
        raise InputError('give "description", "tools" (an MCP tool list) or "openapi"')
    domain = data.get("domain", "mcp")
    if domain not in _DOMAINS:
        raise InputError(f"domain {domain!r} is not one of {', '.join(_DOMAINS)}")
    return "description", domain, description.strip(), None


def _tool_list_world(data: dict[str, Any]) -> dict[str, Any]:
    raw = data["tools"]
    if not isinstance(raw, list) or not raw:
        raise InputError('"tools" is a non-empty list of MCP tools (as tools/list gives them)')
    try:
        tools = [tool_data(Tool.model_validate(t)) for t in raw]
    except ValidationError as exc:
        raise InputError(f"a tool is not an MCP tool: {exc.errors()[0]['msg']}") from None
    name = str(data.get("name") or "imported server")
    return {
        "world": world_id(name.lower()),
        "title": name,
        "domain": "mcp",
        "description": str(data.get("description") or "").strip(),
        "tools": tools,
    }


def _imported_description(imported: dict[str, Any]) -> str:
    names = ", ".join(t["name"] for t in imported["tools"])
    text = imported.get("description") or ""
    return f"{imported['title']}: an API with the tools {names}. {text}".strip()


def _derived_id(data: dict[str, Any], line: str) -> str:
    digest = hashlib.sha256(line.encode()).hexdigest()[:10]
    return f"env-{digest}"

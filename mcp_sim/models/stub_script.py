"""The scripted answers of the stand-in model (``--model-url stub:FILE``, see
:mod:`mcp_sim.models.stub`): read while the settings are, so a bad script fails the command
before it starts, without the stand-in's own imports."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp_sim.errors import SettingsError, SpecError
from mcp_sim.spec.yaml_reading import ReadingLimits, read_yaml


@dataclass(frozen=True)
class ScriptedAnswer:
    """One answer of a script: for calls of ``tool`` whose arguments include ``arguments``."""

    tool: str
    arguments: Mapping[str, Any]
    answer: Any
    """Text, or a JSON value (a structured tool's answer, or shown as JSON text)."""
    patch: list[Any]
    """The call's state change (a JSON Patch); none by default."""

    def matches(self, tool: str, arguments: Mapping[str, Any]) -> bool:
        return tool == self.tool and all(
            name in arguments and arguments[name] == value for name, value in self.arguments.items()
        )


class StubScript:
    """Scripted answers from a YAML or JSON file: a list of ``{tool, arguments?, answer,
    patch?}``. A call takes the first entry with its tool whose ``arguments`` (all of those
    given) equal the call's; a call no entry matches is answered from the schema."""

    def __init__(self, answers: list[ScriptedAnswer]) -> None:
        self.answers = answers

    @classmethod
    def load(cls, path: Path) -> StubScript:
        """The script in ``path``; raises :class:`~mcp_sim.errors.SettingsError` naming what
        is wrong with it."""
        try:
            text = path.read_text(encoding="utf-8")
            _, data, _ = read_yaml(text, str(path), ReadingLimits())
        except (OSError, UnicodeDecodeError, SpecError) as exc:
            raise SettingsError(
                "--model-url", f"cannot read the stub script {path}: {exc}"
            ) from None
        if not isinstance(data, list):
            raise SettingsError("--model-url", f"{path}: a stub script is a list of answers")
        return cls([_entry(path, index, item) for index, item in enumerate(data, 1)])

    def find(self, tool: str, arguments: Mapping[str, Any]) -> ScriptedAnswer | None:
        return next((a for a in self.answers if a.matches(tool, arguments)), None)


def _entry(path: Path, index: int, item: Any) -> ScriptedAnswer:
    where = f"{path}: answer {index}"
    if not isinstance(item, dict) or not isinstance(item.get("tool"), str) or "answer" not in item:
        raise SettingsError("--model-url", f"{where} needs a tool (text) and an answer")
    unknown = sorted(set(item) - {"tool", "arguments", "answer", "patch"})
    if unknown:
        raise SettingsError("--model-url", f"{where} has unknown keys: {', '.join(unknown)}")
    arguments, patch = item.get("arguments") or {}, item.get("patch") or []
    if not isinstance(arguments, dict) or not isinstance(patch, list):
        raise SettingsError("--model-url", f"{where}: arguments is a mapping, patch a list")
    return ScriptedAnswer(item["tool"], arguments, item["answer"], patch)

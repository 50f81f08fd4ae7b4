"""The world files a workbench was started with, each loaded or with its problems: a broken
file does not stop the workbench, it is shown with its lines so the designer can fix it and
check again."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp_sim.errors import SpecError, SpecProblem
from mcp_sim.spec.loading import load_world
from mcp_sim.spec.world import World


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


@dataclass(frozen=True)
class WorldFile:
    """One file: its world when it loads, else what is wrong with it."""

    path: Path
    world: World | None
    problems: list[SpecProblem] = field(default_factory=list)
    digest: str | None = None
    """The bytes' hash when they were read, to tell a file that changed since."""

    @classmethod
    def read(cls, path: Path) -> WorldFile:
        digest = _digest(path)
        try:
            return cls(path, load_world(path), [], digest)
        except SpecError as exc:
            return cls(path, None, list(exc.problems), digest)

    def as_dict(self) -> dict[str, Any]:
        return {
            "file": str(self.path),
            "world": self.world.world if self.world is not None else None,
            "problems": [
                {
                    "line": p.line,
                    "column": p.column,
                    "path": p.path,
                    "message": p.message,
                    "text": str(p),
                }
                for p in self.problems
            ],
        }


class WorldFiles:
    """The files given, in order; a second file of a world id already served is a problem of
    that file."""

    def __init__(self, paths: Sequence[Path]) -> None:
        self.paths = list(paths)
        self.files = self._read()

    def _read(self) -> list[WorldFile]:
        read: list[WorldFile] = []
        seen: dict[str, Path] = {}
        for path in self.paths:
            found = WorldFile.read(path)
            if found.world is not None and found.world.world in seen:
                first = seen[found.world.world]
                clash = SpecProblem(
                    str(path), 1, 1, "world", f"{first} is world {found.world.world!r} too"
                )
                found = WorldFile(path, None, [clash], found.digest)
            elif found.world is not None:
                seen[found.world.world] = path
            read.append(found)
        return read

    @property
    def worlds(self) -> list[World]:
        return [f.world for f in self.files if f.world is not None]

    def check_again(self) -> list[dict[str, Any]]:
        """Each file read again as it is now: its problems, and whether it changed since the
        workbench started (a changed file that loads is served once the page reloads the
        worlds)."""
        now = []
        for served, current in zip(self.files, self._read(), strict=True):
            now.append({**current.as_dict(), "changed": current.digest != served.digest})
        return now

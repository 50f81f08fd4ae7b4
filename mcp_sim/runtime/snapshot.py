"""A session copied out as plain JSON: everything needed to continue it elsewhere (the
``Session.snapshot`` / ``Session.restore`` document of fork, the episode API and snapshot
files)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mcp_sim.errors import SnapshotInvalid


class SnapshotTurn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tool: str
    arguments: dict[str, Any]
    observation: str
    is_error: bool
    version: int = 0
    head: str | None = None
    anchor: bool = False
    change: list[dict[str, Any]] | None = None


class Snapshot(BaseModel):
    """A session copied out as plain JSON: everything needed to continue it elsewhere."""

    model_config = ConfigDict(extra="forbid")

    format: Literal["mcp-sim/snapshot@1"] = "mcp-sim/snapshot@1"
    world: str
    world_hash: str
    session: str
    """The id of the session the snapshot was taken from."""
    version: int
    steps: int
    state: dict[str, Any]
    history: list[SnapshotTurn]
    """The turns the session kept: from turn number ``history_offset`` on."""
    history_start: int = Field(default=0, ge=0)
    history_resume: int = Field(default=0, ge=0)
    history_offset: int = Field(default=0, ge=0)
    seed: int
    rng: list[Any] = Field(description="random.Random.getstate(), as JSON")
    next_ids: dict[str, int] = Field(default_factory=dict)
    deleted: dict[str, list[str]] = Field(default_factory=dict)
    consistency: dict[str, int] = Field(default_factory=dict)

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.model_dump_json() + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> Snapshot:
        try:
            return cls.parse(Path(path).read_text(encoding="utf-8"))
        except OSError as exc:
            raise SnapshotInvalid(f"cannot read snapshot {path}: {exc.strerror}") from None

    @classmethod
    def parse(cls, data: str | bytes | dict[str, Any]) -> Snapshot:
        """A snapshot from JSON text or data. Raises :class:`SnapshotInvalid`."""
        try:
            if isinstance(data, dict):
                return cls.model_validate(data)
            return cls.model_validate(json.loads(data))
        except ValidationError as exc:
            # Said without the values: a snapshot may hold anything, and an error message
            # travels to whoever asked (it must never echo a file's content).
            first = exc.errors(include_input=False, include_url=False)[0]
            where = ".".join(str(part) for part in first["loc"]) or "the document"
            more = f" (and {exc.error_count() - 1} more problems)" if exc.error_count() > 1 else ""
            raise SnapshotInvalid(
                f"not an mcp-sim snapshot: {where}: {first['msg']}{more}"
            ) from None
        except json.JSONDecodeError as exc:
            raise SnapshotInvalid(
                f"not an mcp-sim snapshot: not JSON ({exc.msg} at line {exc.lineno})"
            ) from None
        except (ValueError, RecursionError):
            raise SnapshotInvalid("not an mcp-sim snapshot: not JSON text") from None

"""The folder of a suite: where each environment, failure, duplicate and quarantined item
lives, written so that a run killed at any point leaves only whole items behind.

::

    SUITE/worlds/ID/world.yaml       the world, its tasks in its verify section
    SUITE/worlds/ID/reference.json   each task's reference solution
    SUITE/worlds/ID/stamp.json       input, generator model, seed, hashes, tries
    SUITE/failed/ID.json             an item no valid draft came for (retried by a rerun)
    SUITE/duplicates/ID.json         an item dropped as a near-duplicate of another
    SUITE/quarantine/ID/             an item a gate failed, with reasons.json
    SUITE/manifest.json              worlds, tasks, split, hashes, provenance
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import TypeAdapter

from mcp_sim.spec.loading import load_world
from mcp_sim.spec.world import World
from mcp_sim.suites.reference import ReferenceStep, Solution

WORLD_FILE, REFERENCE_FILE, STAMP_FILE, REASONS_FILE = (
    "world.yaml",
    "reference.json",
    "stamp.json",
    "reasons.json",
)
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_SOLUTIONS = TypeAdapter(dict[str, list[ReferenceStep]])


def write_json(path: Path, data: Any) -> None:
    """``data`` at ``path``, replaced in one rename so a reader never sees half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(partial, path)


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


@dataclass(frozen=True)
class SuiteItem:
    """One environment's folder."""

    folder: Path

    @property
    def id(self) -> str:
        return self.folder.name

    def world(self) -> World:
        return load_world(self.folder / WORLD_FILE)

    def data(self) -> dict[str, Any]:
        """The world file as plain data, unchecked: what a pass over thousands of items reads
        (a full load checks every tool schema against the JSON Schema meta-schema)."""
        data = yaml.load((self.folder / WORLD_FILE).read_text(encoding="utf-8"), Loader=_Loader)
        if not isinstance(data, dict):
            raise ValueError(f"{self.folder / WORLD_FILE} is not a world file")
        return data

    def solutions(self) -> dict[str, Solution]:
        return _SOLUTIONS.validate_python(read_json(self.folder / REFERENCE_FILE))

    def stamp(self) -> dict[str, Any]:
        stamp: dict[str, Any] = read_json(self.folder / STAMP_FILE)
        return stamp


@dataclass(frozen=True)
class SuiteLayout:
    root: Path

    @property
    def worlds(self) -> Path:
        return self.root / "worlds"

    @property
    def manifest(self) -> Path:
        return self.root / "manifest.json"

    def failed(self, item_id: str) -> Path:
        return self.root / "failed" / f"{item_id}.json"

    def duplicate(self, item_id: str) -> Path:
        return self.root / "duplicates" / f"{item_id}.json"

    def quarantined(self, item_id: str) -> Path:
        return self.root / "quarantine" / item_id

    def item(self, item_id: str) -> SuiteItem:
        return SuiteItem(self.worlds / item_id)

    def items(self) -> list[SuiteItem]:
        """The suite's environments (not failed, duplicate or quarantined), by id."""
        if not self.worlds.is_dir():
            return []
        return [
            SuiteItem(p)
            for p in sorted(self.worlds.iterdir())
            if p.is_dir() and not p.name.startswith(".")
        ]

    def finished(self, item_id: str) -> bool:
        """Whether a run already settled the item (made, dropped or quarantined)."""
        return (
            (self.worlds / item_id / STAMP_FILE).is_file()
            or self.duplicate(item_id).is_file()
            or self.quarantined(item_id).is_dir()
        )

    def write_item(
        self, item_id: str, text: str, solutions: dict[str, Solution], stamp: dict[str, Any]
    ) -> SuiteItem:
        """The item's folder, written whole under a temporary name and renamed into place."""
        partial = self.worlds / f".{item_id}.partial"
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        (partial / WORLD_FILE).write_text(text, encoding="utf-8")
        dumped = {
            name: [s.model_dump(mode="json") for s in steps] for name, steps in solutions.items()
        }
        write_json(partial / REFERENCE_FILE, dumped)
        write_json(partial / STAMP_FILE, stamp)
        os.replace(partial, self.worlds / item_id)
        self.failed(item_id).unlink(missing_ok=True)
        return self.item(item_id)

    def quarantine(self, item: SuiteItem, reasons: list[str]) -> None:
        target = self.quarantined(item.id)
        shutil.rmtree(target, ignore_errors=True)
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(item.folder, target)
        write_json(target / REASONS_FILE, {"id": item.id, "reasons": reasons})

    def drop_duplicate(self, item: SuiteItem, of: str, similarity: float) -> None:
        record = {"id": item.id, "duplicate_of": of, "similarity": similarity}
        write_json(self.duplicate(item.id), {**record, "stamp": item.stamp()})
        shutil.rmtree(item.folder)

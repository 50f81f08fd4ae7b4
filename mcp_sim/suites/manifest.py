"""A suite's manifest: its worlds and tasks, the train/test split (by world, so no test world
was seen in training), each world file's hashes and its provenance stamp. It is rewritten from
the folder after every generate and check, so it always lists what the folder holds.
"""

from __future__ import annotations

import hashlib
from typing import Any

from mcp_sim.suites.layout import WORLD_FILE, SuiteItem, SuiteLayout, read_json, write_json

MANIFEST_FORMAT = "mcp-sim-suite/1"
TEST_SHARE = 0.1
"""The share of worlds held out for test."""


def split_of(world_id: str, test_share: float = TEST_SHARE) -> str:
    """``test`` or ``train``, from a hash of the world's id: stable as the suite grows."""
    bucket = int(hashlib.sha256(world_id.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    return "test" if bucket < test_share else "train"


def manifest_entry(item: SuiteItem) -> dict[str, Any]:
    """The item's line in the manifest, from its stamp and its file read as plain data (the
    gates, not the manifest, are what check it)."""
    data, stamp = item.data(), item.stamp()
    text = (item.folder / WORLD_FILE).read_bytes()
    verify = data.get("verify") or {}
    return {
        "id": item.id,
        "domain": data.get("domain", "mcp"),
        "split": split_of(item.id),
        "file": f"worlds/{item.id}/{WORLD_FILE}",
        "file_sha256": hashlib.sha256(text).hexdigest(),
        "world_hash": stamp.get("world_hash"),
        "tasks": [
            {"id": name, "instruction": task.get("description", "")}
            for name, task in verify.items()
        ],
        "provenance": stamp,
    }


def write_manifest(layout: SuiteLayout) -> dict[str, Any]:
    worlds = [manifest_entry(item) for item in layout.items()]
    manifest = {
        "format": MANIFEST_FORMAT,
        "worlds": worlds,
        "counts": {
            "worlds": len(worlds),
            "tasks": sum(len(w["tasks"]) for w in worlds),
            "train_worlds": sum(w["split"] == "train" for w in worlds),
            "test_worlds": sum(w["split"] == "test" for w in worlds),
        },
    }
    write_json(layout.manifest, manifest)
    return manifest


def read_manifest(layout: SuiteLayout) -> dict[str, Any]:
    manifest: dict[str, Any] = read_json(layout.manifest)
    return manifest

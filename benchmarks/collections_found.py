"""How the zoo's states are read as collections: per shape, how many collections the world index
finds, how many records they hold, and the share of those records in the largest one and the
largest three.

    python benchmarks/collections_found.py [--shapes a,b] [--size-mb 2] [--seed 7] [--json FILE]

A state read as hundreds of tiny collections is almost always misread (a keyed map of records
whose nested lists were taken for collections, partitions of one collection read apart); the
share in the largest ones shows it at a glance, and a change to collection finding shows here
before any call is run. ``find ms`` is the collection finding alone, ``index ms`` the whole
world index (both once per world).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # benchmarks.zoo, when this runs as a script

from benchmarks.zoo import generate  # noqa: E402
from benchmarks.zoo.measuring import chosen_shapes  # noqa: E402
from mcp_sim.runtime.state_collections import find_collections  # noqa: E402
from mcp_sim.runtime.state_index import StateIndex  # noqa: E402
from mcp_sim.spec.world import World  # noqa: E402


def shape_row(shape: str, size_mb: float, seed: int) -> dict[str, Any]:
    """The collections found in ``shape``'s generated state, and what they hold."""
    spec, _ = generate(shape, size_mb, seed, 1)
    world = World.model_validate(spec)
    started = time.perf_counter()
    index = StateIndex(world, world.state)
    index_ms = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    find_collections(world, index.state)
    find_ms = (time.perf_counter() - started) * 1000
    sizes = sorted(index.sizes.values(), reverse=True)
    records = sum(sizes)
    return {
        "collections": len(sizes),
        "records": records,
        "top1": round(sizes[0] / records, 3) if records else 0.0,
        "top3": round(sum(sizes[:3]) / records, 3) if records else 0.0,
        "find_ms": round(find_ms, 1),
        "index_ms": round(index_ms, 1),
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default=None)
    parser.add_argument("--size-mb", type=float, default=2.0)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    rows = {}
    print("shape\tcollections\trecords\ttop1\ttop3\tfind_ms\tindex_ms")
    for shape in chosen_shapes(args.shapes, include_held_out=False):
        row = rows[shape] = shape_row(shape, args.size_mb, args.seed)
        print("\t".join([shape, *(str(v) for v in row.values())]), flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

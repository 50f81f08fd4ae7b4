"""A zoo of world shapes for the grounding benchmark: worlds of several MB whose calls are
answered, and whose state patches are made, by code (dev tooling, not part of mcp_sim).

    from benchmarks.zoo import generate
    world_spec, calls = generate("library", size_mb=4, seed=7, episodes=30)

``calls`` are JSON objects as ``benchmarks/grounding.py`` reads them (``episode``, ``step``,
``kind``, ``tool``, ``arguments``, ``response``, ``is_error``, ``patch``). The shapes in
:data:`HELD_OUT` are not for development: nobody tunes on them; they are run at the end only.
"""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.airline import Airline
from benchmarks.zoo.clinic import Clinic
from benchmarks.zoo.filesystem import Filesystem
from benchmarks.zoo.fleet import Fleet
from benchmarks.zoo.helpdesk import Helpdesk
from benchmarks.zoo.inventory import Inventory
from benchmarks.zoo.kit import KINDS
from benchmarks.zoo.ledger import Ledger
from benchmarks.zoo.library import Library
from benchmarks.zoo.orgchart import OrgChart
from benchmarks.zoo.parcels import Parcels
from benchmarks.zoo.shape import Shape, record
from benchmarks.zoo.shop import Shop
from benchmarks.zoo.university import University

SHAPES: dict[str, type[Shape]] = {
    shape.name: shape
    for shape in (
        Library,
        Fleet,
        Airline,
        Inventory,
        Shop,
        OrgChart,
        Helpdesk,
        University,
        Filesystem,
        Ledger,
        Clinic,
        Parcels,
    )
}
"""Records in arrays (library); objects keyed by id with the id a field (fleet) and without it,
with per-date calendars (airline); compound keys (inventory); records referenced from nested
lists (shop); a tree (orgchart); free text (helpdesk); many-to-many links (university); a tree keyed by name (filesystem); double-entry bookkeeping
(ledger); and, held out, columnar tables whose rows are lists of values (clinic) and an event
log of scans with nested addresses (parcels). Filesystem and ledger were held out in the round
that measured them first; after it they became development shapes, and clinic and parcels were
written, by someone not tuning the retrieval, to be held out in their place."""
HELD_OUT: frozenset[str] = frozenset({"clinic", "parcels"})
"""Shapes kept out of development (run only at the end, with ``--include-held-out``)."""

__all__ = ["HELD_OUT", "KINDS", "SHAPES", "generate"]


def generate(
    shape: str, size_mb: float, seed: int = 7, episodes: int = 30
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The world spec (state of about ``size_mb`` MB as JSON) and its recorded calls."""
    maker = SHAPES[shape]()
    state = maker.build(random.Random(f"{shape}/{seed}"), int(size_mb * 1_000_000))
    return maker.spec(state), record(maker, state, seed, episodes)

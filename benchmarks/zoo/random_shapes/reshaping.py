"""Structures of how records sit and are written that a random shape draws apart from its
layout, encoding and mixed-type arrays, from a generator of its own (so a seed that draws none
is laid out as before): list envelopes around collections, as real APIs answer lists
(:mod:`.envelopes`; all at the state's root in half of those seeds); the records the tools
search kept in arrays inside a few large parent records, answered with the parent's id (or
id and name) (:mod:`.parents`); records whose fields are written as a property list, whole
or in part, sub-objects nested as lists too in some; and ids held deep inside the record (in
a list of identifiers, a metadata object, a nested list of cross-references, or the property
list) (:mod:`.property_lists`). A seed that draws none of these may draw, from a generator
of its own (so that the seeds drawing something here are laid out as before), its links split
into many partitions by month or shard (:mod:`.partitions`). The tools still answer the plain
records."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from benchmarks.zoo.random_shapes.encodings import logged_role
from benchmarks.zoo.random_shapes.envelopes import STYLES
from benchmarks.zoo.random_shapes.layout import Store
from benchmarks.zoo.random_shapes.markup_bodies import draw_markup, markup_form
from benchmarks.zoo.random_shapes.parents import KINDS, draw_parents
from benchmarks.zoo.random_shapes.partitions import STYLES as PARTITION_STYLES
from benchmarks.zoo.random_shapes.partitions import Partitions
from benchmarks.zoo.random_shapes.property_lists import DEEP_IDS, LIST_KEYS, LISTINGS, RecordForm
from benchmarks.zoo.random_shapes.record_holding import holding
from benchmarks.zoo.random_shapes.structures import Structure

if TYPE_CHECKING:
    from benchmarks.zoo.random_shapes.design import Design

ROLES = ("primary", "secondary", "link")
KINDS_DRAWN = ("envelope", "parents", "listing", "deep")
SHARE = 0.6
"""The share of seeds that draw at least one structure here (fewer draw one: some can draw
none of them). Whether a seed does, and which it draws first, follow a low-discrepancy
(R2) sequence of the seed rather than its generator, so that any run of twenty seeds has
about this share, each structure first in about a quarter of them."""
ALSO = 0.2
PARTITIONED = 1.0
"""The share of the seeds that draw none of the structures above that split their links into
partitions, where the links are plain records of their own collection (all of them: about one
seed in eight)."""
_R2 = (0.7548776662466927, 0.5698402909980532)
"""How often a seed that draws one structure draws each other it can."""


@dataclass(frozen=True)
class Reshaping:
    envelope: str | None = None
    """The list envelopes' style (none: collections are not so wrapped)."""
    at_root: bool = False
    """Whether the envelopes sit at the state's root, not under the layout's wrappers."""
    parent: tuple[str, str] | None = None
    """The kind (singular, plural) of the parents primary records are kept in."""
    listing: str | None = None
    """How records of :attr:`roles` list their fields (:mod:`.property_lists`)."""
    kept: float = 0.0
    """The share of a record's fields kept beside the list (0: the whole record listed)."""
    nested: bool = False
    """Whether sub-objects are nested property lists."""
    deep: str | None = None
    """Where records of :attr:`roles` hold their id, if deep."""
    roles: tuple[str, ...] = ()
    """The collections whose records are listed or hold their ids deep."""
    partitions: str | None = None
    """How the links are split into partitions (:mod:`.partitions`), if they are."""
    markup: str | None = None
    """The markup style the primary records' scalar fields are written in as rows of a body
    (:mod:`.markup_bodies`), if they are."""

    @property
    def names(self) -> str:
        """What the seed draws, in words (``envelopes odata at root``, ``deep id xrefs``)."""
        drawn = [
            f"envelopes {self.envelope}{' at root' if self.at_root else ''}"
            if self.envelope
            else "",
            f"parents {self.parent[1]}" if self.parent else "",
            f"property list {self.listing}{' part' if self.kept else ''}"
            f"{' nested' if self.nested else ''}"
            if self.listing
            else "",
            f"deep id {self.deep}" if self.deep else "",
            f"partitions {self.partitions}" if self.partitions else "",
            f"markup body {self.markup}" if self.markup else "",
        ]
        return ", ".join(d for d in drawn if d) or "none"


def draw_reshaping(seed: int, encoding: str, structure: Structure) -> Reshaping:
    """The structures seed ``seed`` draws (records encoded ``encoding``, kept in mixed arrays
    as ``structure`` says), and the markup bodies it draws from a generator of their own."""
    markup = draw_markup(seed) if holding(seed) == "markup" else None
    return replace(_structures(seed, encoding, structure), markup=markup)


def _structures(seed: int, encoding: str, structure: Structure) -> Reshaping:
    rng = random.Random(f"reshaping/{seed}")
    envelope, at_root, parent = rng.choice(STYLES), rng.random() < 0.5, rng.randrange(64)
    listing, kept, nested = rng.choice(LISTINGS), rng.choice((0, 0, 0.3, 0.5)), rng.random() < 0.5
    deep, listed, many = rng.choice(DEEP_IDS), rng.random() < 0.5, rng.random() < 0.4
    also = {k: rng.random() < ALSO for k in KINDS_DRAWN}
    apart = {r for r in ROLES if r not in structure.roles}
    if encoding == "events":
        apart.discard(logged_role(seed))
    formable = [r for r in ROLES if r in apart and encoding in ("plain", "events")]
    roles = tuple(formable[: 2 if many else 1])
    possible = {
        "envelope": bool(apart) and encoding != "elasticsearch",
        "parents": "primary" in apart and encoding != "elasticsearch",
        "listing": bool(roles),
        "deep": bool(roles),
    }
    can = [k for k in KINDS_DRAWN if possible[k]]
    whether, which = ((0.5 + seed * a) % 1 for a in _R2)
    if whether >= SHARE or not can:
        return _partitioned(seed, encoding, apart)
    first = KINDS_DRAWN[int(which * len(KINDS_DRAWN))]
    first = first if first in can else can[KINDS_DRAWN.index(first) % len(can)]
    on = {k: k in can and (k == first or also[k]) for k in KINDS_DRAWN}
    return Reshaping(
        envelope=envelope if on["envelope"] else None,
        at_root=at_root,
        parent=KINDS[parent % len(KINDS)] if on["parents"] else None,
        listing=listing if on["listing"] else None,
        kept=kept,
        nested=nested and on["listing"],
        deep=("listed" if listed else None) if on["listing"] else (deep if on["deep"] else None),
        roles=roles if on["listing"] or on["deep"] else (),
    )


def _partitioned(seed: int, encoding: str, apart: set[str]) -> Reshaping:
    """The partitions a seed that draws nothing else draws, if any (a generator of its own)."""
    rng = random.Random(f"reshaping/{seed}/partitions")
    style, drawn = rng.choice(PARTITION_STYLES), rng.random() < PARTITIONED
    if drawn and encoding == "plain" and "link" in apart:
        return Reshaping(partitions=style)
    return Reshaping()


def reshape(design: Design, columns: Callable[[Design, str], tuple[str, ...]]) -> None:
    """Keep the design's collections as its reshaping says (``columns``: a role's records'
    top-level keys, in order, less the id)."""
    drawn = design.reshaping
    for role, store in design.stores.items():
        if role in drawn.roles and (drawn.listing or drawn.deep):
            store = store.encoded(_form(design, role, columns(design, role)), logged=False)
        if drawn.markup is not None and role == "primary" and _plain(store):
            store = store.encoded(markup_form(drawn.markup, columns(design, role)), logged=False)
        if drawn.parent is not None and role == "primary":
            kind = _free_kind(design, drawn.parent)
            rng = random.Random(f"reshaping/{design.seed}/parents")
            records = design.spell(design.domain.primary.plural)
            parents, name = draw_parents(rng, design.spell, kind, records)
            at = (*store.at[:-1], name)
            store = replace(store, at=at, container="parented", parents=parents)
        if drawn.partitions is not None and role == "link":
            store = replace(store, container="parented", parents=Partitions(drawn.partitions))
        if drawn.envelope is not None and store.mixed is None and store.container != "events":
            store = _enveloped(store, drawn.envelope, drawn.at_root)
        design.stores[role] = store


def _plain(store: Store) -> bool:
    """Whether ``store`` keeps plain records in an array or an object of their own."""
    free = store.container in ("array", "keyed", "keyed_bare")
    return free and store.codec.name == "plain" and store.mixed is None


def _enveloped(store: Store, style: str, at_root: bool) -> Store:
    """``store`` with its records (or parents) an array in a list envelope of ``style``."""
    container = "parented" if store.container == "parented" else "array"
    at = store.at[-1:] if at_root else store.at
    return replace(store, at=at, container=container, envelope=style, key_prefix="")


def _free_kind(design: Design, kind: tuple[str, str]) -> tuple[str, str]:
    """``kind``, or the next parent kind no collection of the design is named by."""
    taken = {design.entity(r).singular for r in ROLES}
    free = [k for k in KINDS if k[0] not in taken]
    return kind if kind in free else free[KINDS.index(kind) % len(free)]


def _form(design: Design, role: str, top: tuple[str, ...]) -> RecordForm:
    drawn = design.reshaping
    many = [design.lines[0]] if role == "link" and design.lines else []
    if role == "primary":
        many = [k for k in (design.roster_key,) if k is not None]
        if design.calendar_list:
            many.append(design.spell(design.domain.calendar))
    kept = top[: max(1, round(len(top) * drawn.kept))] if drawn.kept else ()
    list_key = next(k for k in LIST_KEYS if k not in top)
    plural = design.entity(role).plural
    return RecordForm(
        listing=drawn.listing,
        list_key=list_key,
        kept=frozenset(kept),
        repeated=frozenset(many),
        nested=frozenset(design.group) if drawn.nested and role == "primary" else frozenset(),
        deep=drawn.deep,
        system=f"https://ids.example.com/{plural}",
        name="property_list" if drawn.listing else "deep_id",
    )

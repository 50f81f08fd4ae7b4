"""Which collections a seed that draws text (:mod:`.text_lines`) holds so: those free to (kept
in an array or an object of their own, not in a mixed array, parents, a Relay connection, an
event log, a list envelope or property lists; their values plain, whatever the seed's encoding,
as text holds them): the records wherever free, and by seed the links too (or the links
alone, where the records are not free)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from benchmarks.zoo.random_shapes.encodings import CODECS
from benchmarks.zoo.random_shapes.header_rows import shelve
from benchmarks.zoo.random_shapes.layout import Store
from benchmarks.zoo.random_shapes.text_lines import Path
from benchmarks.zoo.random_shapes.text_store import TextTable

if TYPE_CHECKING:
    from benchmarks.zoo.random_shapes.design import Design

FREE = ("array", "keyed", "keyed_bare", "columnar", "edges")


def _free(store: Store) -> bool:
    return (
        store.container in FREE
        and store.mixed is None
        and store.parents is None
        and store.envelope is None
        and store.codec.name not in ("property_list", "deep_id", "markup_body")
    )


def tabulate(design: Design, columns: tuple[str, ...], role: str) -> bool:
    """Hold ``role``'s records as text where the seed draws it and the collection is free
    (``columns``: the records' top-level keys, the id first); whether it does."""
    style, store = design.formats.text, design.stores[role]
    if style is None or not (_free(store) or style.book):
        return False
    paths: list[Path] = []
    for key in columns:
        if style.flatten and role == "primary" and design.group[:1] == (key,):
            grouped = [f for f in design.domain.primary.fields if f.name in design.grouped]
            paths += [design.path(f) for f in grouped]
        else:
            paths.append((key,))
    table = TextTable(style, design.entity(role).plural, store.id_key, tuple(paths))
    plain = CODECS["plain"]
    design.stores[role] = replace(store, container="text", codec=plain, key_prefix="", text=table)
    if style.book:  # a workbook's sheet, whatever else the seed's layout drew
        design.stores[role] = replace(design.stores[role], mixed=None, parents=None, envelope=None)
    return True


def hold_as_text(design: Design, columns: Callable[[Design, str], tuple[str, ...]]) -> bool:
    """Hold the collections the seed's text takes as text (``columns``: a role's records'
    top-level keys, less the id); whether any is."""
    if design.formats.text is None:
        return False
    top = {
        role: (design.stores[role].id_key, *columns(design, role)) for role in ("primary", "link")
    }
    held = tabulate(design, top["primary"], "primary")
    if design.formats.text.links or not held:
        held = tabulate(design, top["link"], "link") or held
    if design.formats.text.book:  # a workbook holds every table it can
        secondary = (design.stores["secondary"].id_key, *columns(design, "secondary"))
        held = tabulate(design, secondary, "secondary") or held
        shelve(design)
    return held

"""A random shape's design, drawn from its seed: the domain, each collection's place (under
zero to three wrapping objects, some per collection) and container, the id style of each (and
the keys of a keyed one), how links refer to records, the field names' spelling (and which of a
field's other names each field goes by), which fields nest in sub-objects, which are sparse
(absent or null in some records), whether records carry a unique code, an array of party ids,
and (links) an array of line items, whether a record's calendar is keyed by date or a list of
dated entries, and the tool surface (:mod:`.surface`)."""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from benchmarks.zoo.random_shapes.composite_keys import hold_in_keys
from benchmarks.zoo.random_shapes.encodings import CODECS, draw_encoding, logged_role
from benchmarks.zoo.random_shapes.fields import Domain, Entity, Field
from benchmarks.zoo.random_shapes.formats import Formats, draw_formats
from benchmarks.zoo.random_shapes.layout import CASINGS, CONTAINERS, Store, spelt
from benchmarks.zoo.random_shapes.mixed import Mixed
from benchmarks.zoo.random_shapes.record_holding import holding
from benchmarks.zoo.random_shapes.relay import CONNECTED, connect, gid, typename
from benchmarks.zoo.random_shapes.reshaping import Reshaping, draw_reshaping, reshape
from benchmarks.zoo.random_shapes.schema_links import SchemaLinks, draw_schema_links
from benchmarks.zoo.random_shapes.structures import Structure, draw_structure
from benchmarks.zoo.random_shapes.surface import Surface, draw_surface
from benchmarks.zoo.random_shapes.text_holding import hold_as_text
from benchmarks.zoo.random_shapes.vocabulary import DOMAINS

ID_STYLES = ("prefixed", "int", "hex", "slug", "uuid")
REFERENCES = ("plain", "nested", "typed", "url")
"""How a link refers to a record: ``owner_id: X``, ``owner: {id: X}``,
``owner: {type: owners, id: X}``, ``owner_url: /owners/X`` (and the typed references a seed
may draw apart: :mod:`.structures`)."""
WRAPPERS = ("data", "api", "v2", "export", "db", "records", "payload", "snapshot", "body")
SECTIONS = ("tables", "collections", "entities", "store", "resources")
"""A second-level wrapper some collections sit under (and others not)."""
CODES = ("code", "ref", "serial", "sku", "tag_no", "reference")
ROSTERS = ("{}_ids", "{}s", "contact_ids", "member_ids", "watchers")
LINES = (
    ("items", "sku", "description", "qty", "unit_price"),
    ("lines", "part_no", "label", "quantity", "price_each"),
    ("line_items", "item_code", "name", "count", "price"),
    ("entries", "code", "text", "units", "rate"),
)
"""An array of line items' key and its items' fields: code, label, quantity, unit price."""
GROUPS = ("details", "specs", "info", "attributes", "props", "meta")
NOTES = (("think", "thought"), ("scratchpad", "text"), ("log_note", "note"), ("memo", "body"))


@dataclass(frozen=True)
class Design:
    seed: int
    domain: Domain
    casing: str
    spelt: dict[str, str]
    """Canonical name (``entity.field``, or a plain name for the shape's own keys) → stored."""
    group: tuple[str, ...]
    """The stored path of the sub-object nested primary fields live in (empty: none)."""
    grouped: frozenset[str]
    stores: dict[str, Store]
    """By role: ``primary``, ``secondary``, ``link``."""
    id_styles: dict[str, str]
    reference: str
    calendar_list: bool
    note: tuple[str, str]
    surface: Surface
    sparse: frozenset[str] = frozenset()
    """Primary fields absent (or null, where ``sparse_null``) in some records."""
    sparse_null: bool = False
    code_key: str | None = None
    """The stored name of the primaries' unique code (none: they have none)."""
    roster_key: str | None = None
    """The stored name of a primary's array of party ids (none: no such array)."""
    lines: tuple[str, ...] = ()
    """Stored names of the links' line items: the array, then code, label, qty, unit price."""
    encoding: str = "plain"
    """How the records' values are encoded (:mod:`.encodings`)."""
    structure: Structure = dataclasses.field(default_factory=Structure)
    """Mixed-type arrays and typed references the seed draws (:mod:`.structures`)."""
    reshaping: Reshaping = dataclasses.field(default_factory=Reshaping)
    """List envelopes, parents, property lists and deep ids the seed draws (:mod:`.reshaping`)."""
    formats: Formats = dataclasses.field(default_factory=Formats)
    """Classes of real formats the seed draws (:mod:`.formats`)."""
    schema_links: SchemaLinks | None = None
    """Links named only in a schema document, where the seed draws them (:mod:`.schema_links`)."""

    @property
    def drawn(self) -> str:
        """The structures the seed draws, in words."""
        drawn = (self.structure.names, self.reshaping.names, self.formats.names)
        names = [n for n in drawn if n != "none"]
        return ", ".join(names) or "none"

    def spell(self, name: str) -> str:
        """The stored name of ``name`` (``boat.length_m``, or a name of the shape's own)."""
        known = self.spelt.get(name)
        return known if known is not None else spelt(self.casing, name.split(".")[-1])

    def path(self, field: Field) -> tuple[str, ...]:
        """Where a primary field is in its record (stored names)."""
        stored = self.spell(f"{self.domain.primary.singular}.{field.name}")
        return (*self.group, stored) if field.name in self.grouped else (stored,)

    def make_id(self, role: str, n: int) -> Any:
        entity = self.entity(role)
        style = self.id_styles[role]
        if style == "int":
            return 1000 + n * 7
        if style == "global":
            return gid(typename(entity.singular), 10_000 + n * 37)
        if style == "hex":
            return f"{entity.prefix.lower()}{(n * 2654435761) % 16**6:06x}"
        if style == "slug":
            return f"{entity.singular}_{n}"
        if style == "uuid":
            low = (n * 40503 + 4099) % 16**4
            return f"{(n * 2654435761) % 16**8:08x}-{low:04x}-4{n % 4096:03x}"
        return f"{entity.prefix}-{n:05d}"

    def entity(self, role: str) -> Entity:
        return {
            "primary": self.domain.primary,
            "secondary": self.domain.secondary,
            "link": self.domain.link,
        }[role]

    def type_name(self, role: str) -> str:
        """The type a record of ``role`` is known by in a mixed array or a typed reference."""
        entity = self.entity(role)
        spelling = self.structure.spelling
        if spelling == "plural":
            return spelt("snake", entity.plural)
        return spelt({"upper": "upper", "lower": "snake"}.get(spelling, "pascal"), entity.singular)

    def reference_key(self, role: str) -> str:
        if self.schema_links is not None:
            return self.spell(self.schema_links.name_for(role, self.domain.link))
        singular = self.entity(role).singular
        if self.reference == "plain":
            return self.spell(f"{singular}_id")
        if self.reference == "url":
            return self.spell(f"{singular}_url")
        return self.spell(singular)

    def refer(self, role: str, ident: Any) -> Any:
        """A link's reference to record ``ident`` of ``role``."""
        if self.reference == "plain":
            return ident
        if self.reference == "url":
            return f"/{self.entity(role).plural}/{ident}"
        if self.reference == "typed":
            return {"type": self.entity(role).plural, "id": ident}
        if self.reference == "nested":
            return {"id": ident}
        return self._typed_reference(role, ident)

    def _typed_reference(self, role: str, ident: Any) -> Any:
        kind, plural = self.type_name(role), spelt("snake", self.entity(role).plural)
        style = self.reference
        if style == "urn":
            return f"urn:{kind.lower()}:{ident}"
        if style == "gid":
            return f"gid://{spelt('kebab', self.domain.primary.plural)}/{kind}/{ident}"
        if style == "collection":
            return f"{plural}/{ident}"
        if style == "api_url":
            return f"https://api.example.com/v1/{plural}/{ident}"
        if style == "reference":
            return {"reference": f"{kind}/{ident}"}
        return f"{kind}/{ident}"

    def referred(self, role: str, link: dict[str, Any]) -> str:
        """The id (as text) a link refers to."""
        value = link[self.reference_key(role)]
        if isinstance(value, dict):
            value = value["id"] if "id" in value else value["reference"]
        return re.split(r"[/:]", str(value))[-1]


def draw(
    seed: int,
    encoding: str | None = None,
    reshaping: Reshaping | None = None,
    formats: Formats | None = None,
) -> Design:
    """The design of random shape ``seed`` (the same for the same seed); its encoding,
    reshaping (:mod:`.reshaping`) and formats (:mod:`.formats`) as drawn or as given (a twin
    given its encoding or reshaping, drawn to compare how one class lays records out, holds
    no composite keys: :mod:`.composite_keys`)."""
    twin = (encoding, reshaping) != (None, None)
    rng = random.Random(f"random-shape/{seed}")
    encoding = encoding or draw_encoding(seed)
    structure = draw_structure(seed, encoding)
    formats = formats or draw_formats(seed)
    domain = rng.choice(DOMAINS)
    casing = rng.choice(sorted(CASINGS))
    spell = CASINGS[casing]
    spelt = _spellings(rng, domain, spell)
    groupable = [f.name for f in domain.primary.fields if f.kind != "title"]
    depth = rng.choice((0, 1, 1, 2))
    group = tuple(spell(g) for g in rng.sample(GROUPS, depth))
    grouped = frozenset(rng.sample(groupable, rng.randint(2, 3))) if depth else frozenset()
    wrap = tuple(rng.sample(WRAPPERS, rng.choice((0, 0, 1, 2, 3))))
    section = spell(rng.choice(SECTIONS))
    surface = draw_surface(rng, domain.primary.singular)
    sparse = [f.name for f in domain.primary.fields[1:] if f.name != _categories(domain)[0]]
    id_styles = _global(_colliding(_id_styles(rng), structure), formats, structure)
    design = Design(
        seed=seed,
        domain=domain,
        casing=casing,
        spelt=spelt,
        group=group,
        grouped=grouped,
        stores={},
        id_styles=id_styles,
        reference=_referring(rng.choice(REFERENCES), structure, formats),
        calendar_list=rng.random() < 0.4,
        note=rng.choice(NOTES),
        surface=surface,
        sparse=frozenset(rng.sample(sparse, rng.choice((0, 0, 1, 2)))),
        sparse_null=rng.random() < 0.5,
        code_key=spell(rng.choice(CODES))
        if rng.random() < 0.3 or "by_code" in surface.lookups
        else None,
        roster_key=_roster(rng, design_needs_roster(surface), domain.secondary.singular, spell),
        lines=tuple(spell(n) for n in rng.choice(LINES))
        if rng.random() < 0.4 or "line" in surface.nested
        else (),
        encoding=encoding,
        structure=structure,
        reshaping=reshaping or draw_reshaping(seed, encoding, structure),
        formats=formats,
        schema_links=draw_schema_links(seed),
    )
    for role in ("primary", "secondary", "link"):
        design.stores[role] = _store(design, rng, role, (*wrap, section))
    _mix(design, wrap)
    reshape(design, _columns)
    connect(design)
    if not hold_as_text(design, _columns):
        # Drawn, yet no collection is free to be held as text: the seed holds none.
        design = dataclasses.replace(design, formats=dataclasses.replace(formats, text=None))
    # Composite keys where the seed holds its records so (:mod:`.record_holding`; then it drew
    # no text and no markup), unless this is a twin drawn to compare a class without them.
    return design if twin or holding(seed) != "keys" else hold_in_keys(design)


def _spellings(rng: random.Random, domain: Domain, spell: Callable[[str], str]) -> dict[str, str]:
    """How each field's name is stored (one of its names, spelt by the casing)."""
    spelt = {
        f"{entity.singular}.{field.name}": spell(rng.choice((field.name, *field.alts)))
        for entity in (domain.primary, domain.secondary, domain.link)
        for field in entity.fields
    }
    return spelt | {f"slot.{f.name}": spell(rng.choice((f.name, *f.alts))) for f in domain.slots}


def _id_styles(rng: random.Random) -> dict[str, str]:
    return {role: rng.choice(ID_STYLES) for role in ("primary", "secondary", "link")}


def _store(design: Design, rng: random.Random, role: str, above: tuple[str, ...]) -> Store:
    """Where and how a role's collection is kept (``above``: the wrappers, then the section
    it may sit in)."""
    entity, spell = design.entity(role), CASINGS[design.casing]
    id_key = spell(rng.choice((f"{entity.singular}_id", "id")))
    sectioned = rng.random() < 0.3
    return Store(
        (*above[: None if sectioned else -1], spell(entity.plural)),
        rng.choice(CONTAINERS),
        id_key,
        (id_key, *_columns(design, role)),
        rng.choice(("", "", f"{entity.singular}:", f"{entity.singular.upper()}#")),
    ).encoded(CODECS[design.encoding], logged=role == logged_role(design.seed))


def _colliding(styles: dict[str, str], structure: Structure) -> dict[str, str]:
    """The id styles, numbers in every role where the seed draws ids that collide across
    the kinds of a mixed array (so a record is known only by type and id)."""
    return dict.fromkeys(styles, "int") if structure.collide else styles


def _global(styles: dict[str, str], formats: Formats, structure: Structure) -> dict[str, str]:
    """The id styles, global ids (base64 of ``Type:number``) for the records and parties
    where the seed draws Relay-style connections (:mod:`.relay`), unless its ids collide."""
    if formats.relay is None or structure.collide:
        return styles
    return styles | dict.fromkeys(CONNECTED, "global")


def _referring(drawn: str, structure: Structure, formats: Formats) -> str:
    # The layout's style is drawn either way, so the rest of the design stays as it was; a
    # workbook's sheets refer by plain id, which their lookup formulas look up.
    if formats.text is not None and formats.text.book:
        return "plain"
    return structure.reference or drawn


def _mix(design: Design, wrap: tuple[str, ...]) -> None:
    """Keep the collections the seed mixes in one container (:mod:`.mixed`)."""
    structure = design.structure
    if structure.frame is None:
        return
    taken = {key for role in structure.roles for key in _columns(design, role)}
    tag = next(t for t in structure.tags if t not in taken)
    references = tuple(design.reference_key(r) for r in ("primary", "secondary"))
    for role in structure.roles:
        share = Mixed(
            structure.frame,
            (*wrap, structure.place),
            design.type_name(role),
            tag,
            first=role == structure.roles[0],
            related=references if role == "link" and structure.frame == "jsonapi" else (),
        )
        design.stores[role] = design.stores[role].mixing(share)


def _categories(domain: Domain) -> list[str]:
    return [f.name for f in domain.primary.fields if f.kind == "category"]


def design_needs_roster(surface: Surface) -> bool:
    return bool({"roster", "listing"} & set(surface.joins)) or "empty_list" in surface.empties


def _roster(
    rng: random.Random, needed: bool, party: str, spell: Callable[[str], str]
) -> str | None:
    if not needed and rng.random() < 0.7:
        return None
    return spell(rng.choice(ROSTERS).format(party))


def _columns(design: Design, role: str) -> tuple[str, ...]:
    """The stored top-level keys of a role's records, in order (the id first): the columns
    a columnar container has."""
    domain = design.domain
    entity = design.entity(role)
    if role == "primary":
        fields = [design.path(f)[0] for f in entity.fields]
        extra = [k for k in (design.code_key, design.roster_key) if k is not None]
        top = [*dict.fromkeys(fields), *extra, design.spell(domain.calendar)]
        top += [design.spell(k) for k in design.formats.keys]
    elif role == "link":
        top = [
            design.reference_key("primary"),
            design.reference_key("secondary"),
            *(design.spell(f"{entity.singular}.{f.name}") for f in entity.fields),
            *design.lines[:1],
        ]
    else:
        top = [design.spell(f"{entity.singular}.{f.name}") for f in entity.fields]
        top.append(design.spell("email"))
    return tuple(top)

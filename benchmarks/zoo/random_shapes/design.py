"""A random shape's design, drawn from its seed: the domain, each collection's place and
container, the id style of each (and the keys of a keyed one), how links refer to records, the field names' spelling (and
which of a field's other names each field goes by), which fields nest in sub-objects, and
whether a record's calendar is keyed by date or a list of dated entries."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from benchmarks.zoo.random_shapes.layout import CASINGS, CONTAINERS, Store
from benchmarks.zoo.random_shapes.vocabulary import DOMAINS, Domain, Entity, Field

ID_STYLES = ("prefixed", "int", "hex", "slug")
REFERENCES = ("plain", "nested", "typed", "url")
"""How a link refers to a record: ``owner_id: X``, ``owner: {id: X}``,
``owner: {type: owners, id: X}``, ``owner_url: /owners/X``."""
WRAPPERS = ("data", "api", "v2", "export", "db", "records", "payload")
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

    def spell(self, name: str) -> str:
        """The stored name of ``name`` (``boat.length_m``, or a name of the shape's own)."""
        known = self.spelt.get(name)
        return known if known is not None else CASINGS[self.casing](name.split(".")[-1])

    def path(self, field: Field) -> tuple[str, ...]:
        """Where a primary field is in its record (stored names)."""
        stored = self.spell(f"{self.domain.primary.singular}.{field.name}")
        return (*self.group, stored) if field.name in self.grouped else (stored,)

    def make_id(self, role: str, n: int) -> Any:
        entity = self.entity(role)
        style = self.id_styles[role]
        if style == "int":
            return 1000 + n * 7
        if style == "hex":
            return f"{entity.prefix.lower()}{(n * 2654435761) % 16**6:06x}"
        if style == "slug":
            return f"{entity.singular}_{n}"
        return f"{entity.prefix}-{n:05d}"

    def entity(self, role: str) -> Entity:
        return {
            "primary": self.domain.primary,
            "secondary": self.domain.secondary,
            "link": self.domain.link,
        }[role]

    def reference_key(self, role: str) -> str:
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
        return {"id": ident}

    def referred(self, role: str, link: dict[str, Any]) -> str:
        """The id (as text) a link refers to."""
        value = link[self.reference_key(role)]
        if isinstance(value, dict):
            return str(value["id"])
        return str(value).rsplit("/", 1)[-1]


def draw(seed: int) -> Design:
    """The design of random shape ``seed`` (the same for the same seed)."""
    rng = random.Random(f"random-shape/{seed}")
    domain = rng.choice(DOMAINS)
    casing = rng.choice(sorted(CASINGS))
    spell = CASINGS[casing]
    spelt = {
        f"{entity.singular}.{field.name}": spell(rng.choice((field.name, *field.alts)))
        for entity in (domain.primary, domain.secondary, domain.link)
        for field in entity.fields
    }
    spelt |= {f"slot.{f.name}": spell(rng.choice((f.name, *f.alts))) for f in domain.slots}
    groupable = [f.name for f in domain.primary.fields if f.kind != "title"]
    depth = rng.choice((0, 1, 1, 2))
    group = tuple(spell(g) for g in rng.sample(GROUPS, depth))
    grouped = frozenset(rng.sample(groupable, rng.randint(2, 3))) if depth else frozenset()
    wrap = tuple(rng.sample(WRAPPERS, rng.choice((0, 0, 1, 2))))
    design = Design(
        seed=seed,
        domain=domain,
        casing=casing,
        spelt=spelt,
        group=group,
        grouped=grouped,
        stores={},
        id_styles={role: rng.choice(ID_STYLES) for role in ("primary", "secondary", "link")},
        reference=rng.choice(REFERENCES),
        calendar_list=rng.random() < 0.4,
        note=rng.choice(NOTES),
    )
    for role in ("primary", "secondary", "link"):
        entity = design.entity(role)
        id_key = spell(rng.choice((f"{entity.singular}_id", "id")))
        design.stores[role] = Store(
            (*wrap, spell(entity.plural)),
            rng.choice(CONTAINERS),
            id_key,
            (id_key, *_columns(design, role)),
            rng.choice(("", "", f"{entity.singular}:", f"{entity.singular.upper()}#")),
        )
    return design


def _columns(design: Design, role: str) -> tuple[str, ...]:
    """The stored top-level keys of a role's records, in order (the id first): the columns
    a columnar container has."""
    domain = design.domain
    entity = design.entity(role)
    if role == "primary":
        fields = [design.path(f)[0] for f in entity.fields]
        top = [*dict.fromkeys(fields), design.spell(domain.calendar)]
    elif role == "link":
        top = [
            design.reference_key("primary"),
            design.reference_key("secondary"),
            *(design.spell(f"{entity.singular}.{f.name}") for f in entity.fields),
        ]
    else:
        top = [design.spell(f"{entity.singular}.{f.name}") for f in entity.fields]
        top.append(design.spell("email"))
    return tuple(top)

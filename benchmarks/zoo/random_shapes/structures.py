"""Structures a random shape draws apart from its layout, from a generator of its own (so a
seed that draws none is laid out as before): about a third of the seeds keep two or three
collections in one mixed-type array (:mod:`.mixed`), their ids the same across kinds in half
of those; about a third refer to records by typed references, strings naming type and id
(``Customer/123``, ``urn:customer:123``, ``gid://shop/Customer/123``, ``customers/123``, a
URL) or an object ``{"reference": "Customer/123"}``. How type names are spelt is drawn too
(``Customer``, ``customers``, ``CUSTOMER``, ``customer``). The tools still take plain ids and
answer decoded records, as the services' APIs do."""

from __future__ import annotations

import random
from dataclasses import dataclass

from benchmarks.zoo.random_shapes.encodings import logged_role
from benchmarks.zoo.random_shapes.mixed import FRAMES, TAGS

TYPED_REFERENCES = ("path", "urn", "gid", "collection", "api_url", "reference")
"""``Customer/123``, ``urn:customer:123``, ``gid://shop/Customer/123``, ``customers/123``,
``https://api.example.com/v1/customers/123``, ``{"reference": "Customer/123"}``."""
SPELLINGS = ("pascal", "plural", "upper", "lower")
ROLES = ("primary", "secondary", "link")
GROUPINGS = (ROLES, ROLES, ("primary", "secondary"), ("secondary", "link"), ("primary", "link"))
TAGGED = ("type", "kind", "_type", "entity", "record_type", "__typename", "entityType")
PLACES = {
    "jsonapi": ("document", "jsonapi"),
    "bundle": ("bundle", "fhir"),
    "list": ("list", "resources"),
    "single_table": ("table", "single_table"),
    "tagged": ("objects", "entities_all"),
}
MIXABLE = ("plain", "dynamodb", "mongodb", "xmltodict", "events")
"""Encodings whose records a mixed array holds (a Firestore or search export is kept per
collection)."""


@dataclass(frozen=True)
class Structure:
    frame: str | None = None
    """How mixed collections are framed (none: each collection in its own container)."""
    roles: tuple[str, ...] = ()
    """The collections kept together."""
    collide: bool = False
    """Whether ids are the same numbers across the mixed kinds."""
    tags: tuple[str, ...] = ()
    """Names a frame that draws its discriminator takes, the first one free."""
    place: str = ""
    reference: str | None = None
    """A typed reference style, or none (the layout's own)."""
    spelling: str = "pascal"
    """How type names are spelt."""

    @property
    def names(self) -> str:
        """What the seed draws, in words (``mixed jsonapi``, ``references urn``)."""
        drawn = [f"mixed {self.frame}" if self.frame else "", f"references {self.reference}"]
        return ", ".join(d for d in drawn if not d.endswith("None") and d) or "none"


def draw_structure(seed: int, encoding: str) -> Structure:
    """The structures seed ``seed`` draws (its records encoded ``encoding``)."""
    rng = random.Random(f"structure/{seed}")
    mixes, types = rng.random() < 0.4, rng.random() < 0.35
    frame, grouping = rng.choice(FRAMES), rng.choice(GROUPINGS)
    collide, reference = rng.random() < 0.5, rng.choice(TYPED_REFERENCES)
    tags = tuple(rng.sample(TAGGED, len(TAGGED)))
    place, spelling = rng.choice(PLACES[frame]), rng.choice(SPELLINGS)
    roles: tuple[str, ...] = grouping
    if encoding == "events":
        roles = tuple(r for r in grouping if r != logged_role(seed))
    mixing = mixes and encoding in MIXABLE and len(roles) >= 2
    return Structure(
        frame=frame if mixing else None,
        roles=roles if mixing else (),
        # Ids are drawn so whatever the encoding, so a seed's records are the same in any.
        collide=collide and mixes,
        tags=(TAGS[frame],) if frame in TAGS else tags,
        place=place,
        reference=reference if types else None,
        spelling=spelling,
    )

"""The tags mappers give the ``osm`` shape's shops and amenities: a main key (``shop`` or
``amenity``), a name, the ``addr:*`` keys, and by kind ``cuisine``, ``outdoor_seating``,
``capacity`` and ``fee``, ``opening_hours`` in OSM's syntax, ``wheelchair`` and a phone number;
every value a string."""

from __future__ import annotations

import random

from benchmarks.zoo.kit import LAST, WORDS

CUISINES = ["italian", "indian", "chinese", "british", "thai", "fish_and_chips", "pizza"]
CUISINES += ["coffee_shop", "turkish", "japanese"]
FOOD = {"restaurant", "cafe", "fast_food", "pub"}
AMENITIES = ["restaurant", "cafe", "fast_food", "pub", "pharmacy", "parking", "bicycle_parking"]
AMENITIES += ["post_box", "bench", "dentist", "bank"]
SHOPS = ["bakery", "butcher", "convenience", "hairdresser", "books", "bicycle", "florist"]
HOURS = ["Mo-Sa 09:00-17:30", "Mo-Fr 08:00-18:00; Sa 09:00-13:00", "Mo-Su 11:00-23:00"]
HOURS += ["Tu-Su 12:00-14:30,17:30-22:00", "24/7", "Mo-Sa 07:00-22:00; Su 10:00-16:00"]


def poi(rng: random.Random, address: dict[str, str]) -> dict[str, str]:
    """The tags of a shop or an amenity at ``address`` (none for a bench or a post box)."""
    if rng.random() < 0.35:
        shop = rng.choice(SHOPS)
        tags = {"shop": shop, "name": f"{rng.choice(LAST)}'s {shop.title()}"} | address
    else:
        amenity = rng.choice(AMENITIES)
        tags = {"amenity": amenity}
        if amenity in ("post_box", "bench"):
            ref = f"SO41 {rng.randint(1, 999)}"
            return tags | ({"ref": ref, "royal_cypher": "EIIR"} if amenity == "post_box" else {})
        tags |= {"name": f"The {rng.choice(WORDS).title()} {amenity.replace('_', ' ').title()}"}
        tags |= address
        if amenity in FOOD:
            tags |= {
                "cuisine": rng.choice(CUISINES),
                "outdoor_seating": rng.choice(["yes", "no"]),
            }
        if amenity in ("parking", "bicycle_parking"):
            tags |= {"capacity": str(rng.randint(4, 180)), "fee": rng.choice(["yes", "no"])}
    if rng.random() < 0.7:
        tags["opening_hours"] = rng.choice(HOURS)
    if rng.random() < 0.6:
        tags["wheelchair"] = rng.choice(["yes", "no", "limited"])
    if rng.random() < 0.3:
        tags["phone"] = f"+44 1590 {rng.randint(600000, 699999)}"
    return dict(sorted(tags.items()))

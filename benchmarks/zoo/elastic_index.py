"""The indices of the ``elastic`` shape: a real-estate portal's Elasticsearch cluster dumped
index by index, each with its mappings and its documents as a ``_search`` with
``version=true&seq_no_primary_term=true`` lists them: ``_index``, a 20-character auto ``_id``
(listings, agents) or a chosen one (users: their username), ``_version``, ``_seq_no``,
``_primary_term`` and the document itself under ``_source``. A listing names its agent by the
agent document's ``_id``; a user's saved homes are listing ``_id`` values; a location is a
``geo_point`` ``{"lat", "lon"}``; times are ISO 8601 text; city is ``text`` with a
``.keyword`` sub-field, as dynamic mapping makes it."""

from __future__ import annotations

import random
import string
from typing import Any

from benchmarks.zoo.kit import CITIES, FIRST, LAST, WORDS, State, fill, size_of

ALPHABET = string.ascii_letters + string.digits + "-_"
STATUSES = ["active", "active", "active", "pending", "sold", "withdrawn"]
TYPES = ["single_family", "condo", "townhouse", "multi_family", "land"]
FEATURES = ["garage", "fireplace", "pool", "view", "waterfront", "solar", "ev_charger"]
FEATURES += ["basement", "deck", "hardwood", "central_air", "new_roof", "garden", "elevator"]
STREETS = ["Alder", "Birch", "Cascade", "Dogwood", "Elm", "Ferry", "Grove", "Hillside"]
SUFFIXES = ["St", "Ave", "Way", "Ln", "Ct", "Pl"]
BROKERAGES = ["Harbor Realty", "Summit Properties", "Keystone Homes", "Bluewater Brokers"]
LANGUAGES = ["English", "Spanish", "Mandarin", "Vietnamese", "Russian", "French"]

KEYWORD = {"type": "keyword"}
TEXT_KEYWORD = {"type": "text", "fields": {"keyword": {"type": "keyword", "ignore_above": 256}}}
MAPPINGS: dict[str, dict[str, Any]] = {
    "listings": {
        "properties": {
            "mls_number": KEYWORD,
            "status": KEYWORD,
            "property_type": KEYWORD,
            "price": {"type": "long"},
            "bedrooms": {"type": "integer"},
            "bathrooms": {"type": "half_float"},
            "living_area_sqft": {"type": "integer"},
            "year_built": {"type": "short"},
            "address": {
                "properties": {
                    "street": {"type": "text"},
                    "city": TEXT_KEYWORD,
                    "postal_code": KEYWORD,
                    "state": KEYWORD,
                }
            },
            "location": {"type": "geo_point"},
            "features": KEYWORD,
            "agent_id": KEYWORD,
            "listed_at": {"type": "date"},
            "description": {"type": "text", "analyzer": "english"},
        }
    },
    "agents": {
        "properties": {
            "name": TEXT_KEYWORD,
            "brokerage": KEYWORD,
            "email": KEYWORD,
            "phone": KEYWORD,
            "license_number": KEYWORD,
            "languages": KEYWORD,
        }
    },
    "users": {
        "properties": {
            "email": KEYWORD,
            "display_name": TEXT_KEYWORD,
            "saved_listings": KEYWORD,
            "created_at": {"type": "date"},
        }
    },
}


def auto_id(rng: random.Random) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(20))


def documents(state: State, index: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = state[index]["hits"]
    return found


def _hit(state: State, index: str, ident: str, source: dict[str, Any]) -> None:
    hits = documents(state, index)
    seq = hits[-1]["_seq_no"] + 1 if hits else 0
    hits.append(
        {"_index": index, "_id": ident, "_version": 1, "_seq_no": seq, "_primary_term": 1}
        | {"_source": source}
    )


def _agent(rng: random.Random, n: int) -> dict[str, Any]:
    first, last = rng.choice(FIRST), rng.choice(LAST)
    return {
        "name": f"{first} {last}",
        "brokerage": rng.choice(BROKERAGES),
        "email": f"{first.lower()}.{last.lower()}{n}@realty.example.com",
        "phone": f"+1-206-555-{rng.randint(1000, 9999)}",
        "license_number": f"WA-{rng.randint(100000, 999999)}",
        "languages": ["English", *rng.sample(LANGUAGES[1:], rng.randint(0, 2))],
    }


class Listings:
    """Listings added one at a time (and now and then a user saving some of them)."""

    def __init__(self, rng: random.Random, state: State, agents: list[str]) -> None:
        self.rng, self.state, self.agents = rng, state, agents
        self.mls = rng.randint(2_400_000, 2_500_000)

    def add(self) -> None:
        rng = self.rng
        self.mls += rng.randint(1, 30)
        kind = rng.choice(TYPES)
        city = rng.choice(CITIES[:12])
        beds = 0 if kind == "land" else rng.randint(1, 6)
        price = rng.randrange(180_000, 2_400_000, 500)
        source = {
            "mls_number": str(self.mls),
            "status": rng.choice(STATUSES),
            "property_type": kind,
            "price": price,
            "bedrooms": beds,
            "bathrooms": 0 if kind == "land" else rng.choice([1, 1.5, 2, 2.5, 3, 3.5]),
            "living_area_sqft": 0 if kind == "land" else rng.randrange(600, 4800, 10),
            "year_built": rng.randint(1905, 2024),
            "address": {
                "street": f"{rng.randint(100, 9999)} {rng.choice(STREETS)} {rng.choice(SUFFIXES)}",
                "city": city,
                "postal_code": f"98{CITIES.index(city):02d}{rng.randint(0, 9)}",
                "state": "WA",
            },
            "location": {
                "lat": round(47.2 + rng.random() * 0.8, 6),
                "lon": round(-122.6 + rng.random() * 0.7, 6),
            },
            "features": rng.sample(FEATURES, rng.randint(1, 5)),
            "agent_id": rng.choice(self.agents),
            "listed_at": f"2025-{rng.randint(1, 11):02d}-{rng.randint(1, 28):02d}T"
            f"{rng.randint(7, 20):02d}:{rng.choice(['00', '15', '30', '45'])}:00Z",
            "description": " ".join(rng.choice(WORDS) for _ in range(rng.randint(14, 30))),
        }
        _hit(self.state, "listings", auto_id(rng), source)
        if rng.random() < 0.08:
            self.user()

    def user(self) -> None:
        rng = self.rng
        first, last = rng.choice(FIRST), rng.choice(LAST)
        name = f"{first.lower()}{last.lower()[:3]}{rng.randint(10, 999)}"
        if any(h["_id"] == name for h in documents(self.state, "users")):
            return
        listings = documents(self.state, "listings")
        saved = [h["_id"] for h in rng.sample(listings, min(len(listings), rng.randint(1, 8)))]
        source = {
            "email": f"{name}@mail.example.net",
            "display_name": f"{first} {last}",
            "saved_listings": saved,
            "created_at": f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T09:00:00Z",
        }
        _hit(self.state, "users", name, source)


def cluster(rng: random.Random, target_bytes: int) -> State:
    """The three indices, listings added until the dump is about ``target_bytes``."""
    state: State = {
        index: {
            "settings": {
                "index": {"number_of_shards": "1", "number_of_replicas": "1"}
                | {"provided_name": index}
            },
            "mappings": mapping,
            "hits": [],
        }
        for index, mapping in MAPPINGS.items()
    }
    for n in range(40):
        _hit(state, "agents", auto_id(rng), _agent(rng, n))
    listings = Listings(rng, state, [h["_id"] for h in documents(state, "agents")])
    for _ in range(10):
        listings.add()
    listings.user()
    fill(listings.add, lambda: size_of(state), target_bytes)
    return state

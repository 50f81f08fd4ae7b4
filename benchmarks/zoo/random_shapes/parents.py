"""Collections inside large records: a collection's records kept in an array inside each of a
few parent records (events inside calendars, transactions inside accounts, tasks inside
projects), as exports of hierarchical services hold them. Which parent holds a record follows
from its id. A record is answered with its parent's id (and, where the seed says, its name) as
context, as such services' APIs answer an item with the container it belongs to."""

from __future__ import annotations

import random
import zlib
from dataclasses import dataclass
from typing import Any

from benchmarks.zoo.kit import day, person, words

KINDS = (
    ("account", "accounts"),
    ("calendar", "calendars"),
    ("project", "projects"),
    ("workspace", "workspaces"),
    ("portfolio", "portfolios"),
    ("region", "regions"),
    ("catalog", "catalogs"),
    ("team", "teams"),
)
"""Parents' kinds (singular, plural)."""


@dataclass(frozen=True)
class Parents:
    """The parents one collection's records are kept in."""

    id_key: str
    """The stored name of a parent's id."""
    records_key: str
    """The stored name of the array of records in a parent."""
    heads: tuple[dict[str, Any], ...]
    """Each parent's own fields (its id first), in order."""
    context: tuple[tuple[str, str], ...]
    """(the key a record is answered with, the parent's field it holds)."""

    def make(self) -> list[dict[str, Any]]:
        return [dict(head) | {self.records_key: []} for head in self.heads]

    def holder(self, ident: str) -> int:
        """The position of the parent that holds record ``ident``."""
        return zlib.crc32(ident.encode()) % len(self.heads)

    def put(self, box: list[dict[str, Any]], key: str, record: dict[str, Any]) -> None:
        """Store ``record`` (of id ``key``) in the parent that holds it."""
        box[self.holder(key)][self.records_key].append(record)

    def rows(self, box: list[dict[str, Any]]) -> list[Any]:
        """The stored records of every parent, in state order."""
        return [record for parent in box for record in parent[self.records_key]]

    def locate(self, box: list[dict[str, Any]], row: int) -> tuple[int, str, int]:
        """Pointer parts to the ``row``-th record: its parent, the array, its place there."""
        for n, parent in enumerate(box):
            held = len(parent[self.records_key])
            if row < held:
                return n, self.records_key, row
            row -= held
        raise IndexError(row)

    def of(self, box: list[dict[str, Any]], row: int) -> dict[str, Any]:
        """The context the ``row``-th record is answered with."""
        parent = box[self.locate(box, row)[0]]
        return {key: parent[field] for key, field in self.context}


def draw_parents(
    rng: random.Random, spell: Any, kind: tuple[str, str], records_key: str
) -> tuple[Parents, str]:
    """Three to six parents of ``kind`` (spelt by ``spell``) and the stored name of their
    collection."""
    singular, plural = kind
    id_key = spell(rng.choice(("id", f"{singular}_id")))
    name_key, owner_key, since_key = (spell(n) for n in ("name", "owner", "created"))
    style = rng.choice(("prefixed", "slug", "int"))
    heads = []
    for n in range(rng.randint(3, 6)):
        ident: Any = {
            "prefixed": f"{singular[:3].upper()}-{n + 1:03d}",
            "slug": f"{singular}_{n + 1}",
        }
        head = {
            id_key: ident.get(style, 100 + n),
            name_key: words(rng, 2).title(),
            owner_key: " ".join(person(rng)),
            since_key: day(rng, rng.randint(2015, 2024)),
        }
        heads.append(head)
    context = [(spell(f"{singular}_id"), id_key)]
    if rng.random() < 0.5:
        context.append((spell(f"{singular}_name"), name_key))
    return Parents(id_key, records_key, tuple(heads), tuple(context)), spell(plural)

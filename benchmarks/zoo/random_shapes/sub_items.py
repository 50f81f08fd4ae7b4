"""Records holding a list of sub-items, and summaries over the sub-items meeting constraints
tied to the SAME sub-item: a library record's copies (each at a branch, of an item type), a
product's stock lots, a meeting's attendees, a holding's volumes. "How many copies of item type
Y at branch X" counts copies that are both; a record with one copy at X and another of type Y
counts for nothing. Drawn by seed from a generator of its own (the lists from one per record),
so a seed that draws none is as it was.

The calls (kind ``aggregate``):

- a tally over all records: the sub-items of one value of each category (both of the same
  sub-item), how many records hold one, and their total quantity;
- a party's total: over the records the party's links refer to, the sub-items of one value of
  a category at a price at least a bound: how many, their total quantity, and which records
  hold them."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

SHARE = 0.28
"""The share of seeds that draw sub-items."""
KINDS = (
    ("copies", "barcode", "branch", "Central Eastside Harbor Northgate Riverside Old_Town",
     "item_type", "book dvd audiobook magazine map score", "loans", "replacement_cost"),
    ("holdings", "holding_id", "location", "main annex vault depot stacks",
     "format", "print microfilm digital bound loose", "quantity", "value"),
    ("stock_lots", "lot", "warehouse", "north south east west central",
     "grade", "A B C D", "units", "unit_cost"),
    ("attendees", "badge", "role", "speaker guest staff press sponsor",
     "status", "confirmed tentative declined waitlisted", "seats", "fee"),
    ("order_lines", "line_no", "product", "anchor rope cleat winch shackle block fender",
     "color", "red blue black white green", "qty", "unit_price"),
)  # fmt: skip
"""A list's key, then its items' id, two categories with their values, a count and a price."""


@dataclass(frozen=True)
class SubItems:
    """The sub-items a seed's records hold (canonical names; the seed's casing spells them)."""

    key: str
    ident: str
    first: str
    first_values: tuple[str, ...]
    second: str
    second_values: tuple[str, ...]
    count: str
    price: str

    @property
    def names(self) -> str:
        return f"sub-items {self.key}"


def draw_sub_items(seed: int) -> SubItems | None:
    """The sub-items seed ``seed`` draws (none: its records hold none), from a generator of
    its own."""
    rng = random.Random(f"sub-items/{seed}")
    drawn, kind = rng.random() < SHARE, rng.choice(KINDS)
    key, ident, first, firsts, second, seconds, count, price = kind
    made = SubItems(key, ident, first, tuple(firsts.split()), second, tuple(seconds.split()),
                    count, price)  # fmt: skip
    return made if drawn else None


def sub_items(
    seed: int, n: int, style: SubItems, spell: Callable[[str], str]
) -> list[dict[str, Any]]:
    """Record ``n``'s sub-items: none to six, from a generator of their own."""
    rng = random.Random(f"sub-items/{seed}/{n}")
    return [
        {
            spell(style.ident): f"{style.ident[:2].upper()}{n:05d}-{i}",
            spell(style.first): rng.choice(style.first_values),
            spell(style.second): rng.choice(style.second_values),
            spell(style.count): rng.randint(0, 24),
            spell(style.price): round(rng.uniform(1.0, 300.0), 2),
        }
        for i in range(rng.choice((0, 1, 2, 2, 3, 3, 4, 5, 6)))
    ]


Test = Callable[[dict[str, Any]], bool]


def meeting(items: list[dict[str, Any]], tests: list[Test]) -> list[dict[str, Any]]:
    """The sub-items each meeting every test (the tests tied to the same sub-item)."""
    return [item for item in items if all(test(item) for test in tests)]

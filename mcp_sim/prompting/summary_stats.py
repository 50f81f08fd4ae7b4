"""The statistics of a group of records, computed from the records as they are now: how many
there are, and per field (a path of named segments, lists and maps of data keys passed
through) the total, least, greatest and mean of numbers, the range of dates, and the distinct
values of a low-cardinality string field with how many records hold each.

The records are read as JSON, whatever their shape: a calendar keyed by date or a list of
order lines adds its values to the field its named segments spell (``dates/prices/economy``).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import islice
from typing import Any

from mcp_sim.prompting.summary_names import words

MOST_RECORDS = 20_000
"""Records whose fields are read per group, to keep a call's view fast to build (the count is
of all of them; the view says when the rest went unread)."""
MOST_DISTINCT = 60
"""A string field with more distinct values than this names things (titles, ids): no list."""
MOST_COUNTED = 1000
"""The largest whole number a count of things (a quantity) holds; larger ones are ids."""
_DATA_KEY = re.compile(r"\d")
_NUMBER_TEXT = re.compile(r"^-?(0|[1-9]\d{0,14})(\.\d+)?$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")


@dataclass
class FieldStats:
    path: tuple[str, ...]
    """The field's named segments, as the records spell them."""
    numbers: list[float] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    holders: int = 0
    """Records holding the field."""
    trues: int = 0
    falses: int = 0
    """How many of a yes/no field's values are each (``paid``: records paid, not paid)."""
    mapped: bool = False
    """Held under a map keyed by data (a calendar's day, a typed value's ``{"N": "42"}``)."""
    owners: dict[str, str] = field(default_factory=dict)
    """A record's own string field: each value → the key of the record holding it."""
    said: dict[str, int] | None = field(default=None, compare=False, repr=False)
    """See :meth:`said_counts`."""

    @property
    def single(self) -> bool:
        """Whether each record holds one value at most (a record's own field, not one of its
        calendar's or its lines')."""
        return len(self.numbers) + len(self.texts) + self.trues + self.falses <= self.holders

    @property
    def dates(self) -> bool:
        return bool(self.texts) and all(_DATE.match(t) for t in self.texts[:50])

    def distinct(self) -> list[str]:
        return sorted(set(self.texts))

    def counts(self) -> dict[str, int]:
        return dict(sorted(Counter(self.texts).items()))

    def said_counts(self) -> dict[str, int]:
        """:meth:`counts` by each value's words run together in lower case (``"On Loan"``:
        ``onloan``), as a phrase names a value; read on first use, as a summary's phrases
        ask it again and again (a field no longer changes once its group is read)."""
        if self.said is None:
            self.said = {"".join(words(t)).lower(): n for t, n in self.counts().items()}
        return self.said


@dataclass
class GroupStats:
    name: str
    """The group's name: its collection's or its container's (``lines``, ``members``)."""
    count: int
    fields: dict[tuple[str, ...], FieldStats]
    keys: list[str]
    """The record fields' own names, for the naming style."""
    products: dict[tuple[str, str], float] = field(default_factory=dict)
    """Per pair of a record's own numbers, a count and an amount (``qty`` and
    ``unitPrice``), the total of their products over the records: the amount of an order's
    lines, which no field holds."""
    outer: tuple[str, int] | None = None
    """Where the records are parts of others (a parcel's scans): those's kind and number."""


def is_identifier(stats: FieldStats) -> bool:
    """Whether a field names records (``room_id``, ``Id``) rather than measures them."""
    last = words(stats.path[-1])
    # By its last word, not its last letters: ``paid`` and ``fluid`` measure.
    return bool(last) and last[-1].lower() in ("id", "ids", "uuid")


def tidy(value: float) -> float | int:
    return int(value) if float(value).is_integer() else round(value, 2)


def value_of(op: str, f: FieldStats) -> Any:
    """Operation ``op`` (``sum``, ``min``, ``max``, ``mean``, ``values``) over field ``f``."""
    if op == "values":
        return f.distinct()
    if f.dates:
        ordered = sorted(f.texts)
        return ordered[0] if op == "min" else ordered[-1]
    if op == "sum":
        return tidy(sum(f.numbers))
    if op == "mean":
        return round(sum(f.numbers) / len(f.numbers), 2)
    return tidy(min(f.numbers) if op == "min" else max(f.numbers))


def is_data_key(key: str) -> bool:
    """Whether a key is data (a date, an id with digits) rather than a field name."""
    return bool(_DATA_KEY.search(key))


@lru_cache(maxsize=4096)
def _data_keys(keys: tuple[str, ...]) -> bool:
    return all(is_data_key(k) for k in keys)


def is_map(value: dict[str, Any]) -> bool:
    """Whether a JSON object maps data keys to records (a calendar by date, files by name)
    rather than being a record: its keys are data, or its values are objects alike."""
    # Its first 20 keys decide; read without listing the whole object (this runs on every
    # object of every record a summary reads).
    keys = tuple(islice(value, 20))
    if not keys:
        return False
    if _data_keys(keys):
        return True
    if len(keys) < 2 or not isinstance(value[keys[0]], dict):
        return False  # a record's first fields are mostly scalars: decided at once
    if not isinstance(value[keys[1]], dict):
        return False
    if not all(isinstance(value[k], dict) for k in keys):
        return False
    first, second = set(value[keys[0]]), set(value[keys[1]])
    return len(first & second) * 2 > max(len(first), len(second), 1)


def group_stats(
    name: str,
    records: list[Any],
    keys: list[str] | None = None,
    kinds: frozenset[str] = frozenset(),
    asked: frozenset[str] = frozenset(),
) -> GroupStats:
    """The statistics of ``records`` (the first :data:`MOST_RECORDS`; ``None`` left out),
    whose keys, when given, say which record holds each value of a string field; a field
    named as one of ``kinds`` of records (``rider``) refers to them, whatever it holds; the
    numbers in text of a field the tool's words name (``asked``, singular) are summed."""
    fields: dict[tuple[str, ...], FieldStats] = {}
    names: set[str] = set()
    present = [(i, r) for i, r in enumerate(records) if r is not None]
    for at, record in present[:MOST_RECORDS]:
        seen: set[tuple[str, ...]] = set()
        _leaves(record, (), fields, seen)
        for path in seen:
            fields[path].holders += 1
        if isinstance(record, dict) and not is_map(record):
            names.update(record)
            owner = keys[at] if keys is not None else ""
            for field_name, value in record.items() if keys is not None else ():
                if isinstance(value, str):
                    fields[(field_name,)].owners.setdefault(value, owner)
    # Only where the records write every value as text (a key-value export): where they
    # hold numbers as numbers, a number in text is a code or a reference (an ``account``).
    for stats in fields.values() if not any(f.numbers for f in fields.values()) else ():
        # A record's own field: a typed value's ``{"N": "42"}`` is for its decoder to read.
        said = stats.path[-1].lower()
        # Only where asked for: an unasked total crowds out the records a join shows.
        own = len(stats.path) == 1 and not stats.mapped and said not in kinds
        if own and said.rstrip("s") in asked:
            _read_numbers(stats)
    dicts = [r for _, r in present[:MOST_RECORDS] if isinstance(r, dict)]
    return GroupStats(name, len(present), fields, sorted(names), _products(fields, dicts))


def _read_numbers(stats: FieldStats) -> None:
    """Reads a field all of whose values are numbers written as text (a key-value export's
    ``"minutes": "42"``; see :func:`group_stats`) as numbers, to be summed; a leading zero (``"0042"``) keeps a
    code as text, and so do an identifier's name and whole numbers no two records share
    (an account's ``number``)."""
    texts = stats.texts
    if not texts or is_identifier(stats) or not all(_NUMBER_TEXT.match(t) for t in texts):
        return
    if len(set(texts)) == len(texts) > 1 and not any("." in t for t in texts):
        return
    stats.numbers += [float(t) for t in texts]
    stats.texts = []


def _products(
    fields: dict[tuple[str, ...], FieldStats], records: list[dict[str, Any]]
) -> dict[tuple[str, str], float]:
    """The totals of count × amount over ``records``: a count is a field of whole numbers
    from 0 to :data:`MOST_COUNTED` (a quantity, not an id), an amount one with fractions
    (a price); records lacking either add nothing."""
    own = [f for path, f in fields.items() if len(path) == 1 and f.numbers and not f.texts]
    counts = [
        f.path[0] for f in own if all(n.is_integer() and 0 <= n <= MOST_COUNTED for n in f.numbers)
    ]
    amounts = [f.path[0] for f in own if any(not n.is_integer() for n in f.numbers)]
    totals: dict[tuple[str, str], float] = {}
    for count in counts:
        for amount in amounts:
            total = 0.0
            for record in records:
                a, b = record.get(count), record.get(amount)
                if isinstance(a, int | float) and isinstance(b, int | float):
                    total += float(a) * float(b)
            totals[(count, amount)] = round(total, 2)
    return totals


def _leaves(
    value: Any,
    path: tuple[str, ...],
    fields: dict[tuple[str, ...], FieldStats],
    seen: set[tuple[str, ...]],
    mapped: bool = False,
) -> None:
    if isinstance(value, dict):
        keyed = is_map(value)
        for key, item in value.items():
            _leaves(item, path if keyed else (*path, key), fields, seen, mapped or keyed)
        return
    if isinstance(value, list):
        for item in value:
            _leaves(item, path, fields, seen, mapped)
        return
    if not path or value is None:
        return
    stats = fields.get(path)
    if stats is None:
        stats = fields[path] = FieldStats(path)
    stats.mapped = stats.mapped or mapped
    seen.add(path)
    if isinstance(value, bool):
        stats.trues += value
        stats.falses += not value
    elif isinstance(value, int | float):
        stats.numbers.append(float(value))
    elif isinstance(value, str):
        stats.texts.append(value)


def sub_records(value: Any) -> dict[str, list[Any]]:
    """The records nested in ``value`` at any depth, by the name of the list or map that holds
    them (a unit's ``members``, its sub-``units``' members included; an order's ``lines``)."""
    found: dict[str, list[Any]] = {}
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        name, item = stack.pop()
        if isinstance(item, dict):
            inner = list(item.items())
            if name and is_map(item):
                found.setdefault(name, []).extend(v for _, v in inner if isinstance(v, dict))
                stack.extend((name, v) for _, v in reversed(inner))
                continue
            stack.extend((k, v) for k, v in reversed(inner))
        elif isinstance(item, list) and name:
            if not item or any(isinstance(v, dict) for v in item):
                found.setdefault(name, []).extend(v for v in item if isinstance(v, dict))
            stack.extend((name, v) for v in reversed(item))
    if not any(found.values()):
        return found  # only empty containers: a unit with no members counts 0 of them
    for name, records in list(found.items()):
        if not records:
            del found[name]
    return found

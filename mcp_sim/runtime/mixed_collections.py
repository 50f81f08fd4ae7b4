"""Arrays holding records of several kinds, told apart by a field: one collection per kind.

A single-table export (DynamoDB items with a ``type`` attribute), a JSON:API document's
``included`` resources, a FHIR Bundle's ``entry[].resource`` told apart by ``resourceType``, a
``kubectl get -o json`` List of ``kind``-tagged objects: one array, records of several kinds,
whose ids may repeat across kinds (speaker ``7`` and room ``7``). Such an array is found by its
structure, whatever its fields are called: every record (or every record's one object field, a
FHIR entry's ``resource``) holds a field of a few distinct short type-like strings, and the
records' other fields differ with that value (a speaker's fields are not a room's), while the
records of one value are alike. An order's ``status`` has few values too, but a cancelled order
has the fields of a delivered one, and its array stays one collection.

Each kind becomes a collection of its own (:class:`Kind`), whose pointer is the array's
followed by :data:`KIND_MARK` and the kind's value (``/included/@speakers``); its records keep
their stored pointers (``/included/57``), and :func:`mcp_sim.runtime.state_paths.resolve`
reads the kind's pointer as the array itself.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from jsonpointer import escape, unescape

KIND_MARK = "@"
"""What begins the last part of a kind's collection pointer (``/items/@Pod``): an array's
items are numbered, so no item is named so."""
_KIND_VALUE = re.compile(r"^[A-Za-z][\w.:/-]{0,39}$")
"""A type-like value: a short word or identifier without spaces (``Pod``, ``speakers``,
``apps/v1``)."""
_MOST_KINDS = 24
_SAMPLE = 400
_PRESENT = 0.9
"""The share of records that must hold the kind field."""
_MOST_SHARED = 0.6
"""The most fields two kinds may share (Jaccard of their usual fields) on average."""
_LEAST_ALIKE = 0.6
"""The least the records of one kind must share their fields with each other, on average."""


@dataclass(frozen=True)
class Kind:
    """The records of one kind in a mixed array."""

    field: str
    """Where each item holds its kind, relative to the item (``/type``,
    ``/resource/resourceType``)."""
    value: str
    """The kind's value there (``speakers``)."""

    @property
    def inner(self) -> str:
        """Where inside each item its record is: the object holding the kind field
        (``/resource`` of a FHIR entry), ``""`` for the item itself."""
        return self.field.rpartition("/")[0]

    def holds(self, item: Any) -> bool:
        """Whether an item of the array is a record of this kind."""
        return kind_value(item, self.field) == self.value


def kind_value(item: Any, field: str) -> str | None:
    """The string at ``field`` (a relative pointer) of ``item``, if any."""
    value = item
    for part in field.split("/")[1:]:
        value = value.get(unescape(part)) if isinstance(value, dict) else None
    return value if isinstance(value, str) else None


def kind_pointer(array: str, kind: Kind) -> str:
    """The collection pointer of ``kind``'s records in the array at ``array``."""
    return f"{array}/{escape(KIND_MARK + kind.value)}"


def is_kind_part(part: str) -> bool:
    """Whether a pointer's part names a kind of a mixed array (see :func:`kind_pointer`)."""
    return part.startswith(KIND_MARK) and len(part) > 1


def array_pointer(pointer: str) -> str:
    """The array a kind's collection pointer is in (other pointers unchanged)."""
    parent, _, last = pointer.rpartition("/")
    return parent if is_kind_part(unescape(last)) else pointer


def kinds_of(items: Sequence[Any]) -> list[Kind]:
    """The kinds of the records of ``items``, when they are records of several kinds told
    apart by one field (see the module's docstring); ``[]`` when they are of one kind."""
    # Spread over the whole array: exports often list one kind after another.
    step = max(1, len(items) // _SAMPLE)
    sample = [item for item in items[::step] if isinstance(item, dict)]
    if len(sample) < 4:
        return []
    best: tuple[float, str, list[str]] | None = None
    for field in _candidates(sample):
        values = [kind_value(item, field) for item in sample]
        held = [v for v in values if v is not None]
        if len(held) < _PRESENT * len(sample):
            continue
        counts = Counter(held)
        if not 2 <= len(counts) <= _MOST_KINDS or len(counts) * 3 > len(held):
            continue
        if not all(_KIND_VALUE.match(v) for v in counts):
            continue
        score = _separation(sample, values, field)
        if score is not None and (best is None or score > best[0]):
            best = (score, field, list(counts))
    if best is None:
        return []
    _, field, _ = best
    every = dict.fromkeys(v for item in items if (v := kind_value(item, field)) is not None)
    return [Kind(field, value) for value in every]


def _candidates(sample: list[dict[str, Any]]) -> Iterator[str]:
    """The fields that may hold a kind: the items' own string fields, and those of an object
    field every item has (a FHIR entry's ``resource``)."""
    first = sample[0]
    for name, value in first.items():
        if isinstance(value, str):
            yield f"/{escape(name)}"
        elif isinstance(value, dict) and all(isinstance(i.get(name), dict) for i in sample):
            for inner, held in value.items():
                if isinstance(held, str):
                    yield f"/{escape(name)}/{escape(inner)}"


def _separation(sample: list[dict[str, Any]], values: list[str | None], field: str) -> float | None:
    """How well the kinds at ``field`` tell the records' fields apart: the records of one
    kind alike, two kinds' usual fields different; ``None`` when they are not told apart."""
    inner = field.rpartition("/")[0]
    groups: dict[str, list[frozenset[str]]] = {}
    for item, value in zip(sample, values, strict=True):
        if value is not None:
            groups.setdefault(value, []).append(_field_names(item, inner))
    usual = {v: _usual(shapes) for v, shapes in groups.items()}
    pairs = list(combinations(usual.values(), 2))
    shared = sum(_jaccard(a, b) for a, b in pairs) / len(pairs)
    alike = sum(
        _jaccard(shape, usual[v]) for v, shapes in groups.items() for shape in shapes
    ) / sum(len(shapes) for shapes in groups.values())
    if shared > _MOST_SHARED or alike < _LEAST_ALIKE:
        return None
    return alike - shared


def _field_names(item: dict[str, Any], inner: str) -> frozenset[str]:
    """The field paths of a record two levels deep (a JSON:API resource's kinds differ in
    their ``attributes``)."""
    record = item
    for part in inner.split("/")[1:]:
        record = record.get(unescape(part), {}) if isinstance(record, dict) else {}
    names: set[str] = set()
    for name, value in record.items() if isinstance(record, dict) else ():
        names.add(name)
        if isinstance(value, dict) and len(value) <= 40:
            names.update(f"{name}/{inner_name}" for inner_name in value)
    return frozenset(names)


def _usual(shapes: list[frozenset[str]]) -> frozenset[str]:
    """The fields most records of a kind hold."""
    counts = Counter(name for shape in shapes for name in shape)
    return frozenset(n for n, c in counts.items() if c * 2 >= len(shapes))


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0


def item_pointer(collection: str, pointer: str) -> str:
    """The pointer of the item of a kind's array (``collection``) that ``pointer`` is in."""
    array = array_pointer(collection)
    return f"{array}/{pointer[len(array) + 1 :].split('/', 1)[0]}"

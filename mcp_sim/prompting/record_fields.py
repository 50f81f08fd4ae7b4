"""The fields of a collection's records, named by path, and the values a record holds in each.

A field path names a place in every record of a collection, whatever its shape:
``address/city`` (a nested object), ``items/*/price`` (an array's items), ``dates/#`` (the keys
of a map keyed by date or id: a per-record calendar, variants by item id) and
``dates/*/status`` (inside its entries), ``^`` (the record's own key). :func:`field_paths`
lists a record's paths with their values, :func:`values_at` walks one path of one record, and
:class:`FieldSchema` describes a collection's fields from a sample of its records (their
names' words, and what kind of values they hold), computed once per world.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from jsonpointer import escape

from mcp_sim.prompting.epoch_times import epoch_time, epoch_unit
from mcp_sim.prompting.field_names import tokens
from mcp_sim.runtime.quantities import suffixed
from mcp_sim.runtime.state_series import key_values
from mcp_sim.runtime.state_shape import looks_keyed, normalize
from mcp_sim.runtime.typed_references import typed_reference
from mcp_sim.runtime.uri_schemes import unschemed

KEY = "#"
"""The segment of a path that stands for a map's keys."""
SELF = "^"
"""The path of a record's own key (its key in the collection, or its id field's value)."""
ANY = "*"
"""The segment of a path that stands for any entry of an array or a map."""
_MAX_DEPTH = 16
_MAX_ITEMS = 256
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")
_NUMERIC_TEXT = re.compile(r"^-?\d{1,15}(\.\d+)?$")
SAMPLE = 200
_MOST_DISTINCT = 400
"""Records a collection's schema is drawn from (spread over the collection)."""
_PATH_REFERENCE = re.compile(
    r"^(?:[a-z][a-z0-9+.-]*://[^/\s]+)?(?:/[^/\s?#]+)+/([^/\s?#]+)/?$", re.I
)
"""A reference written as a resource path or URL (``/owners/OW-7``,
``https://api.example.com/v2/owners/7``): its last segment is the key it refers to."""


def path_reference(value: Any) -> str | None:
    """The normalized key a resource path or URL names (its last segment), a typed
    reference (``10234`` of ``Patient/10234``) or a scheme-prefixed value (``ana@example.org``
    of ``mailto:ana@example.org``), else ``None``."""
    if not isinstance(value, str):
        return None
    found = _PATH_REFERENCE.match(value.strip())
    if found is not None:
        return normalize(found.group(1))
    typed = typed_reference(value)
    if typed is not None:
        return normalize(typed[1])
    bare = unschemed(value)
    return normalize(bare) if bare is not None else None


def is_map(value: dict[str, Any]) -> bool:
    """A map of entries keyed by id or date (its keys are data, not field names)."""
    if not value:
        return False
    if all(any(c.isdigit() for c in key) for key in value):
        # Entries keyed by id are alike; fields named by numbers (MARC's tags) hold a
        # scalar here and an object there.
        return not _mixed(value)
    return looks_keyed(value)


def _mixed(value: dict[str, Any]) -> bool:
    """Whether an object holds both scalars and objects or lists."""
    nested = sum(isinstance(v, dict | list) for v in value.values())
    scalars = sum(v is not None and not isinstance(v, dict | list) for v in value.values())
    return nested > 0 and scalars > 0


def field_paths(record: Any) -> dict[str, list[Any]]:
    """Each field path of ``record`` → the scalar values (and map keys) it holds there."""
    out: dict[str, list[Any]] = {}

    def walk(value: Any, path: str, depth: int) -> None:
        if depth > _MAX_DEPTH:
            return
        if isinstance(value, dict):
            if is_map(value):
                keys = out.setdefault(_join(path, KEY), [])
                for key, item in value.items():
                    keys.append(key)
                    walk(item, _join(path, ANY), depth + 1)
            else:
                for key, item in value.items():
                    walk(item, _join(path, key.replace("/", "_")), depth + 1)
        elif isinstance(value, list):
            for item in value[:_MAX_ITEMS]:
                walk(item, _join(path, ANY), depth + 1)
        elif value is not None:
            out.setdefault(path, []).append(value)

    walk(record, "", 0)
    return out


def _join(path: str, segment: str) -> str:
    return f"{path}/{segment}" if path else segment


def values_at(record: Any, path: str, inner: str = "") -> list[tuple[str, Any]]:
    """``(relative pointer, value)`` for each value of ``record`` at the field ``path``."""
    found: list[tuple[str, Any]] = []
    # Gathered into one list, not yielded level by level: a field table walks one path of
    # every record of a multi-MB state, most often a field of the record itself.
    if path and "/" not in path and path != KEY and path != ANY and isinstance(record, dict):
        item = record.get(path)
        if item is not None and not isinstance(item, dict | list):
            found.append((f"{inner}/{_escaped(path)}", item))
            return found
    _gather(record, path, inner, found)
    return found


def _gather(record: Any, path: str, inner: str, found: list[tuple[str, Any]]) -> None:
    if not path:
        if not isinstance(record, dict | list):
            found.append((inner, record))
        return
    head, _, rest = path.partition("/")
    if head == KEY:
        if isinstance(record, dict):
            found.extend((f"{inner}/{_escaped(key)}", key) for key in record)
    elif head == ANY:
        if isinstance(record, dict):
            for key, item in record.items():
                _gather(item, rest, f"{inner}/{_escaped(key)}", found)
        elif isinstance(record, list):
            for i, item in enumerate(record[:_MAX_ITEMS]):
                _gather(item, rest, f"{inner}/{i}", found)
    elif isinstance(record, dict):
        item = record.get(head)
        if item is None and "_" in head:
            # A field name with a "/" was flattened to "_".
            item = next((v for k, v in record.items() if k.replace("/", "_") == head), None)
        if item is not None:
            _gather(item, rest, f"{inner}/{_escaped(head)}", found)


def _escaped(key: str) -> str:
    """``key`` as a JSON pointer's segment (most keys need no escaping)."""
    return escape(key) if "~" in key or "/" in key else key


def kind_of_value(value: Any) -> str:
    """``number``, ``date``, ``text`` (prose), ``string`` or ``other``."""
    if isinstance(value, bool):
        return "other"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        if _DATE.match(value):
            return "date"
        if len(value) > 40 and " " in value:
            return "text"
        return "string"
    return "other"


@dataclass
class FieldInfo:
    path: str
    words: tuple[tuple[str, ...], ...]
    """The words of the path's named segments (a map's keys take the map's name)."""
    kinds: dict[str, int] = field(default_factory=dict)
    distinct: set[str] = field(default_factory=set)
    """Normalized values seen in the sample (a few hundred at most)."""
    records: int = 0
    """Sampled records holding the field."""
    values: int = 0
    """Values seen in the sample."""
    originals: set[str] = field(default_factory=set)
    """Distinct short strings as written (a few dozen at most)."""
    low: float | None = None
    high: float | None = None
    """The least and greatest number (a date as its day number) seen in the sample."""
    fractional: int = 0
    """Numbers seen with a fraction (``18.5``): a measure, not a count."""
    numeric_text: int = 0
    """Strings holding a number (``"78"``: an export that writes every value as text), or a
    quantity with its unit (``"12 kg"``, ``"1536Mi"``)."""
    dimensions: set[str] = field(default_factory=set)
    """What the quantities seen measure (``watts`` for ``"150 kW"``; see
    :mod:`mcp_sim.runtime.quantities`)."""
    decades: dict[int, int] = field(default_factory=dict)
    """How many numbers seen lie in each power of ten (see :func:`decade`): whether a bound
    is of the magnitude of the field's values, not only inside their span."""
    epoch: float | None = None
    """The unit of a field of epoch times (see :mod:`mcp_sim.prompting.epoch_times`): its
    values are dates too, and its kind is ``date``."""

    @property
    def unique(self) -> bool:
        """One value per record, no two records alike (in the sample): an identifier."""
        return self.values == self.records == len(self.distinct) and self.records > 1

    @property
    def kind(self) -> str:
        return max(self.kinds, key=lambda k: self.kinds[k]) if self.kinds else "other"

    @property
    def sorts_as(self) -> str:
        """The kind a range compares the values as: text holding numbers (a key-value
        store's ``"battery": "78"``) sorts as numbers."""
        kind = self.kind
        if kind == "string" and self.numeric_text * 5 >= self.values * 4:
            return "number"
        return kind


def path_words(path: str, collection: str) -> tuple[tuple[str, ...], ...]:
    """The words of a field path: ``address/city`` → ((address,), (city,)); ``#`` (a
    record's key) → the collection's name and ``id`` (``/users`` → ((user, id),))."""
    if path == SELF:
        name = collection.rsplit("/", 1)[-1]
        return ((*tokens(name), "id"),)
    segments = [s for s in path.split("/") if s not in (KEY, ANY)]
    return tuple(t for t in (tokens(s) for s in segments) if t)


@dataclass
class FieldSchema:
    """The fields of one collection's records, from a sample of them."""

    collection: str
    fields: dict[str, FieldInfo]
    sampled: int
    step: int = 1
    """The sample takes every ``step``-th record (a numbering's sampled values lie ``step``
    apart)."""
    texts: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    """A field's distinct values in one text, joined on first use (see
    :func:`~mcp_sim.prompting.value_fields.containing`)."""

    @property
    def time_keyed(self) -> bool:
        """Whether most records are keyed by a time (a series' readings, a calendar's days)."""
        own = self.fields[SELF]
        return own.kinds.get("date", 0) * 2 >= own.records > 0

    @classmethod
    def of(
        cls,
        collection: str,
        records: list[tuple[str, Any]],
        labels: Mapping[str, str] | None = None,
    ) -> FieldSchema:
        """The schema of a collection from its ``(key, record)`` pairs; ``labels``: the words
        of opaque keys (see :mod:`mcp_sim.prompting.side_maps`)."""
        labels = labels or {}
        step = max(1, len(records) // SAMPLE)
        sample = records[::step][:SAMPLE]
        fields: dict[str, FieldInfo] = {SELF: FieldInfo(SELF, path_words(SELF, collection))}
        _note_sources(fields[SELF], records)
        for key, record in sample:
            for own in key_values(key):
                _note(fields[SELF], own)
            fields[SELF].records += 1
            for path, values in field_paths(record).items():
                info = fields.get(path)
                if info is None:
                    said = "/".join(labels.get(s, s) for s in path.split("/"))
                    info = fields[path] = FieldInfo(path, path_words(said, collection))
                info.records += 1
                for value in values[:8]:
                    _note(info, value)
        for info in fields.values():
            _note_epoch(info)
        return cls(collection, fields, len(sample), step)


def _note_epoch(info: FieldInfo) -> None:
    """Reads a field of epoch numbers as one of dates (see
    :mod:`mcp_sim.prompting.epoch_times`): its kind, and its span as day numbers."""
    if info.sorts_as != "number":
        return
    unit = epoch_unit(info.path, info.low, info.high)
    if unit is None:
        return
    info.epoch = unit
    info.kinds = {"date": sum(info.kinds.values())}
    # Dates compare as days (see :func:`magnitude`), not as the numbers they were written as.
    info.decades = {}
    low, high = epoch_time(info.low, unit), epoch_time(info.high, unit)
    info.low, info.high = magnitude(low), magnitude(high)


def _note_sources(info: FieldInfo, records: list[tuple[str, Any]]) -> None:
    """The sources and the days of a series' readings (``TIME/SOURCE`` keys), every one: a
    sample spread over times in order meets only some of them."""
    for key, _ in records:
        said = key_values(key)
        if len(said) < 2:
            return
        for label in (normalize(said[1]), normalize(said[0][:10])):
            if label is not None and len(info.distinct) < _MOST_DISTINCT:
                info.distinct.add(label)


def _note(info: FieldInfo, value: Any) -> None:
    info.values += 1
    kind = "boolean" if isinstance(value, bool) else kind_of_value(value)  # a flag's field
    info.kinds[kind] = info.kinds.get(kind, 0) + 1
    _note_range(info, value, kind)
    label = normalize(value)
    if label is not None and len(info.distinct) < _MOST_DISTINCT:
        info.distinct.add(label)
        referred = path_reference(value)
        if referred is not None:
            info.distinct.add(referred)
    if kind == "string" and len(info.originals) <= ENUM_MOST and len(value) <= 40:
        info.originals.add(value)


def magnitude(value: Any) -> float | None:
    """A number as itself, a ``YYYY-MM-DD`` date as its day number, else ``None``: what
    a range bound and a field's values are compared by."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str) and _DATE.match(value):
        try:
            return float(date.fromisoformat(value[:10]).toordinal())
        except ValueError:
            return None
    return None


def _note_range(info: FieldInfo, value: Any, kind: str) -> None:
    if kind == "string" and _NUMERIC_TEXT.match(value):
        info.numeric_text += 1
        value = float(value)
    elif kind == "string" and (read := suffixed(value)) is not None:
        # ``"150 kW"``, ``"1536Mi"``: a measure a range bounds (by magnitude), lying where
        # its numbers as written lie (a bound is most often in the unit they are written in).
        info.numeric_text += 1
        info.dimensions.add(read.dimension)
        value = read.written
    elif kind not in ("number", "date"):
        return
    number = magnitude(value)
    if number is None:
        return
    info.low = number if info.low is None else min(info.low, number)
    info.high = number if info.high is None else max(info.high, number)
    info.decades[decade(number)] = info.decades.get(decade(number), 0) + 1
    if isinstance(value, float) and not value.is_integer():
        info.fractional += 1


ZERO_DECADE = -99
"""The decade :func:`decade` gives 0, which no bound's magnitude is near."""


def decade(number: float) -> int:
    """The power of ten ``number`` lies in (``2208`` → 3, ``0.5`` → -1; 0 → :data:`ZERO_DECADE`)."""
    return math.floor(math.log10(abs(number))) if number else ZERO_DECADE


ENUM_MOST = 12
"""A text field with at most this many distinct values (in the sample) is an enumeration."""
_ENUM_CHARS = 700


def enumerations(schema: FieldSchema) -> str:
    """The values of a collection's enumerated fields (a status, a type, a tier), each written
    as it stands in a record: what a write's answer or a count by value needs to get right."""
    parts: list[str] = []
    for path, info in schema.fields.items():
        if path == SELF or info.kind != "string" or info.records * 4 < schema.sampled:
            continue
        name = path.rsplit("/", 1)[-1]
        if name in (KEY, ANY) or not 2 <= len(info.distinct) <= ENUM_MOST:
            continue
        if any(w in ("id", "key", "code", "number") for w in info.words[-1]):
            continue
        values = sorted(info.originals)
        part = ", ".join(json.dumps({name: v}, ensure_ascii=False) for v in values)
        if sum(len(p) + 2 for p in parts) + len(part) > _ENUM_CHARS:
            break
        parts.append(part)
    return "; ".join(parts)

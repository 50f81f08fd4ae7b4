"""Property lists: records whose fields are written as the items of a list, not as keys.

Some formats keep a record's fields in a list, so no field has a key a lookup or a search
can name. MARC-in-JSON, Ansible's tasks and ISO-style field lists write a list of one-key
objects (``[{"001": ".."}, {"245": {..}}, {"650": ..}, {"650": ..}]``); AWS tags, HAR headers
and Kubernetes' ``env`` write name/value pairs (``[{"Key": "env", "Value": "prod"}]``); jCal,
jCard and some CBOR or MessagePack exports write positional named tuples
(``["dtstart", {"tzid": ".."}, "date-time", "2025-12-23T16:15:00"]``) in components
(``["vevent", [properties], [subcomponents]]``).

Nothing here knows a format by name. :func:`forms_of` finds each form by structure, where
it recurs across the state: lists of one-key objects whose keys are mostly distinct; lists of
two-key objects one of whose keys always holds a short name, distinct within its list and
drawn from a small vocabulary across lists; lists of arrays each starting with such a name.
:meth:`ListForms.fold` turns such a list into the object it stands for (a repeated name: a list
of its values), so the decoded state (see :mod:`mcp_sim.runtime.decoded_state`) has fields of
those names.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

_LEAST_LISTS = 4
"""A form recurs in at least this many lists (a record's fields, not one table)."""
_MOST_ITEMS = 256
"""A longer list is a collection, not a record's fields."""
_NAME_CHARS = 48
_MOST_TYPES = 24
"""A tuple's value type takes few values (``text``, ``date-time``, ``integer``)."""
KIND = "kind"
"""The field a component's own name is shown as."""
SUBCOMPONENTS = "2"
"""The field a component's subcomponents are shown as: their stored position, so pointers to
them stay the same in the stored and the decoded state."""
_NOT_FOLDED = object()


def _name(value: Any) -> bool:
    """Whether ``value`` can be a field's name: a short word-like string."""
    return isinstance(value, str) and 0 < len(value) <= _NAME_CHARS and " " not in value


def _digitless(names: Iterable[str]) -> bool:
    """Whether most names are words, not ids or dates (which key records, not fields)."""
    names = list(names)
    return sum(not any(c.isdigit() for c in n) for n in names) * 5 >= len(names) * 4


def _distinct(names: list[str]) -> bool:
    """Whether a list's names are mostly distinct: fields, not a log of a few kinds."""
    return len(set(names)) * 3 >= len(names)


def _fields(names: list[str]) -> bool:
    """Whether a list's names are a record's fields, some given several times (a watcher
    per item, a reading per item): mostly distinct, or most of them given once (unlike a
    log of a few kinds, each of which recurs)."""
    counts = Counter(names)
    return _distinct(names) or sum(c == 1 for c in counts.values()) * 2 >= len(counts)


def _one_keys(items: list[Any]) -> list[str] | None:
    if not items or len(items) > _MOST_ITEMS:
        return None
    if not all(isinstance(i, dict) and len(i) == 1 for i in items):
        return None
    keys = [next(iter(i)) for i in items]
    return keys if _distinct(keys) else None


def _tuple(value: Any) -> bool:
    return isinstance(value, list) and 2 <= len(value) <= 64 and _name(value[0])


def _tuple_names(items: list[Any]) -> list[str] | None:
    if not items or len(items) > _MOST_ITEMS or not all(_tuple(i) for i in items):
        return None
    names = [i[0] for i in items]
    return names if _distinct(names) or _components(items) else None


def _component(value: Any) -> bool:
    """``[name, [properties], [subcomponents]]`` (the last optional)."""
    return (
        _tuple(value)
        and len(value) <= 3
        and all(isinstance(part, list) for part in value[1:])
        and all(_tuple(p) for p in value[1])
    )


def _components(items: list[Any]) -> bool:
    return all(_component(i) for i in items)


@dataclass
class ListTally:
    """What a sample of the state's lists says of the forms they take."""

    one_key_lists: int = 0
    one_key_names: Counter[str] = field(default_factory=Counter)
    pair_lists: Counter[str] = field(default_factory=Counter)
    pair_names: defaultdict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    pair_repeats: Counter[str] = field(default_factory=Counter)
    """Lists in which a name recurs: a log of places, not a record's named values."""
    pair_keyed: Counter[str] = field(default_factory=Counter)
    """Lists of two-key objects each holding the key, whatever its values."""
    pair_logs: Counter[str] = field(default_factory=Counter)
    """Lists whose names under the key are no record's fields (see :func:`_fields`)."""
    pair_partners: defaultdict[str, Counter[str]] = field(
        default_factory=lambda: defaultdict(Counter)
    )
    pair_listed: defaultdict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    """The names given more than once in some list (a record's watchers, its readings)."""
    pair_values: defaultdict[str, Counter[str]] = field(
        default_factory=lambda: defaultdict(Counter)
    )
    tuple_lists: int = 0
    tuple_names: Counter[str] = field(default_factory=Counter)
    tuple_types: Counter[str] = field(default_factory=Counter)
    tuples: int = 0
    parametered: set[str] = field(default_factory=set)
    listed: set[str] = field(default_factory=set)

    def pairs(self, items: list[Any]) -> None:
        """Tally the keys that could name each item of a list of two-key objects (a list of
        one says nothing of which key names its items)."""
        if len(items) < 2 or len(items) > _MOST_ITEMS:
            return
        if not all(isinstance(i, dict) and len(i) == 2 for i in items):
            return
        for key in sorted(items[0]):
            names = [i.get(key) for i in items]
            self.pair_keyed[key] += all(key in i for i in items)
            if not all(_name(n) for n in names):
                continue
            self.pair_lists[key] += 1
            self.pair_repeats[key] += len(set(names)) < len(names)
            self.pair_logs[key] += not _fields(names)
            self.pair_partners[key].update(k for k in items[0] if k != key)
            self.pair_listed[key].update(n for n, c in Counter(names).items() if c > 1)
            self.pair_names[key].update(names)
            values = (v for i in items for k, v in i.items() if k != key)
            self.pair_values[key].update(json.dumps(v, sort_keys=True)[:64] for v in values)

    def list_(self, items: list[Any]) -> None:
        keys = _one_keys(items)
        if keys is not None and len(set(keys)) >= 2:
            self.one_key_lists += 1
            self.one_key_names.update(keys)
        self.pairs(items)
        names = _tuple_names(items)
        if names is not None and not _components(items):
            self.tuple_lists += 1
            self.tuple_names.update(names)
            for item in items:
                self.tuples += 1
                if len(item) >= 4 and isinstance(item[1], dict) and _name(item[2]):
                    self.tuple_types[item[2]] += 1
                if len(item) >= 3 and isinstance(item[1], dict) and item[1]:
                    self.parametered.add(item[0])
                if len(item) >= 5 and isinstance(item[1], dict):
                    self.listed.add(item[0])


def _vocabulary(names: Counter[str]) -> bool:
    """Whether names recur across lists, as field names do (unlike the ids of records)."""
    total = sum(names.values())
    return len(names) * 3 <= total and _digitless(names)


@dataclass(frozen=True)
class ListForms:
    """Which property-list forms a world's state uses."""

    one_key: bool = False
    """Lists of one-key objects are objects (a repeated key: a list of its values)."""
    pair_names: tuple[str, ...] = ()
    """Keys that name the items of a two-key list (``name``, ``Key``): the list is an
    object of each item's name → its other key's value. The key of the fewest names first:
    of an item's two keys, the name is the one whose values recur most."""
    tuples: bool = False
    """Lists of named tuples are objects; components are objects of their properties."""
    parametered: frozenset[str] = frozenset()
    """The names of tuples that carry parameters somewhere: each such value is shown as an
    object (``{"tzid": .., "value": ..}``, ``{"value": ..}`` without any), so that a field
    has one shape in every record (a timed event's start and an all-day one's alike)."""
    listed: frozenset[str] = frozenset()
    """The names of tuples that hold several values somewhere (``categories``), and of pairs
    given several times in one list somewhere: each such value is shown as a list, of one
    value or more."""
    names: frozenset[str] = frozenset()
    """The names seen in more than one list: a list is folded where most of its names are
    among them."""
    types: tuple[str, ...] = ()
    """The value types a tuple's third element names (after its parameters), the commonest
    first: dropped from the decoded value, named in the view's line on the stored form."""

    def __bool__(self) -> bool:
        return self.one_key or bool(self.pair_names) or self.tuples

    def describe(self) -> str:
        parts = []
        if self.one_key:
            parts.append("lists of one-key objects as one object (a key repeated: its values)")
        if self.pair_names:
            names = ", ".join(f'"{n}"' for n in self.pair_names[:4])
            parts.append(f"lists of two-key objects named by {names} as one object name → value")
        if self.tuples:
            parts.append(
                "lists of [name, parameters, type, value] arrays as one object name → value "
                '(a name that takes parameters: {..parameters, "value": ..}); a component '
                f'[name, properties, subcomponents] as an object: its name as "{KIND}", its '
                f'properties as fields, its subcomponents under "{SUBCOMPONENTS}"'
            )
        if self.types:
            named = ", ".join(f'"{t}"' for t in self.types)
            parts.append(f"the value types ({named}) left out")
        return "; ".join(parts)

    def fold(self, items: list[Any], decode: Callable[[Any], Any]) -> Any:
        """The object the list ``items`` stands for (its values decoded by ``decode``), or
        ``NOT_FOLDED`` when it is a plain list."""
        # A component's shape is evidence enough: its properties may be its own only.
        if self.tuples and _component(items):
            return self.component(items, decode)
        if self.tuples and items and _component(items[0]) and _components(items):
            return [self.component(i, decode) for i in items]
        names = _tuple_names(items) if self.tuples else None
        if names is not None and self.known(names):
            return _grouped((i[0], self.property(i, decode)) for i in items)
        keys = _one_keys(items) if self.one_key else None
        if keys is not None and self.known(keys):
            return _grouped((k, decode(i[k])) for k, i in zip(keys, items, strict=True))
        name = self.pair_name(items)
        if name is not None:
            others = Counter(k for i in items for k in i if k != name)
            value_key = others.most_common(1)[0][0]
            return _grouped((_pair(i, name, value_key, decode) for i in items), self.listed)
        return NOT_FOLDED

    def known(self, names: Iterable[str]) -> bool:
        """Whether most of a list's names recur across the state's lists: a record's fields,
        not a collection of records each wrapped in its own id (whose pointers must stay)."""
        names = list(names)
        return sum(n in self.names for n in names) * 2 >= len(names)

    def pair_name(self, items: list[Any]) -> str | None:
        if not items or len(items) > _MOST_ITEMS or not self.pair_names:
            return None
        if not all(isinstance(i, dict) and len(i) == 2 for i in items):
            return None
        for key in (k for k in self.pair_names if k in items[0]):
            names = [i.get(key) for i in items]
            if all(_name(n) for n in names) and _fields(names):
                return key if self.known(str(n) for n in names) else None
        return None

    def component(self, item: list[Any], decode: Callable[[Any], Any]) -> dict[str, Any]:
        shown: dict[str, Any] = {KIND: item[0]}
        for name, value in _grouped((p[0], self.property(p, decode)) for p in item[1]).items():
            shown.setdefault(name, value)
        if len(item) > 2 and item[2]:
            shown[SUBCOMPONENTS] = [
                self.component(i, decode) if _component(i) else decode(i) for i in item[2]
            ]
        return shown

    def property(self, item: list[Any], decode: Callable[[Any], Any]) -> Any:
        """A tuple's value, with its parameters beside it when it has any."""
        if _component(item):
            return self.component(item, decode)
        rest = item[1:]
        params = rest[0] if len(rest) >= 2 and isinstance(rest[0], dict) else None
        if params is not None:
            rest = rest[1:]
            if self.types and len(rest) >= 2 and _name(rest[0]):
                rest = rest[1:]
        values = [decode(v) for v in rest]
        value = values[0] if len(values) == 1 and item[0] not in self.listed else values
        if not params and item[0] not in self.parametered:
            return value
        shown = {str(k): decode(v) for k, v in (params or {}).items()}
        shown.setdefault("value", value)
        return shown


NOT_FOLDED = _NOT_FOLDED
""":meth:`ListForms.fold`'s answer for a plain list."""


def _grouped(
    pairs: Iterable[tuple[str, Any]], listed: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """Pairs as an object, the values of a name given more than once (here, or anywhere for
    a ``listed`` one) as a list."""
    grouped: dict[str, list[Any]] = {}
    for name, value in pairs:
        grouped.setdefault(name, []).append(value)
    return {n: v[0] if len(v) == 1 and n not in listed else v for n, v in grouped.items()}


def _pair(
    item: dict[str, Any], name: str, value_key: str, decode: Callable[[Any], Any]
) -> tuple[str, Any]:
    """An item's name and value; a value under another key than the list's value key (a
    reference instead of a literal) keeps that key."""
    ((other, value),) = ((k, v) for k, v in item.items() if k != name)
    return item[name], decode(value) if other == value_key else {other: decode(value)}


def _names_values(tally: ListTally, key: str) -> bool:
    """Whether ``key`` names the values of its lists' items: its values are a vocabulary,
    never repeated within a list (a setting is given once), and the values they name recur
    too (settings, headers and tags share values; a log's times and amounts do not)."""
    values = tally.pair_values[key]
    return (
        _vocabulary(tally.pair_names[key])
        and tally.pair_repeats[key] * 20 <= tally.pair_lists[key]
        and len(values) * 2 <= sum(values.values())
    )


def _typed_beside(tally: ListTally, key: str) -> bool:
    """Whether ``key``'s partner is a type tag (``{"__typename": "User", "login": ..}``): its
    values are names in (nearly) every list and fewer than ``key``'s. Such objects are typed
    records of one field, not a name and its value: folded, the names would become keys and
    the type their value (``{"ana": "User"}``), a form no answer quotes."""
    partner = tally.pair_partners[key].most_common(1)[0][0]
    kinds = len(tally.pair_names[partner])
    return tally.pair_lists[partner] * 10 >= tally.pair_keyed[partner] * 9 and 0 < kinds < len(
        tally.pair_names[key]
    )


def _names_fields(tally: ListTally, key: str) -> bool:
    """Whether ``key`` names a record's fields, some given several times and their values of
    any kind (numbers, objects, lists): its values are names in (nearly) every list that
    holds it, a vocabulary, the names of fields in each list; while its partner's values
    are names in fewer than half of theirs (a value is a name only now and then)."""
    lists = tally.pair_lists[key]
    partner = tally.pair_partners[key].most_common(1)[0][0]
    return (
        lists * 10 >= tally.pair_keyed[key] * 9
        and tally.pair_lists[partner] * 2 < tally.pair_keyed[partner]
        and _vocabulary(tally.pair_names[key])
        and tally.pair_logs[key] * 20 <= lists
    )


def forms_of(tally: ListTally) -> ListForms | None:
    """The property-list forms a state uses, found by structure in the tally of a sample of
    its lists (see :mod:`mcp_sim.runtime.state_sample`); ``None`` for none."""
    names = tally.one_key_names
    # Tags may be numbers (MARC's ``245``): they recur across records all the same.
    one_key = tally.one_key_lists >= _LEAST_LISTS and len(names) * 3 <= sum(names.values())
    pair_names = sorted(
        (len(tally.pair_names[key]) / sum(tally.pair_names[key].values()), key)
        for key, lists in tally.pair_lists.items()
        if lists >= _LEAST_LISTS
        and lists * 2 >= tally.pair_keyed[key]
        and (_names_values(tally, key) or _names_fields(tally, key))
        and not _typed_beside(tally, key)
    )
    tuples = tally.tuple_lists >= _LEAST_LISTS and _vocabulary(tally.tuple_names)
    typed = (
        tuples
        and sum(tally.tuple_types.values()) * 5 >= tally.tuples * 4
        and len(tally.tuple_types) <= _MOST_TYPES
    )
    types = tuple(t for t, _ in tally.tuple_types.most_common()) if typed else ()
    parametered = frozenset(tally.parametered if tuples else ())
    listed = set(tally.listed if typed else ())
    pairs = tuple(key for _, key in pair_names)
    # A pair's name given several times in one record is a list in every record (a field
    # has one shape throughout: one watcher is a list of one).
    listed.update(*(tally.pair_listed[key] for key in pairs))
    seen = tally.one_key_names + tally.tuple_names
    for key in pairs:
        seen += tally.pair_names[key]
    recurring = frozenset(name for name, count in seen.items() if count >= 2)
    forms = ListForms(one_key, pairs, tuples, parametered, frozenset(listed), recurring, types)
    return forms if forms else None

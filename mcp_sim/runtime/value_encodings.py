"""Value encodings: scalars wrapped in an object that says their type or carries attributes.

Some exports do not write a value as itself. DynamoDB JSON writes ``{"S": "Ana"}``,
``{"N": "37.5"}`` (a number as a string), ``{"L": [..]}``, ``{"M": {..}}``; Firestore writes
``{"stringValue": ..}``, ``{"integerValue": "7"}``, ``{"mapValue": {"fields": {..}}}``,
``{"arrayValue": {"values": [..]}}``; MongoDB extended JSON ``{"$oid": ..}``,
``{"$numberDecimal": "9.5"}``; an XML document turned into JSON (``xmltodict``) writes
attributes as ``"@name"`` keys and an element's text beside them as ``"#text"``.

None of this is known by name here. :func:`detect` finds an encoding by structure: a *type
tag* is the one key of an object, where the same few keys recur as the values of many
differently named fields, beside other tags (or marked as an operator, ``$``); a tag whose
strings are all numbers holds numbers; a tag whose object always holds the same one key
(``fields``, ``values``) wraps that key's value. An *attribute prefix* is one punctuation
character that many keys holding text start with, and the *text key* is the ``#`` key beside
them. :func:`mcp_sim.runtime.value_decoding.decode` gives the plain JSON such a value stands for, so lookups, searches, joins
and summaries read these worlds as they read plain ones (see
:mod:`mcp_sim.runtime.state_index`, which indexes the decoded state).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from typing import Any

from mcp_sim.runtime.property_lists import ListForms, ListTally, forms_of
from mcp_sim.runtime.state_sample import SAMPLED_NODES, sampled

NUMBER = re.compile(r"^-?\d+(\.\d+)?([eE][-+]?\d+)?$")
MIDNIGHT = re.compile(r"^\d{4}-\d{2}-\d{2}T00:00:00(\.0+)?(Z|[+-]00:?00)$")
_LEAST_TAGGED = 8
_LEAST_FIELDS = 4
"""A type tag wraps the values of at least this many differently named fields."""
_LEAST_ATTRIBUTES = 20
_MOST_TYPES = 12
"""A type attribute takes few values (``integer``, ``decimal``, ``array``, ...)."""
TEXT_VALUE = "value"
"""The name an element's text takes beside its attributes once decoded."""


@dataclass(frozen=True)
class Encoding:
    """How a world's values are written: its type tags and its attribute keys."""

    tags: frozenset[str] = frozenset()
    numeric: frozenset[str] = frozenset()
    """Tags whose strings are numbers (``N``, ``integerValue``, ``$numberDecimal``)."""
    wraps: dict[str, str] = field(default_factory=dict)
    """Tags whose object always holds one key, whose value it stands for (``mapValue`` →
    ``fields``)."""
    dates: frozenset[str] = frozenset()
    """Timestamp tags whose every value is at midnight UTC: dates stored as timestamps, as
    stores without a date type keep them (``2025-04-08T00:00:00Z`` is ``2025-04-08``)."""
    lists: frozenset[str] = frozenset()
    """Wrapping tags whose key holds a list (``arrayValue``): an empty one (``{}``) is ``[]``."""
    attribute: str | None = None
    """The prefix of attribute keys (``@``)."""
    text: str | None = None
    """The key of an element's text beside its attributes (``#text``)."""
    type_key: str | None = None
    """The attribute that says an element's type in typed XML (``@type``)."""
    typed_numbers: frozenset[str] = frozenset()
    """The types whose elements' text is always a number (``integer``, ``decimal``)."""
    typed_lists: dict[str, str] = field(default_factory=dict)
    """The types of elements listing one repeated child (``array`` → ``item``): a lone
    child is a list of one, no child an empty list."""
    forms: ListForms | None = None
    """Lists that stand for objects (see :mod:`mcp_sim.runtime.property_lists`)."""

    def __bool__(self) -> bool:
        return bool(self.tags) or self.attribute is not None or bool(self.forms)

    def describe(self) -> str:
        """A line telling the model how the stored values look beside the decoded ones."""
        parts = []
        if self.tags:
            shown = ", ".join(f'"{t}"' for t in sorted(self.tags)[:8])
            parts.append(f"each value wrapped in an object of one type tag ({shown})")
        if self.attribute is not None:
            parts.append(f'attributes as "{self.attribute}name" keys')
        if self.text is not None:
            parts.append(f'an element\'s text beside them as "{self.text}" (shown as "value")')
        if self.forms:
            parts.append(self.forms.describe())
        return "; ".join(parts)


@dataclass
class _Tally:
    count: Counter[str] = field(default_factory=Counter)
    fields: defaultdict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    strings: Counter[str] = field(default_factory=Counter)
    numbers: Counter[str] = field(default_factory=Counter)
    inner: defaultdict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    beside: defaultdict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    prefixed: Counter[str] = field(default_factory=Counter)
    prefixed_names: defaultdict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    hash_keys: Counter[str] = field(default_factory=Counter)
    listed: Counter[str] = field(default_factory=Counter)
    midnights: Counter[str] = field(default_factory=Counter)
    typed: defaultdict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    """An attribute key → the elements holding it beside at most one other key."""
    typed_values: defaultdict[str, Counter[str]] = field(
        default_factory=lambda: defaultdict(Counter)
    )
    typed_other: defaultdict[tuple[str, str], Counter[str]] = field(
        default_factory=lambda: defaultdict(Counter)
    )
    """(attribute key, its value) → the other key of the element (``""``: none)."""
    typed_numbers: Counter[tuple[str, str]] = field(default_factory=Counter)

    def wrapper(self, name: str, value: dict[str, Any]) -> str | None:
        if len(value) != 1:
            return None
        ((tag, inner),) = value.items()
        self.count[tag] += 1
        self.fields[tag].add(name)
        if isinstance(inner, str):
            self.strings[tag] += 1
            self.numbers[tag] += bool(NUMBER.match(inner.strip()))
            self.midnights[tag] += bool(MIDNIGHT.match(inner))
        elif isinstance(inner, dict) and inner:
            self.inner[tag][",".join(inner) if len(inner) == 1 else ""] += 1
            self.listed[tag] += any(isinstance(v, list) for v in inner.values())
        elif isinstance(inner, dict):
            # An empty container (Firestore's empty ``arrayValue``) says nothing of its shape.
            self.count[tag] -= 1
        else:
            self.inner[tag][""] += 1
        return tag

    def typed_element(self, name: str, element: dict[str, Any]) -> None:
        """Tally an element of an attribute and at most one other key (typed XML's
        ``{"@type": "integer", "#text": "312"}``, ``{"@type": "array", "item": [...]}``)."""
        for key, kind in element.items():
            if key[:1].isalnum() or key[:1] in "#$" or not isinstance(kind, str):
                continue
            other = next((k for k in element if k != key), "")
            self.typed[key].add(name)
            self.typed_values[key][kind] += 1
            self.typed_other[(key, kind)][other] += 1
            held = element.get(other)
            if isinstance(held, str) and NUMBER.match(held.strip()):
                self.typed_numbers[(key, kind)] += 1

    def node(self, value: dict[str, Any]) -> None:
        tags: set[str] = set()
        for name, item in value.items():
            if isinstance(item, dict) and 1 <= len(item) <= 2:
                self.typed_element(name, item)
            if name[:1] and not name[:1].isalnum() and isinstance(item, str | type(None)):
                self.prefixed[name[:1]] += 1
                self.prefixed_names[name[:1]].add(name)
            if name.startswith("#") and isinstance(item, str):
                self.hash_keys[name] += 1
            if isinstance(item, dict) and (tag := self.wrapper(name, item)) is not None:
                tags.add(tag)
            elif isinstance(item, list):
                for entry in item[:64]:
                    if isinstance(entry, dict) and (tag := self.wrapper("[]", entry)):
                        tags.add(tag)
        for tag in tags:
            self.beside[tag] |= tags - {tag}


def _tallies(state: Any) -> tuple[_Tally, ListTally]:
    """Tally a sample of ``state``'s objects for their encoding, and of its first lists for
    the forms they take, in one walk."""
    tally, lists = _Tally(), ListTally()
    for n, value in enumerate(sampled(state)):
        if isinstance(value, dict):
            tally.node(value)
        elif n < SAMPLED_NODES:
            lists.list_(value)
    return tally, lists


def _tags(tally: _Tally) -> set[str]:
    def candidate(tag: str) -> bool:
        names = tally.fields[tag]
        named = [n for n in names if n != "[]"]
        # Keys of a map of records (dates, ids) are not field names.
        idlike = sum(1 for n in named if any(c.isdigit() for c in n))
        return (
            _word(tag)
            and tally.count[tag] >= _LEAST_TAGGED
            and len(names) >= _LEAST_FIELDS
            and idlike * 2 <= len(named)
        )

    def recurring(tags: set[str]) -> set[str]:
        return {t for t in tags if tally.count[t] >= _LEAST_TAGGED}

    # A tag wraps many fields, beside another such tag or two other recurring one-key
    # wrappers (its dialect's other types); one marked as an operator (``$oid``) may wrap a
    # single field, beside another such operator.
    candidates = {t for t in tally.count if candidate(t)}
    found = {
        t
        for t in candidates
        if len(recurring(tally.beside[t])) >= 2 or tally.beside[t] & candidates
    }
    found |= {
        t
        for t in tally.count
        if t.startswith("$")
        and _word(t)
        and tally.count[t] >= _LEAST_TAGGED
        and any(b.startswith("$") for b in recurring(tally.beside[t]))
    }

    # A dialect's rarer tags (a flag, a set) wrap few fields, but beside its common ones or
    # inside them holding a scalar (``{"$date": {"$numberLong": "1700000000000"}}``).
    # Tags marked as operators (``$``) mark their rarer ones too: a plain field beside them
    # is no tag.
    marks = {t[:1] for t in found}
    mark = "".join(marks) if len(marks) == 1 and not "".join(marks).isalnum() else ""

    def rare() -> set[str]:
        return {
            t
            for t in tally.count
            if t not in found
            and _word(t)
            and t.startswith(mark)
            and (
                tally.beside[t] & found
                or (tally.fields[t] & found and tally.strings[t] * 2 >= tally.count[t])
            )
        }

    while more := rare():
        found |= more
    return found


def _word(tag: str) -> bool:
    """Whether a key can be a type tag: a word, not a date or an id keying a map."""
    return len(tag) <= 24 and not any(c.isdigit() or c.isspace() for c in tag)


def detect(state: Any) -> Encoding | None:
    """The encoding of ``state``'s values, found by structure; ``None`` for plain JSON."""
    tally, sampled_lists = _tallies(state)
    tags = _tags(tally)
    numeric = {
        t
        for t in tags
        if tally.strings[t]
        and tally.numbers[t] == tally.strings[t]
        and tally.strings[t] * 2 >= tally.count[t]
    }
    wraps = {}
    for tag in tags:
        shapes = tally.inner[tag]
        (only, seen), *rest = shapes.most_common() or [("", 0)]
        if only and only not in tags and not rest and seen * 2 >= tally.count[tag]:
            wraps[tag] = only
    lists = {t for t, key in wraps.items() if tally.listed[t] * 2 >= tally.inner[t][key]}
    dates = {t for t in tags if tally.strings[t] and tally.midnights[t] == tally.strings[t]}
    attribute = _attribute(tally)
    text = None
    if attribute is not None and tally.hash_keys:
        text = tally.hash_keys.most_common(1)[0][0]
    forms = forms_of(sampled_lists)
    if not tags and attribute is None and forms is None:
        return None
    found = Encoding(
        frozenset(tags),
        frozenset(numeric),
        wraps,
        frozenset(dates),
        frozenset(lists),
        attribute,
        text,
        forms=forms,
    )
    return _with_types(found, tally)


def _with_types(encoding: Encoding, tally: _Tally) -> Encoding:
    """``encoding`` with its type attribute: an attribute of few values that many differently
    named elements hold beside their text or one repeated child, and nothing else."""
    if encoding.attribute is None:
        return encoding
    for key, names in tally.typed.items():
        values = tally.typed_values[key]
        if not key.startswith(encoding.attribute) or len(names) < _LEAST_FIELDS:
            continue
        if len(values) > _MOST_TYPES or sum(values.values()) < _LEAST_ATTRIBUTES:
            continue
        numbers = set()
        lists = {}
        for kind in values:
            others = tally.typed_other[(key, kind)]
            texts = others[encoding.text or ""]
            if texts and tally.typed_numbers[(key, kind)] == texts == sum(others.values()):
                numbers.add(kind)
            child = next((k for k in others if k), "")
            if child and child != encoding.text and set(others) <= {child, ""}:
                lists[kind] = child
        return replace(encoding, type_key=key, typed_numbers=frozenset(numbers), typed_lists=lists)
    return encoding


def _attribute(tally: _Tally) -> str | None:
    """The prefix many keys holding text start with (``@``), other than the marks of
    operators (``$``) and of private fields (``_id``)."""
    for prefix, count in tally.prefixed.most_common(3):
        if prefix in "$_#":
            continue
        # Few attribute names are enough beside an element's text key (``#text``).
        names = len(tally.prefixed_names[prefix]) + (2 if tally.hash_keys else 0)
        if count >= _LEAST_ATTRIBUTES and names >= 3:
            return prefix
    return None

"""What the tools call the key of records that do not hold their own key.

A collection keyed by id whose records do not repeat the id (``"catalog": {"C10234-55":
{"name": ...}}``) shows that id only in a record's pointer; an answer names it as a field
(``"sku": "C10234-55"``). The world's tools say what the field is called: an argument whose
name fits the collection's (``flight_number`` for ``/flights``, ``reservation_id`` for
``/reservations``), or one whose description's example has the keys' shape (``sku``:
"Stock-keeping unit, e.g. C10234-55." for keys like ``B11109-41``). The view then writes that
name beside each such record's key, so the model answers with it.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from itertools import islice
from typing import Any

from jsonpointer import escape, unescape

from mcp_sim.prompting.field_names import name_score, tokens
from mcp_sim.prompting.record_fields import SELF, path_words
from mcp_sim.runtime.composite_keys import composite_id
from mcp_sim.runtime.mixed_collections import KIND_MARK, array_pointer
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.runtime.state_keys import pattern_of
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_shape import Collection, normalize, record_items
from mcp_sim.spec.world import World

_EXAMPLE = re.compile(r"\be\.g\.,?\s+([^\s,;()]+)")
_SHAPE = re.compile(r"[A-Z]+|[a-z]+|\d+")
_OWNER = re.compile(r"\b(\w+)'s id\b", re.IGNORECASE)
_SAMPLE = 50
_NAME_FIT = 0.85
"""The least fit of an argument's name to a collection's (``flight_number`` ↔ ``flights``)."""


def key_shape(key: str) -> str:
    """A key's shape: runs of capitals, small letters and digits collapsed, other characters
    kept (``C10234-55`` → ``A9-9``, ``HAT001`` → ``A9``)."""

    def run(match: re.Match[str]) -> str:
        text = match.group(0)
        return "9" if text.isdigit() else "A" if text.isupper() else "a"

    return _SHAPE.sub(run, key)


def _examples(world: World) -> list[tuple[str, str, str]]:
    """``(argument name, example value, description)`` for each argument, the example
    ``""`` where its description gives none."""
    found: list[tuple[str, str, str]] = []
    for tool in world.tools:
        properties = tool.input_schema.get("properties")
        if not isinstance(properties, dict):
            continue
        for name, schema in properties.items():
            text = schema.get("description", "") if isinstance(schema, dict) else ""
            text = text if isinstance(text, str) else ""
            for example in _EXAMPLE.findall(text):
                found.append((name, example.rstrip("."), text))
            found.append((name, "", text))
    return found


def _described_id(name: str, text: str, own: tuple[tuple[str, ...], ...]) -> bool:
    """Whether an argument called just ``id`` is the collection's key by its description
    ("The batch's id" for ``/batches``)."""
    owner = _OWNER.search(text)
    return tokens(name) == ("id",) and owner is not None and owner.group(1).lower() in own[0]


def _schema_key(world: World, argument: str, own: tuple[tuple[str, ...], ...]) -> str:
    """The id field the output schemas of the tools taking only ``argument`` name, when
    they agree on one that fits the collection (``readBoat(boatId)`` answering a required
    ``id``): how the answers name the key, whatever the argument is called."""
    found: set[str] = set()
    for tool in world.tools:
        properties = tool.input_schema.get("properties")
        schema = tool.output_schema
        if not isinstance(properties, dict) or list(properties) != [argument] or not schema:
            continue
        named = [*schema.get("required", []), *(schema.get("properties") or {})]
        found.update(
            n
            for n in named
            if isinstance(n, str)
            and tokens(n)[-1:] == ("id",)
            and (tokens(n) == ("id",) or name_score(tokens(n), own) >= _NAME_FIT)
        )
    return found.pop() if len(found) == 1 else ""


def _composite_keyed(collection: Collection, value: Any) -> bool:
    """Whether an array's records are keyed by the ids their composite keys give them
    (``PK: "MEMBER#1042"``; see :func:`mcp_sim.runtime.composite_keys.composite_id`)."""
    # Only a kind's records are labelled by their key (see :func:`kind_key`): a plain
    # array's pointer names its position, no key.
    if collection.kind is None or collection.id_field is not None:
        return False
    sample = [record for _, _, record in islice(record_items(collection, value), _SAMPLE)]
    return bool(sample) and all(composite_id(record) is not None for record in sample)


def _keys_unheld(collection: Collection, value: Any) -> list[str] | None:
    """A sample of the collection's keys when its records do not hold them, else ``None``."""
    keys: list[str] = []
    for key, _, record in record_items(collection, value):
        if len(keys) >= _SAMPLE:
            break
        if not isinstance(record, dict):
            return None
        label = normalize(key)
        if any(normalize(v) == label for v in record.values() if not isinstance(v, dict | list)):
            return None
        keys.append(key)
    return keys or None


def _name_for(collection: Collection, keys: list[str], examples: list[tuple[str, str, str]]) -> str:
    shapes = Counter(key_shape(k) for k in keys)
    shape, count = shapes.most_common(1)[0]
    regular = count * 5 >= len(keys) * 4
    own = _own_words(collection)
    by_name: Counter[str] = Counter()
    by_example: Counter[str] = Counter()
    for name, example, text in examples:
        if name_score(tokens(name), own) >= _NAME_FIT or _described_id(name, text, own):
            by_name[name] += 1
        if example and regular and key_shape(example) == shape:
            by_example[name] += 1
    for found in (by_name, by_example):
        if found:
            return found.most_common(1)[0][0]
    return ""


def _own_words(collection: Collection) -> tuple[tuple[str, ...], ...]:
    # A key pattern (``/rider:*:profile``) is named by its type word.
    kind = collection.keys.prefix[:-1] if collection.keys else ""
    return path_words(SELF, f"/{kind}" if kind else collection.pointer)


class KeyName(str):
    """A key's name, and whether the tools take the key as a number (``bed_id`` of type
    ``integer``: a map's text key ``"1574"`` is the number 1574 in an answer)."""

    number: bool

    def __new__(cls, name: str, number: bool = False) -> KeyName:
        made = super().__new__(cls, name)
        made.number = number
        return made


def _integral(key: str) -> bool:
    return key.isdigit() and str(int(key)) == key


def _integer_argument(world: World, name: str) -> bool:
    """Whether a tool's argument ``name`` is declared an integer."""
    for tool in world.tools:
        properties = tool.input_schema.get("properties")
        schema = properties.get(name) if isinstance(properties, dict) else None
        if isinstance(schema, dict) and schema.get("type") == "integer":
            return True
    return False


def key_names(world: World, index: StateIndex) -> dict[str, str]:
    """Collection pointer → the name the tools give its records' keys, for the keyed
    collections whose records do not hold their key (computed once per world)."""
    cached = index.derived.get("key_names")
    if isinstance(cached, dict):
        return cached
    examples = _examples(world)
    names: dict[str, str] = {}
    for collection in index.collections:
        # A kind's records in a single table are keyed by their composite keys' ids.
        value = resolve(index.state, array_pointer(collection.pointer))
        if not collection.keyed and not _composite_keyed(collection, value):
            continue
        keys = _keys_unheld(collection, value)
        name = _name_for(collection, keys, examples) if keys else ""
        if name:
            # The answers' own name for the key, where an output schema gives it.
            schema_key = _schema_key(world, name, _own_words(collection))
            spelt = schema_key or respelt(name, _field_names(collection, value))
            whole = keys is not None and all(_integral(k) for k in keys)
            name = KeyName(spelt, number=whole and _integer_argument(world, name))
        if name:
            names[collection.pointer] = name
    index.derived["key_names"] = names
    return names


_CASINGS: dict[str, Callable[[list[str]], str]] = {
    "snake": "_".join,
    "kebab": "-".join,
    "camel": lambda w: w[0] + "".join(x.title() for x in w[1:]),
    "pascal": lambda w: "".join(x.title() for x in w),
    "upper": lambda w: "_".join(x.upper() for x in w),
}


def casing_of(name: str) -> str | None:
    """The casing of a name of two words or more (``homeDepot``: camel), else ``None``."""
    if "_" in name:
        return "upper" if name.isupper() else "snake" if name.islower() else None
    if "-" in name:
        return "kebab" if name.islower() else None
    # One word in capitals (``SPECS``) shows no casing: it is any casing's word.
    if name.isalpha() and not name.isupper() and any(c.isupper() for c in name[1:]):
        return "pascal" if name[0].isupper() else "camel"
    return None


def respelt(name: str, fields: list[str]) -> str:
    """``name`` written in the casing the records' own field names share (``bed_id`` →
    ``BedId`` beside ``CropName``): a service names a record's key as it names its fields.
    Unchanged when the fields' casings disagree or say nothing."""
    casings = Counter(c for c in map(casing_of, fields) if c is not None)
    if not casings:
        return name
    casing, count = casings.most_common(1)[0]
    words = [w.lower() for w in _WORDS.findall(name)]
    if count * 5 < sum(casings.values()) * 4 or not words:
        return name
    if len(words) < 2:
        # One word is cased only where the fields' casing shows in every word (``ID``
        # beside ``BREW_NAME``, ``Id`` beside ``CropName``).
        return _CASINGS[casing](words) if casing in ("upper", "pascal") else name
    return _CASINGS[casing](words)


_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def _field_names(collection: Collection, value: Any) -> list[str]:
    names: list[str] = []
    for _, _, record in record_items(collection, value):
        if len(names) >= _SAMPLE * 4:
            break
        if isinstance(record, dict):
            names.extend(record)
    return names


def kind_key(pointer: str, names: dict[str, str], record: Any) -> tuple[str, str] | None:
    """The collection and key of a record of a mixed array's kind whose keys the tools
    name (a single table's ``/Items/244``, of ``/Items/@Member``: member 1589 by its
    composite key ``MEMBER#1589``), which its pointer does not tell; else ``None``."""
    array = pointer.rpartition("/")[0]
    if not isinstance(record, dict) or not names:
        return None
    key = composite_id(record)
    for collection in names:
        at, _, last = collection.rpartition("/")
        kind = unescape(last)
        if at != array or not kind.startswith(KIND_MARK) or key is None:
            continue
        if any(v == kind[len(KIND_MARK) :] for v in record.values() if isinstance(v, str)):
            return collection, key
    return None


def key_label(pointer: str, names: dict[str, str], own: tuple[str, str] | None = None) -> str:
    """The label written after a record's pointer naming its key (`` (key "sku":"C1-2")``),
    ``""`` when its collection's records hold their key or the tools do not name it;
    ``own``: the record's collection and key where its pointer does not tell them (a
    single table's item, keyed by its composite key's id)."""
    collection, _, key = pointer.rpartition("/")
    if own is not None:
        collection, key = own[0], escape(own[1])
    name = names.get(collection)
    shown_key: str | None = unescape(key)
    if not name:
        # A flat store's record sits beside its pattern's name (``/bike:*``), keyed by its
        # key's id part.
        name, shown_key = _pattern_key(collection, unescape(key), names)
    if not name or not shown_key:
        return ""
    shown = json.dumps(shown_key, ensure_ascii=False)
    number = isinstance(name, KeyName) and name.number
    if (shown_key != unescape(key) or number) and _integral(shown_key):
        # A store's ``rider:42`` is rider 42, and a map's key "1574" the number 1574 when the
        # tools take it as one: a number only the key made text.
        shown = shown_key
    return f" (key {json.dumps(name, ensure_ascii=False)}:{shown})"


def _pattern_key(parent: str, key: str, names: dict[str, str]) -> tuple[str, str | None]:
    """The name of the key pattern at ``parent`` that ``key`` follows, and its id part."""
    for collection, name in names.items():
        at, _, last = collection.rpartition("/")
        pattern = pattern_of(unescape(last)) if at == parent else None
        found = pattern.id_of(key) if pattern is not None else None
        if found is not None:
            return name, found
    return "", None

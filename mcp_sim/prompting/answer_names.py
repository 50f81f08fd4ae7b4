"""The names a tool's answers give the fields of the records they describe.

A service names its fields the same way from call to call, but not always as its store does:
``get_pod`` answers ``restarts`` where the state holds ``status/containerStatuses/0/restartCount``
and ``pod`` where it holds ``metadata/name``. The model sees the state's names and must guess
the answer's. The tool's earlier answers in the episode show the mapping: each answer
describes a record of the state (the one holding most of its identifying values), and each
of its keys whose value equals exactly one field of that record, under another name, names
that field. Mappings that agree over the answers are kept (one that any answer contradicts is
dropped), per collection; a later call's view then shows the records it picked of that
collection relabelled: ``"restarts": 3`` beside the record, with the field it comes from.

A service names a field the same way across its endpoints (``get_reservation``'s
``guest_id`` is ``room_guests``'s), and a join or a summary is called about once an episode, so
never sees its own earlier answers: the other tools' answers feed the mapping too. The tool's
own answers come first; another tool's mapping fills only the keys they leave, and is dropped
where the other tools' answers disagree on it.

Only the episode's own answers feed it (see :func:`mcp_sim.simulator.prompt.earlier_answers`).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from mcp_sim.prompting.answer_sources import Source, is_scalar, leaves
from mcp_sim.prompting.field_names import tokens
from mcp_sim.prompting.schema_names import schema_sources
from mcp_sim.runtime.composite_keys import key_parts
from mcp_sim.runtime.state_index import StateOverlay
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_shape import normalize
from mcp_sim.spec.world import ToolSpec

MAX_OBJECT_DEPTH = 6
FEW_HOLDERS = 5
"""An answer's value held by more records than this does not say which record it describes."""
OTHER_ANSWERS = 8
"""The latest answers of a session's other tools read for their names."""
MAX_RECORDS = 12
"""Records of a call's view shown relabelled (the first picked), room allowing: a join or a
search answers with a dozen records."""
_LATER_ITEM = re.compile(r"(^|/)[1-9][0-9]*(/|$)")
HEADING = (
    "**As this service's answers name their fields** (answer key: value, from field, "
    "given once per collection):"
)


@dataclass
class AnswerNames:
    """Answer keys → field paths (relative to the record), per collection pointer."""

    fields: dict[str, dict[str, Source]] = field(default_factory=dict)
    answered: set[str] = field(default_factory=set)
    """The collections the tool's own answers describe records of."""
    schema: dict[str, Any] | None = None
    """The tool's output schema: its property names name fields too (see
    :mod:`mcp_sim.prompting.schema_names`), where the answers have not."""

    def render(
        self,
        overlay: StateOverlay,
        state: Any,
        pointers: Iterable[str],
        room: int,
        hits: Iterable[str] = (),
    ) -> str:
        """The picked records (``pointers``, best first) of a collection with known names,
        then a search's ``hits`` of a collection the tool's own answers describe, relabelled,
        within ``room`` characters; ``""`` when there are none."""
        lines: list[str] = []
        used = len(HEADING) + 1
        sourced: set[tuple[str, str, Source]] = set()
        # A search's hits show the names only where the tool has answered about their
        # collection: another tool's names of a record are seldom the keys a list gives.
        listed = dict.fromkeys(pointers, True)
        listed |= {p: False for p in hits if p not in listed}
        for pointer, picked in list(listed.items())[: MAX_RECORDS * 4]:
            record = resolve(state, pointer)
            collection = overlay.base.collection_pointer(pointer)
            if not isinstance(record, dict) or not (picked or collection in self.answered):
                continue
            names = schema_sources(self.schema, record) | self.fields.get(collection, {})
            # Where a key comes from is said once per collection: the records after the
            # first only repeat the values, a join's dozen rows in the room of a few.
            pairs = [
                f"{json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}"
                + ("" if (collection, key, source) in sourced else f" ({source})")
                for key, source in sorted(names.items())
                if is_scalar(value := source.value(record))
            ]
            line = f"- {pointer}: " + ", ".join(pairs)
            if not pairs or used + len(line) + 1 > room:
                continue
            sourced.update((collection, key, source) for key, source in names.items())
            lines.append(line)
            used += len(line) + 1
            if len(lines) >= MAX_RECORDS:
                break
        return "\n".join([HEADING, *lines]) if lines else ""


def answer_names(
    overlay: StateOverlay,
    state: Any,
    answers: Sequence[str],
    tool: ToolSpec | None = None,
    others: Sequence[str] = (),
) -> AnswerNames:
    """What ``answers`` (``tool``'s earlier answers, oldest first), ``others`` (the other
    tools' earlier answers) and ``tool``'s output schema call the fields of the records they
    describe (see the module's docstring)."""
    names = AnswerNames(schema=tool.output_schema if tool is not None else None)
    answered: dict[str, set[str]] = {}
    own = _agreed(overlay, state, answers, keys=answered)
    names.answered = set(answered)
    for collection, fields in _agreed(overlay, state, others).items():
        # Where the tool has answered about the collection, its answers say which keys it
        # gives: another tool's ``nightly_rate`` is no key of a search that lists stays.
        said = answered.get(collection)
        kept = {k: s for k, s in fields.items() if said is None or k in said}
        if kept:
            names.fields[collection] = kept
    for collection, fields in own.items():
        # The tool's own answers name its keys best: they win over the other tools'.
        names.fields[collection] = names.fields.get(collection, {}) | fields
    return names


def _agreed(
    overlay: StateOverlay,
    state: Any,
    answers: Sequence[str],
    *,
    keys: dict[str, set[str]] | None = None,
) -> dict[str, dict[str, Source]]:
    """Per collection, the answer keys whose field ``answers`` agree on, each seen twice or
    with a value no field holds by chance (see :func:`_distinctive`). ``keys`` (when given)
    gets every key the answers give about each collection's records."""
    seen: dict[str, dict[str, Counter[Source]]] = {}
    telling: set[tuple[str, str]] = set()
    for text in answers:
        for collection, given, named, distinct in _read_answer(overlay, state, text):
            counts = seen.setdefault(collection, {})
            if keys is not None:
                keys.setdefault(collection, set()).update(given)
            for key, source in named.items():
                counts.setdefault(key, Counter())[source] += 1
            telling.update((collection, key) for key in distinct)
    agreed: dict[str, dict[str, Source]] = {}
    for collection, counts in seen.items():
        fields = {
            k: next(iter(c))
            for k, c in counts.items()
            if len(c) == 1 and ((collection, k) in telling or c.total() > 1)
        }
        if fields:
            agreed[collection] = fields
    return agreed


AnswerReading = list[tuple[str, frozenset[str], dict[str, Source], frozenset[str]]]
"""Per object of an answer describing a record: its collection, the answer's keys, the keys
naming one field of the record (:func:`_named`) and those of them whose values tell by
themselves (:func:`_distinctive`)."""
_READ = "answers read for names"


def _read_answer(overlay: StateOverlay, state: Any, text: str) -> AnswerReading:
    """What one answer says of the records it describes; read once per state version (kept
    on the overlay, for the very state read), since every later call reads the same answers."""
    memo: dict[str, tuple[Any, AnswerReading]] = overlay.derived.setdefault(_READ, {})
    kept = memo.get(text)
    if kept is not None and kept[0] is state:
        return kept[1]
    reading: AnswerReading = []
    try:
        parsed = json.loads(text)
    except (json.JSONDecodeError, TypeError):
        parsed = None
    for answer in _objects(parsed, 0) if parsed is not None else ():
        pointer = _described(overlay, answer)
        record = resolve(state, pointer) if pointer is not None else None
        if pointer is None or not isinstance(record, dict):
            continue
        named = _named(overlay, answer, record)
        distinct = frozenset(k for k in named if _distinctive(answer[k]))
        reading.append(
            (overlay.base.collection_pointer(pointer), frozenset(answer), named, distinct)
        )
    memo[text] = (state, reading)
    return reading


def _objects(value: Any, depth: int) -> Iterator[dict[str, Any]]:
    """The objects of an answer that may describe a record: itself and those nested in it."""
    if depth > MAX_OBJECT_DEPTH:
        return
    if isinstance(value, dict):
        yield value
        for inner in value.values():
            yield from _objects(inner, depth + 1)
    elif isinstance(value, list):
        for inner in value:
            yield from _objects(inner, depth + 1)


def _described(overlay: StateOverlay, answer: dict[str, Any]) -> str | None:
    """The record holding most of the answer's identifying values (its key, rare values)."""
    votes: Counter[str] = Counter()
    for value in answer.values():
        label = normalize(value) if isinstance(value, str) and len(value) >= 3 else None
        if label is None:
            continue
        for hit in overlay.key_hits(label):
            votes[hit.pointer] += 2
        if 0 < overlay.holders(label) <= FEW_HOLDERS:
            votes.update(overlay.value_hits(label).keys())
    best = votes.most_common(2)
    if not best or (len(best) > 1 and best[0][1] == best[1][1]):
        return None
    return best[0][0]


def _named(
    overlay: StateOverlay, answer: dict[str, Any], record: dict[str, Any]
) -> dict[str, Source]:
    """The answer's keys not among the record's field names whose value one field holds
    (or, failing that, one part of one composite key)."""
    fields = _record_fields(overlay, record)
    found: dict[str, Source] = {}
    for key, value in answer.items():
        label = normalize(value) if is_scalar(value) else None
        if label is None or tokens(key) in fields.names:
            continue
        sources = [Source(p) for p in fields.by_label.get(label, ())] or [
            Source(p, i) for p, i in fields.parts().get(label, ())
        ]
        # A value in the second item of a list is a sub-record's (a folio's fourth line):
        # the answer names that item, not a field every record of the collection has; and a
        # value that is the key of the entry holding it (``payment_methods/paypal_15/id``)
        # names that one entry, which shows it as its key already.
        if (
            len(sources) == 1
            and not _LATER_ITEM.search(sources[0].path)
            and not _keys_its_entry(sources[0].path, label)
        ):
            found[key] = sources[0]
    return found


def _keys_its_entry(path: str, label: str) -> bool:
    """Whether a field's value is also the key of an object the path steps through (a value
    of three characters or more: a list's index is no key)."""
    return len(label) >= 3 and any(normalize(step) == label for step in path.split("/")[:-1])


class _RecordFields:
    """A record's scalar fields as :func:`_named` matches an answer's values against them,
    read once: each answer key looked up rather than compared with every field (a sorted
    set of 20,000 members is one record, and every earlier answer about it is read again
    after each write)."""

    def __init__(self, record: dict[str, Any]) -> None:
        self.leaves = list(leaves(record))
        self.names = {tokens(path.rpartition("/")[2]) for path, _ in self.leaves}
        self.by_label: dict[str, list[str]] = {}
        for path, value in self.leaves:
            label = normalize(value)
            if label is not None:
                self.by_label.setdefault(label, []).append(path)
        self._parts: dict[str, list[tuple[str, int]]] | None = None

    def parts(self) -> dict[str, list[tuple[str, int]]]:
        """The paths (and positions) of each normalized part of a composite key the record's
        text fields hold; read on the first answer value no field holds whole."""
        if self._parts is None:
            self._parts = {}
            for path, value in self.leaves:
                if not isinstance(value, str):
                    continue
                for i, part in enumerate(key_parts(value)):
                    label = normalize(part)
                    if label is not None:
                        self._parts.setdefault(label, []).append((path, i))
        return self._parts


_FIELDS = "record fields for names"
_MOST_FIELDS = 512
"""Records whose fields are kept read: committed states share their unchanged records (see
:func:`mcp_sim.runtime.state.copied_along`), so a record's reading holds from call to call."""


def _record_fields(overlay: StateOverlay, record: dict[str, Any]) -> _RecordFields:
    """``record``'s fields, read once while the record is unchanged (kept by its identity,
    beside the record itself so that the identity stays its own)."""
    memo: dict[int, tuple[dict[str, Any], _RecordFields]] = overlay.base.derived.setdefault(
        _FIELDS, {}
    )
    kept = memo.get(id(record))
    if kept is not None and kept[0] is record:
        return kept[1]
    if len(memo) >= _MOST_FIELDS:
        memo.clear()
    fields = memo[id(record)] = (record, _RecordFields(record))
    return fields[1]


def _distinctive(value: Any) -> bool:
    """Whether a value names its field by itself: a text or a large or fractional number.
    An answer's ``"hours": 8`` equals a space's ``seats`` by chance, ``"joins": 0`` a topic's
    ``last_set``: such a mapping needs a second answer agreeing."""
    if isinstance(value, str):
        return len(value) >= 3
    return isinstance(value, int | float) and (abs(value) >= 100 or value != int(value))

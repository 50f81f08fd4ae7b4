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
MAX_RECORDS = 6
"""Records of a call's view shown relabelled (the first picked)."""
_LATER_ITEM = re.compile(r"(^|/)[1-9][0-9]*(/|$)")
HEADING = "**As this tool's answers name their fields** (answer key: value, from field):"


@dataclass
class AnswerNames:
    """Answer keys → field paths (relative to the record), per collection pointer."""

    fields: dict[str, dict[str, Source]] = field(default_factory=dict)
    schema: dict[str, Any] | None = None
    """The tool's output schema: its property names name fields too (see
    :mod:`mcp_sim.prompting.schema_names`), where the answers have not."""

    def render(self, overlay: StateOverlay, state: Any, pointers: Iterable[str], room: int) -> str:
        """The picked records (``pointers``, best first) of a collection with known names,
        relabelled, within ``room`` characters; ``""`` when there are none."""
        lines: list[str] = []
        used = len(HEADING) + 1
        for pointer in list(pointers)[: MAX_RECORDS * 4]:
            record = resolve(state, pointer)
            if not isinstance(record, dict):
                continue
            learned = self.fields.get(_collection(overlay, pointer), {})
            names = schema_sources(self.schema, record) | learned
            pairs = [
                f"{json.dumps(key)}: {json.dumps(value, ensure_ascii=False)} ({source})"
                for key, source in sorted(names.items())
                if is_scalar(value := source.value(record))
            ]
            line = f"- {pointer}: " + ", ".join(pairs)
            if not pairs or used + len(line) + 1 > room:
                continue
            lines.append(line)
            used += len(line) + 1
            if len(lines) >= MAX_RECORDS:
                break
        return "\n".join([HEADING, *lines]) if lines else ""


def answer_names(
    overlay: StateOverlay, state: Any, answers: Sequence[str], tool: ToolSpec | None = None
) -> AnswerNames:
    """What ``answers`` (``tool``'s earlier answers, oldest first) and ``tool``'s output
    schema call the fields of the records they describe (see the module's docstring)."""
    seen: dict[str, dict[str, Counter[Source]]] = {}
    for text in answers:
        try:
            parsed = json.loads(text)
        except (json.JSONDecodeError, TypeError):
            continue
        for answer in _objects(parsed, 0):
            pointer = _described(overlay, answer)
            record = resolve(state, pointer) if pointer is not None else None
            if pointer is None or not isinstance(record, dict):
                continue
            counts = seen.setdefault(_collection(overlay, pointer), {})
            for key, source in _named(answer, record).items():
                counts.setdefault(key, Counter())[source] += 1
    names = AnswerNames(schema=tool.output_schema if tool is not None else None)
    for collection, counts in seen.items():
        agreed = {k: next(iter(c)) for k, c in counts.items() if len(c) == 1}
        if agreed:
            names.fields[collection] = agreed
    return names


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


def _named(answer: dict[str, Any], record: dict[str, Any]) -> dict[str, Source]:
    """The answer's keys not among the record's field names whose value one field holds
    (or, failing that, one part of one composite key)."""
    fields = dict(leaves(record))
    names = {tokens(path.rpartition("/")[2]) for path in fields}
    found: dict[str, Source] = {}
    for key, value in answer.items():
        label = normalize(value) if is_scalar(value) else None
        if label is None or tokens(key) in names:
            continue
        sources = [Source(p) for p, v in fields.items() if normalize(v) == label] or [
            Source(p, i)
            for p, v in fields.items()
            if isinstance(v, str)
            for i, part in enumerate(key_parts(v))
            if normalize(part) == label
        ]
        # A value in the second item of a list is a sub-record's (a folio's fourth line):
        # the answer names that item, not a field every record of the collection has.
        if len(sources) == 1 and not _LATER_ITEM.search(sources[0].path):
            found[key] = sources[0]
    return found


def _collection(overlay: StateOverlay, pointer: str) -> str:
    collection = overlay.base.collection_of(pointer)
    return collection.pointer if collection is not None else ""

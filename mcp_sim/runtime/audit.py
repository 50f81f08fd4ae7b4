"""The consistency auditor: checks each observation against the session's declared entities.

Three contradictions are caught, for every entity the world declares:

- **unknown id**: the observation describes a record (a JSON object carrying the entity's id
  field) whose id exists neither before nor after the call, or mentions an id that fits the
  entity's id pattern but names no record;
- **resurrected**: a record deleted earlier in the session appears again;
- **immutable field changed**: a record is shown with a value of one of its ``immutable_fields``
  that differs from the state.

Ids the agent itself passed in the call's arguments may be *mentioned* freely (``not_found:
ord_00099`` is a faithful answer), but never *described* as an existing record. The simulator
asks once more when an answer has violations, describing them; what is left is counted.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from mcp_sim.runtime.entities import EntityIndex, string_values
from mcp_sim.spec.world import World

ViolationKind = Literal["unknown_id", "resurrected", "immutable_changed"]


@dataclass(frozen=True)
class Violation:
    kind: ViolationKind
    entity: str
    id: str
    detail: str

    def __str__(self) -> str:
        return self.detail


@dataclass(frozen=True)
class _Frame:
    """What the auditor compares one observation with."""

    before: EntityIndex
    after: EntityIndex
    deleted: Mapping[str, set[str]]

    def exists(self, entity: str, record_id: str) -> bool:
        return (
            self.after.get(entity, record_id) is not None
            or self.before.get(entity, record_id) is not None
        )

    def was_deleted(self, entity: str, record_id: str) -> bool:
        return record_id in self.deleted.get(entity, set()) and (
            self.after.get(entity, record_id) is None
        )


def _json_values(text: str) -> Any:
    raw = text.strip()
    fence = re.fullmatch(r"```[A-Za-z]*\s*(.*?)\s*```", raw, re.DOTALL)
    if fence:
        raw = fence.group(1)
    if not raw.startswith(("{", "[")):
        return None
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return None


def _objects(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from _objects(item)
    elif isinstance(value, list):
        for item in value:
            yield from _objects(item)


class Auditor:
    """Finds contradictions between observations and the state of one world's sessions."""

    def __init__(self, world: World) -> None:
        self.world = world
        self._regex: dict[str, re.Pattern[str]] = {}
        for name in world.entities:
            pattern = world.id_regex(name)
            if pattern is not None:
                self._regex[name] = re.compile(
                    rf"(?<![A-Za-z0-9_])(?:{pattern.pattern})(?![A-Za-z0-9_])"
                )

    @property
    def enabled(self) -> bool:
        return bool(self.world.entities)

    def check(
        self,
        observation: str,
        arguments: dict[str, Any],
        *,
        before: EntityIndex,
        after: EntityIndex,
        deleted: Mapping[str, set[str]],
    ) -> list[Violation]:
        """Violations in ``observation``, an answer to a call with ``arguments`` that turned
        state ``before`` into ``after``; ``deleted`` holds the ids removed by earlier calls."""
        frame = _Frame(before, after, deleted)
        found: dict[tuple[ViolationKind, str, str], Violation] = {}
        described: set[tuple[str, str]] = set()
        data = _json_values(observation)
        for record in _objects(data):
            for violation in self._check_record(record, frame, described):
                found.setdefault((violation.kind, violation.entity, violation.id), violation)
        given = set(string_values(arguments))
        for violation in self._check_mentions(observation, frame, described, given):
            found.setdefault((violation.kind, violation.entity, violation.id), violation)
        return list(found.values())

    def _entity_of(self, record: dict[str, Any], frame: _Frame) -> list[tuple[str, str]]:
        """Which entities ``record`` is a record of, with its id as text. Carrying an entity's
        id field is not enough (an order has a ``sku`` too, and is no product): at least half of
        its keys must also be keys of that entity's records."""
        matches = []
        for name, spec in self.world.entities.items():
            value = record.get(spec.id)
            if value is None or isinstance(value, dict | list | bool):
                continue
            record_id = str(value)
            regex = self._regex.get(name)
            fits = regex is not None and regex.fullmatch(record_id) is not None
            known = frame.exists(name, record_id) or frame.was_deleted(name, record_id)
            if not (fits or known):
                continue
            same = frame.after.get(name, record_id) or frame.before.get(name, record_id)
            sample = same.record if same else frame.after.sample(name)
            if sample is None or 2 * len(record.keys() & sample.keys()) >= len(record):
                matches.append((name, record_id))
        return matches

    def _check_record(
        self, record: dict[str, Any], frame: _Frame, described: set[tuple[str, str]]
    ) -> Iterator[Violation]:
        for name, record_id in self._entity_of(record, frame):
            described.add((name, record_id))
            if frame.was_deleted(name, record_id):
                yield Violation(
                    "resurrected",
                    name,
                    record_id,
                    f"{name} {record_id} was deleted earlier in this session, but the "
                    "observation shows it as an existing record",
                )
                continue
            current = frame.after.get(name, record_id) or frame.before.get(name, record_id)
            if current is None:
                yield Violation(
                    "unknown_id",
                    name,
                    record_id,
                    f"the observation shows {name} {record_id}, which does not exist in the "
                    "world state",
                )
                continue
            for fld in self.world.entities[name].immutable_fields:
                if fld in record and fld in current.record and record[fld] != current.record[fld]:
                    yield Violation(
                        "immutable_changed",
                        name,
                        record_id,
                        f"the observation shows {fld} of {name} {record_id} as "
                        f"{json.dumps(record[fld])}, but it is "
                        f"{json.dumps(current.record[fld])} and never changes",
                    )

    def _check_mentions(
        self, text: str, frame: _Frame, described: set[tuple[str, str]], given: set[str]
    ) -> Iterator[Violation]:
        for name, regex in self._regex.items():
            for match in regex.finditer(text):
                record_id = match.group()
                if (name, record_id) in described or record_id in given:
                    continue
                described.add((name, record_id))
                if frame.was_deleted(name, record_id):
                    yield Violation(
                        "resurrected",
                        name,
                        record_id,
                        f"the observation mentions {name} {record_id}, which was deleted "
                        "earlier in this session",
                    )
                elif not frame.exists(name, record_id):
                    yield Violation(
                        "unknown_id",
                        name,
                        record_id,
                        f"the observation mentions {name} {record_id}, which does not exist "
                        "in the world state",
                    )
        for name in self.world.entities:
            if name in self._regex:
                continue
            # Without an id pattern, only ids known to be deleted can be recognised in text.
            for record_id in sorted(frame.deleted.get(name, set())):
                if (name, record_id) in described or record_id in given:
                    continue
                if frame.was_deleted(name, record_id) and re.search(
                    rf"(?<![A-Za-z0-9_]){re.escape(record_id)}(?![A-Za-z0-9_])", text
                ):
                    described.add((name, record_id))
                    yield Violation(
                        "resurrected",
                        name,
                        record_id,
                        f"the observation mentions {name} {record_id}, which was deleted "
                        "earlier in this session",
                    )


def record_deletions(deleted: dict[str, set[str]], before: EntityIndex, after: EntityIndex) -> None:
    """Update a session's deleted ids for a committed change from ``before`` to ``after``."""
    for name in after.entities():
        gone = before.ids(name) - after.ids(name)
        back = after.ids(name)
        current = deleted.setdefault(name, set())
        current |= gone
        current -= back

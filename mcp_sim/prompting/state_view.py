"""What of a large world state the model sees in the prompt.

A state that fits the token budget is shown whole. A larger one (a shop with thousands of
orders) is shown as a view that fits:

- a **skeleton** of the document: small values verbatim, large arrays and objects replaced by a
  placeholder naming their pointer;
- an **outline** of each placeholder: its pointer, size, the entity it holds (with id field and
  id range) and the shape of one sample record, so the model knows what exists and where to add;
- the **records the call refers to**, verbatim with their JSON pointers: those whose ids occur in
  the call's arguments first, then in the most recent turns; then, while room is left, the last
  few records of each outlined collection (real examples, and the newest ones). Patches address
  them by pointer.

Changes still apply to the whole document; the view is only what is shown. A turn after the
anchor turn (see :mod:`mcp_sim.prompting.native`) shows only the records its call refers to
(:meth:`StateView.referenced`), so the model has their current pointers for its patch.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from jsonpointer import escape, resolve_pointer

from mcp_sim.prompting.native import estimate_tokens, render_changes, render_state
from mcp_sim.runtime.entities import EntityIndex, EntityRecord, string_values
from mcp_sim.spec.world import World

SKELETON_LIMITS = (2000, 400, 80, 0)
"""Largest value (in JSON characters) kept verbatim in the skeleton, tried in order until the
view fits: the view gives up detail before it gives up the records the call needs."""
_MAX_DEPTH = 4
LATEST_RECORDS = 5
"""Records shown from the end of each outlined entity collection, when the budget allows."""


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _size(value: Any) -> int:
    """The length of ``value``'s compact JSON: that of :func:`_dumps`, without sorting keys,
    which is most of its cost on a large state."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def _shape(value: Any, depth: int = 0) -> Any:
    if isinstance(value, dict):
        if depth >= 2:
            return "object"
        return {k: _shape(v, depth + 1) for k, v in sorted(value.items())}
    if isinstance(value, list):
        return [_shape(value[0], depth + 1)] if value and depth < 2 else "array"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if value is None:
        return "null"
    return "string"


class StateView:
    """Renders a world's state within a token budget."""

    def __init__(self, world: World, budget_tokens: int) -> None:
        self.world = world
        self.budget_tokens = budget_tokens
        self._entity_at = {spec.collection: name for name, spec in world.entities.items()}

    def render(
        self, state: dict[str, Any], index: EntityIndex | None, references: Iterable[str]
    ) -> str:
        """The state section for a prompt: ``references`` are texts (the call's arguments first,
        then recent turns) whose entity ids pick the records shown in full."""
        # Compact JSON is never longer than the laid-out state and costs a small part of it, so
        # a state far over the budget (a megabyte, on every call) is not laid out for nothing.
        sizes: dict[int, int] = {id(state): _size(state)}
        if sizes[id(state)] // 3 + 1 <= self.budget_tokens:
            full = render_state(state)
            if estimate_tokens(full) <= self.budget_tokens:
                return full
        index = index if index is not None else EntityIndex.build(self.world, state)
        view = ""
        for limit in SKELETON_LIMITS:
            outlined: list[str] = []
            skeleton = self._skeleton(state, "", limit, outlined, 0, sizes)
            view = self._compose(skeleton, outlined, state, index, [])
            if estimate_tokens(view) <= self.budget_tokens:
                break
        shown: list[tuple[str, Any]] = []
        for record in self._candidates(index, references, outlined):
            candidate = self._compose(
                skeleton, outlined, state, index, [*shown, (record.pointer, record.record)]
            )
            if estimate_tokens(candidate) > self.budget_tokens:
                break
            shown.append((record.pointer, record.record))
            view = candidate
        return view

    def turn_section(
        self,
        state: dict[str, Any],
        index: EntityIndex | None,
        unseen: Sequence[dict[str, Any]] | None,
        arguments: dict[str, Any],
        references: Iterable[str],
    ) -> str:
        """The state section of a turn (see :mod:`mcp_sim.prompting.native`): with ``unseen`` ``None``,
        the anchor (:meth:`render`, ``references`` picking the records of a view); otherwise
        the changes ``unseen`` by the model so far and the records ``arguments`` name."""
        if unseen is None:
            return self.render(state, index, references)
        parts = [render_changes(unseen)] if unseen else []
        if self.world.entities:
            index = index if index is not None else EntityIndex.build(self.world, state)
            parts.append(self.referenced(index, string_values(arguments)))
        return "\n\n".join(part for part in parts if part)

    def referenced(self, index: EntityIndex, texts: Iterable[str]) -> str:
        """The records that ``texts`` (a call's arguments) name, as they are now, with their
        JSON pointers, within the token budget; ``""`` when they name none."""
        heading = "**Records this call refers to** (as they are now; JSON pointer: record):"
        lines: list[str] = []
        size = estimate_tokens(heading)
        for record in index.referenced(texts):
            line = f"- {record.pointer}: {_dumps(record.record)}"
            size += estimate_tokens(line)
            if size > self.budget_tokens:
                break
            lines.append(line)
        return "\n".join([heading, *lines]) if lines else ""

    def _candidates(
        self, index: EntityIndex, references: Iterable[str], outlined: list[str]
    ) -> list[EntityRecord]:
        """Records worth showing in full, best first: referenced ones, then the latest of each
        outlined collection. Records already verbatim in the skeleton are left out."""

        def hidden(record: EntityRecord) -> bool:
            return any(record.pointer.startswith(p + "/") for p in outlined)

        chosen = [r for r in index.referenced(references) if hidden(r)]
        seen = {(r.entity, r.id) for r in chosen}
        for name in index.entities():
            latest = list(index.records(name))[-LATEST_RECORDS:]
            for record in reversed(latest):
                if hidden(record) and (name, record.id) not in seen:
                    seen.add((name, record.id))
                    chosen.append(record)
        return chosen

    def _skeleton(
        self,
        value: Any,
        pointer: str,
        limit: int,
        outlined: list[str],
        depth: int,
        sizes: dict[int, int],
    ) -> Any:
        """``sizes`` remembers the JSON size of values by id for one render: each limit tried
        walks the same values, and the largest are the costliest to measure again."""
        if not isinstance(value, dict | list):
            return value
        size = sizes.get(id(value))
        if size is None:
            size = sizes[id(value)] = _size(value)
        if size <= limit:
            return value
        if isinstance(value, dict) and depth < _MAX_DEPTH and pointer not in self._entity_at:
            return {
                key: self._skeleton(
                    item, f"{pointer}/{escape(key)}", limit, outlined, depth + 1, sizes
                )
                for key, item in value.items()
            }
        outlined.append(pointer)
        return f"<outlined: {pointer}>"

    def _outline(self, pointer: str, value: Any, index: EntityIndex) -> str:
        if isinstance(value, list):
            kind, sample = f"array of {len(value)} items", value[0] if value else None
        else:
            kind = f"object with {len(value)} keys"
            sample = next(iter(value.values())) if value else None
        line = f"- {pointer}: {kind}"
        entity = self._entity_at.get(pointer)
        if entity is not None:
            spec = self.world.entities[entity]
            ids = sorted(index.ids(entity))
            span = f", ids {ids[0]} … {ids[-1]}" if ids else ""
            line += f"; records of entity {entity} (id field {spec.id!r}{span})"
        if sample is not None:
            line += f"; one item looks like {_dumps(_shape(sample))}"
        return line

    def _compose(
        self,
        skeleton: Any,
        outlined: list[str],
        state: dict[str, Any],
        index: EntityIndex,
        shown: list[tuple[str, Any]],
    ) -> str:
        parts = [
            "**Current World State** (too large to show whole: large parts are outlined, and the "
            "records this call refers to are shown in full):",
            f"```json\n{json.dumps(skeleton, ensure_ascii=False, sort_keys=True, indent=1)}\n```",
        ]
        if outlined:
            parts.append("**Outlined parts:**")
            parts += [self._outline(p, resolve_pointer(state, p), index) for p in outlined]
        if shown:
            parts.append(
                "**Records this call refers to, then the latest ones** (JSON pointer: record):"
            )
            parts += [f"- {pointer}: {_dumps(record)}" for pointer, record in shown]
        return "\n".join(parts)

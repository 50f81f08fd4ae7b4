"""The world state as an explicit document, changed only by checked RFC 6902 JSON Patches.

The server owns the state; the world model only proposes changes. After a ``write`` call the
model's proposal is applied to a copy and committed only if it applies, the result still
satisfies the world's ``state_schema``, it leaves every ``immutable`` pointer and every entity's
``immutable_fields`` as they were, and the state stays an object. Each committed, non-empty patch
increments the session's state version.

How the patch is asked for
--------------------------

For a free-text write call, the current turn's instruction asks for the observation in its
native ``<predicted_observation>`` tags, then the change as a JSON Patch inside
``<state_patch></state_patch>`` tags, in the same completion. We chose this over a separate
request per call because:

- it costs one request, not two: the patch is a few dozen tokens decoded right after the
  observation, while a second request pays another round trip, a scheduling slot and prefill of
  the answer, and with thinking on would think again about a call the model has just reasoned
  through;
- the model writes the patch while the change is in front of it, so the patch and the
  observation describe the same change (a second request sees only the finished text);
- the observation keeps its native shape: extraction still takes the last
  ``<predicted_observation>`` block, the patch block is cut out before that, earlier turns in the
  history never carry patches (the next turn shows the committed change instead), and the
  request asking for it is the call's own prompt, whose prefix the cache already holds.

A second, short request is still used where the tag cannot work: when the answer has no usable
``<state_patch>`` block, when the tool has an output schema (its answer is constrained to bare
JSON, which leaves no room for tags), and for the one retry after a rejected patch (which must
carry the rejection reason). That request continues the same conversation (so the prefix cache
reuses it), turns thinking off and constrains the answer to ``{"patch": [...]}``.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import jsonpatch
import jsonschema
from jsonpointer import JsonPointer, JsonPointerException

from mcp_sim.errors import PatchRejected
from mcp_sim.runtime.entities import EntityIndex
from mcp_sim.spec.world import World

PatchOp = dict[str, Any]

_OPS = {"add", "remove", "replace", "move", "copy", "test"}
_NEEDS_VALUE = {"add", "replace", "test"}
_NEEDS_FROM = {"move", "copy"}
_MISSING = object()

_THINK_BLOCK = re.compile(r"<think>.*?</think>", re.DOTALL)
_PATCH_BLOCK = re.compile(r"<state_patch>(.*?)(?:</state_patch>|\Z)", re.DOTALL)

PATCH_RESPONSE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "patch": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "op": {"enum": sorted(_OPS)},
                    "path": {"type": "string"},
                    "from": {"type": "string"},
                    "value": {},
                },
                "required": ["op", "path"],
            },
        }
    },
    "required": ["patch"],
}
"""What the follow-up patch request constrains its answer to."""


def split_patch(content: str) -> tuple[str, str | None]:
    """Cut the last ``<state_patch>`` block out of a completion: (the rest, the block's text).
    Blocks inside thinking do not count: the model may draft a patch there and change its mind."""
    visible = _THINK_BLOCK.sub("", content)
    if "</think>" in visible:
        visible = visible.rsplit("</think>", 1)[1]
    blocks = list(_PATCH_BLOCK.finditer(visible))
    if not blocks:
        return visible, None
    last = blocks[-1]
    return visible[: last.start()] + visible[last.end() :], last.group(1).strip()


def parse_patch(text: str) -> list[PatchOp]:
    """A JSON Patch from model text: a JSON array of operations, or ``{"patch": [...]}``, maybe in
    a Markdown code fence. Raises :class:`PatchRejected` saying what is wrong with it."""
    raw = text.strip()
    fence = re.fullmatch(r"```[A-Za-z]*\s*(.*?)\s*```", raw, re.DOTALL)
    if fence:
        raw = fence.group(1)
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise PatchRejected(f"the patch is not JSON ({exc.msg} at position {exc.pos})") from None
    if isinstance(data, dict) and isinstance(data.get("patch"), list):
        data = data["patch"]
    if not isinstance(data, list):
        raise PatchRejected("the patch must be a JSON array of operations")
    for i, op in enumerate(data):
        if not isinstance(op, dict):
            raise PatchRejected(f"operation {i} is not an object")
        if op.get("op") not in _OPS:
            raise PatchRejected(
                f"operation {i} has op {op.get('op')!r}; use one of {', '.join(sorted(_OPS))}"
            )
        if not isinstance(op.get("path"), str):
            raise PatchRejected(f"operation {i} has no string 'path'")
        if op["op"] in _NEEDS_VALUE and "value" not in op:
            raise PatchRejected(f"operation {i} ({op['op']}) has no 'value'")
        if op["op"] in _NEEDS_FROM and not isinstance(op.get("from"), str):
            raise PatchRejected(f"operation {i} ({op['op']}) has no string 'from'")
    return data


def copied_along(state: dict[str, Any], patch: list[PatchOp]) -> Any:
    """A copy of ``state`` that ``patch`` may change in place: the containers on the way to
    each place the patch touches are copied, everything else is shared. States are never
    changed once committed, so sharing is safe, and a write on a multi-MB state costs the
    depth of its paths instead of a deep copy of the document (0.8 s on a 4 MB world)."""
    if any(op.get("path") == "" or op.get("from") == "" for op in patch):
        return copy.deepcopy(state)
    root: Any = dict(state)
    copied = {id(root)}
    for op in patch:
        for path in (op.get("path"), op.get("from")):
            if not isinstance(path, str):
                continue
            try:
                parts = JsonPointer(path).parts
            except JsonPointerException:
                continue  # jsonpatch reports it when the patch is applied
            parent = root
            for part in parts[:-1]:
                child = _child(parent, part)
                if not isinstance(child, dict | list):
                    break
                if id(child) not in copied:
                    child = dict(child) if isinstance(child, dict) else list(child)
                    copied.add(id(child))
                    _set_child(parent, part, child)
                parent = child
    return root


def _child(container: Any, part: str) -> Any:
    if isinstance(container, dict):
        return container.get(part)
    if isinstance(container, list) and part.isdigit() and int(part) < len(container):
        return container[int(part)]
    return None


def _set_child(container: Any, part: str, child: Any) -> None:
    if isinstance(container, dict):
        container[part] = child
    else:
        container[int(part)] = child


def _describe(i: int, op: PatchOp) -> str:
    return f"operation {i} ({op['op']} {op['path']})"


class StateRules:
    """Checks a world's proposed state changes before they are committed."""

    def __init__(self, world: World) -> None:
        self.world = world
        self._schema = (
            jsonschema.Draft202012Validator(world.state_schema)
            if world.state_schema is not None
            else None
        )
        self._immutable = [(p, JsonPointer(p)) for p in world.immutable]

    def apply(self, state: dict[str, Any], patch: list[PatchOp]) -> dict[str, Any]:
        """The state after ``patch``, on a copy; ``state`` is never changed. Raises
        :class:`PatchRejected` naming the first rule the patch breaks."""
        self._check_paths(patch)
        try:
            after = jsonpatch.apply_patch(copied_along(state, patch), patch, in_place=True)
        except (jsonpatch.JsonPatchException, JsonPointerException) as exc:
            raise PatchRejected(f"the patch does not apply to the current state: {exc}") from None
        if not isinstance(after, dict):
            raise PatchRejected("the patch replaces the whole state with a non-object")
        for pointer, compiled in self._immutable:
            if compiled.resolve(state, _MISSING) != compiled.resolve(after, _MISSING):
                raise PatchRejected(f"the patch changes {pointer}, which never changes")
        self._check_entities(state, after)
        if self._schema is not None:
            error = jsonschema.exceptions.best_match(self._schema.iter_errors(after))
            if error is not None:
                where = "/" + "/".join(str(p) for p in error.absolute_path)
                raise PatchRejected(
                    f"after the patch the state breaks the state schema at {where}: {error.message}"
                )
        return after

    def _check_paths(self, patch: list[PatchOp]) -> None:
        # A direct write below an immutable pointer is refused outright, with the operation
        # named; changes through an ancestor (or index shifts) are caught by value in apply().
        for i, op in enumerate(patch):
            if op["op"] == "test":
                continue
            targets = [op["path"]] + ([op["from"]] if op["op"] == "move" else [])
            for target in targets:
                try:
                    parts = JsonPointer(target).parts
                except JsonPointerException as exc:
                    raise PatchRejected(f"{_describe(i, op)}: bad JSON pointer: {exc}") from None
                for pointer, compiled in self._immutable:
                    if parts[: len(compiled.parts)] == compiled.parts:
                        raise PatchRejected(
                            f"{_describe(i, op)} touches {pointer}, which never changes; "
                            "leave it out"
                        )

    def _check_entities(self, before: dict[str, Any], after: dict[str, Any]) -> None:
        if not any(spec.immutable_fields for spec in self.world.entities.values()):
            return
        old, new = EntityIndex.build(self.world, before), EntityIndex.build(self.world, after)
        for name, spec in self.world.entities.items():
            for record_id in sorted(old.ids(name) & new.ids(name)):
                was, now = old.get(name, record_id), new.get(name, record_id)
                if was is None or now is None:
                    continue
                for fld in spec.immutable_fields:
                    if was.record.get(fld, _MISSING) != now.record.get(fld, _MISSING):
                        raise PatchRejected(
                            f"the patch changes {fld} of {name} {record_id}, which never "
                            "changes once the record exists"
                        )

"""The decoded state a view reads: a world whose values are encoded (see
:mod:`mcp_sim.runtime.value_encodings`), or whose records keep their fields in lists (see
:mod:`mcp_sim.runtime.property_lists`), is indexed, searched and shown as the plain JSON its
values stand for, unless its tools answer in the encoded form themselves.

Decoding keeps every record where it was: a record's pointer is the same in the stored and
the decoded state (only the parts inside a record lose their wrappers), so patches, which name
stored pointers, name the decoded records too. A session's decoded state moves on with its
patches by copying only the path to each record they touched (:func:`patched`), never by
decoding the whole document again.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from jsonpointer import unescape

from mcp_sim.runtime.state_paths import raw_value
from mcp_sim.runtime.stored_parts import keeps_stored_parts
from mcp_sim.runtime.text_rows import TextRows
from mcp_sim.runtime.value_decoding import decode
from mcp_sim.runtime.value_encodings import Encoding, detect
from mcp_sim.spec.world import World


def _names(schema: Any) -> Iterator[str]:
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "properties" and isinstance(value, dict):
                yield from value
            yield from _names(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from _names(item)


def answers_encoded(world: World, encoding: Encoding) -> bool:
    """Whether a tool's output schema names a type tag or an attribute key: its answers are
    then in the stored form, and the model is better shown records as stored."""
    for tool in world.tools:
        for name in _names(tool.output_schema):
            if name in encoding.tags or name == encoding.text:
                return True
            if encoding.attribute is not None and name.startswith(encoding.attribute):
                return True
    return False


def view_encoding(world: World, state: Any) -> Encoding | None:
    """The encoding a view of ``world``'s state decodes: ``None`` for plain JSON, or for a
    world whose tools answer in the stored form."""
    encoding = detect(state)
    if encoding is None or answers_encoded(world, encoding):
        return None
    return encoding


def read_view(state: Any, encoding: Encoding | None, text: TextRows | None) -> Any:
    """The view of a stored ``state``: its values decoded, its lines of records read."""
    state = decode(state, encoding) if encoding else state
    return text.read(state) if text else state


def decoded_note(encoding: Encoding) -> str:
    """The line telling the model that the records it is shown are decoded, and how the
    state stores them (which a patch writes)."""
    parts = (
        "; a list that is only a part of a record is shown as stored"
        if keeps_stored_parts(encoding)
        else ""
    )
    return (
        f"Values below are shown decoded; the state stores them encoded ({encoding.describe()})"
        f"{parts}: a state patch writes values in the stored form, at the same record pointers."
    )


def _parts(pointer: str) -> list[str]:
    return [unescape(p) for p in pointer.split("/")[1:]] if pointer else []


def _replaced(view: Any, parts: list[str], value: Any, present: bool) -> Any:
    """``view`` with the value at ``parts`` replaced (or dropped when not ``present``), the
    containers on the way copied and everything else shared."""
    if not parts:
        return value
    head, rest = parts[0], parts[1:]
    if isinstance(view, dict):
        copy = dict(view)
        if rest and head in copy:
            copy[head] = _replaced(copy[head], rest, value, present)
        elif not rest and present:
            copy[head] = value
        elif not rest:
            copy.pop(head, None)
        return copy
    if isinstance(view, list) and head.isdigit():
        items = list(view)
        at = int(head)
        if rest and at < len(items):
            items[at] = _replaced(items[at], rest, value, present)
        elif not rest and present:
            items[at : at + 1] = [value] if at < len(items) else []
            if at >= len(items):
                items.append(value)
        elif not rest and at < len(items):
            del items[at]
        return items
    return view


def patched(view: Any, state: Any, pointers: Iterable[str], encoding: Encoding) -> Any:
    """The decoded ``view`` moved on to the stored ``state`` where ``pointers`` (records, or
    the parts a patch touched outside any record) may have changed."""
    for pointer in sorted(set(pointers), key=len):
        value = raw_value(state, pointer)
        present = value is not None or _holds(state, pointer)
        view = _replaced(view, _parts(pointer), decode(value, encoding), present)
    return view


def _holds(state: Any, pointer: str) -> bool:
    """Whether ``pointer`` is in ``state`` (holding ``null``)."""
    parent, _, last = pointer.rpartition("/")
    container = raw_value(state, parent) if parent else state
    key = unescape(last)
    if isinstance(container, dict):
        return key in container
    return isinstance(container, list) and key.isdigit() and int(key) < len(container)

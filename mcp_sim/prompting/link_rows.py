"""How a join through link records is shown: one line per link, the records it refers to after
an arrow, as many as fit and as detailed as the room allows.

    - Join: 37 records of /shows/rows meet host/id = "H1", each followed (→) by the
      /stations record it refers to; 37 shown:
    - /shows/rows/295 {"booked_on":"2025-04-28"} → /stations/edges/205 {"node":{...}}

A link is shown without the fields that refer to the argument's record (the search says
them) or to its targets (the arrow does); a target with its key and the fields its kind of
answer needs. Each is written as compact JSON of the record's own structure, so a field stands
beside its name as in the record; the large parts (calendars, lists of entries) are left
out, a few tags kept. Levels
of detail are tried, the richest first, until the first rows fit: every scalar field; the
links' detail given up first (the answer lists the targets, and a target an earlier row
showed is only named: a stop's many stop times reach a few routes); the fields the tool's
description or output schema names, the key, dates of links and name-like fields of
targets; the key and the first name-like field. A line names records compactly (no
``POINTER:`` colon), so no later turn takes it for the record shown whole.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from mcp_sim.prompting.field_names import tokens
from mcp_sim.prompting.key_names import key_label, kind_key
from mcp_sim.prompting.link_groups import count_name, group_heading, group_line, groups
from mcp_sim.prompting.link_join import LinkJoin
from mcp_sim.prompting.link_values import Lists, values_line
from mcp_sim.prompting.record_fields import ENUM_MOST, FieldSchema, is_map
from mcp_sim.prompting.record_render import size
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.spec.world import ToolSpec

SMALL_LIST = 120
"""A list of scalars this short (in JSON characters) is shown as a field's value."""
ENOUGH_ROWS = 30
"""Rows a level of detail must fit (or all of them, when fewer) to be chosen."""
FEW_ENTRIES = 2
"""A list of at most this many objects (a resource's names) is shown as its fields."""
LEVELS = ((2, 2), (1, 2), (1, 1), (0, 0))
"""The detail of a row's link and of its targets, tried in turn."""
_DROP = object()
Keep = Callable[[str, Any], bool]
"""Whether a scalar at a field path (``node/details/name``) is shown."""


def answer_words(tool: ToolSpec | None) -> set[str]:
    """The words of a tool's description and of its output schema's property names."""
    if tool is None:
        return set()
    words = set(tokens(tool.description))
    stack: list[Any] = [tool.output_schema or {}]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                if isinstance(value, dict) and key == "properties":
                    words.update(w for name in value for w in tokens(name))
                stack.append(value)
        elif isinstance(node, list):
            stack.extend(node)
    return words


def _pruned(value: dict[str, Any], keep: Keep, path: str = "") -> Any:
    """``value`` with only the scalars ``keep`` accepts (large parts, lists and maps keyed by
    id or date dropped); :data:`_DROP` when nothing is left."""
    kept: dict[str, Any] = {}
    for key, item in value.items():
        inner = f"{path}/{key.replace('/', '_')}" if path else key.replace("/", "_")
        if isinstance(item, dict):
            small = _DROP if is_map(item) else _pruned(item, keep, inner)
        elif isinstance(item, list) and 0 < len(item) <= FEW_ENTRIES and _all_objects(item):
            # A resource's one or two names or identifiers are its fields, nested.
            entries = [_pruned(entry, keep, f"{inner}/*") for entry in item]
            kept_entries = [entry for entry in entries if entry is not _DROP]
            small = kept_entries if kept_entries else _DROP
        elif isinstance(item, list):
            # A few tags are a field's value; a list of entries is a large part.
            tags = all(not isinstance(v, dict | list) for v in item) and size(item) <= SMALL_LIST
            small = item if tags and keep(inner, item) else _DROP
        elif not keep(inner, item):
            small = _DROP
        else:
            small = item
        if small is not _DROP:
            kept[key] = small
    return kept if kept else _DROP


def _all_objects(items: list[Any]) -> bool:
    return all(isinstance(item, dict) and not is_map(item) for item in items)


_KEY_WORDS = frozenset({"id", "key", "uuid", "url", "uri", "href"})


def _reference_part(path: str) -> str:
    """The part of a link that refers: a nested reference's whole object (``station`` of
    ``station/id``: its ``type`` too), else the field."""
    parent, _, last = path.rpartition("/")
    words = set(tokens(last))
    return parent if parent and words and words <= _KEY_WORDS else path


def _named(path: str, words: set[str]) -> bool:
    own = set(tokens(path.rsplit("/", 1)[-1]))
    return bool(own) and own <= words


def name_like(schema: FieldSchema) -> list[str]:
    """The field paths holding names: text of many values, most of them words (not codes)."""
    found: list[str] = []
    for path, info in schema.fields.items():
        if info.kind not in ("string", "text") or len(info.distinct) <= ENUM_MOST:
            continue
        wordy = sum(1 for v in info.distinct if v.replace(" ", "").replace("-", "").isalpha())
        if wordy * 2 >= len(info.distinct):
            found.append(path)
    return found


class LinkRows:
    """Renders a :class:`LinkJoin` within a room."""

    def __init__(
        self,
        join: LinkJoin,
        link_schema: FieldSchema,
        target_schema: FieldSchema,
        words: set[str],
        lists: Lists | None = None,
        once: bool = False,
    ) -> None:
        self.join, self.words, self.once = join, words, once
        self.schemas, self.lists = (link_schema, target_schema), lists or {}
        self.key_names: dict[str, str] = {}
        self.link_dates = [p for p, i in link_schema.fields.items() if i.kind == "date"]
        self.names = name_like(target_schema)
        self.id_field = join.target_key

    def _link_keep(self, level: int) -> Keep:
        hidden = {_reference_part(p) for p in (self.join.reference, *self.join.given)}

        def keep(path: str, value: Any) -> bool:
            if any(path == h or path.startswith(h + "/") for h in hidden):
                return False
            if level == 2:
                return True
            return path in self.link_dates or _named(path, self.words)

        return keep

    def _target_keep(self, level: int) -> Keep:
        first_name = self.names[:1]

        def keep(path: str, value: Any) -> bool:
            if level == 2 or path == self.id_field:
                return True
            if level == 1:
                return path in self.names or _named(path, self.words)
            return path in first_name

        return keep

    def _shown(self, state: Any, pointer: str, keep: Keep) -> str:
        record = resolve(state, pointer)
        if not isinstance(record, dict):
            return json.dumps(record, ensure_ascii=False)
        small = _pruned(record, keep)
        return (
            "" if small is _DROP else json.dumps(small, ensure_ascii=False, separators=(",", ":"))
        )

    def _line(
        self, state: Any, link: str, targets: list[str], levels: tuple[int, int], seen: set[str]
    ) -> str:
        """A row, the link and its targets at ``levels`` of detail; a target an earlier row
        showed (``seen``) is named, not repeated."""
        shown = self._shown(state, link, self._link_keep(levels[0]))
        parts = [f"- {link} {shown}".rstrip()]
        keep = self._target_keep(levels[1])
        for target in targets:
            label = key_label(
                target, self.key_names, kind_key(target, self.key_names, resolve(state, target))
            )
            body = "(as above)" if target in seen else self._shown(state, target, keep)
            parts.append(f"→ {target}{label} {body}".rstrip())
        return " ".join(parts)

    def render(self, state: Any, room: int, key_names: dict[str, str]) -> str:
        """The heading and the rows that fit in ``room`` characters (``""`` if none);
        ``key_names`` names the keys of targets that do not hold theirs; with :attr:`once`
        (the answer lists the records reached each once), each of those once, counted (see
        :mod:`mcp_sim.prompting.link_groups`)."""
        self.key_names = key_names
        rows = self.join.rows
        wanted = min(len(rows), ENOUGH_ROWS)
        values = values_line(state, self.join, self.schemas, self.lists)
        if len(values) * 2 > room:
            values = ""
        room -= len(self._heading(0)) + len(values) + 8
        # Each target's count is of every link, not only of those rows show.
        whole = self.once and len(self.join.every_row(state)) == self.join.total
        grouped = groups(self.join) if whole else None
        if grouped is not None:
            return self._grouped(state, grouped, room, values)
        best: list[str] = []
        for levels in LEVELS:
            lines: list[str] = []
            spent, seen = 0, set[str]()
            for link, targets in rows:
                line = self._line(state, link, targets, levels, seen)
                if spent + len(line) + 1 > room:
                    break
                lines.append(line)
                spent += len(line) + 1
                seen.update(targets)
            if len(lines) > len(best):
                best = lines
            if len(lines) >= wanted:
                break
        if not best:
            return ""
        return "\n".join([self._heading(len(best)), *([values] if values else []), *best])

    def _grouped(self, state: Any, grouped: dict[str, list[str]], room: int, values: str) -> str:
        """Each record reached once, with its count of links, in the richest detail that
        shows nearly as many of them as the plainest."""
        name = count_name(self.join, self.lists)
        wanted = min(len(grouped), ENOUGH_ROWS)
        tried: list[list[str]] = []
        for level in (2, 1, 0):
            keep = self._target_keep(level)
            lines: list[str] = []
            spent = 0
            for target, links in grouped.items():
                label = key_label(
                    target, self.key_names, kind_key(target, self.key_names, resolve(state, target))
                )
                body = f"{label} {self._shown(state, target, keep)}".strip()
                line = group_line(target, body, links, name, listed_links=level == 2)
                if spent + len(line) + 1 > room:
                    break
                lines.append(line)
                spent += len(line) + 1
            tried.append(lines)
            if len(lines) >= wanted:
                break
        most = max(len(lines) for lines in tried)
        best = next(lines for lines in tried if len(lines) * 10 >= most * 9)
        if not best:
            return ""
        heading = group_heading(self.join, len(grouped), len(best), name)
        return "\n".join([heading, *([values] if values else []), *best])

    def _heading(self, shown: int) -> str:
        join = self.join
        total = join.total
        rest = f"{shown} shown" if shown == total else f"the first {shown} shown"
        return (
            f"- Join: {total} record{'s' if total > 1 else ''} of {join.links_named} "
            f"meet{'s' if total == 1 else ''} {join.found_by or 'the arguments'}, each "
            f"followed (→) by the {join.targets.pointer} record it refers to by "
            f"{join.referred_by}; {rest} (fields shown: the answer's; large parts left out):"
        )

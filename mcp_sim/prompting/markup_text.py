"""Text fields written in markup (HTML, XHTML such as Confluence's storage format, Markdown
tables), rendered compactly: the facts a page shows, without the tags.

A wiki page keeps its facts in its body: a properties table (``<tr><th>Owner</th><td>…``),
people as mentions (``<ri:user ri:account-id="5b0c…"/>``), a status as a macro's parameter,
a date as ``<time datetime="2025-03-01"/>``. Outlined, the body shows none of them; whole, a
page takes 1,500 characters of which 200 are facts. Rendered, it is an object under
:data:`MARKUP_NOTE`: its key/value rows (a header cell, then a data cell) as ``rows``, each
value as the cell shows it (a status by its ``title``, a mention by the name of the record
holding its id where one does, see :mod:`mcp_sim.prompting.mention_names`); the rest as
``text``, a table of more columns a row a line with its cells joined by ``|``, a named value
(``<ac:parameter ac:name="title">SEV2</…>``) as ``title=SEV2``, an element holding no text
standing for its attributes' values, blocks separated by ``; ``, every other tag dropped; and
the names of the ids it mentions as ``mentions``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from html.parser import HTMLParser
from typing import Any

MARKUP_NOTE = "<markup, as rendered>"
"""The key a rendered text is shown under, so the model does not take it for the stored
text."""
LEAST_MARKUP = 60
"""Characters a text holds at least to be rendered: a shorter one says little."""
_TAG = re.compile(r"</?[A-Za-z][\w:.-]*(?:\s[^<>]*)?/?>")
_MOST_TAG_SHARE = 0.3
"""Of a text, the share its tags take at least for it to be markup (not prose naming a
``<tag>``)."""
_MARKDOWN_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)+\|?\s*$", re.M)
_BLOCKS = frozenset(
    [
        "p",
        "div",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "li",
        "ul",
        "ol",
        "table",
        "tbody",
        "thead",
        "tfoot",
        "blockquote",
        "pre",
        "section",
        "article",
        "header",
        "footer",
        "dl",
        "br",
        "hr",
        "tr",
    ]
)
_VOID = frozenset(
    ["br", "hr", "img", "input", "meta", "link", "col", "area", "base", "wbr", "source"]
)
_CELLS = frozenset(["th", "td"])
_PRESENTATION = frozenset(
    [
        "class",
        "style",
        "dir",
        "width",
        "height",
        "align",
        "valign",
        "colspan",
        "rowspan",
        "lang",
        "target",
        "rel",
        "border",
        "schema-version",
        "version",
        "macro-id",
        "local-id",
        "colour",
        "color",
        "layout",
        "breakout-mode",
    ]
)
"""Attributes that say how a page looks, not what it says: never rendered."""
_VALUE_NAMES = frozenset(["title", "name", "label", "value", "text"])
"""Names of the one of a macro's named values that is its value (a status's ``title``, not
its ``colour``)."""
Names = Callable[[str], str | None]
"""The name of the record an id names (``None``: none known)."""


def is_markup(text: str) -> bool:
    """Whether ``text`` is a document in markup: mostly tags (HTML, XHTML), or holding a
    Markdown table."""
    if len(text) < LEAST_MARKUP:
        return False
    return _is_markup(text)


@lru_cache(maxsize=16384)
def _is_markup(text: str) -> bool:
    """:func:`is_markup` of a text long enough, read once per text: a summary over a thousand
    pages asks it of every body on every call."""
    if "<" not in text and "|" not in text:
        return False
    tags = _TAG.findall(text)
    if len(tags) >= 4 and sum(map(len, tags)) >= _MOST_TAG_SHARE * len(text):
        return True
    return bool(_MARKDOWN_RULE.search(text))


def rendered(text: str, names: Names | None = None) -> dict[str, Any]:
    """``text`` (markup, see :func:`is_markup`) as its facts read: under
    :data:`MARKUP_NOTE`, its key/value rows as an object (a mention by the name of the record
    holding its id, else the id), the rest of its text, and the names of the ids it
    mentions."""
    kept = _renderings.get(text)
    if kept is None or any(_name(names, value) != name for value, name in kept[0]):
        kept = _rendering(text, names)
        if len(_renderings) >= MOST_RENDERINGS:
            _renderings.pop(next(iter(_renderings)))
        _renderings[text] = kept
    # A copy: the caller's to change.
    return {MARKUP_NOTE: {k: dict(v) if isinstance(v, dict) else v for k, v in kept[1].items()}}


MOST_RENDERINGS = 4096
"""Texts whose rendering is kept (a wiki's pages shown call after call)."""
Asked = tuple[tuple[str, str | None], ...]
"""The ids a rendering asked the names of, in order, and the names it was told."""
_renderings: dict[str, tuple[Asked, dict[str, Any]]] = {}
"""Each text's last rendering, with the names it was made with: parsing a page's XHTML takes
milliseconds, and a page is shown on call after call. Which ids a text asks the names of
depends on the text alone; the names may change (a user renamed), and a rendering made with
other names than the current ones is made again."""


def _name(names: Names | None, value: str) -> str | None:
    return names(value) if names is not None else None


def _rendering(text: str, names: Names | None) -> tuple[Asked, dict[str, Any]]:
    """``text`` rendered (see :func:`rendered`), and the names it asked for."""
    asked: list[tuple[str, str | None]] = []

    def noted(value: str) -> str | None:
        asked.append((value, _name(names, value)))
        return asked[-1][1]

    if _TAG.search(text):
        parser = _Renderer(noted, rows_apart=True)
        parser.feed(text)
        parser.close()
        rest = parser.result()
        rows, mentions = parser.fields, parser.mentions
    else:
        rows, rest = _markdown(text)
        mentions = {}
    shown: dict[str, Any] = {"rows": rows, "text": rest, "mentions": mentions}
    return tuple(asked), {k: v for k, v in shown.items() if v}


def markup_fields(text: str, names: Names | None = None) -> dict[str, str]:
    """The key/value rows of ``text``'s tables (a page's properties), each value as a cell
    shows it: a mention by the name of the record it names, a status by its title."""
    if not _TAG.search(text):
        return _markdown(text)[0]
    parser = _Renderer(names)
    parser.feed(text)
    parser.close()
    parser.result()
    return parser.fields


@dataclass
class _Element:
    tag: str
    attrs: dict[str, str]
    parts: list[str] = field(default_factory=list)
    cells: list[tuple[bool, str, str]] = field(default_factory=list)
    """A row's cells: (a header cell, its text, its value)."""
    plain: list[str] = field(default_factory=list)
    """The value a cell holding only this element has: its text, a mention's name (else
    its id), of named values the one named as a value (a status's ``title``)."""
    rows: list[str] = field(default_factory=list)
    """A table's (or a row group's) rendered rows."""
    blocks: bool = False
    """Whether a block ended inside: its text is not one named value."""
    named: bool = False
    """Whether a named value ended inside (a macro's parameters): its text is theirs."""


class _Renderer(HTMLParser):
    def __init__(self, names: Names | None, rows_apart: bool = False) -> None:
        super().__init__(convert_charrefs=True)
        self.names, self.rows_apart = names, rows_apart
        self.mentions: dict[str, str] = {}
        """The ids mentioned that name a record, and its name."""
        self.stack = [_Element("", {})]
        self.fields: dict[str, str] = {}
        """The values of the key/value rows (a header cell, then a data cell), by key."""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack.append(_Element(tag, {k: v for k, v in attrs if v is not None}))
        if tag in _VOID:
            self.handle_endtag(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack.append(_Element(tag, {k: v for k, v in attrs if v is not None}))
        self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if not any(e.tag == tag for e in self.stack[1:]):
            return
        while True:
            element = self.stack.pop()
            self._fold(element, self.stack[-1])
            if element.tag == tag:
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].parts.append(data)
        self.stack[-1].plain.append(data)

    def result(self) -> str:
        while len(self.stack) > 1:
            self._fold(self.stack.pop(), self.stack[-1])
        return _tidy("".join(self.stack[0].parts))

    def _fold(self, element: _Element, parent: _Element) -> None:
        """``element``, closed, written into ``parent``."""
        text = _tidy("".join(element.parts))
        local = element.tag.rsplit(":", 1)[-1]
        if local in _CELLS:
            parent.cells.append((local == "th", text, _tidy(" ".join(element.plain))))
            return
        if local == "tr":
            cells = element.cells
            if len(cells) == 2 and cells[0][0] and not cells[1][0] and cells[0][2]:
                self.fields.setdefault(cells[0][2], cells[1][2])
                if self.rows_apart:
                    return
            parent.rows.append(_row(element.cells))
            return
        if element.rows:
            # A table, or a row group handing its rows up to the table.
            rows = element.rows if not text else [*element.rows, text]
            if local in ("tbody", "thead", "tfoot"):
                parent.rows.extend(rows)
                return
            text = "; ".join(rows)
        elif not text and not element.blocks:
            # An element holding no text (a mention), not one whose rows were taken apart.
            text = self._attributes(element.attrs)
            parent.plain.append(self._value(element.attrs))
        elif (named := _name_of(element.attrs)) and not (element.blocks or element.named):
            text = f"{named}={text}"
            parent.named = True
            parent.plain += [text.split("=", 1)[1]] if named.lower() in _VALUE_NAMES else []
        else:
            parent.plain += element.plain
        parent.named = parent.named or element.named
        block = local in _BLOCKS or element.blocks
        parent.blocks = parent.blocks or block
        parent.parts.append(f"; {text}; " if block else f" {text} " if text else "")

    def _value(self, attrs: dict[str, str]) -> str:
        """An element holding no text as a cell's value: the name of the record its first
        attribute names (a mention's person), else that attribute's value."""
        for key, value in attrs.items():
            if key.rsplit(":", 1)[-1] not in _PRESENTATION and value.strip():
                named = self.names(value) if self.names is not None else None
                return named or value
        return ""

    def _attributes(self, attrs: dict[str, str]) -> str:
        """What an element holding no text stands for: its attributes' values (a mention's
        id, with the name of the record holding it)."""
        shown: list[str] = []
        for key, value in attrs.items():
            if key.rsplit(":", 1)[-1] in _PRESENTATION or not value.strip():
                continue
            named = self.names(value) if self.names is not None else None
            if named:
                self.mentions[value] = named
            shown.append(f"{value} ({named})" if named else value)
        return " ".join(shown)


def _name_of(attrs: dict[str, str]) -> str | None:
    """The name a named value goes under (``ac:name="title"``)."""
    for key, value in attrs.items():
        if key.rsplit(":", 1)[-1] == "name" and value.strip():
            return value.strip()
    return None


def _row(cells: list[tuple[bool, str, str]]) -> str:
    """A table row: ``key: value`` for a header cell and its data, else the cells joined."""
    if len(cells) == 2 and cells[0][0] and not cells[1][0]:
        return f"{cells[0][1]}: {cells[1][1]}"
    return " | ".join(text for _, text, _ in cells)


def _tidy(text: str) -> str:
    """Whitespace collapsed, empty separators merged."""
    text = re.sub(r"\s+", " ", text)
    text = re.sub(r"\s*;(\s*;)*\s*", "; ", text)
    return text.strip().strip(";").strip()


def _markdown(text: str) -> tuple[dict[str, str], str]:
    """A Markdown document's two-column tables' rows as ``key: value`` (their header rows
    left out), and its other lines, a wider table's rows with their cells joined by ``|``."""
    rows: dict[str, str] = {}
    lines: list[str] = []
    kept = text.splitlines()
    for at, line in enumerate(kept):
        if _MARKDOWN_RULE.fullmatch(line) or not line.strip():
            continue
        if line.strip().startswith("|") or line.count("|") >= 2:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            header = at + 1 < len(kept) and bool(_MARKDOWN_RULE.fullmatch(kept[at + 1]))
            if len(cells) == 2 and not header:
                rows.setdefault(cells[0], cells[1])
                continue
            line = " | ".join(cells)
        lines.append(line.strip().lstrip("#").strip())
    return rows, "; ".join(lines)

"""Records whose scalar fields are written as rows of a markup body, as wikis and CMSs keep a
page's facts: a Confluence page's Page Properties (an XHTML ``details`` macro holding a table
of ``<th>`` key and ``<td>`` value rows), an HTML description holding a table of its
properties, or a Markdown two-column table (``| Field | Value |``): the record's first run of
scalar fields past its name, the body standing where they stood. Its name, its sub-objects and
lists stay as they are beside the body, and so does a value that would not read back as itself
from its cell's text (``"42"`` written as text, ``null``, text holding a ``|`` or a line
break). Drawn from a generator of its own, so that a seed
that does not draw it is laid out as before. :class:`MarkupForm` is the codec that writes
(and reads back, exactly) a plain record so; the tools answer the plain record."""

from __future__ import annotations

import html
import random
import re
from dataclasses import dataclass
from typing import Any

from benchmarks.zoo.random_shapes.encodings import Codec

STYLES = ("xhtml", "html", "markdown")
SHARE = 0.25
"""The share of the seeds that draw markup bodies (for their primary records, where those are
plain records in an array or an object of their own)."""
BODY_KEYS = ("body", "description", "content", "page")
_ROW = re.compile(r"<tr><th>(.*?)</th><td>(.*?)</td></tr>", re.S)
_INTEGER = re.compile(r"-?\d+")
_DECIMAL = re.compile(r"-?\d+\.\d+(?:e-?\d+)?")


def draw_markup(seed: int) -> str | None:
    """The markup style seed ``seed`` draws for its records' bodies, if any."""
    rng = random.Random(f"markup-bodies/{seed}")
    drawn, style = rng.random() < SHARE, rng.choice(STYLES)
    return style if drawn else None


def _cell(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _typed(text: str) -> Any:
    """A cell's value, as its text reads."""
    if text in ("true", "false"):
        return text == "true"
    if _INTEGER.fullmatch(text):
        return int(text)
    if _DECIMAL.fullmatch(text):
        return float(text)
    return text


def _held(value: Any) -> bool:
    """Whether ``value`` is a scalar its cell's text reads back as."""
    if not isinstance(value, str | int | float | bool) or value is None:
        return False
    text = _cell(value)
    if "|" in text or "\n" in text or text != text.strip() or not text:
        return False
    back = _typed(text)
    return type(back) is type(value) and back == value


@dataclass(frozen=True)
class MarkupForm(Codec):
    """A record written with its scalar fields as rows of a markup body."""

    style: str = "xhtml"
    body_key: str = "body"
    kept: frozenset[str] = frozenset()
    """Fields kept as they are beside the body (the record's name)."""
    name: str = "markup_body"

    def encode(self, record: dict[str, Any], id_key: str, collection: str) -> dict[str, Any]:
        """The record with its first run of two or more scalar fields (past its id and its
        name) written as a body where the run was: read back, its fields keep their order."""
        items = list(record.items())
        held = [k != id_key and k not in self.kept and _held(v) for k, v in items]
        start = end = 0
        for at, fits in enumerate(held):
            if not fits:
                continue
            stop = next((n for n in range(at, len(held)) if not held[n]), len(held))
            start, end = at, stop
            if stop - at >= 2:
                break
        if end - start < 2:
            return record
        body = {self.body_key: self._write(items[start:end])}
        return dict(items[:start]) | body | dict(items[end:])

    def decode(self, stored: dict[str, Any], id_key: str) -> dict[str, Any]:
        record: dict[str, Any] = {}
        for key, value in stored.items():
            if key == self.body_key and isinstance(value, str):
                record |= self._read(value)
            else:
                record[key] = value
        return record

    def _write(self, rows: list[tuple[str, Any]]) -> str:
        if self.style == "markdown":
            lines = ["| Field | Value |", "| --- | --- |"]
            return "\n".join([*lines, *(f"| {k} | {_cell(v)} |" for k, v in rows)])
        cells = "".join(
            f"<tr><th>{html.escape(k)}</th><td>{html.escape(_cell(v))}</td></tr>" for k, v in rows
        )
        table = f"<table><tbody>{cells}</tbody></table>"
        if self.style == "xhtml":
            return (
                '<ac:structured-macro ac:name="details" ac:schema-version="1">'
                f"<ac:rich-text-body>{table}</ac:rich-text-body></ac:structured-macro>"
            )
        return f'<div class="properties"><h3>Properties</h3>{table}</div>'

    def _read(self, body: str) -> dict[str, Any]:
        if self.style == "markdown":
            rows = [line.strip().strip("|").split("|") for line in body.splitlines()[2:]]
            return {k.strip(): _typed(v.strip()) for k, v in rows}
        return {html.unescape(k): _typed(html.unescape(v)) for k, v in _ROW.findall(body)}


def markup_form(style: str, top: tuple[str, ...]) -> MarkupForm:
    """The codec of ``style`` for records whose top-level keys are ``top`` (less the id, in
    order): their first kept, the body under a key none of them takes."""
    body_key = next(k for k in BODY_KEYS if k not in top)
    return MarkupForm(style=style, body_key=body_key, kept=frozenset(top[:1]))

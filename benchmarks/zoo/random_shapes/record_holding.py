"""The one way of holding records a random shape draws besides plain JSON, if any.

Four classes hold a seed's records in a form of their own, each drawn from a generator of its
own: composite keys of a key-value store (:mod:`.composite_keys`), a workbook's sheets of
header rows (:mod:`.header_rows`), markup bodies (:mod:`.markup_bodies`) and lines of text
(:mod:`.text_lines`). They exclude one another (a key-value store holds plain values under
its keys, a workbook or lines hold plain cells), so a seed holds its records in one of them
at most, decided here, before any design is laid out: a twin drawn with a given encoding or
reshaping then holds them as the seed's own design does. Where a seed's generators draw
several, the first drawn of keys, a workbook, lines and markup is kept: the rarer classes
first, and lines before markup, which holds only plain primary records (drawn alone, it is
held by few seeds; lines find a free collection more often): of seeds 0-99, each class is
then held by about as many seeds as held it before they excluded one another.
"""

from __future__ import annotations

from benchmarks.zoo.random_shapes.composite_keys import draw_keys
from benchmarks.zoo.random_shapes.header_rows import draw_header_rows
from benchmarks.zoo.random_shapes.markup_bodies import draw_markup
from benchmarks.zoo.random_shapes.text_lines import draw_text

HOLDINGS = ("keys", "workbook", "lines", "markup")
"""The classes in the order they are kept: the first a seed draws is the one it holds."""


def holding(seed: int) -> str | None:
    """The class of :data:`HOLDINGS` seed ``seed`` holds its records in, if any."""
    lines = draw_text(seed)
    drawn = {
        "keys": draw_keys(seed) is not None,
        "workbook": lines is None and draw_header_rows(seed) is not None,
        "markup": draw_markup(seed) is not None,
        "lines": lines is not None,
    }
    return next((name for name in HOLDINGS if drawn[name]), None)

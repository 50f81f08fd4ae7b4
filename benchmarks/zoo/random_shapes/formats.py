"""Classes of real formats a random shape draws apart from everything else, from a generator of
its own (so a seed that draws none is laid out, filled and offered calls as before, and one
that draws some keeps the rest of its layout and tools), each by about three seeds in ten:

- large records with ids deep inside (:mod:`.big_records`): each record holds statements under
  keys that are ids of the parties (``claims: {"OW-00012": [{"id": "BT-00042$5f1c..",
  "mainsnak": .., "qualifiers": .., "references": [{"hash": ..}]}]}``, as a Wikibase entity
  does), answered by a statement's id or the statements about one party;
- a field that is a list of name/value pairs (``headers: [{"name": "From", "value": ..}]``, as
  a Gmail message's are), answered in that form;
- Relay-style connections (:mod:`.relay`): the records and the parties kept as connections
  (``totalCount``, ``pageInfo``, ``edges`` of ``cursor`` and ``node``), nodes carrying a
  ``__typename`` and global ids (base64 of ``Type:number``), and a connection of comments
  inside each record, answered a page at a time;
- searches taking one query string (:mod:`.query_language`: ``q='hull:sloop
  name:"Sea Breeze" -flag:NO length_m:>=12'``) instead of one argument per field;
- counts no record holds (the ``totalCount`` of a filtered set) and records that refer to
  another by its title, not its id, answered two hops away (:mod:`.title_refs`);
- searches taking their constraints as a nested query object (an Elasticsearch ``bool``
  query, a MongoDB filter, a GraphQL ``where`` object, a list of filters), answered as the
  family's API answers (:mod:`.query_objects`, :mod:`.object_search`): drawn only by seeds
  without query strings, from a generator of its own;
- records held as lines of text (CSV, TSV, an SQL dump, logfmt, JSON lines, a spreadsheet's
  rows) that every tool parses (:mod:`.text_lines`, :mod:`.text_store`,
  :mod:`.text_holding`): drawn from a generator of its own, held where the collection is free
  to be."""

from __future__ import annotations

import random
from dataclasses import dataclass

from benchmarks.zoo.random_shapes.aggregation_requests import AggStyle, draw_requests
from benchmarks.zoo.random_shapes.header_rows import draw_header_rows
from benchmarks.zoo.random_shapes.query_objects import QueryStyle, draw_style
from benchmarks.zoo.random_shapes.record_holding import holding
from benchmarks.zoo.random_shapes.sub_items import SubItems, draw_sub_items
from benchmarks.zoo.random_shapes.text_lines import TextStyle, draw_text

TEXT = ("lines", "workbook")
"""The holdings (:mod:`.record_holding`) the text of :attr:`Formats.text` stands for."""
SHARE = 0.3
"""The share of seeds that draw each class."""
CLAIMS_KEYS = ("claims", "statements", "assertions")
PAIRS_KEYS = (
    ("headers", "name", "value"),
    ("tags", "Key", "Value"),
    ("labels", "name", "value"),
    ("params", "Name", "Value"),
)
"""A name/value list's key and its pairs' keys."""
COMMENTS_KEYS = ("comments", "reviews", "timeline_items")
QUERY_ARGS = ("q", "query", "search", "filter")
TITLE_REFS = ("see_also", "related_to", "follows", "based_on")


@dataclass(frozen=True)
class Formats:
    claims: str | None = None
    """The key of a record's statements keyed by party id (none: records have none)."""
    pairs: tuple[str, str, str] | None = None
    """A record's name/value list: its key, then its pairs' name and value keys."""
    relay: str | None = None
    """The key of a record's connection of comments (none: no Relay-style connections)."""
    query: str | None = None
    """The argument the searches take a query string in (none: one argument per field)."""
    title_ref: str | None = None
    """The key naming another record by its title; with it, a count of a filtered set."""
    objects: QueryStyle | None = None
    """How the searches take a nested query object (none: not so; :mod:`.query_objects`)."""
    text: TextStyle | None = None
    """How records are held as lines of text (none: not so; :mod:`.text_lines`)."""
    requests: AggStyle | None = None
    """How aggregations are asked in a family's request (none: not so;
    :mod:`.aggregation_requests`)."""
    sub_items: SubItems | None = None
    """The list of sub-items each record holds (none: not so; :mod:`.sub_items`)."""

    @property
    def names(self) -> str:
        """What the seed draws, in words."""
        drawn = [
            f"claims {self.claims}" if self.claims else "",
            f"pairs {self.pairs[0]}" if self.pairs else "",
            "relay" if self.relay else "",
            f"query {self.query}" if self.query else "",
            f"title refs {self.title_ref}" if self.title_ref else "",
            self.objects.names if self.objects else "",
            self.text.names if self.text else "",
            self.requests.names if self.requests else "",
            self.sub_items.names if self.sub_items else "",
        ]
        return ", ".join(d for d in drawn if d) or "none"

    @property
    def keys(self) -> tuple[str, ...]:
        """The canonical names of the top-level keys the classes add to a record, in order."""
        found = (self.claims, self.pairs[0] if self.pairs else None, self.relay, self.title_ref)
        held = (self.sub_items.key,) if self.sub_items else ()
        return tuple(k for k in found if k is not None) + held


def draw_formats(seed: int) -> Formats:
    """The classes seed ``seed`` draws (its own generator: every draw made whatever is kept)."""
    rng = random.Random(f"formats/{seed}")
    on = [rng.random() < SHARE for _ in range(5)]
    claims, pairs, comments = (
        rng.choice(CLAIMS_KEYS),
        rng.choice(PAIRS_KEYS),
        rng.choice(COMMENTS_KEYS),
    )
    query, title_ref = rng.choice(QUERY_ARGS), rng.choice(TITLE_REFS)
    return Formats(
        claims=claims if on[0] else None,
        pairs=pairs if on[1] else None,
        relay=comments if on[2] else None,
        query=query if on[3] else None,
        title_ref=title_ref if on[4] else None,
        objects=draw_style(seed, on[3]),
        text=draw_text(seed) or draw_header_rows(seed) if holding(seed) in TEXT else None,
        requests=draw_requests(seed),
        sub_items=draw_sub_items(seed),
    )

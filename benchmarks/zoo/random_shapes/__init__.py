"""Shapes drawn at random, many of them: from a seed, a design and a world laid out by it,
with the benchmark's kinds of call, answered by code.

The design (:mod:`.design`) draws the layout: a domain's vocabulary (:mod:`.vocabulary`,
:mod:`.domains_more`); each collection's container (an array, an object keyed by id with or
without the id as a field, columns and rows, a paged envelope or GraphQL-style edges);
wrapping objects; id styles; how links refer to records; field-name casing and synonyms;
fields nested in sub-objects; sparse fields; a unique code per record; arrays of party ids in
records; line items in links; a calendar keyed by date or listed. How the records' values are
encoded (plain for about half the seeds, else as DynamoDB, Firestore, MongoDB, xmltodict or
Elasticsearch export them, or one collection an event log) is drawn apart, so that it leaves
the rest as it is (:mod:`.encodings`, :mod:`.eventlog`), and so are structures that real
exports have and the layout does not: about a third of the seeds keep two or three collections
in one mixed-type array told apart by a type field (a JSON:API document, a FHIR-like Bundle, a
Kubernetes-like List, a DynamoDB-like single table, a tagged list; ids may be the same across
kinds), and about a third refer to records by typed references (``Customer/123``,
``urn:customer:123``, a URL, ``{"reference": ..}``) (:mod:`.structures`, :mod:`.mixed`). From
a fourth generator, a third to a half of any run of seeds draw how records sit and are written:
collections in real APIs' list envelopes (Stripe, OData, SCIM, HAL, Kubernetes), records kept
inside a few large parents and answered with the parent's id, fields written as property
lists (one-key objects, name/value pairs, positional tuples), ids held deep in the record
(:mod:`.reshaping`, :mod:`.envelopes`, :mod:`.parents`, :mod:`.property_lists`); of the
rest, those whose links are plain records keep them split into partitions, one array per month
or hash shard (:mod:`.partitions`: about one seed in eight). From a fifth generator, each for
about three seeds in ten, the classes later held-out formats exposed: large records holding
statements keyed by party ids, fields of name/value pairs, Relay-style connections with
``__typename`` and global ids, searches taking one query string, and counts no record holds
with records naming another by its title (:mod:`.formats`, :mod:`.big_records`,
:mod:`.relay`, :mod:`.query_language`, :mod:`.title_refs`); and, each for about three seeds in
ten from generators of their own, searches taking a nested query object (an Elasticsearch
``bool`` query, a MongoDB filter, a GraphQL ``where``, a list of filters:
:mod:`.query_objects`, :mod:`.object_search`) and records held as lines of text (CSV, TSV, an
SQL dump, logfmt, JSON lines, a spreadsheet's rows) that every tool parses
(:mod:`.text_lines`, :mod:`.text_store`, :mod:`.text_holding`); and, each for about three
seeds in ten from generators of their own, aggregations asked through a family's own request
(an Elasticsearch body with ``aggs``, a MongoDB pipeline, Hasura's ``_aggregate``, Prisma's
``groupBy``, SQL or SOQL text), answered as the family answers them
(:mod:`.aggregation_requests`, :mod:`.aggregation_writing`, :mod:`.aggregation_parsing`,
:mod:`.aggregation_answers`, :mod:`.aggregation_offers`), and records holding lists of
sub-items (copies, holdings, stock lots, attendees, order lines) summarised over the
sub-items meeting constraints tied to the same sub-item (:mod:`.sub_items`,
:mod:`.sub_item_offers`); and, for about two seeds in ten from a generator of its own, links
whose references go by names that do not say their target (``owner``, ``ref_a``) beside a
schema document naming them (OpenAPI foreign-key notes, a JSON Schema, SQL DDL), half of
those seeds' searches taking a PostgREST query string of filters (:mod:`.schema_links`,
:mod:`.filter_search`). About two seeds in ten of those drawing no other text, from a
generator of their own, keep every collection as positional rows under a header row, the
sheets of one value-range document (headers as people spell them, the links' parties looked
up by ``VLOOKUP`` formulas), with a lookup of rows by A1 or R1C1 address
(:mod:`.header_rows`); and, for about two seeds in ten from a generator of its own, every
record split over flat composite keys of one keyspace, as a key-value store's dump holds it
(``boat:BT-00042`` a hash, ``boat:BT-00042:calendar`` a part, a sorted set of one field, a set
of link ids under the record's key; :mod:`.composite_keys`). The
surface
(:mod:`.surface`) draws the tools: their names, argument casing and wording, paging, answer
wrapping, output schemas, and which calls of each kind the seed offers (:mod:`.lookups`,
:mod:`.searches`, :mod:`.joins`, :mod:`.aggregates`), so that what a kind of call means
varies from seed to seed too.

``random-N`` is the shape of seed N; ``random:A-B`` on the command line names seeds A to B.
Seeds 0-99 are for development; seeds from 1000 up are held out (run only at the end, with
``--include-held-out``), so that a figure on them is one on shapes nobody tuned for.
"""

from __future__ import annotations

import re

from benchmarks.zoo.random_shapes.design import draw
from benchmarks.zoo.random_shapes.world import RandomShape
from benchmarks.zoo.shape import Shape

PREFIX = "random-"
HELD_OUT_FROM = 1000
"""Seeds from here up are held out; 0-99 are the development range."""
_RANGE = re.compile(r"^random:(\d+)(?:-(\d+))?$")


def random_shape(seed: int) -> Shape:
    """The shape of ``seed``: a :class:`RandomShape` whose class carries the shape's name."""
    design = draw(seed)
    kind = type(
        f"RandomShape{seed}",
        (RandomShape,),
        {
            "name": f"{PREFIX}{seed}",
            "title": design.domain.title,
            "description": f"{design.domain.about} Answers are JSON; errors are text starting "
            "with 'Error:'.",
            "note": design.note,
            "encoding": design.encoding,
            "structure": design.drawn,
            "__doc__": f"Random shape of seed {seed}, its records encoded {design.encoding}, "
            f"structures drawn: {design.drawn}.",
        },
    )
    made: Shape = kind(design)
    return made


def seed_of(name: str) -> int | None:
    """The seed of a random shape's name (``random-7`` → 7), else ``None``."""
    rest = name.removeprefix(PREFIX)
    return int(rest) if name.startswith(PREFIX) and rest.isdigit() else None


def expand(token: str) -> list[str]:
    """The shape names a command-line token stands for: ``random:0-9`` → ``random-0`` to
    ``random-9``; any other token stands for itself."""
    matched = _RANGE.match(token)
    if matched is None:
        return [token]
    first = int(matched.group(1))
    last = int(matched.group(2) or first)
    if last < first:
        raise ValueError(f"empty seed range {token}")
    return [f"{PREFIX}{n}" for n in range(first, last + 1)]


def held_out(name: str) -> bool:
    seed = seed_of(name)
    return seed is not None and seed >= HELD_OUT_FROM


__all__ = ["HELD_OUT_FROM", "RandomShape", "expand", "held_out", "random_shape", "seed_of"]

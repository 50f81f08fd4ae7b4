"""A zoo of world shapes for the grounding benchmark: worlds of several MB whose calls are
answered, and whose state patches are made, by code (dev tooling, not part of mcp_sim).

    from benchmarks.zoo import generate
    world_spec, calls = generate("library", size_mb=4, seed=7, episodes=30)
    world_spec, calls = generate("random-17", size_mb=4, seed=7, episodes=30)

``calls`` are JSON objects as ``benchmarks/grounding.py`` reads them (``episode``, ``step``,
``kind``, ``tool``, ``arguments``, ``response``, ``is_error``, ``patch``). The shapes in
:data:`HELD_OUT` are not for development: nobody tunes on them; they are run at the end only.
``random-N`` is a shape drawn from seed N (:mod:`benchmarks.zoo.random_shapes`): seeds 0-99
are for development, seeds from 1000 up are held out. Seeds also draw value encodings and
structures (mixed-type arrays told apart by a type field, typed references) apart from their
layout (:mod:`benchmarks.zoo.random_shapes.structures`), and how records sit and are written
(real APIs' list envelopes, records inside a few parents, property lists, ids held deep:
:mod:`benchmarks.zoo.random_shapes.reshaping`).
"""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.airline import Airline
from benchmarks.zoo.bikeshare import Bikeshare
from benchmarks.zoo.cassandra import Cassandra
from benchmarks.zoo.clinic import Clinic
from benchmarks.zoo.conference import Conference
from benchmarks.zoo.confluence import Confluence
from benchmarks.zoo.couchdb import CouchDb
from benchmarks.zoo.datasette import Datasette
from benchmarks.zoo.dynamo import Dynamo
from benchmarks.zoo.elastic import Elastic
from benchmarks.zoo.eventlog import EventLog
from benchmarks.zoo.fhir import Fhir
from benchmarks.zoo.filesystem import Filesystem
from benchmarks.zoo.fleet import Fleet
from benchmarks.zoo.geojson import GeoJson
from benchmarks.zoo.gitstore import GitStore
from benchmarks.zoo.gmail import Gmail
from benchmarks.zoo.graphql import Graphql
from benchmarks.zoo.gtfs import Gtfs
from benchmarks.zoo.helpdesk import Helpdesk
from benchmarks.zoo.hotelxml import HotelXml
from benchmarks.zoo.hubspot import Hubspot
from benchmarks.zoo.inventory import Inventory
from benchmarks.zoo.jcal import Jcal
from benchmarks.zoo.jira import Jira
from benchmarks.zoo.kit import KINDS
from benchmarks.zoo.kube import Kube
from benchmarks.zoo.ldap import Ldap
from benchmarks.zoo.ledger import Ledger
from benchmarks.zoo.library import Library
from benchmarks.zoo.marc import Marc
from benchmarks.zoo.neo4j import Neo4j
from benchmarks.zoo.notion import Notion
from benchmarks.zoo.orgchart import OrgChart
from benchmarks.zoo.osm import Osm
from benchmarks.zoo.parcels import Parcels
from benchmarks.zoo.postgrest import Postgrest
from benchmarks.zoo.prometheus import Prometheus
from benchmarks.zoo.random_shapes import held_out, random_shape, seed_of
from benchmarks.zoo.redis_stack import RedisStack
from benchmarks.zoo.route53 import Route53
from benchmarks.zoo.s3 import S3
from benchmarks.zoo.salesforce import Salesforce
from benchmarks.zoo.shape import Shape, record
from benchmarks.zoo.sheets import Sheets
from benchmarks.zoo.shop import Shop
from benchmarks.zoo.slack import Slack
from benchmarks.zoo.spotify import Spotify
from benchmarks.zoo.stripe import Stripe
from benchmarks.zoo.tfstate import TfState
from benchmarks.zoo.university import University
from benchmarks.zoo.wetter import Wetter
from benchmarks.zoo.wikidata import Wikidata
from benchmarks.zoo.woo import Woo

SHAPES: dict[str, type[Shape]] = {
    shape.name: shape
    for shape in (
        Library,
        Fleet,
        Airline,
        Inventory,
        Shop,
        OrgChart,
        Helpdesk,
        University,
        Filesystem,
        Ledger,
        Clinic,
        Parcels,
        Conference,
        Bikeshare,
        Wetter,
        Dynamo,
        EventLog,
        HotelXml,
        Fhir,
        Kube,
        GeoJson,
        Stripe,
        Marc,
        Jcal,
        TfState,
        Jira,
        Slack,
        GitStore,
        Prometheus,
        Gtfs,
        Wikidata,
        Gmail,
        Graphql,
        Elastic,
        Salesforce,
        Datasette,
        Osm,
        Notion,
        Hubspot,
        S3,
        Spotify,
        Confluence,
        Sheets,
        Postgrest,
        RedisStack,
        Woo,
        Neo4j,
        Cassandra,
        Ldap,
        Route53,
        CouchDb,
    )
}
"""Records in arrays (library); objects keyed by id with the id a field (fleet) and without it,
with per-date calendars (airline); compound keys (inventory); records referenced from nested
lists (shop); a tree (orgchart); free text (helpdesk); many-to-many links (university); a tree
keyed by name (filesystem); double-entry bookkeeping (ledger); columnar tables whose rows are
lists of values (clinic); an event log of scans with nested addresses (parcels); a JSON:API
document with kebab-case attributes and typed references (conference); a Redis export of
composite string keys holding string-valued hashes, lists and counters (bikeshare); a time
series keyed by timestamp at the top level with German field names and English tool arguments
(wetter); a DynamoDB export of typed attribute values in a single-table design
(dynamo), an event-sourced store whose answers are projections folded from an append-only log
(eventlog), and an XML export as ``xmltodict`` turns it into JSON, with ``@`` attributes,
``#text`` and elements that are a list only when repeated (hotelxml); a FHIR R4 Bundle whose
people are known by identifier values (MRN, NPI), linked by reference strings, with readings
as LOINC-coded quantities and blood pressure as panel components (fhir); a ``kubectl get -o
json`` List of nodes, deployments, services and pods with slashed label keys, quantities as
suffixed strings and pods chosen by label selectors (kube); and OpenStreetMap charging stations
as ``osmtogeojson`` exports them, with string-valued, colon-namespaced tags, ``[lon, lat]``
points or polygons, and districts a station lies in by geometry alone (geojson); a Stripe
account as its list endpoints export it, with prefixed ids, amounts in cents, Unix times,
string-valued metadata and expandable references left as bare ids (stripe); a Koha library
catalogue in MARC-in-JSON, with numeric tags, subfields as lists of one-key objects, ISBD
punctuation in values, the language inside a fixed-length field, editions linked by another
record's OCLC number and copies as embedded item fields (marc); and team calendars from a
CalDAV server in jCal, whose properties and components are positional arrays, with people as
``mailto:`` URIs named in parameters, ends as a ``dtend`` or a ``duration`` and weekly series
as an ``rrule`` (jcal); an AWS estate's Terraform state (format 4), one flat list of resources
told apart by module, mode, type and name, instances keyed by a ``count`` or ``for_each``
``index_key``, references as cloud ids and as addresses in ``dependencies``, and tools taking
resource addresses the state writes nowhere (tfstate); a Jira Cloud search answer whose
company fields sit under opaque ``customfield_NNNNN`` keys named only in a separate ``names``
map, with embedded users, option objects, rich-text descriptions and each issue's changelog of
field changes (jira); and a Slack workspace export, a file per channel and day of messages known
by ``ts`` strings, people as user ids in fields and inside the text, threads held together by
``thread_ts`` across day files, and API answers wrapped as ``{"ok": true, ...}`` (slack); a
git repository's object store, commits, trees and blobs in one map keyed by SHA-1, a file's
path held by no object but walked one component per tree, its text base64, history only as
parent links, and tools taking GitHub's refs, paths and ``BASE...HEAD`` (gitstore); a
Prometheus range query's matrix of series known only by their label sets, samples as ``[unix,
"text"]`` pairs, hosts named only in an info metric's labels, and tools taking PromQL
(prometheus); and a GTFS feed converted from CSV, a table per file with every value text,
joined by ids only, times past midnight as ``25:10:00`` and the days a service runs as weekday
columns less and plus dated exceptions (gtfs); a Wikibase JSON dump whose facts are statements
under property ids, typed snak values (items as ``numeric-id`` objects, times as ``+YYYY-MM-DD``
with a precision, quantities as signed text with a unit URI), qualifiers and ranks, property
names held only by the properties' own entities, and tools taking SPARQL (wikidata); a Gmail
API mailbox of messages whose headers are name/value pairs in a MIME part tree, whose text is
base64url, whose labels are ids and whose threads are the first message's id, with tools
taking Gmail's search operators and raw RFC 2822 (gmail); and a GitHub GraphQL answer of Relay
connections at every level, ``__typename`` on every object, base64 global ids and references
by title or number, with tools as GraphQL operations taking numbers and global ids (graphql);
an Elasticsearch cluster's indices dumped with their mappings and ``_search`` hits (documents
under ``_source`` beside ``_id``, ``_version`` and ``_seq_no``), answered with the REST API's
envelopes (``hits.hits``, aggregation buckets with ``doc_count``, ``_update``'s ``result``) for
Query DSL bodies, joins as terms lookups into another index and ``_mget`` (elastic); a
Salesforce org as ``queryAll`` answers, records with ``attributes`` and 18-character ids whose
prefix names the object, related by ``AccountId``/``OwnerId`` only, with tools taking SOQL
pieces and answering parent paths as nested records, child subqueries as their own record
lists and aggregates as ``AggregateResult`` rows with ``expr0`` (salesforce); and a SQLite
database kept as ``sqlite3 .dump`` text, its rows positional ``INSERT`` lines under ``CREATE
TABLE`` lines, served as Datasette's JSON (rows as arrays beside ``columns``, ``column__op``
filters, facets with counts, foreign keys expanded to ``{"value", "label"}``, read-only SQL)
and written through its write API (datasette); a town's OpenStreetMap data as API 0.6's
``map.json`` answers it, one ``elements`` array of nodes, ways and relations with versions and
changesets, string-valued tags absent where none are mapped, positions held by nodes alone
(streets and buildings as ways listing node ids, a junction a node two ways share), bus routes
and turn restrictions as relations of ``{"type", "ref", "role"}`` members, with tools as API
0.6 reads, Overpass QL (tag filters, ``out count``, ``make stat``, ``for`` loops) and edits
that check the version read and open a changeset (osm); a Notion workspace as its API serves
it, database pages whose properties are typed value objects under short property ids
(rich-text runs split where formatting changes, option and user objects, relations of page
ids, rollups computed over related pages, unique ids), page content as block trees saved per
parent, with tools taking typed database filters, property ids and block ids (notion); and a
HubSpot CRM as its v3 and v4 APIs export it, objects of numeric string ids whose properties are
all strings or ``null`` (multiple checkboxes joined by ``;``, deal stages and owners by ids
whose names only the pipelines and owners APIs hold), associations kept apart as v4 batch
answers with numeric target ids and typed primary links, with tools taking filter groups of
string values, epoch milliseconds and ``associations.company`` pseudo-properties (hubspot);
a versioned S3 bucket as ``aws s3api`` prints it, one ``list-object-versions`` answer of
``Versions`` and ``DeleteMarkers`` sorted by key with ``IsLatest`` marking the current entry
(a deleted key keeps its versions behind a marker), folders only as ``/`` inside keys, quoted
MD5 ETags and each current object's ``TagSet`` kept apart by key, with tools as ``HeadObject``,
``GetObjectTagging``, a filtered ``ListObjectsV2``, a prefix's summary per storage class and
folder, ``PutObject``, ``DeleteObject`` and ``ListObjectVersions`` (s3); a label's catalogue on
Spotify as the Web API's several-items endpoints answer it, the same track simplified inside
its album's paging object, full (ISRC, popularity, a simplified album) among the tracks and
again inside each playlist item, artists simplified everywhere but in their own list, release
dates only a year where the precision says so, with tools taking base62 ids, ``spotify:track:``
URIs and a search ``q`` with ``artist:``/``album:``/``year:``/``isrc:`` filters, and playlist
writes answering only a new ``snapshot_id`` (spotify); and an operations space of Confluence
Cloud as its REST API lists pages with ``expand=body.storage,version,ancestors,
metadata.labels``, whose facts are rows of a Page Properties macro inside the XHTML
storage-format body (people as ``ri:user`` account ids named only by the users list, statuses
as ``status`` macros, dates as ``<time>``, services as links to page titles), the tree held only
by each page's ``ancestors``, with tools taking CQL, the Page Properties Report and a summary of
one property over it, and edits saved as the next version number (confluence); a wholesaler's
order book in Google Sheets as the Sheets API serves it, three sheets held as one
``values.batchGet`` with ``valueRenderOption=FORMULA`` (rows as arrays under A1 ranges, the
header row the only field names, an order's customer, price and total as ``VLOOKUP`` and
product formulas only the service evaluates), with tools taking A1 ranges, the Visualization
API's query language (``select ... where ... group by``, answered as ``cols`` and ``rows`` of
``{"v": ...}`` cells) and ``values.update``/``values.append`` (sheets); a studio's Supabase
database as PostgREST serves it, each table as ``GET /<table>`` answers it beside the OpenAPI
document whose column descriptions alone name the foreign keys, with tools taking query
strings of ``column=op.value`` filters, ``select`` with renames, embedded resources and
aggregates, and ``POST``/``PATCH`` answering the representation (postgrest); and a game's live
store in Redis Stack as ``rdb --command json`` dumps it, flat composite keys whose names alone
tell hashes, sets and sorted sets apart, with tools as Redis commands answered as node-redis
decodes them (``HGETALL``, ``FT.SEARCH`` and ``FT.AGGREGATE`` in RediSearch's query language,
``SORT ... BY player:*->xp GET player:*->name`` as the join, ``HSET``, ``ZINCRBY``) (redis);
a tea shop's WooCommerce database as phpMyAdmin's JSON export writes it, every value text,
products and orders as ``wp_posts`` rows told apart by ``post_type`` whose fields are
``wp_postmeta`` key/value rows, an order's lines as order item rows with meta rows of their
own, with tools as the WooCommerce REST API v3 assembling its objects (``_fields``, list
filters, the legacy sales, top-sellers and order-status reports, ``PUT`` updates) (woo); a
research graph in Neo4j as the APOC JSON-lines export writes it, nodes and relationships
numbered apart, links held only by relationship lines naming internal ids and facts kept on
relationships, with tools as the Neo4j MCP server's parameterised Cypher reads and writes
(neo4j); and a streaming service's Cassandra keyspace as ``sstabledump`` prints its tables'
SSTables, rows split over several SSTables and merged by write timestamp with tombstones,
partitions keyed by their key values, clustering values ordering rows, collections one cell per
element, with tools executing CQL with bound values (``ALLOW FILTERING``, ``IN`` lists,
aggregates within a partition, ``UPDATE ... IF EXISTS``) (cassandra); a company directory
in 389 Directory Server as ldap3 exports it, entries known by DNs whose parents alone say where
they sit (a person's department is the ``ou`` above them), every attribute a list of strings,
managers as DNs, group membership kept on both sides (``member`` and the memberOf plugin's
``memberOf``) and subordinate counts computed by the server, with tools as ldap3's ``search``
(base, scope, RFC 4515 filter, attributes), ``modify`` and ``add`` (ldap); an estate's DNS in
Route 53 as the AWS CLI lists it, record sets keyed by name, type and set identifier in
reversed-label order, one zone name served twice (public and private), values whose parts the
type decides, aliases and wildcards (``\\052``) that name other record sets, a subdomain
delegated by an NS set, with tools as ``ListResourceRecordSets`` from a start name,
``TestDNSAnswer`` resolving aliases and wildcards, zone counts and ``ChangeResourceRecordSets``
batches (route53); and a wholesaler's CouchDB as ``_all_docs`` lists it, documents of several
types by id with revisions and replication conflicts, and the queries held in the state as a
design document's JavaScript map functions, with tools as the HTTP API's document reads,
``_view`` queries (key ranges in view collation, ``group_level`` reduces, linked documents
through ``include_docs``), Mango ``_find`` and ``PUT`` with the current ``_rev`` (couchdb).

Each round keeps the shapes it measures last out of development: filesystem and ledger were
held out first, then clinic and parcels, then conference, bikeshare and wetter. Once a round
has measured them, the retrieval has been shaped with their figures in view, so they can no
longer tell how it does on a shape nobody designed for: they join the development set, and
new shapes, written by someone not tuning the retrieval and shown to nobody who is, are held
out in their place: dynamo, eventlog and hotelxml joined the development set on 2026-11-26,
when their first measurement (.33 overall) had shown value encodings no rule read; fhir, kube
and geojson on 2026-11-26 too, after their first measurement (.49 overall) had shown records of
several kinds in one array, references as typed strings and geometry no rule read; stripe, marc
and jcal on 2026-11-26 as well, after their first measurement (.33 overall, the same before and
after a round of development on the others) had shown collections inside list envelopes,
records whose fields are lists of one-key objects or positional arrays, and matches deep in a
record shown instead of the record; tfstate, jira and slack on 2026-11-27, after their first
measurement (.59 overall, the same before and after a round of development on the others) had
shown answer names that only a side map of the state holds, addresses composed from several
fields and threads spread over files; gitstore, prometheus and gtfs on 2026-11-27 as well,
after their first measurement (.58 overall, the same before and after a round of development on
the others) had shown a map keyed by hashes whose values hold small lists read as hundreds of
collections, series known by label sets and answers joined across three tables; wikidata, gmail
and graphql on 2026-11-27 as well, after their first measurement (.58 overall, the same before
and after a round of development on the others) had shown large records outlined past their ids,
answers that re-encode the state's values, and query languages in arguments; elastic,
salesforce and datasette on 2026-11-27 as well, after their first measurement (.52 overall,
.56 after a round of development on the others) had shown query objects nested in arguments
and rows kept as lines of text; osm, notion and hubspot on 2026-11-27 as well, after their first
measurement (.75 overall, .74 after a round of development on the others) had shown searches
by filter groups, typed property objects and map elements joined by member references; s3,
spotify and confluence on 2026-11-27 as well, after their first measurement (.63 overall, the
same before and after a round of development on the others) had shown listings whose current
entry only a flag marks, the same record simplified in several places and facts kept inside
markup; sheets, postgrest and redis on 2026-11-28, after their first measurement (.42 overall,
the same before and after a round of development on the others, lookups by id .47) had shown
rows as positional arrays under a header row, links named only in a separate schema document
and records split over flat composite keys. Held out now: woo, neo4j and cassandra, written on
2026-11-28 by someone not tuning the retrieval, and (the held-out set grown to six that round)
ldap, route53 and couchdb, written on 2026-11-28 by another who does not tune it either."""
HELD_OUT: frozenset[str] = frozenset({"woo", "neo4j", "cassandra", "ldap", "route53", "couchdb"})
"""Shapes kept out of development (run only at the end, with ``--include-held-out``)."""

__all__ = ["HELD_OUT", "KINDS", "SHAPES", "generate", "is_held_out", "make_shape"]


def make_shape(name: str) -> Shape:
    """The shape of that name: one of :data:`SHAPES`, or a random one (``random-N``)."""
    seed = seed_of(name)
    if seed is not None:
        return random_shape(seed)
    return SHAPES[name]()


def is_held_out(name: str) -> bool:
    """Whether a shape is kept out of development: one of :data:`HELD_OUT`, or a random shape
    of a held-out seed (1000 and up)."""
    return name in HELD_OUT or held_out(name)


def generate(
    shape: str, size_mb: float, seed: int = 7, episodes: int = 30
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The world spec (state of about ``size_mb`` MB as JSON) and its recorded calls."""
    maker = make_shape(shape)
    state = maker.build(random.Random(f"{shape}/{seed}"), int(size_mb * 1_000_000))
    return maker.spec(state), record(maker, state, seed, episodes)

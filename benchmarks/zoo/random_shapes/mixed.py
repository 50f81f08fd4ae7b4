"""Collections of several kinds stored together in one array, their records told apart by a
type field, as real exports keep them: a JSON:API document (``data`` and ``included`` of
``{type, id, attributes, relationships}``), a FHIR-like Bundle (``entry[].resource`` with ``resourceType``
and ``id``), a Kubernetes-like List (``items[]`` with ``kind``, ``metadata.name`` and a
``spec``), a DynamoDB-like single table (``PK``/``SK`` keys ``TYPE#id`` beside an entity-type
attribute), or a list of records tagged by a type field. A record is known by (type, id): ids
may be the same in two kinds.

A :class:`Mixed` is one collection's share of such a container: the frame, where the container
is, the type name its records carry, and the tag (discriminator) field. The functions here
wrap a record (encoded by its collection's codec, less its id where the frame holds the id)
and read it back."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from benchmarks.zoo.random_shapes.encodings import Codec

FRAMES = ("jsonapi", "bundle", "list", "single_table", "tagged")
TAGS = {"jsonapi": "type", "bundle": "resourceType", "list": "kind"}
"""The discriminator a frame's standard names (the others draw theirs)."""
BASE = "https://fhir.example.org/r4"


@dataclass(frozen=True)
class Mixed:
    frame: str
    place: tuple[str, ...]
    """The path of the shared container."""
    type_name: str
    """The type this collection's records carry (``Customer``, ``customers``, ``CUSTOMER``)."""
    tag: str
    """The field that holds the type."""
    first: bool = False
    """A JSON:API document's primary data (the other kinds are ``included``)."""
    related: tuple[str, ...] = ()
    """The reference fields a JSON:API document keeps under ``relationships``."""

    @property
    def whole(self) -> bool:
        """Whether the frame keeps the record whole (its id field in it) beside the tag."""
        return self.frame == "tagged"

    @property
    def inner(self) -> tuple[str, ...]:
        """Where in an entry the (encoded) record's fields are."""
        return {"jsonapi": ("attributes",), "bundle": ("resource",), "list": ("spec",)}.get(
            self.frame, ()
        )

    @property
    def section(self) -> tuple[str, ...]:
        """Where in the container the entries' array is."""
        if self.frame == "jsonapi":
            return ("data",) if self.first else ("included",)
        return {"bundle": ("entry",), "list": ("items",)}.get(self.frame, ())


def make(frame: str) -> Any:
    """The empty shared container of ``frame``."""
    if frame == "jsonapi":
        return {"data": [], "included": [], "meta": {"total": 0}}
    if frame == "bundle":
        return {"resourceType": "Bundle", "type": "collection", "entry": []}
    if frame == "list":
        return {
            "apiVersion": "v1",
            "kind": "List",
            "metadata": {"resourceVersion": ""},
            "items": [],
        }
    return []


def entries(box: Any, mixed: Mixed) -> list[Any]:
    """The array this collection's records are in (shared with other kinds)."""
    for part in mixed.section:
        box = box[part]
    found: list[Any] = box
    return found


def wrap(mixed: Mixed, codec: Codec, ident: str, stored: dict[str, Any]) -> dict[str, Any]:
    """The entry holding ``stored`` (the record encoded; less its id unless the frame keeps
    records whole) of id ``ident``."""
    kind = mixed.type_name
    if mixed.frame == "jsonapi":
        attributes = {k: v for k, v in stored.items() if k not in mixed.related}
        entry = {"type": kind, "id": ident, "attributes": attributes}
        related = {k: {"data": stored[k]} for k in mixed.related if k in stored}
        return entry | {"relationships": related} if related else entry
    if mixed.frame == "bundle":
        resource = {"resourceType": kind, "id": ident, **stored}
        return {"fullUrl": f"{BASE}/{kind}/{ident}", "resource": resource}
    if mixed.frame == "list":
        return {"apiVersion": "v1", "kind": kind, "metadata": {"name": ident}, "spec": stored}
    tag = {mixed.tag: codec.value(kind)}
    if mixed.frame == "tagged":
        return tag | stored
    key = codec.value(f"{kind.upper()}#{ident}")
    return {"PK": key, "SK": key} | tag | stored


def text(value: Any) -> str:
    """A string as an encoding stores it (``{"S": "x"}`` of DynamoDB) read back."""
    if isinstance(value, dict) and len(value) == 1:
        (inner,) = value.values()
        return str(inner)
    return str(value)


def kind_of(mixed: Mixed, entry: Any) -> str:
    """The type an entry's record is of."""
    if mixed.frame == "jsonapi":
        return str(entry["type"])
    if mixed.frame == "bundle":
        return str(entry["resource"]["resourceType"])
    if mixed.frame == "list":
        return str(entry["kind"])
    return text(entry[mixed.tag])


def unwrap(mixed: Mixed, codec: Codec, id_key: str, entry: Any) -> tuple[str, Any]:
    """An entry's id (as text) and encoded record (whole, or less its id): an entry of this
    collection's kind (each kind has its own id field)."""
    if mixed.frame == "jsonapi":
        related = {k: v["data"] for k, v in entry.get("relationships", {}).items()}
        return str(entry["id"]), related | entry["attributes"] if related else entry["attributes"]
    if mixed.frame == "bundle":
        resource = entry["resource"]
        rest = {k: v for k, v in resource.items() if k not in ("resourceType", "id")}
        return str(resource["id"]), rest
    if mixed.frame == "list":
        return str(entry["metadata"]["name"]), entry["spec"]
    if mixed.frame == "tagged":
        rest = {k: v for k, v in entry.items() if k != mixed.tag}
        return codec.ident(rest, id_key), rest
    rest = {k: v for k, v in entry.items() if k not in ("PK", "SK", mixed.tag)}
    return text(entry["PK"]).split("#", 1)[1], rest


def stored_record(mixed: Mixed, entry: Any) -> Any:
    """The part of an entry a write patches: the record's fields, as encoded."""
    for part in mixed.inner:
        entry = entry[part]
    return entry


def mine(share: Mixed, codec: Codec, id_key: str, box: Any) -> list[tuple[str, Any]]:
    """(id as text, stored record) of ``share``'s entries in its container ``box``."""
    found = entries(box, share)
    return [unwrap(share, codec, id_key, e) for e in found if kind_of(share, e) == share.type_name]


def index(share: Mixed, codec: Codec, id_key: str, box: Any, key: str) -> int:
    """Where in the container's array record ``key`` of ``share``'s kind is."""
    for n, entry in enumerate(entries(box, share)):
        if kind_of(share, entry) != share.type_name:
            continue
        if unwrap(share, codec, id_key, entry)[0] == key:
            return n
    raise ValueError(f"no {share.type_name} {key}")

"""How a random shape encodes the values of its records: plain JSON, or as a real service
exports them: DynamoDB typed attribute values (``{"S": ..}``, ``{"N": "12.5"}``, ``{"M": ..}``),
Firestore documents (a resource ``name`` holding the id, ``fields`` of typed values), MongoDB
extended JSON (``{"$oid": ..}``, ``{"$numberDecimal": ..}``, ``{"$date": ..}``), xmltodict-style
JSON of typed XML (the id an ``@`` attribute, a number ``{"@type": "integer", "#text": "312"}``,
an array ``{"@type": "array", "item": ..}`` whose lone item is an object, not a list) and
Elasticsearch hits (``_index``, ``_id``, ``_source``); or one collection kept as an event
log (:mod:`.eventlog`).

A :class:`Codec` encodes a record as it is stored and decodes it back exactly (the tools answer
the decoded record, as the services' APIs do), reads a stored record's id cheaply, and says
how to add a value inside a stored record (the JSON Patch a write makes). The encoding is drawn
from a generator of its own, so a seed's layout and tools are the same whatever it draws."""

from __future__ import annotations

import hashlib
import random
import re
from typing import Any

ENCODINGS = ("plain", "dynamodb", "firestore", "mongodb", "xmltodict", "elasticsearch", "events")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
Ops = list[dict[str, Any]]
"""JSON Patch operations whose paths are lists of parts inside one stored record."""


def draw_encoding(seed: int) -> str:
    """The encoding of seed ``seed``: plain for about half the seeds."""
    rng = random.Random(f"encoding/{seed}")
    return "plain" if rng.random() < 0.5 else rng.choice(ENCODINGS[1:])


def logged_role(seed: int) -> str:
    """Which collection an ``events`` seed keeps as an event log (:mod:`.eventlog`)."""
    # Records (the collection writes change) the most often, as event-sourced services log them.
    return random.Random(f"encoding/{seed}/log").choice(("primary", "primary", "secondary", "link"))


def typed_id(text: str) -> Any:
    """An id read back from text (a key, a resource name, an attribute): a number if it
    looks like one, as the int id style makes them."""
    return int(text) if text.isdigit() else text


class Codec:
    """Plain JSON: records are stored as they are."""

    name = "plain"
    within: tuple[str, ...] = ()
    """Where in a collection's place the encoding keeps the container of records."""

    def encode(self, record: dict[str, Any], id_key: str, collection: str) -> dict[str, Any]:
        return record

    def decode(self, stored: dict[str, Any], id_key: str) -> dict[str, Any]:
        return stored

    def ident(self, stored: dict[str, Any], id_key: str) -> str:
        return str(stored[id_key])

    def bare(self, stored: dict[str, Any], id_key: str) -> dict[str, Any]:
        """A stored record less its id field (a container keyed by id holds it in the key)."""
        return {k: v for k, v in stored.items() if k != id_key}

    def value(self, value: Any) -> Any:
        """A value as it is stored inside a record."""
        return value

    def step(self, node: Any, part: str) -> tuple[tuple[str, ...], Any]:
        """The stored parts that reach ``part`` of decoded ``node``, and the stored child."""
        child = node.get(part) if isinstance(node, dict) else None
        return (part,), child

    def add(self, stored: dict[str, Any], inside: tuple[str, ...], value: Any) -> Ops:
        """The patch adding ``value`` at ``inside`` (decoded parts; ``-``: append)."""
        node: Any = self.top(stored)
        path: list[str] = list(self.prefix())
        for part in inside:
            parts, node = self.step(node, part)
            path.extend(parts)
        return [{"op": "add", "path": path, "value": self.value(value)}]

    def top(self, stored: dict[str, Any]) -> Any:
        return stored

    def prefix(self) -> tuple[str, ...]:
        return ()


class DynamoCodec(Codec):
    name = "dynamodb"

    def encode(self, record: dict[str, Any], id_key: str, collection: str) -> dict[str, Any]:
        return {k: self.value(v) for k, v in record.items()}

    def decode(self, stored: dict[str, Any], id_key: str) -> dict[str, Any]:
        return {k: _from_dynamo(v) for k, v in stored.items()}

    def ident(self, stored: dict[str, Any], id_key: str) -> str:
        (text,) = stored[id_key].values()
        return str(text)

    def value(self, value: Any) -> Any:
        if value is None:
            return {"NULL": True}
        if isinstance(value, bool):
            return {"BOOL": value}
        if isinstance(value, int | float):
            return {"N": repr(value)}
        if isinstance(value, list):
            return {"L": [self.value(v) for v in value]}
        if isinstance(value, dict):
            return {"M": {k: self.value(v) for k, v in value.items()}}
        return {"S": str(value)}

    def step(self, node: Any, part: str) -> tuple[tuple[str, ...], Any]:
        if "M" in node:
            return ("M", part), node["M"].get(part)
        if "L" in node:
            return ("L", part), None
        return (part,), node.get(part)


def _from_dynamo(value: dict[str, Any]) -> Any:
    ((tag, inner),) = value.items()
    if tag == "N":
        return float(inner) if any(c in inner for c in ".eE") else int(inner)
    if tag == "L":
        return [_from_dynamo(v) for v in inner]
    if tag == "M":
        return {k: _from_dynamo(v) for k, v in inner.items()}
    return None if tag == "NULL" else inner


class FirestoreCodec(Codec):
    name = "firestore"

    def encode(self, record: dict[str, Any], id_key: str, collection: str) -> dict[str, Any]:
        ident = record.get(id_key, "")
        name = f"projects/p/databases/(default)/documents/{collection}/{ident}"
        fields = {k: self.value(v) for k, v in record.items() if k != id_key}
        return {"name": name, "fields": fields}

    def decode(self, stored: dict[str, Any], id_key: str) -> dict[str, Any]:
        fields = {k: _from_firestore(v) for k, v in stored["fields"].items()}
        return {id_key: typed_id(self.ident(stored, id_key)), **fields}

    def ident(self, stored: dict[str, Any], id_key: str) -> str:
        return str(stored["name"]).rsplit("/", 1)[-1]

    def bare(self, stored: dict[str, Any], id_key: str) -> dict[str, Any]:
        return stored

    def value(self, value: Any) -> Any:
        if value is None:
            return {"nullValue": None}
        if isinstance(value, bool):
            return {"booleanValue": value}
        if isinstance(value, int):
            return {"integerValue": str(value)}
        if isinstance(value, float):
            return {"doubleValue": value}
        if isinstance(value, list):
            return {"arrayValue": {"values": [self.value(v) for v in value]} if value else {}}
        if isinstance(value, dict):
            return {"mapValue": {"fields": {k: self.value(v) for k, v in value.items()}}}
        if _DATE.match(str(value)):
            return {"timestampValue": f"{value}T00:00:00Z"}
        return {"stringValue": str(value)}

    def step(self, node: Any, part: str) -> tuple[tuple[str, ...], Any]:
        if "mapValue" in node:
            return ("mapValue", "fields", part), node["mapValue"]["fields"].get(part)
        if "arrayValue" in node:
            return ("arrayValue", "values", part), None
        return (part,), node.get(part)

    def top(self, stored: dict[str, Any]) -> Any:
        return stored["fields"]

    def prefix(self) -> tuple[str, ...]:
        return ("fields",)


def _from_firestore(value: dict[str, Any]) -> Any:
    ((tag, inner),) = value.items()
    if tag == "integerValue":
        return int(inner)
    if tag == "timestampValue":
        return str(inner)[:10]
    if tag == "arrayValue":
        return [_from_firestore(v) for v in inner.get("values", [])]
    if tag == "mapValue":
        return {k: _from_firestore(v) for k, v in inner["fields"].items()}
    return inner


class MongoCodec(Codec):
    name = "mongodb"

    def encode(self, record: dict[str, Any], id_key: str, collection: str) -> dict[str, Any]:
        digest = hashlib.sha1(f"{collection}/{record.get(id_key)}".encode()).hexdigest()
        return {"_id": {"$oid": digest[:24]}, **{k: self.value(v) for k, v in record.items()}}

    def decode(self, stored: dict[str, Any], id_key: str) -> dict[str, Any]:
        return {k: _from_mongo(v) for k, v in stored.items() if k != "_id"}

    def value(self, value: Any) -> Any:
        if isinstance(value, float):
            text = f"{value:.2f}" if round(value, 2) == value else repr(value)
            return {"$numberDecimal": text}
        if isinstance(value, list):
            return [self.value(v) for v in value]
        if isinstance(value, dict):
            return {k: self.value(v) for k, v in value.items()}
        if isinstance(value, str) and _DATE.match(value):
            return {"$date": f"{value}T00:00:00Z"}
        return value


def _from_mongo(value: Any) -> Any:
    if isinstance(value, list):
        return [_from_mongo(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "$numberDecimal" in value:
        return float(value["$numberDecimal"])
    if "$date" in value:
        return str(value["$date"])[:10]
    return {k: _from_mongo(v) for k, v in value.items()}


class XmlCodec(Codec):
    """Typed XML as xmltodict reads it: every value text, a type attribute where it is not
    a string, an array's items under ``item`` (one item an object, none no ``item``)."""

    name = "xmltodict"

    def encode(self, record: dict[str, Any], id_key: str, collection: str) -> dict[str, Any]:
        found = {f"@{id_key}": str(record[id_key])} if id_key in record else {}
        return found | {k: self.value(v) for k, v in record.items() if k != id_key}

    def decode(self, stored: dict[str, Any], id_key: str) -> dict[str, Any]:
        found = {id_key: typed_id(stored[f"@{id_key}"])} if f"@{id_key}" in stored else {}
        return found | {k: _from_xml(v) for k, v in stored.items() if not k.startswith("@")}

    def ident(self, stored: dict[str, Any], id_key: str) -> str:
        return str(stored[f"@{id_key}"])

    def bare(self, stored: dict[str, Any], id_key: str) -> dict[str, Any]:
        return {k: v for k, v in stored.items() if k != f"@{id_key}"}

    def value(self, value: Any) -> Any:
        if value is None or isinstance(value, str):
            return value
        if isinstance(value, bool):
            return {"@type": "boolean", "#text": "true" if value else "false"}
        if isinstance(value, int):
            return {"@type": "integer", "#text": str(value)}
        if isinstance(value, float):
            return {"@type": "decimal", "#text": repr(value)}
        if isinstance(value, dict):
            return {k: self.value(v) for k, v in value.items()}
        items = [self.value(v) for v in value]
        if not items:
            return {"@type": "array"}
        return {"@type": "array", "item": items if len(items) > 1 else items[0]}

    def add(self, stored: dict[str, Any], inside: tuple[str, ...], value: Any) -> Ops:
        *above, last = inside
        node: Any = stored
        path: list[str] = []
        for part in above:
            path.append(part)
            node = node[part]
        new = self.value(value)
        if last != "-":
            return [{"op": "add", "path": [*path, last], "value": new}]
        if "item" not in node:
            return [{"op": "add", "path": [*path, "item"], "value": new}]
        if isinstance(node["item"], list):
            return [{"op": "add", "path": [*path, "item", "-"], "value": new}]
        lone = node["item"]
        return [{"op": "replace", "path": [*path, "item"], "value": [lone, new]}]


def _from_xml(value: Any) -> Any:
    if not isinstance(value, dict):
        return value
    kind = value.get("@type")
    if kind == "array":
        items = value.get("item", [])
        return [_from_xml(v) for v in (items if isinstance(items, list) else [items])]
    if kind == "integer":
        return int(value["#text"])
    if kind == "decimal":
        return float(value["#text"])
    if kind == "boolean":
        return value["#text"] == "true"
    return {k: _from_xml(v) for k, v in value.items()}


class ElasticCodec(Codec):
    """A search export's hits: the record is the hit's ``_source``."""

    name = "elasticsearch"
    within = ("hits", "hits")

    def encode(self, record: dict[str, Any], id_key: str, collection: str) -> dict[str, Any]:
        return {"_index": collection, "_id": str(record.get(id_key)), "_score": 1.0} | {
            "_source": record
        }

    def decode(self, stored: dict[str, Any], id_key: str) -> dict[str, Any]:
        source: dict[str, Any] = stored["_source"]
        return source

    def ident(self, stored: dict[str, Any], id_key: str) -> str:
        return str(stored["_id"])

    def bare(self, stored: dict[str, Any], id_key: str) -> dict[str, Any]:
        return stored | {"_source": super().bare(stored["_source"], id_key)}

    def top(self, stored: dict[str, Any]) -> Any:
        return stored["_source"]

    def prefix(self) -> tuple[str, ...]:
        return ("_source",)


class EventLogged(Codec):
    """One collection an event log (its container: :mod:`.eventlog`), its records plain."""

    name = "events"


CODECS: dict[str, Codec] = {
    c.name: c
    for c in (
        Codec(),
        DynamoCodec(),
        FirestoreCodec(),
        MongoCodec(),
        XmlCodec(),
        ElasticCodec(),
        EventLogged(),
    )
}

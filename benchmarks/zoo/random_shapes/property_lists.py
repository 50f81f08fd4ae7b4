"""Records whose fields are written as a list, and records whose id is held deep inside.

A property list writes a record's fields (all, or all but the first few) as a list under one
key, in one of the styles real formats use: one-key objects whose keys repeat for a field of
many values (``[{"title": "x"}, {"tag": "a"}, {"tag": "b"}]``, as MARC-in-JSON writes fields),
name/value pairs (``[{"Key": "k", "Value": "v"}]`` as AWS tags, ``[{"name": .., "value": ..}]``),
or positional tuples ``[name, {params}, type, value, ..]`` (as jCard and jCal write
properties, a field of many values one tuple of them). Sub-objects may be nested property
lists in the same style.

A deep id is the record's id held inside it rather than as a top-level field: in a list of
identifiers (``"identifier": [{"system": .., "value": X}]`` as FHIR does), in a metadata object
(``"metadata": {"uid": X}`` as Kubernetes does), in a nested list of cross-references, or as an
entry of the record's property list (as MARC's ``001`` is).

:class:`RecordForm` is the codec that writes (and reads back, exactly) a plain record so; the
tools answer the plain record, as the services' APIs answer a parsed one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from benchmarks.zoo.random_shapes.encodings import Codec, Ops

LISTINGS = ("one_key", "key_value", "name_value", "tuple")
DEEP_IDS = ("identifier", "metadata", "xrefs")
"""Deep ids outside a property list (a record with one may also hold its id in the list:
``listed``)."""
LIST_KEYS = ("fields", "properties", "Attributes", "extensions", "field_list")
_PAIRS = {"key_value": ("Key", "Value"), "name_value": ("name", "value")}


def _type(value: Any) -> str:
    """A jCard value type for ``value``."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "date" if len(value) == 10 and value[4:5] == "-" == value[7:8] else "text"
    return "unknown"


@dataclass(frozen=True)
class RecordForm(Codec):
    """A record written with its fields as a property list, its id held deep, or both."""

    listing: str | None = None
    """How fields are listed (none: the record's fields stay as they are)."""
    list_key: str = "fields"
    kept: frozenset[str] = frozenset()
    """Fields kept as they are beside the list (the record's first few, where only part of
    it is listed)."""
    repeated: frozenset[str] = frozenset()
    """Fields whose values are lists (listed as repeated entries)."""
    nested: frozenset[str] = frozenset()
    """Fields whose sub-objects are listed as nested property lists."""
    deep: str | None = None
    """Where the id is held: a style of :data:`DEEP_IDS`, ``listed`` (in the property list),
    or none (a top-level field)."""
    system: str = "urn:ids"
    """The identifier system (or cross-reference source) a deep id names."""
    name: str = "property_list"

    def encode(self, record: dict[str, Any], id_key: str, collection: str) -> dict[str, Any]:
        stored: dict[str, Any] = {}
        if id_key in record:
            stored |= self._held(id_key, record[id_key])
        listed = {k: v for k, v in record.items() if k != id_key and k not in self.kept}
        stored |= {k: v for k, v in record.items() if k != id_key and k in self.kept}
        if self.listing is None:
            return stored | listed
        entries = self._entries(listed)
        if self.deep == "listed" and id_key in record:
            entries = [*self._entry(id_key, record[id_key]), *entries]
        return stored | {self.list_key: entries}

    def _held(self, id_key: str, ident: Any) -> dict[str, Any]:
        if self.deep == "identifier":
            return {"identifier": [{"system": self.system, "value": ident}]}
        if self.deep == "metadata":
            return {"metadata": {"uid": ident}}
        if self.deep == "xrefs":
            return {"xrefs": [{"source": self.system, "ids": [ident]}]}
        return {} if self.deep == "listed" else {id_key: ident}

    def _entries(self, fields: dict[str, Any]) -> list[Any]:
        return [entry for k, v in fields.items() for entry in self._entry(k, v)]

    def _entry(self, key: str, value: Any) -> list[Any]:
        """The entries listing field ``key`` of ``value``."""
        if key in self.nested and isinstance(value, dict):
            value = self._entries(value)
        many = value if key in self.repeated and isinstance(value, list) else None
        if self.listing == "tuple":
            kind = _type(many[0] if many else value)
            return [[key, {}, kind, *many] if many is not None else [key, {}, kind, value]]
        pair = _PAIRS.get(str(self.listing))
        values = many if many is not None else [value]
        return [{pair[0]: key, pair[1]: v} if pair else {key: v} for v in values]

    def _read(self, entry: Any) -> tuple[str, list[Any]]:
        """An entry's field name and its value(s)."""
        if self.listing == "tuple":
            return entry[0], list(entry[3:])
        pair = _PAIRS.get(str(self.listing))
        if pair:
            return entry[pair[0]], [entry[pair[1]]]
        ((key, value),) = entry.items()
        return key, [value]

    def _fields(self, entries: list[Any]) -> dict[str, Any]:
        found: dict[str, Any] = {}
        for entry in entries:
            key, values = self._read(entry)
            if key in self.nested:
                values = [self._fields(v) for v in values]
            if key in self.repeated:
                found.setdefault(key, []).extend(values)
            else:
                found[key] = values[0]
        return found

    def decode(self, stored: dict[str, Any], id_key: str) -> dict[str, Any]:
        found = self._ident(stored) if self.deep else stored.get(id_key)
        record = {id_key: found} if found is not None else {}
        holders = ("identifier", "metadata", "xrefs", self.list_key)
        record |= {k: v for k, v in stored.items() if k not in (id_key, *holders)}
        if self.listing is None:
            return record
        listed = self._fields(stored.get(self.list_key, []))
        if self.deep == "listed" and id_key in listed:
            record = {id_key: listed.pop(id_key)} | record
        empty: dict[str, list[Any]] = {
            k: [] for k in sorted(self.repeated - self.kept) if k not in listed
        }
        return record | listed | empty

    def _ident(self, stored: dict[str, Any]) -> Any:
        """The id held deep (none where it is a top-level field or listed)."""
        if self.deep == "identifier" and "identifier" in stored:
            return stored["identifier"][0]["value"]
        if self.deep == "metadata" and "metadata" in stored:
            return stored["metadata"]["uid"]
        if self.deep == "xrefs" and "xrefs" in stored:
            return stored["xrefs"][0]["ids"][0]
        return None

    def ident(self, stored: dict[str, Any], id_key: str) -> str:
        if self.deep == "listed":
            entries = stored[self.list_key]
            return str(next(self._read(e)[1][0] for e in entries if self._read(e)[0] == id_key))
        return str(self._ident(stored) if self.deep else stored[id_key])

    def bare(self, stored: dict[str, Any], id_key: str) -> dict[str, Any]:
        holders = {"identifier", "metadata", "xrefs", id_key}
        rest = {k: v for k, v in stored.items() if k not in holders}
        if self.deep == "listed":
            kept = [e for e in stored[self.list_key] if self._read(e)[0] != id_key]
            rest[self.list_key] = kept
        return rest

    def add(self, stored: dict[str, Any], inside: tuple[str, ...], value: Any) -> Ops:
        """The patch adding ``value`` at ``inside``: where the field is listed, a new entry
        (appending to a field of many values) or a value inside the field's entry."""
        key, *rest = inside
        if self.listing is None or key in stored or key in self.kept:
            return [{"op": "add", "path": list(inside), "value": value}]
        entries = stored[self.list_key]
        at = next((n for n, e in enumerate(entries) if self._read(e)[0] == key), None)
        if rest == ["-"] and key in self.repeated and (self.listing != "tuple" or at is None):
            (entry,) = self._entry(key, [value])
            return [{"op": "add", "path": [self.list_key, "-"], "value": entry}]
        if at is None:
            raise ValueError(f"no field {key} listed")
        place: tuple[Any, ...] = {
            "tuple": (3,),
            "key_value": ("Value",),
            "name_value": ("value",),
        }.get(str(self.listing), (key,))
        if self.listing == "tuple" and rest == ["-"]:
            place = ()
        return [{"op": "add", "path": [self.list_key, at, *place, *rest], "value": value}]

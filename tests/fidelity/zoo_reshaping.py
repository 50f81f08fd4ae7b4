"""Reading the record structures random zoo shapes draw (``benchmarks/zoo/random_shapes/
reshaping.py``) as the formats they follow define them, without the layout's code: the records
in a list envelope, a property list's fields, and an id held deep."""

from __future__ import annotations

from typing import Any

ENVELOPE_MARKS = {
    "stripe": ('{"object": "list", "data": [{', '"has_more": false, "url": "/v1/'),
    "odata": ('{"@odata.context": "https://api.example.com/odata/$metadata#', '"value": [{'),
    "scim": ('"urn:ietf:params:scim:api:messages:2.0:ListResponse"', '"Resources": [{'),
    "hal": ('{"_links": {"self": {"href": "/', '"_embedded": {"'),
    "kubernetes": ('{"apiVersion": "v1", "kind": "', 'List", "metadata": {'),
}
"""Text a state holds where the seed draws each style of list envelope."""


def enveloped_records(envelope: dict[str, Any], style: str, name: str) -> list[Any]:
    """The records a list envelope of ``style`` around collection ``name`` holds, checking the
    metadata the style defines."""
    if style == "stripe":
        assert envelope["object"] == "list" and envelope["has_more"] is False
        assert envelope["url"] == f"/v1/{name}"
        return list(envelope["data"])
    if style == "odata":
        assert envelope["@odata.context"].startswith("https://api.example.com/odata/$metadata#")
        assert envelope["@odata.count"] == len(envelope["value"])
        return list(envelope["value"])
    if style == "scim":
        assert envelope["schemas"] == ["urn:ietf:params:scim:api:messages:2.0:ListResponse"]
        assert envelope["totalResults"] == len(envelope["Resources"])
        return list(envelope["Resources"])
    if style == "hal":
        assert envelope["_links"]["self"]["href"].startswith(f"/{name}")
        return list(envelope["_embedded"][name])
    assert envelope["apiVersion"] == "v1" and envelope["kind"].endswith("List")
    return list(envelope["items"])


def listed_fields(entries: list[Any], style: str) -> list[tuple[str, list[Any]]]:
    """A property list's (field name, values) in order, as its style defines an entry."""
    found = []
    for entry in entries:
        if style == "tuple":
            assert isinstance(entry, list) and isinstance(entry[0], str) and entry[1] == {}
            assert entry[2] in ("text", "date", "integer", "float", "boolean", "unknown")
            found.append((entry[0], entry[3:]))
        elif style == "one_key":
            assert isinstance(entry, dict) and len(entry) == 1
            ((key, value),) = entry.items()
            found.append((key, [value]))
        else:
            names = ("Key", "Value") if style == "key_value" else ("name", "value")
            assert set(entry) == set(names)
            found.append((entry[names[0]], [entry[names[1]]]))
    return found


def deep_id(stored: dict[str, Any], deep: str, id_key: str, list_key: str, style: str) -> Any:
    """The id a record holds deep, where ``deep`` says (never a top-level field)."""
    assert id_key not in stored
    if deep == "identifier":
        (identifier,) = stored["identifier"]
        assert set(identifier) == {"system", "value"}
        return identifier["value"]
    if deep == "metadata":
        return stored["metadata"]["uid"]
    if deep == "xrefs":
        return stored["xrefs"][0]["ids"][0]
    (ident,) = [v for k, v in listed_fields(stored[list_key], style) if k == id_key]
    return ident[0]

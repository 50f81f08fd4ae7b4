"""List envelopes: a collection's records in an array wrapped the way real APIs answer a list,
beside metadata about the list (its kind, a count, paging, links). A seed that draws them wraps
each collection it can in one style: a Stripe list (``object: "list"``, ``data``,
``has_more``, ``url``), an OData collection (``@odata.context``, ``value``), a SCIM
``ListResponse`` (``schemas``, ``totalResults``, ``Resources``), a HAL document
(``_embedded.<collection>``, ``_links``), or a Kubernetes ``List`` (``apiVersion``, ``kind``,
``items``). The collection's container is then the array inside the envelope; a count the
envelope keeps is kept up to date as records are added."""

from __future__ import annotations

from typing import Any

STYLES = ("stripe", "odata", "scim", "hal", "kubernetes")
_COUNTS = {"odata": "@odata.count", "scim": "totalResults"}
"""The count each style keeps (the others keep none)."""


def records_path(style: str, name: str) -> tuple[str, ...]:
    """Where in an envelope of ``style`` around collection ``name`` the records' array is."""
    if style == "hal":
        return ("_embedded", name)
    return ({"stripe": "data", "odata": "value", "scim": "Resources"}.get(style, "items"),)


def make(style: str, name: str, records: Any) -> dict[str, Any]:
    """An envelope of ``style`` around collection ``name`` holding ``records`` (empty)."""
    pascal = "".join(w[:1].upper() + w[1:] for w in name.replace("-", "_").split("_"))
    if style == "stripe":
        return {"object": "list", "data": records, "has_more": False, "url": f"/v1/{name}"}
    if style == "odata":
        context = f"https://api.example.com/odata/$metadata#{pascal}"
        return {"@odata.context": context, "@odata.count": 0, "value": records}
    if style == "scim":
        schema = "urn:ietf:params:scim:api:messages:2.0:ListResponse"
        return {"schemas": [schema], "totalResults": 0, "startIndex": 1, "Resources": records}
    if style == "hal":
        links = {"self": {"href": f"/{name}?page=1"}, "first": {"href": f"/{name}?page=1"}}
        return {"_links": links, "_embedded": {name: records}, "page": {"number": 1}}
    kind = f"{pascal[:-1] if pascal.endswith('s') else pascal}List"
    return {"apiVersion": "v1", "kind": kind, "metadata": {"resourceVersion": ""}, "items": records}


def count(envelope: dict[str, Any], style: str, n: int) -> None:
    """Keep the envelope's count of records (where its style keeps one) at ``n``."""
    if style in _COUNTS:
        envelope[_COUNTS[style]] = n

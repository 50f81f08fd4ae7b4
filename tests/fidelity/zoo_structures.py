"""Reading the structures random zoo shapes draw (``benchmarks/zoo/random_shapes/mixed.py``,
``structures.py``) as the formats they follow define them, without the layout's code: the
records of one kind in a mixed-type container, and the form of typed references."""

from __future__ import annotations

import re
from typing import Any

from benchmarks.zoo.random_shapes.design import Design
from benchmarks.zoo.random_shapes.mixed import Mixed


def mixed_records(box: Any, share: Mixed) -> list[dict[str, Any]]:
    """The records of ``share``'s kind as a plain-valued container holds them (less the
    id where the format keeps it in the frame)."""
    kind, tag = share.type_name, share.tag
    if share.frame == "jsonapi":
        entries = [e for e in [*box["data"], *box["included"]] if e["type"] == kind]
        assert all(set(e) - {"relationships"} == {"type", "id", "attributes"} for e in entries)
        related = [{k: v["data"] for k, v in e.get("relationships", {}).items()} for e in entries]
        return [r | e["attributes"] for r, e in zip(related, entries, strict=True)]
    if share.frame == "bundle":
        assert box["resourceType"] == "Bundle"
        mine = [e for e in box["entry"] if e["resource"]["resourceType"] == kind]
        assert all(e["fullUrl"].endswith(f"/{kind}/{e['resource']['id']}") for e in mine)
        drop = ("resourceType", "id")
        return [{k: v for k, v in e["resource"].items() if k not in drop} for e in mine]
    if share.frame == "list":
        assert box["kind"] == "List"
        return [i["spec"] for i in box["items"] if i["kind"] == kind and i["metadata"]["name"]]
    if share.frame == "tagged":
        return [{k: v for k, v in e.items() if k != tag} for e in box if e[tag] == kind]
    mine = [e for e in box if e[tag] == kind]
    assert all(e["PK"] == e["SK"] and e["PK"].startswith(f"{kind.upper()}#") for e in mine)
    return [{k: v for k, v in e.items() if k not in ("PK", "SK", tag)} for e in mine]


def check_typed_references(design: Design, role: str, values: list[Any]) -> None:
    """Each reference names ``role``'s type (or collection) and an id, in the seed's style."""
    kind = re.escape(design.type_name(role))
    plural = re.escape(design.entity(role).plural)
    forms = {
        "path": rf"{kind}/[^/]+",
        "urn": rf"urn:{kind.lower()}:[^:/]+",
        "gid": rf"gid://[a-z-]+/{kind}/[^/]+",
        "collection": rf"{plural}/[^/]+",
        "api_url": rf"https://api\.example\.com/v1/{plural}/[^/]+",
    }
    if design.reference == "reference":
        assert all(set(v) == {"reference"} for v in values)
        values = [v["reference"] for v in values]
    form = forms.get(design.reference, forms["path"])
    assert values and all(re.fullmatch(form, v) for v in values), (design.reference, values[:3])

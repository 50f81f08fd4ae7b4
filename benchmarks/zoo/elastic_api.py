"""The Elasticsearch REST API of the ``elastic`` shape, as a cluster answers it: ``GET _doc``
and ``_source``, ``_mget``, ``_search`` with the Query DSL in filter context (so every hit
scores 0.0, or ``null`` with a ``sort``), terms lookups into another index, ``terms`` and
metric aggregations, ``_count`` and ``_update`` with a partial document."""

from __future__ import annotations

from typing import Any

from benchmarks.zoo.elastic_index import documents
from benchmarks.zoo.kit import Answer, State, ToolError, pointer

SHARDS = {"total": 1, "successful": 1, "skipped": 0, "failed": 0}


def _field(source: dict[str, Any], name: str) -> Any:
    """A field's value: ``address.city`` inside objects; a ``.keyword`` sub-field is the
    field's own text."""
    value: Any = source
    for part in name.removesuffix(".keyword").split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def _values(hit: dict[str, Any], name: str) -> list[Any]:
    value = hit["_id"] if name == "_id" else _field(hit["_source"], name)
    return value if isinstance(value, list) else [] if value is None else [value]


def _index(state: State, index: str) -> list[dict[str, Any]]:
    if index not in state:
        raise ToolError(
            f"[index_not_found_exception] no such index [{index}], "
            f"resource.type=index_or_alias, resource.id={index}"
        )
    return documents(state, index)


def _found(state: State, index: str, ident: str) -> tuple[int, dict[str, Any]] | None:
    for n, hit in enumerate(_index(state, index)):
        if hit["_id"] == ident:
            return n, hit
    return None


def _terms(state: State, spec: Any) -> list[Any]:
    """A ``terms`` query's values, or those a terms lookup reads from another document."""
    if isinstance(spec, list):
        return spec
    found = _found(state, spec["index"], spec["id"])
    return [] if found is None else _values(found[1], spec["path"])


def _meets(state: State, hit: dict[str, Any], query: dict[str, Any]) -> bool:
    ((kind, body),) = query.items()
    if kind == "match_all":
        return True
    if kind == "bool":
        musts = body.get("filter", []) + body.get("must", [])
        return all(_meets(state, hit, q) for q in musts) and not any(
            _meets(state, hit, q) for q in body.get("must_not", [])
        )
    ((name, spec),) = body.items()
    values = _values(hit, name)
    if kind == "term":
        wanted = spec["value"] if isinstance(spec, dict) else spec
        return wanted in values
    if kind == "terms":
        return bool(set(map(str, values)) & set(map(str, _terms(state, spec))))
    if kind == "prefix":
        wanted = spec["value"] if isinstance(spec, dict) else spec
        return any(str(v).startswith(wanted) for v in values)
    if kind == "match":
        text = spec["query"] if isinstance(spec, dict) else spec
        words = {w for v in values for w in str(v).lower().split()}
        return any(w in words for w in str(text).lower().split())
    if kind == "range":
        bounds = {"gte": lambda v, b: v >= b, "lte": lambda v, b: v <= b}
        bounds |= {"gt": lambda v, b: v > b, "lt": lambda v, b: v < b}
        return any(all(bounds[op](v, b) for op, b in spec.items() if op in bounds) for v in values)
    raise ToolError(f"[parsing_exception] unknown query [{kind}]")


def matching(state: State, index: str, query: dict[str, Any] | None) -> list[dict[str, Any]]:
    query = query or {"match_all": {}}
    return [hit for hit in _index(state, index) if _meets(state, hit, query)]


def _metric(kind: str, numbers: list[float]) -> dict[str, Any]:
    if kind == "value_count":
        return {"value": len(numbers)}
    if not numbers:
        return {"value": None}
    if kind == "avg":
        return {"value": sum(numbers) / len(numbers)}
    if kind == "sum":
        return {"value": float(sum(numbers))}
    return {"value": float(min(numbers) if kind == "min" else max(numbers))}


def aggregate(hits: list[dict[str, Any]], aggs: dict[str, Any]) -> dict[str, Any]:
    answers: dict[str, Any] = {}
    for name, spec in aggs.items():
        kind = next(k for k in spec if k != "aggs")
        field = spec[kind]["field"]
        if kind != "terms":
            numbers = [v for hit in hits for v in _values(hit, field)]
            answers[name] = _metric(kind, numbers)
            continue
        counts: dict[Any, list[dict[str, Any]]] = {}
        for hit in hits:
            for value in set(_values(hit, field)):
                counts.setdefault(value, []).append(hit)
        ranked = sorted(counts.items(), key=lambda kv: (-len(kv[1]), str(kv[0])))
        shown = ranked[: spec[kind].get("size", 10)]
        buckets = [
            {"key": key, "doc_count": len(group)} | aggregate(group, spec.get("aggs", {}))
            for key, group in shown
        ]
        answers[name] = {
            "doc_count_error_upper_bound": 0,
            "sum_other_doc_count": sum(len(g) for _, g in ranked[len(shown) :]),
            "buckets": buckets,
        }
    return answers


def _sourced(source: dict[str, Any], includes: list[str] | None) -> dict[str, Any]:
    if includes is None:
        return source
    return {k: v for k, v in source.items() if any(k == i.split(".")[0] for i in includes)}


def search(state: State, args: dict[str, Any]) -> Answer:
    body = args.get("body", {})
    hits = matching(state, args["index"], body.get("query"))
    sort = body.get("sort")
    if sort:
        ((name, order),) = sort[0].items()
        direction = order if isinstance(order, str) else order.get("order", "asc")
        hits = sorted(hits, key=lambda h: _field(h["_source"], name), reverse=direction == "desc")
    start, size = body.get("from", 0), body.get("size", 10)
    shown = [
        {"_index": h["_index"], "_id": h["_id"], "_score": None if sort else 0.0}
        | {"_source": _sourced(h["_source"], body.get("_source"))}
        | ({"sort": [_field(h["_source"], next(iter(sort[0])))]} if sort else {})
        for h in hits[start : start + size]
    ]
    answer: dict[str, Any] = {"took": 2 + len(hits) // 400, "timed_out": False}
    answer["_shards"] = SHARDS
    answer["hits"] = {
        "total": {"value": len(hits), "relation": "eq"},
        "max_score": None if sort or not shown else 0.0,
        "hits": shown,
    }
    if "aggs" in body:
        answer["aggregations"] = aggregate(hits, body["aggs"])
    return answer, []


def count(state: State, args: dict[str, Any]) -> Answer:
    hits = matching(state, args["index"], args.get("body", {}).get("query"))
    return {"count": len(hits), "_shards": SHARDS}, []


def _got(hit: dict[str, Any], includes: list[str] | None = None) -> dict[str, Any]:
    meta = {k: hit[k] for k in ("_index", "_id", "_version", "_seq_no", "_primary_term")}
    return meta | {"found": True, "_source": _sourced(hit["_source"], includes)}


def get(state: State, args: dict[str, Any]) -> Answer:
    found = _found(state, args["index"], args["id"])
    if found is None:
        return {"_index": args["index"], "_id": args["id"], "found": False}, []
    return _got(found[1], args.get("_source_includes")), []


def get_source(state: State, args: dict[str, Any]) -> Answer:
    found = _found(state, args["index"], args["id"])
    if found is None:
        raise ToolError(
            f"[resource_not_found_exception] Document not found [{args['index']}]/[{args['id']}]"
        )
    return _sourced(found[1]["_source"], args.get("_source_includes")), []


def mget(state: State, args: dict[str, Any]) -> Answer:
    docs = []
    for wanted in args["docs"]:
        found = _found(state, wanted["_index"], wanted["_id"])
        docs.append(
            _got(found[1], wanted.get("_source"))
            if found
            else {"_index": wanted["_index"], "_id": wanted["_id"], "found": False}
        )
    return {"docs": docs}, []


def update(state: State, args: dict[str, Any]) -> Answer:
    index, ident = args["index"], args["id"]
    found = _found(state, index, ident)
    if found is None:
        raise ToolError(f"[document_missing_exception] [{ident}]: document missing")
    n, hit = found
    changed = {k: v for k, v in args["doc"].items() if hit["_source"].get(k) != v}
    answer = {"_index": index, "_id": ident, "_version": hit["_version"]}
    if not changed:
        shards = {"total": 0, "successful": 0, "failed": 0}
        return answer | {"result": "noop", "_shards": shards} | _seq(hit), []
    seq = max(h["_seq_no"] for h in documents(state, index)) + 1
    at = pointer(index, "hits", n)
    patch = [{"op": "replace", "path": f"{at}/_source/{k}", "value": v} for k, v in changed.items()]
    patch += [
        {"op": "replace", "path": f"{at}/_version", "value": hit["_version"] + 1},
        {"op": "replace", "path": f"{at}/_seq_no", "value": seq},
    ]
    answer |= {"_version": hit["_version"] + 1, "result": "updated"}
    answer |= {"_shards": {"total": 2, "successful": 1, "failed": 0}}
    return answer | {"_seq_no": seq, "_primary_term": hit["_primary_term"]}, patch


def _seq(hit: dict[str, Any]) -> dict[str, Any]:
    return {"_seq_no": hit["_seq_no"], "_primary_term": hit["_primary_term"]}

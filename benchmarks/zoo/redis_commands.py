"""The ``redis`` shape's commands that compute: ``FT.SEARCH`` and ``FT.AGGREGATE`` over
``idx:players`` and ``SORT ... BY ... GET``, answered as node-redis v4 decodes the replies
(``{"total", "documents": [{"id", "value"}]}``, ``{"total", "results"}`` of string values, a
flat array of strings)."""

from __future__ import annotations

from typing import Any

from benchmarks.zoo.kit import State, ToolError
from benchmarks.zoo.redis_keyspace import keyspace, search


def ft_search(state: State, args: dict[str, Any]) -> dict[str, Any]:
    _index(args)
    found = search(state, args["query"])
    if "sortby" in args:
        field = args["sortby"]
        found.sort(key=lambda kv: float(kv[1].get(field, "0")), reverse=args.get("order") == "DESC")
    offset, num = args.get("limit_offset", 0), args.get("limit_num", 10)
    wanted = args.get("return")
    documents = [
        {"id": key, "value": {f: doc[f] for f in wanted if f in doc} if wanted else dict(doc)}
        for key, doc in found[offset : offset + num]
    ]
    return {"total": len(found), "documents": documents}


def _index(args: dict[str, Any]) -> None:
    if args["index"] != "idx:players":
        raise ToolError(f"{args['index']}: no such index")


def _text(value: float) -> str:
    """A number as RediSearch replies it: ``12``, ``23.5``, ``23.3333333333``."""
    return str(int(value)) if float(value).is_integer() else f"{value:.12g}"


def _reduce(function: str, values: list[str]) -> Any:
    if function == "COUNT":
        return str(len(values))
    if function == "COUNT_DISTINCT":
        return str(len(set(values)))
    if function == "TOLIST":
        return sorted(set(values))
    numbers = [float(v) for v in values if v not in (None, "")]
    if not numbers:
        return None
    if function == "SUM":
        return _text(sum(numbers))
    if function == "AVG":
        return _text(sum(numbers) / len(numbers))
    return _text(min(numbers) if function == "MIN" else max(numbers))


def _steps(pipeline: str) -> tuple[list[str], list[tuple[str, str | None, str]], list[str]]:
    """``GROUPBY 1 @country REDUCE COUNT 0 AS players SORTBY 2 @players DESC`` as its
    properties, reducers ``(function, property, name)`` and sort."""
    tokens = pipeline.split()
    groups: list[str] = []
    reducers: list[tuple[str, str | None, str]] = []
    sort: list[str] = []
    n = 0
    while n < len(tokens):
        word = tokens[n].upper()
        count = int(tokens[n + 1]) if n + 1 < len(tokens) and tokens[n + 1].isdigit() else 0
        if word == "GROUPBY":
            groups += [t.lstrip("@") for t in tokens[n + 2 : n + 2 + count]]
        elif word == "REDUCE":
            function, nargs = tokens[n + 1].upper(), int(tokens[n + 2])
            prop = tokens[n + 3].lstrip("@") if nargs else None
            at = n + 3 + nargs
            name = tokens[at + 1] if at < len(tokens) and tokens[at].upper() == "AS" else None
            reducers.append((function, prop, name or f"__generated_alias{function.lower()}"))
            n = at + (2 if name else 0)
            continue
        elif word == "SORTBY":
            sort = tokens[n + 2 : n + 2 + count]
        else:
            raise ToolError(f"Unknown argument `{tokens[n]}`")
        n += 2 + count
    return groups, reducers, sort


def ft_aggregate(state: State, args: dict[str, Any]) -> dict[str, Any]:
    _index(args)
    groups, reducers, sort = _steps(args["pipeline"])
    buckets: dict[tuple[str, ...], list[dict[str, str]]] = {}
    for _, doc in search(state, args["query"]):
        buckets.setdefault(tuple(doc.get(g, "") for g in groups), []).append(doc)
    results = []
    for key, docs in buckets.items():
        row: dict[str, Any] = dict(zip(groups, key, strict=True))
        for function, prop, name in reducers:
            row[name] = _reduce(function, [d.get(prop or "", "") for d in docs])
        results.append(row)
    for n in range(len(sort) - 2, -1, -2) if sort else []:
        field, descending = sort[n].lstrip("@"), sort[n + 1].upper() == "DESC"
        results.sort(key=lambda r: _sort_key(r.get(field)), reverse=descending)
    return {"total": len(results), "results": results}


def _sort_key(value: Any) -> tuple[int, float, str]:
    try:
        return 0, float(value), ""
    except (TypeError, ValueError):
        return 1, 0.0, str(value)


def _field(keys: dict[str, Any], pattern: str, member: str) -> str | None:
    """``player:*->name`` of a member: that hash's field (``#`` is the member itself)."""
    if pattern == "#":
        return member
    key, _, field = pattern.replace("*", member, 1).partition("->")
    value = keys.get(key)
    if not field:
        return value if isinstance(value, str) else None
    return value.get(field) if isinstance(value, dict) else None


def sort(state: State, args: dict[str, Any]) -> list[str | None]:
    keys = keyspace(state)
    members = keys.get(args["key"], [])
    if not isinstance(members, list):
        raise ToolError("WRONGTYPE Operation against a key holding the wrong kind of value")
    order = list(members)
    by = args.get("by", "")
    if by != "nosort":

        def weight(member: str) -> tuple[float, str]:
            value = _field(keys, by, member) if by else member
            return (float(value) if value is not None else 0.0), member

        order.sort(key=weight, reverse=args.get("order") == "DESC")
    offset, count = args.get("limit_offset", 0), args.get("limit_count", len(order))
    return [
        _field(keys, pattern, member)
        for member in order[offset : offset + count]
        for pattern in args.get("get", ["#"])
    ]

"""Database queries and searches of the ``notion`` shape: a typed filter (each condition
names its property and, as Notion requires, that property's type: ``{"property": "Estimate",
"number": {"greater_than_or_equal_to": 3}}``; ``and``/``or`` compounds) over a database's pages,
sorted by properties (empty values last) or timestamps, and paginated by ``start_cursor``;
title search over pages and databases; and the filter conditions the planners draw."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from benchmarks.zoo.kit import Answer, State, ToolError
from benchmarks.zoo.notion_pages import listed, pages, plain


def _comparable(value: dict[str, Any]) -> Any:
    kind, content = value["type"], value[value["type"]]
    if kind in ("title", "rich_text"):
        return plain(content)
    if kind in ("select", "status"):
        return content["name"] if content else None
    if kind == "date":
        return content["start"][:10] if content else None
    if kind == "unique_id":
        return content["number"]
    if kind in ("multi_select",):
        return [o["name"] for o in content]
    if kind in ("people", "relation"):
        return [o["id"] for o in content]
    return content


def _test(op: str, actual: Any, wanted: Any) -> bool:
    if op == "is_empty":
        return actual in (None, "", [])
    if op == "is_not_empty":
        return actual not in (None, "", [])
    if isinstance(actual, list):
        return (wanted in actual) == (op == "contains")
    if isinstance(actual, str) and isinstance(wanted, str):
        actual, wanted = actual.lower(), wanted.lower()
    tests: dict[str, Callable[[], Any]] = {
        "equals": lambda: actual == wanted,
        "does_not_equal": lambda: actual != wanted,
        "contains": lambda: wanted in actual,
        "does_not_contain": lambda: wanted not in actual,
        "starts_with": lambda: actual.startswith(wanted),
        "ends_with": lambda: actual.endswith(wanted),
    }
    if op in tests:
        return actual is not None and bool(tests[op]())
    if actual is None:
        return False
    ranges = {"greater_than": "after", "less_than": "before"}
    ranges |= {"greater_than_or_equal_to": "on_or_after", "less_than_or_equal_to": "on_or_before"}
    op = ranges.get(op, op)
    return bool(
        {
            "after": actual > wanted,
            "before": actual < wanted,
            "on_or_after": actual >= wanted,
            "on_or_before": actual <= wanted,
        }[op]
    )


def _meets(page: dict[str, Any], condition: dict[str, Any]) -> bool:
    if "and" in condition:
        return all(_meets(page, c) for c in condition["and"])
    if "or" in condition:
        return any(_meets(page, c) for c in condition["or"])
    value = page["properties"].get(condition["property"])
    if value is None:
        raise ToolError(
            f"validation_error: Could not find property with name or id: {condition['property']}"
        )
    ((kind, test),) = [(k, v) for k, v in condition.items() if k != "property"]
    if kind != value["type"]:
        raise ToolError(
            f"validation_error: body.filter.{kind} should not be present, the "
            f"property {condition['property']} is a {value['type']}."
        )
    ((op, wanted),) = test.items()
    return _test(op, _comparable(value), wanted)


def matching(state: State, database_id: str, where: dict[str, Any] | None) -> list[Any]:
    if not any(d["id"] == database_id for d in state["databases"]):
        raise ToolError(
            f"object_not_found: Could not find database with ID: {database_id}. Make sure the "
            "relevant pages and databases are shared with your integration."
        )
    rows = [p for p in pages(state) if p["parent"].get("database_id") == database_id]
    return [p for p in rows if where is None or _meets(p, where)]


def paged(results: list[dict[str, Any]], args: dict[str, Any], kind: str) -> dict[str, Any]:
    start = next((n for n, r in enumerate(results) if r["id"] == args.get("start_cursor")), 0)
    size = min(int(args.get("page_size", 100)), 100)
    shown, rest = results[start : start + size], results[start + size :]
    answer = listed(shown, kind)
    return answer | {"next_cursor": rest[0]["id"] if rest else None, "has_more": bool(rest)}


def query_database(state: State, args: dict[str, Any]) -> Answer:
    found = matching(state, args["database_id"], args.get("filter"))
    for sort in reversed(args.get("sorts", [])):
        descending = sort.get("direction") == "descending"
        if "timestamp" in sort:
            found.sort(key=lambda p: str(p[sort["timestamp"]]), reverse=descending)
            continue
        keyed = [(_comparable(p["properties"][sort["property"]]), p) for p in found]
        present = sorted(
            (k for k in keyed if k[0] is not None), key=lambda k: k[0], reverse=descending
        )
        found = [p for _, p in present] + [p for k, p in keyed if k is None]
    return paged(found, args, "page_or_database"), []


def search(state: State, args: dict[str, Any]) -> Answer:
    wanted = args.get("query", "").lower()
    kind = args.get("filter", {}).get("value")
    found = [
        item
        for item in [*state["databases"], *pages(state)]
        if kind in (None, item["object"]) and wanted in _title(item).lower()
    ]
    found.sort(key=lambda item: str(item["last_edited_time"]), reverse=True)
    return paged(found, args, "page_or_database"), []


def _title(item: dict[str, Any]) -> str:
    if item["object"] == "database":
        return plain(item["title"])
    return plain(next(v["title"] for v in item["properties"].values() if v["type"] == "title"))


def conditions(rng: random.Random, page: dict[str, Any]) -> list[dict[str, Any]]:
    """Filter conditions that ``page`` meets, shuffled."""
    found: list[dict[str, Any]] = []
    for name, value in page["properties"].items():
        kind, content = value["type"], value[value["type"]]
        if kind == "checkbox":
            test: Any = {"equals": content}
        elif kind in ("number", "unique_id") and content is not None:
            number = content["number"] if kind == "unique_id" else content
            op = rng.choice(["greater_than_or_equal_to", "less_than_or_equal_to"])
            test = {op: number + rng.randint(0, 3) * (1 if op[0] == "l" else -1)}
        elif kind in ("select", "status") and content:
            test = {"equals": content["name"]}
        elif kind in ("people", "multi_select") and content:
            pick = rng.choice(content)
            test = {"contains": pick["id"] if kind == "people" else pick["name"]}
        elif kind == "date" and content:
            test = {rng.choice(["on_or_after", "on_or_before", "equals"]): content["start"]}
        elif kind == "title":
            words = plain(content).split()
            test = rng.choice(
                [{"starts_with": " ".join(words[:2])}, {"contains": rng.choice(words)}]
            )
        else:
            continue
        found.append({"property": name, kind: test})
    rng.shuffle(found)
    return found


def compound(conditions: list[dict[str, Any]]) -> dict[str, Any]:
    return conditions[0] if len(conditions) == 1 else {"and": conditions}

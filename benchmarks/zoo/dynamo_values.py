"""DynamoDB JSON: the typed attribute values (``{"S": ..}``, ``{"N": "37.5"}``, ``{"BOOL": ..}``,
``{"L": [..]}``, ``{"M": {..}}``, ``{"SS": [..]}``) an export or a scan holds, made from plain
values and read back as plain JSON (the ``dynamo`` shape's table)."""

from __future__ import annotations

from typing import Any


def number(value: float) -> str:
    """A number as DynamoDB holds it: a string, without trailing zeros."""
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.2f}".rstrip("0")


def typed(value: Any) -> dict[str, Any]:
    """A value as a DynamoDB attribute value (a tuple of strings is a string set)."""
    if isinstance(value, bool):
        return {"BOOL": value}
    if isinstance(value, int | float):
        return {"N": number(value)}
    if isinstance(value, str):
        return {"S": value}
    if isinstance(value, tuple):
        return {"SS": list(value)}
    if isinstance(value, list):
        return {"L": [typed(v) for v in value]}
    return {"M": {k: typed(v) for k, v in value.items()}}


def plain(attribute: dict[str, Any]) -> Any:
    """An attribute value as plain JSON: numbers as numbers, sets as lists."""
    ((tag, value),) = attribute.items()
    if tag == "N":
        return float(value) if "." in value else int(value)
    if tag == "L":
        return [plain(v) for v in value]
    if tag == "M":
        return {k: plain(v) for k, v in value.items()}
    if tag == "NULL":
        return None
    return list(value) if tag == "SS" else value


def item(pk: str, sk: str, **attributes: Any) -> dict[str, Any]:
    return {"PK": {"S": pk}, "SK": {"S": sk}} | {k: typed(v) for k, v in attributes.items()}


def unmarshalled(entry: dict[str, Any]) -> dict[str, Any]:
    """An item's attributes as plain JSON, less its keys and entity tag."""
    return {
        k: plain(v) for k, v in entry.items() if k not in ("PK", "SK", "GSI1PK", "GSI1SK", "type")
    }

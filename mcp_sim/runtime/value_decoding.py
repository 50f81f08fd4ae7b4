"""Decoding: the plain JSON an encoded value stands for (its encoding found by
:mod:`mcp_sim.runtime.value_encodings`)."""

from __future__ import annotations

from typing import Any

from mcp_sim.runtime.property_lists import NOT_FOLDED
from mcp_sim.runtime.value_encodings import MIDNIGHT, NUMBER, TEXT_VALUE, Encoding


def decode(value: Any, encoding: Encoding) -> Any:
    """The plain JSON ``value`` stands for: tags unwrapped (numbers as numbers), attributes
    as fields of their name, an element's text beside them as ``value``."""
    if isinstance(value, list):
        if encoding.forms:
            folded = encoding.forms.fold(value, lambda item: decode(item, encoding))
            if folded is not NOT_FOLDED:
                return folded
        return [decode(item, encoding) for item in value]
    if not isinstance(value, dict):
        return value
    if encoding.type_key in value and len(value) <= 2:
        typed = _typed(value, encoding)
        if typed is not _UNTYPED:
            return typed
    if len(value) == 1:
        ((tag, inner),) = value.items()
        if tag in encoding.tags:
            return _untagged(tag, inner, encoding)
        if tag == encoding.text:
            return inner
    plain: dict[str, Any] = {}
    for name, item in value.items():
        plain[_field_name(name, value, encoding)] = decode(item, encoding)
    return plain


_UNTYPED = object()


def _typed(element: dict[str, Any], encoding: Encoding) -> Any:
    """The value a typed XML element stands for: its text (a number for a numeric type), or
    its repeated child's items as a list; ``_UNTYPED`` for another element."""
    kind = element[encoding.type_key or ""]
    rest = {k: v for k, v in element.items() if k != encoding.type_key}
    child = encoding.typed_lists.get(kind) if isinstance(kind, str) else None
    if child is not None and set(rest) <= {child}:
        items = rest.get(child)
        items = [] if items is None else items if isinstance(items, list) else [items]
        return [decode(item, encoding) for item in items]
    if encoding.text is None or set(rest) != {encoding.text}:
        return _UNTYPED
    text = rest[encoding.text]
    if kind in encoding.typed_numbers and isinstance(text, str) and NUMBER.match(text.strip()):
        number = float(text)
        return int(number) if number.is_integer() and "." not in text else number
    return text


def _untagged(tag: str, inner: Any, encoding: Encoding) -> Any:
    if "null" in tag.casefold():
        return None
    wrapped = encoding.wraps.get(tag)
    if wrapped is not None and isinstance(inner, dict) and set(inner) == {wrapped}:
        inner = inner[wrapped]
    elif wrapped is not None and inner == {}:
        return [] if tag in encoding.lists else {}
    if tag in encoding.dates and isinstance(inner, str) and MIDNIGHT.match(inner):
        return inner[:10]
    if tag in encoding.numeric and isinstance(inner, str) and NUMBER.match(inner.strip()):
        number = float(inner)
        return int(number) if number.is_integer() and "." not in inner else number
    return decode(inner, encoding)


def _field_name(name: str, siblings: dict[str, Any], encoding: Encoding) -> str:
    """An attribute's name without its prefix, the text key as ``value``: unless a sibling
    already has that name."""
    if encoding.text is not None and name == encoding.text:
        plain = TEXT_VALUE
    elif encoding.attribute is not None and name.startswith(encoding.attribute):
        plain = name[len(encoding.attribute) :]
    else:
        return name
    return name if not plain or plain in siblings else plain

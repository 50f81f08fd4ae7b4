"""A JSON value valid against a JSON Schema, drawn by a seeded RNG: what the stand-in model
(:mod:`mcp_sim.models.stub`) answers a structured call with, and what tests call tools with.

Where the caller knows real values by field name (the world's state, as the prompt shows it),
a string, number or enum field takes one of those that the field's schema accepts, so an answer
reads like the world's (a book's real title, an order's real id) rather than like noise. The
draw covers the keywords tool schemas use (types, enum, const, properties, required, items,
lengths, bounds, anyOf/oneOf/allOf, local ``$ref``, and a ``pattern`` that one of a few
common shapes matches: a URL, a date, an email, an id); a value the draw cannot make valid (a
rarer ``pattern``, a ``not``) is checked and the next draw tried.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from typing import Any

import jsonschema

KnownValues = Mapping[str, Sequence[Any]]
"""Values seen for each field name (e.g. ``{"title": ["The Glass River", ...]}``)."""

ATTEMPTS = 20
"""Draws tried before giving up on a schema the draw cannot satisfy."""

_WORDS = ("amber", "river", "north", "lumen", "cedar", "harbor", "quartz", "meadow", "ember")
_FORMATS = {
    "date-time": "2026-03-02T09:00:00Z",
    "date": "2026-03-02",
    "time": "09:00:00Z",
    "email": "ana@example.com",
    "uri": "https://example.com/item",
    "uuid": "6f1c2a9e-8b1d-4c1e-9a77-2f3b5d7c9e10",
}
_SHAPES = ("12345", "ABC-123", "abc", "A1", "x")
_TYPES = ("object", "array", "string", "integer", "number", "boolean", "null")


class UnsatisfiableSchema(ValueError):
    """No draw made a value the schema accepts."""


class ValueDraw:
    """Draws values for schemas of one document (its ``$defs``/``definitions`` resolve local
    ``$ref``), seeded by ``rng``, preferring ``known`` values by field name."""

    def __init__(self, rng: random.Random, known: KnownValues | None = None) -> None:
        self.rng = rng
        self.known = known or {}

    def valid(self, schema: Mapping[str, Any]) -> Any:
        """A value ``schema`` accepts; raises :class:`UnsatisfiableSchema` after
        :data:`ATTEMPTS` draws that it did not."""
        validator = jsonschema.Draft202012Validator(dict(schema))
        for _ in range(ATTEMPTS):
            value = _Draw(self, schema).value(schema, None)
            if validator.is_valid(value):
                return value
        raise UnsatisfiableSchema(f"no value drawn in {ATTEMPTS} tries satisfies {dict(schema)}")


class _Draw:
    """One draw over a schema document."""

    def __init__(self, owner: ValueDraw, root: Mapping[str, Any]) -> None:
        self.rng = owner.rng
        self.known = owner.known
        self.root = root
        self.depth = 0

    def value(self, schema: Any, field: str | None) -> Any:
        if not isinstance(schema, Mapping):
            return None if schema is False else "value"
        schema = self._resolved(schema)
        if "const" in schema:
            return schema["const"]
        if "enum" in schema:
            return self._enum(schema["enum"], field)
        for combinator in ("oneOf", "anyOf"):
            if combinator in schema:
                return self.value(self.rng.choice(schema[combinator]), field)
        if "allOf" in schema:
            merged: dict[str, Any] = {k: v for k, v in schema.items() if k != "allOf"}
            for part in schema["allOf"]:
                merged.update(self._resolved(part))
            return self.value(merged, field)
        kind = self._type(schema)
        seen = self._known(schema, field, kind)
        if seen is not None:
            return seen[0]
        return self._of_type(kind, schema, field)

    def _resolved(self, schema: Mapping[str, Any]) -> Mapping[str, Any]:
        ref = schema.get("$ref")
        if not isinstance(ref, str) or not ref.startswith("#/"):
            return schema
        target: Any = self.root
        for part in ref[2:].split("/"):
            target = target.get(part, {}) if isinstance(target, Mapping) else {}
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        return {**target, **rest} if isinstance(target, Mapping) else rest

    def _type(self, schema: Mapping[str, Any]) -> str:
        kind = schema.get("type")
        if isinstance(kind, list):
            # Null only when nothing else is allowed: an answer full of nulls reads as none.
            kinds = [k for k in kind if k != "null"] or ["null"]
            return str(self.rng.choice(kinds))
        if isinstance(kind, str):
            return kind
        if "properties" in schema or "required" in schema:
            return "object"
        if "items" in schema:
            return "array"
        return "string"

    def _enum(self, choices: Sequence[Any], field: str | None) -> Any:
        seen = [v for v in self.known.get(field or "", ()) if v in choices]
        return self.rng.choice(seen or list(choices))

    def _known(self, schema: Mapping[str, Any], field: str | None, kind: str) -> list[Any] | None:
        if field is None or kind in ("object", "array"):
            return None
        fits = jsonschema.Draft202012Validator(dict(schema))
        candidates = [v for v in self.known.get(field, ()) if fits.is_valid(v)]
        return [self.rng.choice(candidates)] if candidates else None

    def _of_type(self, kind: str, schema: Mapping[str, Any], field: str | None) -> Any:
        if kind == "object":
            return self._object(schema)
        if kind == "array":
            return self._array(schema, field)
        if kind in ("integer", "number"):
            return self._number(kind, schema)
        if kind == "boolean":
            return self.rng.random() < 0.5
        if kind == "null" or kind not in _TYPES:
            return None
        return self._string(schema, field)

    def _object(self, schema: Mapping[str, Any]) -> dict[str, Any]:
        properties: Mapping[str, Any] = schema.get("properties") or {}
        required = set(schema.get("required") or ())
        self.depth += 1
        try:
            # Optional fields too, while shallow: a real answer carries them.
            chosen = [n for n in properties if n in required or self.depth <= 3]
            out = {name: self.value(properties[name], name) for name in chosen}
            for name in sorted(required - set(properties)):
                out[name] = self.value(schema.get("additionalProperties") or {}, name)
        finally:
            self.depth -= 1
        return out

    def _array(self, schema: Mapping[str, Any], field: str | None) -> list[Any]:
        low = int(schema.get("minItems", 0))
        high = int(schema.get("maxItems", max(low, 3)))
        count = self.rng.randint(low, max(low, min(high, low + 3 if self.depth < 3 else low)))
        items = schema.get("items", {})
        self.depth += 1
        try:
            values = [self.value(items, field) for _ in range(count)]
        finally:
            self.depth -= 1
        if schema.get("uniqueItems"):
            unique: list[Any] = []
            for value in values:
                if value not in unique:
                    unique.append(value)
            values = unique
        return values

    def _number(self, kind: str, schema: Mapping[str, Any]) -> int | float:
        low = schema.get("minimum", schema.get("exclusiveMinimum", 0))
        high = schema.get("maximum", schema.get("exclusiveMaximum", max(low, 0) + 100))
        if "exclusiveMinimum" in schema:
            low += 1
        if "exclusiveMaximum" in schema:
            high -= 1
        if kind == "integer":
            number: int | float = self.rng.randint(int(low), max(int(low), int(high)))
        else:
            number = round(self.rng.uniform(float(low), max(float(low), float(high))), 2)
        step = schema.get("multipleOf")
        if step:
            number = round(number / step) * step
        return number

    def _string(self, schema: Mapping[str, Any], field: str | None) -> str:
        text = _FORMATS.get(str(schema.get("format")))
        if text is None:
            words = self.rng.sample(_WORDS, 2)
            text = f"{field}-{'-'.join(words)}" if field else " ".join(words)
        pattern = schema.get("pattern")
        if isinstance(pattern, str):
            # A pattern is not drawn from: the first of some common shapes that it takes.
            shapes = [text, *_FORMATS.values(), f"https://example.com/{text}", *_SHAPES]
            text = next((t for t in shapes if re.search(pattern, t)), text)
        low = int(schema.get("minLength", 0))
        high = schema.get("maxLength")
        while len(text) < low:
            text += self.rng.choice(_WORDS)
        return text[: int(high)] if high is not None else text

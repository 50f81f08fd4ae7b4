"""The JSON Schemas of a world (``input_schema``, ``output_schema``, ``state_schema``), checked
for what the server will do with them.

The server validates arguments, answers and states with ``jsonschema``'s Draft 2020-12
validator whatever a schema's ``$schema`` says, resolves its ``$ref``\\ s and runs its
``pattern``\\ s with Python's ``re``. So a schema that passes here must:

- have a ``$schema``, if any, that is a string, and satisfy the meta-schema it names and that of
  Draft 2020-12 (the server would crash on, say, draft-03's ``required: true``);
- have every ``pattern`` and ``patternProperties`` key compile safely (:mod:`mcp_sim.spec.regexes`);
- have every ``$ref`` and ``$dynamicRef`` resolve inside the world file (mcp-sim fetches no
  schemas), and no chain of references that leads back to itself without descending into the
  instance (``{"$ref": "#"}``), which would recurse until the stack runs out.

Problems are raised as :class:`NestedValueError` at their path inside the schema.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass, field
from typing import Any

import jsonschema
from referencing.exceptions import NoSuchAnchor, PointerToNowhere, Unresolvable
from referencing.jsonschema import DRAFT202012

from mcp_sim.spec.locations import Location, NestedValueError
from mcp_sim.spec.regexes import compile_regex

# The registry of the meta-schemas, which the server's validators resolve references in too
# (the package has no type hints).
META_SCHEMAS: Any = importlib.import_module("jsonschema_specifications").REGISTRY

# Keywords whose value maps names (of properties, definitions...) to subschemas.
_NAMED_SUBSCHEMAS = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)
# Keywords whose value is instance data, not schemas: no $ref or pattern in them means anything.
_DATA = frozenset({"enum", "const", "default", "examples"})
# Keywords that apply their subschemas to the same instance (not to a part of it).
_IN_PLACE_ONE = ("not", "if", "then", "else")
_IN_PLACE_MANY = ("allOf", "anyOf", "oneOf")
_REFS = ("$ref", "$dynamicRef")


def check_json_schema(schema: dict[str, Any], what: str) -> dict[str, Any]:
    """``schema``, if the server can use it; else raise :class:`NestedValueError` at the first
    problem, saying it is ``what`` that is wrong (``input_schema``...)."""
    dialect = schema.get("$schema")
    if "$schema" in schema and not isinstance(dialect, str):
        raise NestedValueError(
            f"{what}: $schema must be a string (a meta-schema URI)", ("$schema",)
        )
    tree = _SchemaTree()
    tree.walk(schema, (), None)
    if tree.bad_pattern is not None:
        path, message = tree.bad_pattern
        raise NestedValueError(f"{what}: {message}", path)
    declared = _declared_validator(schema)
    if declared is not jsonschema.Draft202012Validator:
        _check_against_meta_schema(
            schema, f"{what} is not a valid JSON Schema of its $schema", declared
        )
    what_2020 = f"{what} is not a valid JSON Schema" + (
        " Draft 2020-12 (the dialect the server validates with)"
        if declared is not jsonschema.Draft202012Validator
        else ""
    )
    _check_against_meta_schema(schema, what_2020, jsonschema.Draft202012Validator)
    tree.resolve_references(META_SCHEMAS.resolver_with_root(DRAFT202012.create_resource(schema)))
    if tree.problems:
        path, message = tree.problems[0]
        raise NestedValueError(f"{what}: {message}", path)
    return schema


def _declared_validator(schema: dict[str, Any]) -> Any:
    """The validator of the dialect the schema's ``$schema`` names (Draft 2020-12 if none, or
    one ``jsonschema`` does not know)."""
    try:
        return jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    except ValueError:  # a $schema that is not even a URI; the meta-schema check says why
        return jsonschema.Draft202012Validator


def _check_against_meta_schema(schema: dict[str, Any], failure: str, validator_cls: Any) -> None:
    try:
        canonical = json.dumps(schema, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        canonical = None
    if canonical is not None and (canonical, validator_cls) in _META_VALID:
        return
    try:
        validator_cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise NestedValueError(f"{failure}: {exc.message}", tuple(exc.absolute_path)) from None
    except RecursionError:
        raise NestedValueError(f"{failure}: it nests too deeply to be checked", ()) from None
    if canonical is not None and len(_META_VALID) < _META_VALID_LIMIT:
        _META_VALID.add((canonical, validator_cls))


_META_VALID: set[tuple[str, Any]] = set()
"""Schemas (canonical JSON) already found valid against a meta-schema: the check is most of a
world's load time, and a suite of thousands of worlds repeats the same tool schemas."""
_META_VALID_LIMIT = 100_000


@dataclass
class _SchemaTree:
    """The subschemas of one schema, their patterns and references, collected in one walk."""

    # id(subschema) -> the subschema, its path, and id of its $id scope (None: the root's)
    nodes: dict[int, tuple[dict[str, Any], Location, int | None]] = field(default_factory=dict)
    # Subschemas below the root that declare an $id, with their enclosing scope, parents first.
    scopes: list[tuple[dict[str, Any], int | None]] = field(default_factory=list)
    bad_pattern: tuple[Location, str] | None = None
    problems: list[tuple[Location, str]] = field(default_factory=list)
    # id(subschema) -> the subschemas it applies to the same value, and the keyword that does.
    edges: dict[int, list[tuple[int, Location]]] = field(default_factory=dict)

    def walk(self, schema: Any, path: Location, scope: int | None) -> None:
        if not isinstance(schema, dict) or id(schema) in self.nodes:
            return
        if path and isinstance(schema.get("$id"), str):
            self.scopes.append((schema, scope))
            scope = id(schema)
        self.nodes[id(schema)] = (schema, path, scope)
        self._check_patterns(schema, path)
        for key, value in schema.items():
            if key in _DATA:
                continue
            if key in _NAMED_SUBSCHEMAS and isinstance(value, dict):
                for name, sub in value.items():
                    self.walk(sub, (*path, key, name), scope)
            elif isinstance(value, dict):
                self.walk(value, (*path, key), scope)
            elif isinstance(value, list):
                for i, item in enumerate(value):
                    self.walk(item, (*path, key, i), scope)

    def _check_patterns(self, schema: dict[str, Any], path: Location) -> None:
        if self.bad_pattern is not None:
            return
        candidates: list[tuple[Location, Any]] = [((*path, "pattern"), schema.get("pattern"))]
        named = schema.get("patternProperties")
        if isinstance(named, dict):
            candidates += [((*path, "patternProperties", key), key) for key in named]
        for where, pattern in candidates:
            if isinstance(pattern, str):
                try:
                    compile_regex(pattern)
                except ValueError as exc:
                    self.bad_pattern = (where, f"pattern {pattern[:60]!r}: {exc}")
                    return

    def resolve_references(self, root: Any) -> None:
        """Resolve every reference from its own ``$id`` scope; record dangling ones and loops."""
        resolvers: dict[int | None, Any] = {None: root}
        for schema, parent in self.scopes:
            outer = resolvers[parent]
            try:
                resolvers[id(schema)] = outer.in_subresource(DRAFT202012.create_resource(schema))
            except Exception:  # an $id that is no URI; the meta-schema check reports such
                resolvers[id(schema)] = outer
        for node_id, (schema, path, scope) in self.nodes.items():
            self.edges[node_id] = self._in_place_targets(schema, path, resolvers[scope])
        loop = self._first_loop()
        if loop is not None:
            self.problems.append(
                (
                    loop,
                    "its references lead back to it without descending into the value: "
                    "validating anything with it would never end",
                )
            )

    def _in_place_targets(
        self, schema: dict[str, Any], path: Location, resolver: Any
    ) -> list[tuple[int, Location]]:
        """The subschemas ``schema`` applies to the same value, each with the keyword (and
        index) that applies it; dangling references are recorded as problems."""
        targets: list[tuple[int, Location]] = [
            (id(schema[k]), (k,)) for k in _IN_PLACE_ONE if isinstance(schema.get(k), dict)
        ]
        for key in _IN_PLACE_MANY:
            if isinstance(schema.get(key), list):
                targets += [(id(sub), (key, i)) for i, sub in enumerate(schema[key])]
        if isinstance(schema.get("dependentSchemas"), dict):
            targets += [
                (id(sub), ("dependentSchemas", name))
                for name, sub in schema["dependentSchemas"].items()
            ]
        for key in _REFS:
            ref = schema.get(key)
            if not isinstance(ref, str):
                continue
            try:
                target = resolver.lookup(ref).contents
            except PointerToNowhere:
                self.problems.append(((*path, key), f"{key} {ref!r} points at nothing"))
            except NoSuchAnchor:
                self.problems.append(((*path, key), f"{key} {ref!r}: no such anchor"))
            except Unresolvable:
                self.problems.append(
                    (
                        (*path, key),
                        f"{key} {ref!r} is not in this schema (mcp-sim fetches no schemas; "
                        "put it under $defs)",
                    )
                )
            except Exception as exc:  # a reference that is no URI at all
                self.problems.append(((*path, key), f"{key} {ref!r} cannot be resolved: {exc}"))
            else:
                targets.append((id(target), (key,)))
        return [(target, via) for target, via in targets if target in self.nodes]

    def _first_loop(self) -> Location | None:
        """Where a chain of in-place edges closes a loop (the keyword that closes it), if one
        does."""
        done: set[int] = set()
        for start in self.nodes:
            if start in done:
                continue
            on_path = {start}
            stack = [(start, iter(self.edges.get(start, ())))]
            while stack:
                node, targets = stack[-1]
                step = next(targets, None)
                if step is None:
                    stack.pop()
                    on_path.discard(node)
                    done.add(node)
                elif step[0] in on_path:
                    return (*self.nodes[node][1], *step[1])
                elif step[0] not in done:
                    on_path.add(step[0])
                    stack.append((step[0], iter(self.edges.get(step[0], ()))))
        return None

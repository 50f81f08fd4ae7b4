"""Loading world files, with every problem reported at its file line.

A world file is YAML. It is loaded twice over the same text: once into plain data that pydantic
validates, and once into PyYAML's node graph, which remembers where every key and value sits in
the file. When validation fails, each pydantic error location is walked down the node graph to
report ``FILE:LINE:COL: path.to.field: message``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from mcp_sim.errors import SpecError, SpecProblem
from mcp_sim.spec.locations import Location, NestedValueError, format_location
from mcp_sim.spec.world import World


class _WorldLoader(yaml.SafeLoader):
    """SafeLoader that keeps dates and times as strings: world state must stay plain JSON."""


_WorldLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _node_at(root: yaml.Node, loc: Location) -> yaml.Node:
    """Walk ``loc`` down the node graph and return the deepest node reached (for a missing key,
    the mapping that lacks it; for the last key of ``loc``, the key node itself)."""
    node = root
    for i, part in enumerate(loc):
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                if key_node.value == part:
                    last = i == len(loc) - 1
                    node = key_node if last else value_node
                    break
            else:
                return node
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            if part >= len(node.value):
                return node
            node = node.value[part]
        else:
            return node
    return node


def _problem_at(file: str, root: yaml.Node, loc: Location, message: str) -> SpecProblem:
    node = _node_at(root, loc)
    return SpecProblem(
        file, node.start_mark.line + 1, node.start_mark.column + 1, format_location(loc), message
    )


def _without_union_tags(root: yaml.Node, loc: Location, missing: bool) -> Location:
    """``loc`` without the tags pydantic puts in the locations of tagged unions (a
    perturbation rule's error sits under its ``kind``): keys the file does not have, except a
    last one that names a ``missing`` key."""
    kept: list[int | str] = []
    node = root
    for i, part in enumerate(loc):
        if isinstance(node, yaml.MappingNode) and not (missing and i == len(loc) - 1):
            value = next((v for k, v in node.value if k.value == part), None)
            if value is None:
                continue
            node = value
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            node = node.value[part] if part < len(node.value) else node
        kept.append(part)
    return tuple(kept)


def _problem_from_error(file: str, root: yaml.Node, error: Any) -> SpecProblem:
    # pydantic inserts union/function tags like "function-after[...]" into locations; drop them.
    loc = tuple(p for p in error["loc"] if not (isinstance(p, str) and "[" in p))
    loc = _without_union_tags(root, loc, missing=error["type"] == "missing")
    cause = (error.get("ctx") or {}).get("error")
    if isinstance(cause, NestedValueError):
        loc += cause.path
    message = str(error["msg"])
    if message.startswith("Value error, "):
        message = message[len("Value error, ") :]
    if error["type"] in ("union_tag_invalid", "union_tag_not_found"):
        # The tag is the discriminating key (``kind``): point at it, and list the choices.
        ctx = error.get("ctx") or {}
        key = str(ctx.get("discriminator", "kind")).strip("'")
        if error["type"] == "union_tag_not_found":
            message = f"missing required key {key!r}"
        else:
            loc += (key,)
            message = f"unknown {key} {ctx.get('tag')!r} (one of: {ctx.get('expected_tags')})"
    elif error["type"] == "missing":
        message = f"missing required key {loc[-1]!r}"
    elif error["type"] == "extra_forbidden":
        message = f"unknown key {loc[-1]!r} (check the spelling; see schemas/world.schema.json)"
    return _problem_at(file, root, loc, message)


def _duplicate_keys(file: str, node: yaml.Node, path: Location = ()) -> list[SpecProblem]:
    problems: list[SpecProblem] = []
    if isinstance(node, yaml.MappingNode):
        seen: set[Any] = set()
        for key_node, value_node in node.value:
            if key_node.value in seen:
                problems.append(
                    SpecProblem(
                        file,
                        key_node.start_mark.line + 1,
                        key_node.start_mark.column + 1,
                        format_location((*path, key_node.value)),
                        f"duplicate key {key_node.value!r} (the earlier value would be lost)",
                    )
                )
            seen.add(key_node.value)
            problems += _duplicate_keys(file, value_node, (*path, key_node.value))
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            problems += _duplicate_keys(file, item, (*path, i))
    return problems


def parse_world(text: str, file: str = "<world>") -> World:
    """Parse and validate a world from YAML text. Raises :class:`SpecError` listing every problem."""
    try:
        root = yaml.compose(text, Loader=_WorldLoader)
        data = yaml.load(text, Loader=_WorldLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        reason = " ".join(x for x in (exc.context, exc.problem) if x)
        raise SpecError(
            [SpecProblem(file, line, column, "", f"YAML syntax error: {reason}")]
        ) from None
    except yaml.YAMLError as exc:
        raise SpecError([SpecProblem(file, 1, 1, "", f"YAML error: {exc}")]) from None
    if root is None or not isinstance(data, dict):
        raise SpecError(
            [
                SpecProblem(
                    file,
                    1,
                    1,
                    "",
                    "a world file must be a YAML mapping with world, title and tools",
                )
            ]
        )
    problems = _duplicate_keys(file, root)
    try:
        world = World.model_validate(data, context={"defer_cross_checks": True})
    except ValidationError as exc:
        problems += [_problem_from_error(file, root, err) for err in exc.errors()]
    else:
        problems += [_problem_at(file, root, loc, msg) for loc, msg in world.cross_problems()]
    if problems:
        problems.sort(key=lambda p: (p.line, p.column))
        raise SpecError(problems)
    return world


def load_world(path: str | Path) -> World:
    """Load a world file. Raises :class:`SpecError` (with file, line and field) when it is broken."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SpecError(
            [SpecProblem(str(path), 1, 1, "", f"cannot read file: {exc.strerror}")]
        ) from None
    except UnicodeDecodeError as exc:
        raise SpecError(
            [SpecProblem(str(path), 1, 1, "", f"not UTF-8 text: {exc.reason}")]
        ) from None
    return parse_world(text, str(path))

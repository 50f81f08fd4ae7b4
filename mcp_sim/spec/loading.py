"""Loading world files, with every problem reported at its file line.

A world file is YAML, read once (:mod:`mcp_sim.spec.yaml_reading`, within its limits) into
PyYAML's node graph, which remembers where every key and value sits in the file, and into the
plain data that pydantic validates. When validation fails, each pydantic error location is
walked down the node graph to report ``FILE:LINE:COL: path.to.field: message``. Nothing a file
holds makes loading fail any other way: every problem is a :class:`SpecError`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from mcp_sim.errors import SpecError, SpecProblem
from mcp_sim.spec.locations import Location, NestedValueError, format_location, line_and_column
from mcp_sim.spec.world import World
from mcp_sim.spec.yaml_reading import ReadingLimits, check_size, read_yaml


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


def parse_world(text: str, file: str = "<world>", limits: ReadingLimits | None = None) -> World:
    """Parse and validate a world from YAML text. Raises :class:`SpecError` listing every problem.
    ``limits`` defaults to :meth:`ReadingLimits.from_environment`."""
    limits = limits or ReadingLimits.from_environment()
    root, data, problems = read_yaml(text, file, limits)
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


def load_world(path: str | Path, limits: ReadingLimits | None = None) -> World:
    """Load a world file. Raises :class:`SpecError` (with file, line and field) when it is broken."""
    path = Path(path)
    limits = limits or ReadingLimits.from_environment()
    try:
        check_size(str(path), path.stat().st_size, limits)
        raw = path.read_bytes()
    except OSError as exc:
        raise SpecError(
            [SpecProblem(str(path), 1, 1, "", f"cannot read file: {exc.strerror}")]
        ) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        good = raw[: exc.start].decode("utf-8")
        line, column = line_and_column(good, len(good))
        problem = f"not UTF-8 text: byte 0x{raw[exc.start]:02x} ({exc.reason})"
        raise SpecError([SpecProblem(str(path), line, column, "", problem)]) from None
    return parse_world(text, str(path), limits)

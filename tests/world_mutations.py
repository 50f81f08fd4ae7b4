"""Broken worlds for fuzzing the loader: mutations of the shipped worlds, as an attacker or a
careless user would make them.

Each mutation takes the text of a world and a ``random.Random`` and returns new bytes. Some work
on the text (byte flips, tags, nesting, aliases, lines moved), some on the data (a bad regex, a
bad JSON Schema, a bad id pattern, a value of the wrong type), which is written back as YAML.
``mutate`` applies one to three of them, and ``serve_some_calls`` makes the first calls
``serve`` would answer on a world that loads. The fuzz test draws its ``Random`` from hypothesis; the
benchmark (``benchmarks/loader_fuzz.py``) from a seed.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import yaml

from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.world import World
from tests.scripted_model import ScriptedModel

WORLDS = Path(__file__).resolve().parent.parent / "worlds"

Mutation = Callable[[bytes, random.Random], bytes]

TAGS = [
    "!!int", "!!float", "!!bool", "!!null", "!!str", "!!timestamp", "!!binary", "!!set",
    "!!omap", "!!pairs", "!!seq", "!!map", "!!merge", "!!value", "!!python/object:os.system",
    "!!python/name:os.system", "!custom", "!", "!<tag:example.com,2024:x>",
]  # fmt: skip
ODD_SCALARS = [
    "1" * 4301, "-" + "9" * 5000, "0x" + "f" * 5000, "0b" + "1" * 20000, "1e999", "-1e999",
    ".nan", ".inf", "-.Inf", "0x_", "0b_", "._", "0o17", "0x1F", "1_000", "190:20:30",
    "1:" * 200 + "1", "2024-05-01", "2024-05-01T10:00:00Z", "=", "<<", "~", "null", "yes",
    "'\\ud800'", '"\\ud800"', '"\\x00"', '"\\U0010FFFF"', '"\\uDFFF\\uD800"', "''", "'a'",
    "0", "-0", "1.5e308", "4.9e-324", "true", "Off",
]  # fmt: skip
BAD_REGEXES = [
    "a{9999999999}", "(" * 1000 + ")" * 1000, "(" * 40 + "a" + ")" * 40, "(", "[", "\\",
    "a**", "(?<=a+)b", "x{2,1}", "(?P<a>x)(?P<a>y)", "(a+)+$", "(\\w+\\s?)*$", "(.*)*x",
    "x" * 5000, "a{4294967296}", "(?i", "\\p{L}", "[z-a]", "(?<", "a{,9999999999}", "(?#",
    "\\1", "(?(1)a|b)", "\x00", "^ord_\\d{5}$", "[[:alpha:]]", "(?i)ord_\\d+", "a)|(b",
]  # fmt: skip
BAD_SCHEMAS: list[dict[str, Any]] = [
    {"$ref": "#/$defs/nope"},
    {"$ref": "#"},
    {"allOf": [{"$ref": "#"}]},
    {"$ref": "http://example.com/schema.json"},
    {"$ref": "https://json-schema.org/draft/2020-12/schema"},
    {"$ref": "#/properties/%%%"},
    {"$ref": "http://[::1"},
    {"$ref": 5},
    {"$dynamicRef": "#meta"},
    {"$schema": 5},
    {"$schema": "http://json-schema.org/draft-03/schema#", "required": True},
    {"$schema": "http://json-schema.org/draft-04/schema#", "exclusiveMaximum": True},
    {"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "string"}]},
    {"$schema": "http://[::1"},
    {"$schema": "urn:unknown"},
    {"required": True},
    {"type": 5},
    {"type": "strin"},
    {"properties": 5},
    {"items": [{"type": "string"}]},
    {"minimum": "1"},
    {"pattern": "a{9999999999}"},
    {"pattern": "(" * 500 + ")" * 500},
    {"pattern": "(a+)+$"},
    {"patternProperties": {"(": {"type": "string"}}},
    {"$id": 5},
    {"$id": "http://[::1"},
    {"$id": "sub", "$ref": "#/nope"},
    {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"},
    {"enum": [{"$ref": "#/nope"}]},
    {"format": "regex"},
    {"dependentSchemas": {"a": {"$ref": "#"}}},
    {"not": {"$ref": "#"}},
    {"if": True, "then": {"$ref": "#"}},
]
BAD_ID_PATTERNS = [
    "ord_{n:0999999999d}", "ord_{n:09999d}", "ord_{n:040d}", "ord_{n!r}", "ord_{n.real}",
    "ord_{0}", "ord_{", "ord_{n:{n}}", "ord_{n}{n}", "x" * 10000 + "{n}", "ord_{n:5x}",
    "ord_{n:0" + "9" * 5000 + "d}", "ord_{n:05d}",
]  # fmt: skip


def seed_worlds() -> dict[str, str]:
    """The shipped worlds by file name: what every mutation starts from."""
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(WORLDS.glob("*.yaml"))}


def mutate(text: str, rng: random.Random, applied: list[str] | None = None) -> bytes:
    """``text`` broken by one to three mutations, chosen by ``rng`` (their names are appended
    to ``applied``)."""
    out = text.encode("utf-8")
    for mutation in rng.sample(MUTATIONS, rng.randint(1, 3)):
        out = mutation(out, rng)
        if applied is not None:
            applied.append(mutation.__name__.strip("_"))
    return out


def flip_bytes(raw: bytes, rng: random.Random) -> bytes:
    data = bytearray(raw)
    for _ in range(rng.randint(1, 8)):
        if data:
            data[rng.randrange(len(data))] = rng.randrange(256)
    return bytes(data)


def insert_odd_bytes(raw: bytes, rng: random.Random) -> bytes:
    odd = rng.choice(
        [b"\x00", b"\x07", b"\x1b", b"\x7f", b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xef\xbb\xbf",
         b"\xef\xbf\xbe", b"\x85", b"\xc2\x85", b"\xe2\x80\xa8", b"\t", b"\r", b"\x0c"]
    )  # fmt: skip
    at = rng.randrange(len(raw) + 1)
    return raw[:at] + odd + raw[at:]


def inject_tag(raw: bytes, rng: random.Random) -> bytes:
    lines = raw.split(b"\n")
    values = [i for i, line in enumerate(lines) if b": " in line]
    if not values:
        return raw
    i = rng.choice(values)
    key, _, value = lines[i].partition(b": ")
    lines[i] = key + b": " + rng.choice(TAGS).encode() + b" " + value
    return b"\n".join(lines)


def odd_scalar(raw: bytes, rng: random.Random) -> bytes:
    lines = raw.split(b"\n")
    values = [i for i, line in enumerate(lines) if b": " in line]
    if not values:
        return raw
    i = rng.choice(values)
    key, _, _ = lines[i].partition(b": ")
    lines[i] = key + b": " + rng.choice(ODD_SCALARS).encode()
    return b"\n".join(lines)


def deep_nesting(raw: bytes, rng: random.Random) -> bytes:
    depth = rng.choice([40, 63, 64, 65, 100, 300, 1000, 5000])
    nested = rng.choice(
        ["[" * depth + "]" * depth, "{a: " * depth + "1" + "}" * depth, "[" * depth]
    )
    lines = raw.split(b"\n")
    values = [i for i, line in enumerate(lines) if b": " in line] or [0]
    i = rng.choice(values)
    key, _, _ = lines[i].partition(b": ")
    lines[i] = key + b": " + nested.encode()
    return b"\n".join(lines)


def alias_bomb(raw: bytes, rng: random.Random) -> bytes:
    kind = rng.choice(["laughs", "laughs", "recursive", "undefined", "merge", "shared"])
    if kind == "laughs":
        depth, fanout = rng.randint(3, 12), rng.randint(2, 10)
        rows = ["bomb:", '  l0: &l0 ["lol"]']
        for level in range(1, depth + 1):
            refs = ", ".join([f"*l{level - 1}"] * fanout)
            rows.append(f"  l{level}: &l{level} [{refs}]")
        block = "\n".join(rows)
    elif kind == "recursive":
        block = "bomb: &r\n  self: *r"
    elif kind == "undefined":
        block = "bomb: *nowhere"
    elif kind == "merge":
        block = "base: &b {a: 1}\nbomb:\n  <<: [*b, *b]\n  c: 2"
    else:
        block = "shared: &s {type: string}\nagain: *s"
    where = rng.choice(["top", "state"])
    if where == "state" and b"\nstate:\n" in raw:
        indented = "\n".join("  " + row for row in block.split("\n"))
        return raw.replace(b"\nstate:\n", b"\nstate:\n" + indented.encode() + b"\n", 1)
    return raw + b"\n" + block.encode() + b"\n"


def shuffle_lines(raw: bytes, rng: random.Random) -> bytes:
    lines = raw.split(b"\n")
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    move = rng.choice(["delete", "duplicate", "swap", "indent", "truncate"])
    if move == "delete":
        del lines[i]
    elif move == "duplicate":
        lines.insert(j, lines[i])
    elif move == "swap":
        lines[i], lines[j] = lines[j], lines[i]
    elif move == "indent":
        lines[i] = b" " * rng.randint(1, 7) + lines[i]
    else:
        return raw[: rng.randrange(len(raw) + 1)]
    return b"\n".join(lines)


def odd_keys(raw: bytes, rng: random.Random) -> bytes:
    key = rng.choice(["1", "true", "null", "~", "1.5", "[a]", "{a: 1}", "? [a, b]", "'1'"])
    extra = f"{key}: x" if not key.startswith("?") else f"{key}\n: x"
    return raw + b"\nstate_extra:\n  " + extra.replace("\n", "\n  ").encode() + b"\n"


def _data_mutation(change: Callable[[dict[str, Any], random.Random], None]) -> Mutation:
    """A mutation of the parsed world, written back as YAML (unchanged if it does not parse)."""

    def mutation(raw: bytes, rng: random.Random) -> bytes:
        try:
            data = yaml.safe_load(raw.decode("utf-8"))
            if not isinstance(data, dict):
                return raw
            change(data, rng)
            return yaml.safe_dump(data, sort_keys=False, allow_unicode=True).encode("utf-8")
        except Exception:  # plain PyYAML fails in many ways on what earlier mutations made
            return raw

    mutation.__name__ = change.__name__
    return mutation


def _a_tool(data: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    tools = data.get("tools")
    if not isinstance(tools, list) or not tools or not isinstance(tools[0], dict):
        return None
    tool = rng.choice(tools)
    return tool if isinstance(tool, dict) else None


def _subschemas(schema: Any) -> list[dict[str, Any]]:
    found = [schema] if isinstance(schema, dict) else []
    for value in schema.values() if isinstance(schema, dict) else []:
        found += _subschemas(value)
        if isinstance(value, dict):
            for item in value.values():
                found += _subschemas(item)
    return found


def _bad_schema(data: dict[str, Any], rng: random.Random) -> None:
    tool = _a_tool(data, rng)
    place = rng.choice(["input_schema", "output_schema", "state_schema"])
    schema = data.setdefault("state_schema", {}) if place == "state_schema" else None
    if tool is not None and schema is None:
        schema = tool.setdefault(place, {"type": "object"})
    targets = _subschemas(schema)
    if targets:
        rng.choice(targets).update(rng.choice(BAD_SCHEMAS))
    if tool is not None and rng.random() < 0.6:
        arguments = {"key": rng.choice([1, "x", 0x1F, None, [1], {"a": 1}])}
        fixture = {"when": {"tool": tool.get("name"), "arguments": arguments}, "result": {"a": 1}}
        data.setdefault("fixtures", []).append(fixture)


def _bad_regex(data: dict[str, Any], rng: random.Random) -> None:
    pattern = rng.choice(BAD_REGEXES)
    if rng.random() < 0.5:
        entities = data.setdefault("entities", {})
        if isinstance(entities, dict):
            entities["fuzzed"] = {"collection": "/fuzzed", "id_pattern": pattern}
            state = data.setdefault("state", {})
            if isinstance(state, dict):
                state["fuzzed"] = [{"id": "a"}]
        return
    tool = _a_tool(data, rng)
    if tool is not None:
        schema = tool.setdefault("input_schema", {"type": "object"})
        if isinstance(schema, dict):
            key = rng.choice(["pattern", "patternProperties"])
            schema[key] = pattern if key == "pattern" else {pattern: {"type": "string"}}


def _bad_id_pattern(data: dict[str, Any], rng: random.Random) -> None:
    entities = data.setdefault("entities", {})
    state = data.setdefault("state", {})
    if isinstance(entities, dict) and isinstance(state, dict):
        entities["fuzzed"] = {"collection": "/fuzzed"}
        state["fuzzed"] = [{"id": "ord_00001"}]
        data["ids"] = {"fuzzed": rng.choice(BAD_ID_PATTERNS)}


def _wrong_type(data: dict[str, Any], rng: random.Random) -> None:
    """Replace one value anywhere in the world by a value of a random type."""
    node: Any = data
    for _ in range(rng.randint(1, 6)):
        children = list(node.items()) if isinstance(node, dict) else list(enumerate(node))
        if not children:
            break
        key, child = rng.choice(children)
        if not isinstance(child, dict | list) or rng.random() < 0.3:
            node[key] = rng.choice(
                [None, True, -1, 2**70, 1.5, "", "x" * 300, [], {}, [None], {"": None}]
            )
            return
        node = child


MUTATIONS: list[Mutation] = [
    flip_bytes,
    insert_odd_bytes,
    inject_tag,
    odd_scalar,
    deep_nesting,
    alias_bomb,
    shuffle_lines,
    odd_keys,
    _data_mutation(_bad_schema),
    _data_mutation(_bad_regex),
    _data_mutation(_bad_id_pattern),
    _data_mutation(_wrong_type),
]


def billion_laughs(depth: int = 9, fanout: int = 9) -> str:
    """The classic alias bomb as a world: ``fanout ** depth`` strings from a few hundred bytes."""
    rows = ["world: bomb", "title: Bomb", 'l0: &l0 ["lol"]']
    rows += [
        f"l{level}: &l{level} [{', '.join([f'*l{level - 1}'] * fanout)}]"
        for level in range(1, depth + 1)
    ]
    return "\n".join(rows) + "\ntools: [{name: t, description: d, input_schema: {type: object}}]\n"


async def serve_some_calls(world: World) -> None:
    """What ``serve`` does with a world on its first calls: each fixture's call, and each tool
    with no arguments, answered by a model that says the same thing every time."""
    answers = [ScriptedModel.answer({"ok": True})] * 40
    simulator = Simulator(world, ScriptedModel(*answers))
    calls = [(f.when.tool, f.when.arguments) for f in world.fixtures[:3]]
    calls += [(tool.name, {}) for tool in world.tools[:3]]
    for tool, arguments in calls:
        with anyio.fail_after(30):
            result = await simulator.call("fuzz", tool, arguments)
        json.dumps(result.structured)

"""``redis``: a multiplayer game's live store in Redis Stack, as ``rdb --command json`` dumps
it: flat composite keys (``player:1042`` hashes of string values, ``player:1042:inventory``,
``guild:17`` and its ``guild:17:members`` set, the ``lb:season:12`` sorted set of scores by
player id), a key's type told only by its name. Tools are Redis commands answered as
node-redis v4 decodes them: ``HGETALL``, ``HMGET``, ``ZSCORE``, ``FT.SEARCH`` and
``FT.AGGREGATE`` over the ``idx:players`` index in RediSearch's query language, ``SORT ... BY
player:*->xp GET player:*->name`` (Redis' own join), ``HSET``, ``HINCRBY`` and ``ZINCRBY``."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.kit import Answer, Planned, State, Tool, note_tool, pointer, prop
from benchmarks.zoo.redis_commands import ft_aggregate, ft_search, sort
from benchmarks.zoo.redis_keyspace import (
    COUNTRIES,
    ITEMS,
    PLATFORMS,
    SEASON,
    keyspace,
    players,
    store,
)
from benchmarks.zoo.shape import Shape

KEY = {"key": prop("string", "The key, e.g. player:1042.")}
INDEX = {"index": prop("string", "The index (idx:players).")}
QUERY = {"query": prop("string", "RediSearch query, e.g. @country:{SE|NO} @level:[20 40].")}


def _hgetall(state: State, args: dict[str, Any]) -> Answer:
    value = keyspace(state).get(args["key"])
    return (value if isinstance(value, dict) and args["key"] != SEASON else {}), []


def _hmget(state: State, args: dict[str, Any]) -> Answer:
    value = keyspace(state).get(args["key"]) or {}
    return [value.get(field) for field in args["fields"]], []


def _zscore(state: State, args: dict[str, Any]) -> Answer:
    return keyspace(state).get(args["key"], {}).get(args["member"]), []


def _hset(state: State, args: dict[str, Any]) -> Answer:
    held = keyspace(state).get(args["key"])
    if held is None:
        value = dict(args["fields"])
        return len(value), [{"op": "add", "path": pointer("db0", args["key"]), "value": value}]
    patch = [
        {"op": "replace" if field in held else "add", "path": pointer("db0", args["key"], field)}
        | {"value": value}
        for field, value in args["fields"].items()
    ]
    return sum(1 for field in args["fields"] if field not in held), patch


def _hincrby(state: State, args: dict[str, Any]) -> Answer:
    key, field = args["key"], args["field"]
    held = keyspace(state).get(key)
    new = int((held or {}).get(field, "0")) + args["increment"]
    if held is None:
        return new, [{"op": "add", "path": pointer("db0", key), "value": {field: str(new)}}]
    op = "replace" if field in held else "add"
    return new, [{"op": op, "path": pointer("db0", key, field), "value": str(new)}]


def _zincrby(state: State, args: dict[str, Any]) -> Answer:
    board = keyspace(state)[args["key"]]
    member = args["member"]
    new = board.get(member, 0) + args["increment"]
    op = "replace" if member in board else "add"
    return new, [{"op": op, "path": pointer("db0", args["key"], member), "value": new}]


class RedisStack(Shape):
    name = "redis"
    title = "Live-ops assistant over a game's Redis Stack"
    description = (
        "The live store of the game Emberfall in Redis Stack: player:<id> and guild:<id> "
        "hashes, player:<id>:inventory hashes, guild:<id>:members sets and the lb:season:12 "
        "leaderboard. Index idx:players ON HASH PREFIX 1 player: SCHEMA name TEXT country TAG "
        "level NUMERIC xp NUMERIC guild_id TAG platform TAG. Replies as node-redis v4 decodes "
        "them; errors are text starting with 'Error:'."
    )
    note = ("ops_log", "line")

    def build(self, rng: random.Random, target_bytes: int) -> State:
        return store(rng, target_bytes)

    def tools(self) -> list[Tool]:
        limit = {
            "limit_offset": prop("integer", "LIMIT offset (default 0)."),
            "limit_num": prop("integer", "LIMIT num (default 10)."),
        }
        search = (
            INDEX
            | QUERY
            | limit
            | {
                "sortby": prop("string", "SORTBY a sortable field."),
                "order": prop("string", "", enum=["ASC", "DESC"]),
                "return": prop("array", "RETURN these fields only.", items={"type": "string"}),
            }
        )
        pipeline = {"pipeline": prop("string", "e.g. GROUPBY 1 @country REDUCE COUNT 0 AS n")}
        sorting = KEY | {
            "by": prop("string", "BY pattern, e.g. player:*->xp, or nosort."),
            "get": prop(
                "array", "GET patterns, e.g. # or player:*->name.", items={"type": "string"}
            ),
            "order": prop("string", "", enum=["ASC", "DESC"]),
            "limit_offset": prop("integer", "LIMIT offset."),
            "limit_count": prop("integer", "LIMIT count."),
        }
        fields = {"fields": prop("object", "Field → value (strings).")}
        member = {"member": prop("string", "The member (a player id).")}
        increment = {"increment": prop("integer", "By how much.")}
        return [
            Tool("hgetall", "HGETALL: every field of a hash.", KEY, _hgetall, ("key",)),
            Tool(
                "hmget",
                "HMGET: the values of some fields of a hash (null where none).",
                KEY | {"fields": prop("array", "Fields.", items={"type": "string"})},
                _hmget,
                ("key", "fields"),
            ),
            Tool(
                "zscore",
                "ZSCORE of a sorted set's member.",
                KEY | member,
                _zscore,
                ("key", "member"),
            ),
            Tool(
                "ft_search",
                "FT.SEARCH.",
                search,
                lambda s, a: (ft_search(s, a), []),
                ("index", "query"),
            ),
            Tool(
                "ft_aggregate",
                "FT.AGGREGATE with a pipeline of GROUPBY, REDUCE (COUNT, COUNT_DISTINCT, SUM, "
                "AVG, MIN, MAX, TOLIST) and SORTBY.",
                INDEX | QUERY | pipeline,
                lambda s, a: (ft_aggregate(s, a), []),
                ("index", "query", "pipeline"),
            ),
            Tool(
                "sort",
                "SORT a set by an external key's field, GET other keys' fields.",
                sorting,
                lambda s, a: (sort(s, a), []),
                ("key",),
            ),
            Tool(
                "hset",
                "HSET fields of a hash; replies how many fields were new.",
                KEY | fields,
                _hset,
                ("key", "fields"),
                effect="write",
            ),
            Tool(
                "hincrby",
                "HINCRBY a hash's field.",
                KEY | {"field": prop("string", "Field.")} | increment,
                _hincrby,
                ("key", "field", "increment"),
                effect="write",
            ),
            Tool(
                "zincrby",
                "ZINCRBY a sorted set's member; replies the new score.",
                KEY | member | increment,
                _zincrby,
                ("key", "member", "increment"),
                effect="write",
            ),
            note_tool("ops_log", "line", "Append a line to the ops log (answers nothing)."),
        ]

    def _player(self, rng: random.Random, state: State) -> tuple[str, dict[str, str]]:
        return rng.choice(players(state))

    def lookup(self, rng: random.Random, state: State) -> Planned:
        key, player = self._player(rng, state)
        if rng.random() < 0.3:
            key = f"guild:{player['guild_id']}"
        return Planned("lookup", "hgetall", {"key": key})

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        key, _ = self._player(rng, state)
        choice = rng.random()
        if choice < 0.4:
            fields = rng.sample(["name", "level", "xp", "guild_id", "country", "platform"], 3)
            return Planned("nested_lookup", "hmget", {"key": key, "fields": fields})
        if choice < 0.7 and f"{key}:inventory" in keyspace(state):
            return Planned("nested_lookup", "hgetall", {"key": f"{key}:inventory"})
        member = key.split(":")[1]
        return Planned("nested_lookup", "zscore", {"key": SEASON, "member": member})

    def search(self, rng: random.Random, state: State) -> Planned:
        _, player = self._player(rng, state)
        level = int(player["level"])
        other = rng.choice([p for p in PLATFORMS if p != player["platform"]])
        terms = [
            f"@country:{{{player['country']}}}",
            f"@platform:{{{player['platform']}|{other}}}",
            f"@level:[{max(1, level - rng.randint(0, 8))} {level + rng.randint(0, 8)}]",
            f"@guild_id:{{{player['guild_id']}}}",
            f"@name:{player['name'][:4].lower()}*",
            f"-@platform:{{{rng.choice([p for p in PLATFORMS if p != player['platform']])}}}",
        ]
        args: dict[str, Any] = {"index": "idx:players"}
        args["query"] = " ".join(rng.sample(terms, rng.randint(1, 4)))
        if rng.random() < 0.5:
            args |= {"sortby": "xp", "order": "DESC"}
        if rng.random() < 0.4:
            args["return"] = ["name", "level", "xp", "country"]
        args |= {"limit_offset": 0, "limit_num": 20}
        return Planned("search", "ft_search", args)

    def join(self, rng: random.Random, state: State) -> Planned:
        _, player = self._player(rng, state)
        field = rng.choice(["xp", "level"])
        shown = rng.sample(["name", "level", "country", "platform"], 2)
        args = {
            "key": f"guild:{player['guild_id']}:members",
            "by": f"player:*->{field}",
            "get": ["#"] + [f"player:*->{f}" for f in shown],
            "order": "DESC",
            "limit_offset": 0,
            "limit_count": 10,
        }
        return Planned("join", "sort", args)

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        _, player = self._player(rng, state)
        query, by = rng.choice(
            [
                (f"@guild_id:{{{player['guild_id']}}}", "@country"),
                (f"@level:[{player['level']} +inf]", "@platform"),
                (f"@country:{{{player['country']}}}", "@platform"),
                (f"@platform:{{{player['platform']}}}", "@country"),
            ]
        )
        reducer = rng.choice(
            [
                "REDUCE AVG 1 @level AS avg_level",
                "REDUCE SUM 1 @xp AS total_xp",
                "REDUCE MAX 1 @xp AS best_xp",
            ]
        )
        pipeline = f"GROUPBY 1 {by} REDUCE COUNT 0 AS players {reducer} SORTBY 2 @players DESC"
        args = {"index": "idx:players", "query": query, "pipeline": pipeline}
        return Planned("aggregate", "ft_aggregate", args)

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        key, player = self._player(rng, state)
        choice = rng.random()
        if choice < 0.4:
            level = int(player["level"]) + rng.randint(1, 3)
            fields = {"level": str(level), "xp": str(level * 1000 + rng.randint(0, 999))}
            write = Planned("write", "hset", {"key": key, "fields": fields})
            return write, Planned("read_after_write", "hgetall", {"key": key})
        member = key.split(":")[1]
        if choice < 0.7:
            args = {"key": SEASON, "member": member, "increment": rng.choice([25, 50, 100, 250])}
            read = Planned("read_after_write", "zscore", {"key": SEASON, "member": member})
            return Planned("write", "zincrby", args), read
        args = {
            "key": f"{key}:inventory",
            "field": rng.choice(ITEMS),
            "increment": rng.randint(1, 5),
        }
        read = Planned("read_after_write", "hgetall", {"key": f"{key}:inventory"})
        return Planned("write", "hincrby", args), read

    def no_match(self, rng: random.Random, state: State) -> Planned:
        country = rng.choice(["IS", "NZ", "ZA"])
        assert country not in COUNTRIES
        query = f"@country:{{{country}}} @platform:{{{rng.choice(PLATFORMS)}}}"
        args = {"index": "idx:players", "query": query, "limit_offset": 0, "limit_num": 20}
        return Planned("empty", "ft_search", args)

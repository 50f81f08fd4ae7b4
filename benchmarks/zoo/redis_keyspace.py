"""The ``redis`` shape's data: a multiplayer game's live store in Redis Stack, as ``rdb
--command json`` dumps it: one object of database 0 keyed by flat composite keys (hashes as
objects of string values, sets as arrays, sorted sets as ``{member: score}``), the type of a
key known only from its name (``player:1042``, ``player:1042:inventory``,
``guild:17:members``, ``lb:season:12``); and RediSearch's query language over the
``idx:players`` index (``@country:{SE|NO} @level:[20 40] @name:ana*``)."""

from __future__ import annotations

import random
import re
from typing import Any

from benchmarks.zoo.kit import FIRST, LAST, WORDS, State, ToolError, fill, size_of

SEASON = "lb:season:12"
COUNTRIES = ["SE", "NO", "FI", "DE", "PL", "BR", "JP", "KR", "US", "GB"]
PLATFORMS = ["pc", "ps5", "xbox", "switch"]
REGIONS = ["eu-west", "eu-north", "na-east", "sa-east", "ap-northeast"]
ITEMS = ["potion", "elixir", "scroll", "bomb", "key", "shard", "rune", "torch"]
SCHEMA = {"name": "TEXT", "country": "TAG", "level": "NUMERIC", "xp": "NUMERIC"}
SCHEMA |= {"guild_id": "TAG", "platform": "TAG"}
"""``FT.CREATE idx:players ON HASH PREFIX 1 player: SCHEMA ...``."""
PLAYER = re.compile(r"player:(\d+)")


def keyspace(state: State) -> dict[str, Any]:
    keys: dict[str, Any] = state["db0"]
    return keys


def players(state: State) -> list[tuple[str, dict[str, str]]]:
    """The hashes ``idx:players`` indexes that hold its fields, in key order."""
    return [(k, v) for k, v in keyspace(state).items() if PLAYER.fullmatch(k)]


def _player(rng: random.Random, n: int, guilds: int) -> dict[str, str]:
    level = rng.randint(1, 80)
    return {
        "name": f"{rng.choice(FIRST)}{rng.choice(LAST)}{rng.randint(1, 99)}",
        "country": rng.choice(COUNTRIES),
        "level": str(level),
        "xp": str(level * 1000 + rng.randint(0, 999)),
        "guild_id": str(rng.randint(1, guilds)),
        "platform": rng.choice(PLATFORMS),
        "created_at": str(1_640_000_000 + rng.randint(0, 120_000_000)),
        "banned": "1" if rng.random() < 0.03 else "0",
    }


def store(rng: random.Random, target_bytes: int) -> State:
    guilds = max(4, target_bytes // 12_000)
    state: State = {"db0": {}}
    keys = keyspace(state)
    for g in range(1, guilds + 1):
        keys[f"guild:{g}"] = {
            "name": f"{rng.choice(WORDS).title()} {rng.choice(['Wolves', 'Order', 'Clan', 'Guard'])}",
            "tag": "".join(rng.choice("ABCDEFGHJKLMNPRSTVWXZ") for _ in range(3)),
            "region": rng.choice(REGIONS),
            "founded": str(1_600_000_000 + rng.randint(0, 150_000_000)),
        }
        keys[f"guild:{g}:members"] = []
    board: dict[str, int] = {}
    count = [1000]

    def add() -> None:
        count[0] += 1
        n = count[0]
        player = _player(rng, n, guilds)
        keys[f"player:{n}"] = player
        held = rng.sample(ITEMS, rng.randint(0, 4))
        if held:
            keys[f"player:{n}:inventory"] = {item: str(rng.randint(1, 40)) for item in held}
        keys[f"guild:{player['guild_id']}:members"].append(str(n))
        board[str(n)] = rng.randint(0, 5000)

    keys[SEASON] = board
    fill(add, lambda: size_of(state), target_bytes)
    for g in range(1, guilds + 1):
        keys[f"guild:{g}"]["leader"] = min(keys[f"guild:{g}:members"] or ["1001"], key=int)
    keys[SEASON] = dict(sorted(board.items(), key=lambda kv: (kv[1], kv[0])))
    return state


_TERM = re.compile(r"(-?)@(\w+):(?:\{([^}]*)\}|\[(\(?)(\S+) (\(?)(\S+)\]|(\w+\*?))")


def _number(text: str) -> float:
    bound = text.lower()
    if bound in ("+inf", "inf", "-inf"):
        return float("-inf") if bound == "-inf" else float("inf")
    return float(text)


def _meets(doc: dict[str, str], term: re.Match[str]) -> bool:
    negated, field, tags, open_low, low, open_high, high, word = term.groups()
    if field not in SCHEMA:
        raise ToolError(f"Unknown field at offset {term.start()} near {field}")
    value = doc.get(field)
    if value is None:
        found = False
    elif tags is not None:
        found = value.lower() in {t.strip().lower() for t in tags.split("|")}
    elif low is not None:
        number = float(value)
        above = number > _number(low) if open_low else number >= _number(low)
        below = number < _number(high) if open_high else number <= _number(high)
        found = above and below
    else:
        wanted = word.lower()
        words = re.findall(r"\w+", value.lower())
        found = any(
            w.startswith(wanted[:-1]) if wanted.endswith("*") else w == wanted for w in words
        )
    return found != bool(negated)


def search(state: State, query: str) -> list[tuple[str, dict[str, str]]]:
    """The indexed hashes ``query`` matches (terms intersected), in key order."""
    terms = list(_TERM.finditer(query))
    if query.strip() != "*" and " ".join(t.group() for t in terms) != " ".join(query.split()):
        raise ToolError(f"Syntax error at offset 0 near {query}")
    return [(k, v) for k, v in players(state) if all(_meets(v, t) for t in terms)]

"""``cassandra``: a streaming service's ``streamly`` keyspace in Apache Cassandra 4, its state
each table's SSTables as ``sstabledump`` prints them beside the keyspace's schema
(:mod:`.cassandra_sstables`): ``users`` and ``titles`` by id, ``watch_history_by_user``
clustered by time, ``ratings_by_title`` clustered by user, rows merged across SSTables by write
timestamp with deletions as tombstones. The tool is a CQL session's ``execute`` with ``?``
markers and bound values (:mod:`.cassandra_cql`): reads by partition key, ranges over
clustering columns, ``ALLOW FILTERING`` scans, ``IN`` lists of keys (the application's join),
aggregates within a partition; ``UPDATE ... IF EXISTS`` answering ``[applied]``, ``INSERT``."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo import cassandra_cql as cql
from benchmarks.zoo.cassandra_sstables import COUNTRIES, DEVICES, PLANS, keyspace, merged
from benchmarks.zoo.kit import Answer, Planned, State, Tool, note_tool, prop
from benchmarks.zoo.shape import Shape

ARGS = {
    "query": prop("string", "The CQL statement, with ? markers."),
    "values": prop("array", "The bound values, in marker order.", items={}),
}


def _select(state: State, args: dict[str, Any]) -> Answer:
    return cql.select(state, args["query"], args.get("values", [])), []


def _update(state: State, args: dict[str, Any]) -> Answer:
    return cql.write(state, args["query"], args.get("values", []))


def _run(kind: str, query: str, *values: Any) -> Planned:
    tool = "execute_update" if kind == "write" else "execute_query"
    return Planned(kind, tool, {"query": query, "values": list(values)})


class Cassandra(Shape):
    name = "cassandra"
    title = "Support assistant over a streaming service's Cassandra keyspace"
    description = (
        "Streamly's keyspace in Apache Cassandra 4.1: the tables' SSTables as sstabledump "
        "prints them, and the schema. The tools execute CQL on a session (consistency "
        "LOCAL_QUORUM); rows are answered as SELECT JSON renders them; errors are text "
        "starting with 'Error:'."
    )
    note = ("incident_note", "text")

    def build(self, rng: random.Random, target_bytes: int) -> State:
        return keyspace(rng, target_bytes)

    def tools(self) -> list[Tool]:
        return [
            Tool(
                "execute_query",
                "Execute a CQL SELECT; answers its rows.",
                ARGS,
                _select,
                ("query",),
            ),
            Tool(
                "execute_update",
                "Execute a CQL UPDATE or INSERT; answers its rows ([applied] for IF).",
                ARGS,
                _update,
                ("query",),
                effect="write",
            ),
            note_tool(
                "incident_note", "text", "Add a line to the incident notes (answers nothing)."
            ),
        ]

    def _user(self, rng: random.Random, state: State) -> dict[str, Any]:
        return rng.choice(list(merged(state, "users")))

    def _history(self, rng: random.Random, state: State) -> tuple[str, list[dict[str, Any]]]:
        rows = list(merged(state, "watch_history_by_user"))
        user = rng.choice(rows)["user_id"]
        return user, [r for r in rows if r["user_id"] == user]

    def lookup(self, rng: random.Random, state: State) -> Planned:
        if rng.random() < 0.6:
            user = self._user(rng, state)["user_id"]
            return _run("lookup", "SELECT * FROM users WHERE user_id = ?", user)
        title = rng.choice(list(merged(state, "titles")))["title_id"]
        return _run("lookup", "SELECT * FROM titles WHERE title_id = ?", title)

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        if rng.random() < 0.5:
            user = self._user(rng, state)["user_id"]
            return _run("nested_lookup", "SELECT devices, prefs FROM users WHERE user_id = ?", user)
        user, rows = self._history(rng, state)
        row = rng.choice(rows)
        query = (
            "SELECT title_name, progress_pct, device FROM watch_history_by_user "
            "WHERE user_id = ? AND watched_at = ? AND title_id = ?"
        )
        return _run("nested_lookup", query, user, row["watched_at"], row["title_id"])

    def search(self, rng: random.Random, state: State) -> Planned:
        choice = rng.random()
        if choice < 0.4:
            user, rows = self._history(rng, state)
            row = rng.choice(rows)
            start = row["watched_at"][:8] + "01 00:00:00.000Z"
            query = "SELECT * FROM watch_history_by_user WHERE user_id = ? AND watched_at >= ? AND watched_at <= ?"
            return _run("search", query, user, start, row["watched_at"])
        if choice < 0.7:
            picked: dict[str, Any] = rng.choice(list(merged(state, "titles")))
            query = "SELECT title_id, name, year, kind FROM titles WHERE genres CONTAINS ? AND year >= ? AND kind = ? LIMIT 20 ALLOW FILTERING"
            return _run(
                "search",
                query,
                rng.choice(picked["genres"]),
                picked["year"] - rng.randint(0, 3),
                picked["kind"],
            )
        person = self._user(rng, state)
        query = "SELECT user_id, name, email, plan FROM users WHERE country = ? AND plan = ? AND devices CONTAINS ? LIMIT 20 ALLOW FILTERING"
        return _run(
            "search", query, person["country"], person["plan"], rng.choice(person["devices"])
        )

    def join(self, rng: random.Random, state: State) -> Planned:
        if rng.random() < 0.5:
            ratings = list(merged(state, "ratings_by_title"))
            title = rng.choice(ratings)["title_id"]
            users = sorted({r["user_id"] for r in ratings if r["title_id"] == title})
            return _run(
                "join", "SELECT user_id, name, country, plan FROM users WHERE user_id IN ?", users
            )
        _, rows = self._history(rng, state)
        titles = sorted({r["title_id"] for r in rows})
        return _run(
            "join",
            "SELECT title_id, name, year, runtime_min FROM titles WHERE title_id IN ?",
            titles,
        )

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        if rng.random() < 0.5:
            title = rng.choice(list(merged(state, "ratings_by_title")))["title_id"]
            query = "SELECT count(*), avg(stars), min(stars), max(stars) FROM ratings_by_title WHERE title_id = ?"
            return _run("aggregate", query, title)
        user, rows = self._history(rng, state)
        since = rng.choice(rows)["watched_at"]
        query = "SELECT count(*), sum(progress_pct), max(watched_at) FROM watch_history_by_user WHERE user_id = ? AND watched_at >= ?"
        return _run("aggregate", query, user, since)

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        choice = rng.random()
        user = self._user(rng, state)
        read = _run("read_after_write", "SELECT * FROM users WHERE user_id = ?", user["user_id"])
        if choice < 0.4:
            plan = rng.choice([p for p in PLANS if p != user["plan"]])
            return _run(
                "write",
                "UPDATE users SET plan = ? WHERE user_id = ? IF EXISTS",
                plan,
                user["user_id"],
            ), read
        if choice < 0.7:
            new = [d for d in DEVICES if d not in user["devices"]] or ["web"]
            added = [rng.choice(new)]
            return _run(
                "write",
                "UPDATE users SET devices = devices + ? WHERE user_id = ?",
                added,
                user["user_id"],
            ), read
        title = rng.choice(list(merged(state, "titles")))["title_id"]
        stars, when = rng.randint(1, 5), f"2025-06-{rng.randint(1, 28):02d} 20:00:00.000Z"
        query = (
            "INSERT INTO ratings_by_title (title_id, user_id, stars, rated_at) VALUES (?, ?, ?, ?)"
        )
        write = _run("write", query, title, user["user_id"], stars, when)
        read = _run(
            "read_after_write",
            "SELECT * FROM ratings_by_title WHERE title_id = ? AND user_id = ?",
            title,
            user["user_id"],
        )
        return write, read

    def no_match(self, rng: random.Random, state: State) -> Planned:
        query = "SELECT user_id, name, email, plan FROM users WHERE country = ? AND plan = ? LIMIT 20 ALLOW FILTERING"
        country = rng.choice(["JP", "BR", "CA"])
        assert country not in COUNTRIES
        return _run("empty", query, country, rng.choice(PLANS))

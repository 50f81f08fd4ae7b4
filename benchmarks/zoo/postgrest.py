"""``postgrest``: a yoga and fitness studio's Supabase database as PostgREST serves it: each
table as ``GET /<table>`` answers it beside the OpenAPI document whose column descriptions
alone name the foreign keys. Tools are PostgREST's requests: ``GET`` with a query string of
horizontal filters (``style=eq.hatha``, ``level=in.(beginner,all_levels)``,
``starts_at=gte.2025-06-01``), ``select`` with renames, embedded resources and aggregates,
``order`` and ``limit``; ``POST`` and ``PATCH`` with ``Prefer: return=representation``."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from benchmarks.zoo.kit import Answer, Planned, State, Tool, ToolError, note_tool, pointer, prop
from benchmarks.zoo.postgrest_db import (
    COLUMNS,
    LEVELS,
    NOW,
    PLANS,
    ROOMS,
    STYLES,
    database,
    stamp,
    table,
)
from benchmarks.zoo.postgrest_query import Query, matches
from benchmarks.zoo.shape import Shape

PATH = {"path": prop("string", "Table and query string, e.g. /classes?style=eq.hatha&limit=5.")}
BODY = {"body": prop("object", "The row's columns as JSON.")}
PREFER = {"prefer": prop("string", "Prefer header.", enum=["return=representation"])}


def _split(path: str) -> tuple[str, str]:
    name, _, query = path.partition("?")
    return name.strip("/"), query


class Postgrest(Shape):
    name = "postgrest"
    title = "Front-desk assistant over a studio's Supabase database"
    description = (
        "Lotus & Iron studio's Supabase database (instructors, classes, members, bookings) "
        "through its PostgREST API at /rest/v1. Answers are PostgREST's JSON; money in cents; "
        "errors are text starting with 'Error:'."
    )
    note = ("scratch_note", "text")

    def build(self, rng: random.Random, target_bytes: int) -> State:
        return database(rng, target_bytes)

    def tools(self) -> list[Tool]:
        return [
            Tool(
                "postgrest_get",
                "GET a table with PostgREST's query string: column=op.value filters (eq, neq, "
                "gt, gte, lt, lte, like, ilike, in, is, cs, not.), select with alias:column, "
                "embedded resources through foreign keys and aggregates (count(), col.sum(), "
                "col.avg()), order=col.desc, limit.",
                PATH,
                self._get,
                ("path",),
            ),
            Tool(
                "postgrest_post",
                "POST rows to a table (Prefer: return=representation answers the rows).",
                PATH | BODY | PREFER,
                self._post,
                ("path", "body"),
                effect="write",
            ),
            Tool(
                "postgrest_patch",
                "PATCH the rows the query string's filters select.",
                PATH | BODY | PREFER,
                self._patch,
                ("path", "body"),
                effect="write",
            ),
            note_tool("scratch_note", "text", "Jot a note down (answers nothing)."),
        ]

    def _get(self, state: State, args: dict[str, Any]) -> Answer:
        name, query = _split(args["path"])
        return Query(state, name, query).answer(), []

    def _post(self, state: State, args: dict[str, Any]) -> Answer:
        name, _ = _split(args["path"])
        if name != "bookings":
            raise ToolError('{"code":"42501","message":"permission denied for table ' + name + '"}')
        rows = table(state, name)
        body = args["body"]
        unknown = set(body) - set(COLUMNS[name])
        if unknown:
            raise ToolError(
                f'{{"code":"PGRST204","message":"Could not find the \'{min(unknown)}\' '
                f"column of '{name}' in the schema cache\"}}"
            )
        new = {
            "id": rows[-1]["id"] + 1,
            "class_id": body["class_id"],
            "member_id": body["member_id"],
            "status": body.get("status", "booked"),
            "booked_at": stamp(NOW + timedelta(minutes=len(rows) % 600)),
            "paid_cents": body.get("paid_cents", 0),
        }
        patch = [{"op": "add", "path": pointer(f"/{name}", len(rows)), "value": new}]
        return [new], patch

    def _patch(self, state: State, args: dict[str, Any]) -> Answer:
        name, query = _split(args["path"])
        rows = Query(state, name, query).rows()
        if set(args["body"]) - set(COLUMNS[name]):
            raise ToolError('{"code":"PGRST204","message":"Could not find the column"}')
        positions = {id(row): n for n, row in enumerate(table(state, name))}
        patch, changed = [], []
        for row in rows:
            for column, value in args["body"].items():
                path = pointer(f"/{name}", positions[id(row)], column)
                patch.append({"op": "replace", "path": path, "value": value})
            changed.append(row | args["body"])
        return changed, patch

    def _get_call(self, kind: str, path: str) -> Planned:
        return Planned(kind, "postgrest_get", {"path": path})

    def lookup(self, rng: random.Random, state: State) -> Planned:
        name = rng.choice(["members", "classes", "bookings", "instructors"])
        row = rng.choice(table(state, name))
        return self._get_call("lookup", f"/{name}?id=eq.{row['id']}")

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        if rng.random() < 0.5:
            row = rng.choice(table(state, "classes"))
            select = "id,title,starts_at,room,instructor:instructors(full_name,email,specialties)"
            return self._get_call("nested_lookup", f"/classes?id=eq.{row['id']}&select={select}")
        row = rng.choice(table(state, "bookings"))
        select = "id,status,booked_at,member:members(full_name,email,plan)"
        return self._get_call("nested_lookup", f"/bookings?id=eq.{row['id']}&select={select}")

    def search(self, rng: random.Random, state: State) -> Planned:
        name = rng.choice(["classes", "classes", "members", "bookings"])
        rows = table(state, name)
        row = rng.choice(rows)
        options = _filters(rng, name, row)
        rng.shuffle(options)
        chosen: list[tuple[str, str]] = []
        for count, option in enumerate(options[:4], start=1):
            chosen.append(option)
            kept = [r for r in rows if all(matches(name, r, k, v) for k, v in chosen)]
            if count >= rng.randint(1, 4) and len(kept) <= 20:
                break
        select = {
            "classes": "select=id,title,style,level,room,starts_at,price_cents&",
            "members": "select=id,full_name,email,plan,home_city&",
            "bookings": "",
        }[name]
        where = "&".join(f"{k}={v}" for k, v in chosen)
        order = rng.choice(["", "&order=id.desc", "&order=" + next(iter(COLUMNS[name])) + ".asc"])
        return self._get_call("search", f"/{name}?{select}{where}{order}&limit=20")

    def join(self, rng: random.Random, state: State) -> Planned:
        if rng.random() < 0.5:
            member = rng.choice(table(state, "members"))["id"]
            select = (
                "full_name,plan,bookings(status,paid_cents,class:classes(title,starts_at,room))"
            )
            return self._get_call("join", f"/members?id=eq.{member}&select={select}")
        lesson = rng.choice(table(state, "classes"))["id"]
        select = "title,starts_at,capacity,bookings(status,member:members(full_name,email))"
        return self._get_call("join", f"/classes?id=eq.{lesson}&select={select}")

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        lesson = rng.choice(table(state, "classes"))
        member = rng.choice(table(state, "members"))["id"]
        month = f"2025-{rng.randint(1, 10):02d}-01"
        path = rng.choice(
            [
                f"/bookings?select=status,count(),paid_cents.sum()&class_id=eq.{lesson['id']}",
                f"/bookings?select=status,count(),total:paid_cents.sum()&member_id=eq.{member}",
                f"/classes?select=style,count(),price_cents.avg()&starts_at=gte.{month}",
                f"/classes?select=room,capacity.sum(),count()&style=eq.{lesson['style']}",
                f"/classes?select=id,title,starts_at,bookings(count)"
                f"&instructor_id=eq.{lesson['instructor_id']}&starts_at=gte.{month}"
                "&order=starts_at.asc&limit=20",
            ]
        )
        return self._get_call("aggregate", path)

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        choice = rng.random()
        prefer = {"prefer": "return=representation"}
        if choice < 0.4:
            lesson = rng.choice(table(state, "classes"))
            member = rng.choice(table(state, "members"))
            paid = 0 if member["plan"] in ("monthly", "annual") else lesson["price_cents"]
            body = {"class_id": lesson["id"], "member_id": member["id"], "paid_cents": paid}
            write = Planned("write", "postgrest_post", {"path": "/bookings", "body": body} | prefer)
            path = f"/bookings?member_id=eq.{member['id']}&order=booked_at.desc&limit=3"
            return write, self._get_call("read_after_write", path)
        if choice < 0.75:
            booking = rng.choice(table(state, "bookings"))["id"]
            body = {"status": rng.choice(["cancelled", "attended", "no_show"])}
            args = {"path": f"/bookings?id=eq.{booking}", "body": body} | prefer
            read = f"/bookings?id=eq.{booking}&select=*,class:classes(title,starts_at)"
            return Planned("write", "postgrest_patch", args), self._get_call(
                "read_after_write", read
            )
        member = rng.choice(table(state, "members"))["id"]
        body = {"plan": rng.choice(PLANS)} | (
            {"home_city": "Portree"} if rng.random() < 0.3 else {}
        )
        args = {"path": f"/members?id=eq.{member}", "body": body} | prefer
        return Planned("write", "postgrest_patch", args), self._get_call(
            "read_after_write", f"/members?id=eq.{member}"
        )

    def no_match(self, rng: random.Random, state: State) -> Planned:
        path = rng.choice(
            [
                "/members?email=ilike.*@yahoo.com",
                "/classes?room=eq.Studio%20C&level=eq.advanced",
                "/bookings?paid_cents=gt.100000",
            ]
        )
        return self._get_call("empty", path)


def _filters(rng: random.Random, name: str, row: dict[str, Any]) -> list[tuple[str, str]]:
    """Filters a row meets, in PostgREST's query-string language."""
    if name == "classes":
        other = rng.choice([s for s in LEVELS if s != row["level"]])
        return [
            ("style", f"eq.{row['style']}"),
            ("level", f"in.({row['level']},{other})"),
            ("room", f"eq.{row['room'].replace(' ', '%20')}"),
            ("starts_at", f"gte.{row['starts_at'][:10]}"),
            ("price_cents", f"lte.{row['price_cents']}"),
            ("instructor_id", f"eq.{row['instructor_id']}"),
            ("title", f"ilike.*{row['title'].split()[0].lower()}*"),
        ]
    if name == "members":
        return [
            ("plan", f"eq.{row['plan']}"),
            ("home_city", f"eq.{row['home_city']}"),
            ("joined_on", f"gte.{row['joined_on'][:8]}01"),
            ("full_name", f"ilike.{row['full_name'].split()[0]}*"),
            ("email", f"like.*{row['email'].split('@')[1]}"),
        ]
    return [
        ("status", f"eq.{row['status']}"),
        ("class_id", f"eq.{row['class_id']}"),
        ("member_id", f"eq.{row['member_id']}"),
        ("paid_cents", f"gte.{row['paid_cents']}"),
        ("booked_at", f"lt.{row['booked_at'][:10]}T23:59:59"),
    ]


__all__ = ["ROOMS", "STYLES", "Postgrest"]

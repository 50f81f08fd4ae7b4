"""The ``postgrest`` shape's data: a yoga and fitness studio's Supabase database as PostgREST
serves it: each table as ``GET /<table>`` answers it (rows in insertion order, ``numeric`` and
``bigint`` as JSON numbers, ``uuid`` as text, ``timestamptz`` with its offset, arrays as JSON
arrays), beside the OpenAPI document PostgREST serves at ``/``, whose column descriptions
alone say which column is a foreign key to which table (``<fk table='classes'
column='id'/>``)."""

from __future__ import annotations

import hashlib
import random
from datetime import UTC, datetime, timedelta
from typing import Any

from benchmarks.zoo.kit import CITIES, WORDS, State, fill, person, size_of

STYLES = ["vinyasa", "hatha", "pilates", "spin", "hiit", "barre", "yin"]
LEVELS = ["beginner", "intermediate", "advanced", "all_levels"]
ROOMS = ["Studio A", "Studio B", "Cycle Room", "Rooftop"]
PLANS = ["drop_in", "ten_pack", "monthly", "annual"]
STATUSES = ["booked", "attended", "cancelled", "no_show"]
OPENED = datetime(2025, 1, 6, tzinfo=UTC)
NOW = datetime(2025, 11, 28, 9, 0, tzinfo=UTC)

COLUMNS: dict[str, dict[str, tuple[str, str]]] = {
    "instructors": {
        "id": ("bigint", "integer"),
        "full_name": ("text", "string"),
        "email": ("text", "string"),
        "specialties": ("text[]", "array"),
        "hourly_rate": ("numeric", "number"),
        "active": ("boolean", "boolean"),
    },
    "classes": {
        "id": ("bigint", "integer"),
        "title": ("text", "string"),
        "style": ("public.class_style", "string"),
        "level": ("text", "string"),
        "instructor_id": ("bigint", "integer"),
        "room": ("text", "string"),
        "starts_at": ("timestamp with time zone", "string"),
        "duration_min": ("integer", "integer"),
        "capacity": ("integer", "integer"),
        "price_cents": ("integer", "integer"),
    },
    "members": {
        "id": ("uuid", "string"),
        "full_name": ("text", "string"),
        "email": ("text", "string"),
        "plan": ("public.membership_plan", "string"),
        "joined_on": ("date", "string"),
        "home_city": ("text", "string"),
    },
    "bookings": {
        "id": ("bigint", "integer"),
        "class_id": ("bigint", "integer"),
        "member_id": ("uuid", "string"),
        "status": ("text", "string"),
        "booked_at": ("timestamp with time zone", "string"),
        "paid_cents": ("integer", "integer"),
    },
}
FOREIGN = {
    ("classes", "instructor_id"): "instructors",
    ("bookings", "class_id"): "classes",
    ("bookings", "member_id"): "members",
}
"""``(table, column)`` → the table whose ``id`` it references."""


def stamp(moment: datetime) -> str:
    """A ``timestamptz`` as PostgREST's JSON shows it (``2025-03-04T18:30:00+00:00``)."""
    return moment.isoformat()


def uuid_of(text: str) -> str:
    digest = hashlib.md5(text.encode()).hexdigest()
    return f"{digest[:8]}-{digest[8:12]}-4{digest[13:16]}-a{digest[17:20]}-{digest[20:32]}"


def table(state: State, name: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = state[f"/{name}"]
    return rows


def _description(name: str, column: str) -> str | None:
    if column == "id":
        return "Note:\nThis is a Primary Key.<pk/>"
    target = FOREIGN.get((name, column))
    if target is None:
        return None
    return f"Note:\nThis is a Foreign Key to `{target}.id`.<fk table='{target}' column='id'/>"


def openapi() -> dict[str, Any]:
    """The definitions of PostgREST's OpenAPI (Swagger 2.0) document."""
    definitions: dict[str, Any] = {}
    for name, columns in COLUMNS.items():
        properties: dict[str, Any] = {}
        for column, (format_, type_) in columns.items():
            prop: dict[str, Any] = {"format": format_, "type": type_}
            if type_ == "array":
                prop["items"] = {"type": "string"}
            if (text := _description(name, column)) is not None:
                prop["description"] = text
            properties[column] = prop
        definitions[name] = {"required": ["id"], "properties": properties, "type": "object"}
    return {
        "swagger": "2.0",
        "info": {"title": "standard public schema", "version": "12.2.3"},
        "host": "kqzvbnwhtyrplomd.supabase.co",
        "basePath": "/rest/v1",
        "definitions": definitions,
    }


def _instructor(rng: random.Random, n: int) -> dict[str, Any]:
    first, last = person(rng)
    return {
        "id": n,
        "full_name": f"{first} {last}",
        "email": f"{first.lower()}@lotusandiron.studio",
        "specialties": sorted(rng.sample(STYLES, rng.randint(1, 3))),
        "hourly_rate": round(rng.uniform(28, 75), 2),
        "active": rng.random() < 0.85,
    }


def _member(rng: random.Random, n: int) -> dict[str, Any]:
    first, last = person(rng)
    joined = OPENED - timedelta(days=rng.randint(-300, 400))
    return {
        "id": uuid_of(f"member/{n}/{rng.random()}"),
        "full_name": f"{first} {last}",
        "email": f"{first.lower()}.{last.lower()}{n}@{rng.choice(['gmail.com', 'proton.me'])}",
        "plan": rng.choice(PLANS),
        "joined_on": joined.date().isoformat(),
        "home_city": rng.choice(CITIES),
    }


def _class(rng: random.Random, n: int, instructors: int) -> dict[str, Any]:
    style = rng.choice(STYLES)
    starts = OPENED + timedelta(days=rng.randint(0, 320), hours=rng.choice([7, 9, 12, 18, 19]))
    return {
        "id": n,
        "title": f"{rng.choice(WORDS).title()} {style.title()}",
        "style": style,
        "level": rng.choice(LEVELS),
        "instructor_id": rng.randint(1, instructors),
        "room": rng.choice(ROOMS),
        "starts_at": stamp(starts + timedelta(minutes=rng.choice([0, 30]))),
        "duration_min": rng.choice([45, 60, 75, 90]),
        "capacity": rng.choice([12, 16, 20, 24]),
        "price_cents": rng.choice([1200, 1500, 1800, 2200, 2500]),
    }


def _booking(rng: random.Random, n: int, state: State) -> dict[str, Any]:
    lesson = rng.choice(table(state, "classes"))
    member = rng.choice(table(state, "members"))
    starts = datetime.fromisoformat(lesson["starts_at"])
    status = rng.choice(STATUSES if starts < NOW else ["booked", "booked", "cancelled"])
    paid = 0 if member["plan"] in ("monthly", "annual") else lesson["price_cents"]
    return {
        "id": n,
        "class_id": lesson["id"],
        "member_id": member["id"],
        "status": status,
        "booked_at": stamp(
            starts - timedelta(hours=rng.randint(2, 240), minutes=rng.randint(0, 59))
        ),
        "paid_cents": paid if status != "cancelled" else 0,
    }


def database(rng: random.Random, target_bytes: int) -> State:
    instructors = max(6, target_bytes // 60_000)
    state: State = {
        "/": openapi(),
        "/instructors": [_instructor(rng, n) for n in range(1, instructors + 1)],
        "/classes": [_class(rng, n, instructors) for n in range(1, max(20, target_bytes // 1600))],
        "/members": [_member(rng, n) for n in range(1, max(20, target_bytes // 1600))],
        "/bookings": [],
    }
    bookings = state["/bookings"]
    fill(
        lambda: bookings.append(_booking(rng, len(bookings) + 1, state)),
        lambda: size_of(state),
        target_bytes,
    )
    return state

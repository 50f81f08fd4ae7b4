"""A Slack workspace's standard export (the ``slack`` shape's state), its zip's files as keys:
``users.json`` and ``channels.json``, then a folder per channel name holding a file per day
(``2025-03-14.json``) of that day's messages. A message is known by its ``ts``, a Unix time as
a string with microseconds (``"1741947012.123459"``), and names its author by user id only;
mentions are written into the text as ``<@U04ABCDEF>``; a thread is its parent's ``ts`` in
every reply's ``thread_ts``, with ``reply_count``, ``reply_users`` and ``replies`` on the parent
and replies filed under the day they were posted, not the parent's; joins are messages of a
``subtype``; reactions list their users."""

from __future__ import annotations

import random
import string
from datetime import UTC, datetime
from typing import Any

from benchmarks.zoo.kit import FIRST, LAST, WORDS, State, size_of

TEAM = "T02QH7ACME"
START = 1_735_718_400
"""2025-01-01T08:00:00Z."""
EXPORTED = 1_764_576_000
"""2025-12-01T08:00:00Z: when the export was taken."""
CHANNELS = [
    ("general", "Company-wide announcements and work-based matters"),
    ("random", "Non-work banter and water cooler conversation"),
    ("eng-payments", "Payments engineering: checkout, ledger, payouts"),
    ("eng-search", "Search relevance and indexing"),
    ("incidents", "Declared incidents; one thread per incident"),
    ("deploys", "Production deploy coordination"),
    ("design-crit", "Design critique, Thursdays"),
    ("support-escalations", "Tier 2 escalations from support"),
]
REACTIONS = ["+1", "eyes", "white_check_mark", "tada", "pray", "rocket", "raised_hands"]
TITLES = ["Staff Engineer", "Product Manager", "Designer", "SRE", "Support Lead", "Engineer"]
OPENERS = [
    "Heads up: {w} is rolling out to {pct}% of traffic",
    "Has anyone seen {w} errors since the last deploy?",
    "PR for {w} is up, reviews welcome",
    "Reminder: {w} sync moved to {hour}:30",
    "Incident: elevated {w} latency in eu-west-1",
    "Can someone take a look at the {w} dashboard?",
]
REPLIES = [
    "Looking now",
    "Same here, started around {hour}:10 UTC",
    "Approved, ship it",
    "Rolled back, graphs look normal again",
    "I can pair on {w} after lunch",
    "Thanks! :pray:",
]


def slack_id(rng: random.Random, prefix: str) -> str:
    return (
        prefix + "0" + "".join(rng.choice(string.ascii_uppercase + string.digits) for _ in range(9))
    )


def day_of(ts: str) -> str:
    return datetime.fromtimestamp(float(ts), UTC).date().isoformat()


def day_file(ts: str) -> str:
    return f"{day_of(ts)}.json"


def _user(rng: random.Random, first: str, last: str) -> dict[str, Any]:
    ident = slack_id(rng, "U")
    name = f"{first.lower()}.{last.lower()}"
    zone = rng.choice(
        [
            ("Europe/Berlin", "Central European Time", 3600),
            ("America/New_York", "Eastern Standard Time", -18000),
        ]
    )
    return {
        "id": ident,
        "team_id": TEAM,
        "name": name,
        "deleted": False,
        "color": rng.choice(["9f69e7", "4bbe2e", "e7392d", "3c989f"]),
        "real_name": f"{first} {last}",
        "tz": zone[0],
        "tz_label": zone[1],
        "tz_offset": zone[2],
        "profile": {
            "title": rng.choice(TITLES),
            "phone": "",
            "real_name": f"{first} {last}",
            "real_name_normalized": f"{first} {last}",
            "display_name": first.lower(),
            "display_name_normalized": first.lower(),
            "status_text": rng.choice(["", "", "In a meeting", "Vacationing"]),
            "status_emoji": "",
            "avatar_hash": "".join(rng.choice("0123456789abcdef") for _ in range(12)),
            "email": f"{name}@acme.io",
            "first_name": first,
            "last_name": last,
            "team": TEAM,
        },
        "is_admin": rng.random() < 0.1,
        "is_owner": False,
        "is_bot": False,
        "is_app_user": False,
        "updated": START - rng.randint(0, 10_000_000),
    }


BOT_ID = "B07HELPBOT1"
BOT: dict[str, Any] = {
    "id": "U07HELPBOT1",
    "team_id": TEAM,
    "name": "helper",
    "deleted": False,
    "real_name": "Helper",
    "profile": {"real_name": "Helper", "display_name": "", "bot_id": BOT_ID, "team": TEAM},
    "is_admin": False,
    "is_owner": False,
    "is_bot": True,
    "is_app_user": False,
    "updated": START,
}
"""The app the assistant posts as."""


def users(rng: random.Random, count: int) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    names: set[tuple[str, str]] = set()
    while len(found) < count:
        first, last = rng.choice(FIRST), rng.choice(LAST)
        if (first, last) not in names:
            names.add((first, last))
            found.append(_user(rng, first, last))
    return [*found, BOT]


def channels(rng: random.Random, people: list[dict[str, Any]]) -> list[dict[str, Any]]:
    found = []
    for n, (name, purpose) in enumerate(CHANNELS):
        creator = people[n % len(people)]["id"]
        created = START - rng.randint(10_000_000, 60_000_000)
        members = (
            people if name == "general" else rng.sample(people, rng.randint(6, len(people) // 2))
        )
        found.append(
            {
                "id": slack_id(rng, "C"),
                "name": name,
                "created": created,
                "creator": creator,
                "is_archived": False,
                "is_general": name == "general",
                "members": sorted(p["id"] for p in members),
                "topic": {"value": "", "creator": "", "last_set": 0},
                "purpose": {"value": purpose, "creator": creator, "last_set": created},
            }
        )
    return found


def blocks(text: str, mention: str | None) -> list[dict[str, Any]]:
    """The message's rich text, as the client sent it: a mention is an element of its own."""
    elements: list[dict[str, Any]] = (
        [] if mention is None else [{"type": "user", "user_id": mention}]
    )
    elements.append({"type": "text", "text": text if mention is None else " " + text})
    section = {"type": "rich_text_section", "elements": elements}
    letters = random.Random(text)  # the same text, the same id: a write's too
    block_id = "".join(letters.choice(string.ascii_letters + string.digits) for _ in range(5))
    return [{"type": "rich_text", "block_id": block_id, "elements": [section]}]


def message(
    rng: random.Random, author: dict[str, Any], ts: str, text: str, mention: str | None
) -> dict[str, Any]:
    profile = author["profile"]
    written = text if mention is None else f"<@{mention}> {text}"
    return {
        "client_msg_id": "-".join(
            "".join(rng.choice("0123456789abcdef") for _ in range(n)) for n in (8, 4, 4, 4, 12)
        ),
        "type": "message",
        "text": written,
        "user": author["id"],
        "ts": ts,
        "blocks": blocks(text, mention),
        "team": TEAM,
        "user_team": TEAM,
        "source_team": TEAM,
        "user_profile": {
            "avatar_hash": profile["avatar_hash"],
            "first_name": profile["first_name"],
            "real_name": author["real_name"],
            "display_name": profile["display_name"],
            "team": TEAM,
            "name": author["name"],
            "is_restricted": False,
            "is_ultra_restricted": False,
        },
    }


def _ts(rng: random.Random, epoch: int) -> str:
    return f"{epoch}.{rng.randint(0, 999_999):06d}"


def _react(rng: random.Random, made: dict[str, Any], people: list[dict[str, Any]]) -> None:
    if rng.random() < 0.3:
        chosen = rng.sample(REACTIONS, rng.randint(1, 2))
        made["reactions"] = [
            {
                "name": name,
                "users": (who := [p["id"] for p in rng.sample(people, rng.randint(1, 4))]),
                "count": len(who),
            }
            for name in chosen
        ]


class Poster:
    """Posts messages one thread at a time into the export: a top-level message in a channel,
    sometimes a join before it, and 0 to 5 replies over the next hours."""

    def __init__(self, rng: random.Random, state: State) -> None:
        self.rng, self.state = rng, state
        self.people = [u for u in state["users.json"] if not u["is_bot"]]
        self.by_id = {u["id"]: u for u in self.people}
        self.added: list[dict[str, Any]] = []
        self.written = size_of(state)
        """The state's size as JSON, kept as messages are added (a thread's sizes vary too
        much for :func:`benchmarks.zoo.kit.fill`'s estimate from its first few)."""

    def _file(self, channel: str, ts: str) -> list[dict[str, Any]]:
        folder: dict[str, list[dict[str, Any]]] = self.state[channel]
        if day_file(ts) not in folder:
            self.written += len(f'"{day_file(ts)}": []') + 2
        return folder.setdefault(day_file(ts), [])

    def grow(self, target_bytes: int) -> None:
        """Add threads until the state is ``target_bytes`` as JSON."""
        while self.written < target_bytes:
            while self.written < target_bytes:
                self.add()
                self.written += sum(size_of(m) + 2 for m in self.added)
                self.added.clear()
            self.written = size_of(self.state)  # the estimate, checked

    def add(self) -> None:
        rng = self.rng
        channel = rng.choice(self.state["channels.json"])
        members = [self.by_id[m] for m in channel["members"]]
        author = rng.choice(members)
        epoch = rng.randint(START, EXPORTED - 3 * 86_400)
        fill_in = {
            "w": rng.choice(WORDS),
            "pct": rng.choice([5, 10, 25, 50]),
            "hour": rng.randint(9, 17),
        }
        if rng.random() < 0.05:
            joined = {"type": "message", "subtype": "channel_join", "ts": _ts(rng, epoch - 60)}
            joined |= {"user": author["id"], "text": f"<@{author['id']}> has joined the channel"}
            self._file(channel["name"], joined["ts"]).append(joined)
            self.added.append(joined)
        mention = rng.choice(members)["id"] if rng.random() < 0.3 else None
        parent = message(
            rng, author, _ts(rng, epoch), rng.choice(OPENERS).format(**fill_in), mention
        )
        _react(rng, parent, members)
        self._file(channel["name"], parent["ts"]).append(parent)
        self.added.append(parent)
        replies = []
        for _ in range(rng.choice([0, 0, 0, 1, 2, 3, 5])):
            epoch += rng.randint(60, 6 * 3600)
            who = rng.choice(members)
            reply = message(rng, who, _ts(rng, epoch), rng.choice(REPLIES).format(**fill_in), None)
            reply |= {"thread_ts": parent["ts"], "parent_user_id": author["id"]}
            _react(rng, reply, members)
            self._file(channel["name"], reply["ts"]).append(reply)
            replies.append(reply)
            self.added.append(reply)
        if replies:
            threaded(parent, replies)


def threaded(parent: dict[str, Any], replies: list[dict[str, Any]]) -> None:
    """A thread's parent's fields for its replies (oldest first)."""
    repliers = list(dict.fromkeys(r["user"] for r in replies))
    parent |= {
        "thread_ts": parent["ts"],
        "reply_count": len(replies),
        "reply_users_count": len(repliers),
        "latest_reply": replies[-1]["ts"],
        "reply_users": repliers,
        "replies": [{"user": r["user"], "ts": r["ts"]} for r in replies],
        "is_locked": False,
        "subscribed": False,
    }


def workspace(rng: random.Random, target_bytes: int) -> State:
    """The export of about ``target_bytes``: users, channels, and each channel's day files in
    date order, each file's messages in ``ts`` order."""
    people = users(rng, 28)
    state: State = {"users.json": people, "channels.json": channels(rng, people[:-1])}
    for name, _ in CHANNELS:
        state[name] = {}
    Poster(rng, state).grow(target_bytes)
    for name, _ in CHANNELS:
        folder = state[name]
        state[name] = {day: sorted(folder[day], key=lambda m: m["ts"]) for day in sorted(folder)}
    return state

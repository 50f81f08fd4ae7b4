"""``slack``: a company's Slack workspace as its standard export holds it: ``users.json``,
``channels.json`` and a folder per channel of one file per day of messages; messages known by a
``ts`` string and naming people by user id only (in ``user``, in ``reply_users``, and inside
the text as ``<@U…>``); threads as replies carrying their parent's ``ts`` in ``thread_ts``, filed
under the day each was posted. Tools answer as the Web API does (``{"ok": true, …}``) and take a
channel id and a ``ts``, an email, a channel name, a username and days; a search answers
``messages.matches`` one level down; who took part in a thread is a join from its replies to the
users' profiles; a channel's month of activity counts what no message holds; a reply posted to a
thread lands in today's file and changes its parent's thread fields."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from benchmarks.zoo.kit import (
    Answer,
    Filter,
    Planned,
    Search,
    State,
    Tool,
    ToolError,
    note_tool,
    pointer,
    prop,
)
from benchmarks.zoo.shape import Shape
from benchmarks.zoo.slack_export import (
    BOT,
    BOT_ID,
    CHANNELS,
    EXPORTED,
    TEAM,
    blocks,
    day_file,
    day_of,
    threaded,
    workspace,
)

ANSWERS = [
    "On it, I'll update this thread by EOD",
    "Logged as INC follow-up",
    "Confirmed fixed in prod",
]
Placed = tuple[str, int, dict[str, Any]]
"""A message: its day file, its position in the file, and it."""


def _channel(state: State, ident: str) -> dict[str, Any]:
    for channel in state["channels.json"]:
        if channel["id"] == ident:
            found: dict[str, Any] = channel
            return found
    raise ToolError("channel_not_found")


def _messages(state: State, name: str) -> list[Placed]:
    return [(day, n, m) for day, found in state[name].items() for n, m in enumerate(found)]


def _thread(state: State, channel: dict[str, Any], ts: str) -> list[Placed]:
    """A thread's parent then its replies (or the lone message), in ``ts`` order."""
    found = [
        placed
        for placed in _messages(state, channel["name"])
        if placed[2]["ts"] == ts or placed[2].get("thread_ts") == ts
    ]
    if not found:
        raise ToolError("thread_not_found")
    return sorted(found, key=lambda placed: placed[2]["ts"])


def _records(state: State) -> list[tuple[str, dict[str, Any]]]:
    names = {u["id"]: u["name"] for u in state["users.json"]}
    return [
        (m["ts"], m | {"channel": c, "username": names[m["user"]], "day": day_of(m["ts"])})
        for c in state["channels.json"]
        for _, _, m in _messages(state, c["name"])
        if "subtype" not in m
    ]


def _match(key: str, view: dict[str, Any]) -> dict[str, Any]:
    channel = view["channel"]
    shown = {"type": "message", "user": view["user"], "username": view["username"]}
    return shown | {
        "ts": key,
        "text": view["text"],
        "channel": {k: channel[k] for k in ("id", "name")},
    }


class Slack(Shape):
    name = "slack"
    title = "Workplace assistant over a Slack export"
    description = (
        "A company's Slack workspace from its standard export: users, channels and each "
        "channel's messages by day, with threads and reactions. The assistant posts as the "
        "Helper app. Errors are text starting with 'Error:' and Slack's error code."
    )
    note = ("remember", "text")

    def __init__(self) -> None:
        self.finder = Search(
            "search_messages",
            "Messages by channel name, author's username, words in the text and day range "
            "(YYYY-MM-DD, UTC); joins and other events are left out.",
            _records,
            [
                Filter(
                    "in_channel",
                    "channel.name",
                    "eq",
                    prop("string", "", enum=[c[0] for c in CHANNELS]),
                ),
                Filter("from_user", "username", "eq", prop("string", "Username, e.g. ana.berg.")),
                Filter("text", "text", "contains", prop("string", "A word the text holds.")),
                Filter("after", "day", "ge", prop("string", "First day, YYYY-MM-DD.")),
                Filter("before", "day", "le", prop("string", "Last day, YYYY-MM-DD.")),
            ],
            _match,
            limit=20,
        )

    def build(self, rng: random.Random, target_bytes: int) -> State:
        return workspace(rng, target_bytes)

    def tools(self) -> list[Tool]:
        thread = {
            "channel": prop("string", "Channel id, C0…"),
            "ts": prop("string", "The thread's parent message ts."),
        }
        month = {"channel": prop("string", "Channel id, C0…"), "month": prop("string", "YYYY-MM.")}
        return [
            Tool(
                "users_lookupByEmail",
                "A user by email address.",
                {"email": prop("string", "Email address.")},
                self._user,
                ("email",),
            ),
            Tool(
                "conversations_replies",
                "A thread: its parent message and replies, oldest first.",
                thread,
                self._replies,
                ("channel", "ts"),
            ),
            Tool(
                "search_messages",
                self.finder.description,
                self.finder.tool().properties,
                self._find,
            ),
            Tool(
                "thread_participants",
                "Everyone who posted in a thread, parent's author first: id, name, title, email.",
                thread,
                self._participants,
                ("channel", "ts"),
            ),
            Tool(
                "channel_activity",
                "A channel's month: messages, threads, replies, posters and reactions.",
                month,
                self._activity,
                ("channel", "month"),
            ),
            Tool(
                "chat_postMessage",
                "Post a reply in a thread as the Helper app.",
                thread | {"text": prop("string", "Message text (mrkdwn).")},
                self._post,
                ("channel", "ts", "text"),
                effect="write",
            ),
            note_tool("remember", "text", "Keep a private note for later (answers nothing)."),
        ]

    def _user(self, state: State, args: dict[str, Any]) -> Answer:
        for user in state["users.json"]:
            if user["profile"].get("email") == args["email"].lower():
                return {"ok": True, "user": user}, []
        raise ToolError("users_not_found")

    def _replies(self, state: State, args: dict[str, Any]) -> Answer:
        found = _thread(state, _channel(state, args["channel"]), args["ts"])
        return {"ok": True, "messages": [m for _, _, m in found], "has_more": False}, []

    def _find(self, state: State, args: dict[str, Any]) -> Answer:
        found = self.finder.matches(state, args)
        query = " ".join(f"{k}:{v}" for k, v in sorted(args.items()))
        page = {"count": self.finder.limit, "total_count": len(found), "page": 1, "pages": 1}
        matches = {"total": len(found), "paging": page, "matches": found[: self.finder.limit]}
        return {"ok": True, "query": query, "messages": matches}, []

    def _participants(self, state: State, args: dict[str, Any]) -> Answer:
        found = _thread(state, _channel(state, args["channel"]), args["ts"])
        people = {u["id"]: u for u in state["users.json"]}
        shown = []
        for ident in dict.fromkeys(m["user"] for _, _, m in found):
            user = people[ident]
            profile = user["profile"]
            shown.append(
                {"id": ident, "name": user["name"], "real_name": user["real_name"]}
                | {"title": profile.get("title"), "email": profile.get("email")}
            )
        return {"ok": True, "participants": shown}, []

    def _activity(self, state: State, args: dict[str, Any]) -> Answer:
        channel, month = _channel(state, args["channel"]), args["month"]
        names = {u["id"]: u["name"] for u in state["users.json"]}
        found = [m for day, _, m in _messages(state, channel["name"]) if day.startswith(month)]
        posts = [m for m in found if "subtype" not in m]
        replies = [m for m in posts if m.get("thread_ts") not in (None, m["ts"])]
        counts = Counter(names[m["user"]] for m in posts)
        top = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:3]
        return {
            "ok": True,
            "channel": channel["name"],
            "month": month,
            "messages": len(posts),
            "threads": sum("reply_count" in m for m in posts),
            "replies": len(replies),
            "joins": len(found) - len(posts),
            "posters": sorted(counts),
            "top_posters": [{"name": name, "messages": n} for name, n in top],
            "reactions": sum(r["count"] for m in posts for r in m.get("reactions", [])),
        }, []

    def _post(self, state: State, args: dict[str, Any]) -> Answer:
        channel = _channel(state, args["channel"])
        found = _thread(state, channel, args["ts"])
        day, n, parent = found[0]
        if parent["ts"] != args["ts"] or parent.get("thread_ts", parent["ts"]) != parent["ts"]:
            raise ToolError("thread_not_found")
        ts = f"{EXPORTED + 60 * len(found)}.{100_000 + 7 * len(found):06d}"
        reply: dict[str, Any] = {"bot_id": BOT_ID, "type": "message", "text": args["text"]}
        reply |= {
            "user": BOT["id"],
            "ts": ts,
            "app_id": "A07HELPAPP1",
            "blocks": blocks(args["text"], None),
        }
        reply |= {"team": TEAM, "thread_ts": parent["ts"], "parent_user_id": parent["user"]}
        replies = [m for _, _, m in found[1:]] + [reply]
        after = dict(parent)
        threaded(after, replies)
        folder, today = state[channel["name"]], day_file(ts)
        here = pointer(channel["name"], today)
        patch: list[dict[str, Any]] = (
            [{"op": "add", "path": here + "/-", "value": reply}]
            if today in folder
            else [{"op": "add", "path": here, "value": [reply]}]
        )
        at = (channel["name"], day, n)
        patch += [
            {"op": "add", "path": pointer(*at, key), "value": after[key]}
            for key in (
                "thread_ts",
                "reply_count",
                "reply_users_count",
                "latest_reply",
                "reply_users",
                "replies",
            )
            if parent.get(key) != after[key]
        ]
        return {"ok": True, "channel": channel["id"], "ts": ts, "message": reply}, patch

    def _a_message(self, rng: random.Random, state: State, threads: bool) -> tuple[str, str]:
        while True:
            channel = rng.choice(state["channels.json"])
            posts = [
                m
                for _, _, m in _messages(state, channel["name"])
                if "subtype" not in m and m.get("thread_ts", m["ts"]) == m["ts"]
            ]
            chosen = [m for m in posts if "reply_count" in m] if threads else posts
            if chosen:
                return channel["id"], rng.choice(chosen)["ts"]

    def lookup(self, rng: random.Random, state: State) -> Planned:
        people = [u for u in state["users.json"] if not u["is_bot"]]
        return Planned(
            "lookup", "users_lookupByEmail", {"email": rng.choice(people)["profile"]["email"]}
        )

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        channel, ts = self._a_message(rng, state, threads=True)
        return Planned("nested_lookup", "conversations_replies", {"channel": channel, "ts": ts})

    def search(self, rng: random.Random, state: State) -> Planned:
        return Planned("search", "search_messages", self.finder.plan(rng, state))

    def join(self, rng: random.Random, state: State) -> Planned:
        channel, ts = self._a_message(rng, state, threads=True)
        return Planned("join", "thread_participants", {"channel": channel, "ts": ts})

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        channel, ts = self._a_message(rng, state, threads=False)
        return Planned(
            "aggregate", "channel_activity", {"channel": channel, "month": day_of(ts)[:7]}
        )

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        channel, ts = self._a_message(rng, state, threads=rng.random() < 0.7)
        args = {"channel": channel, "ts": ts, "text": rng.choice(ANSWERS)}
        return Planned("write", "chat_postMessage", args), Planned(
            "read_after_write", "conversations_replies", {"channel": channel, "ts": ts}
        )

    def no_match(self, rng: random.Random, state: State) -> Planned:
        args = {"in_channel": rng.choice(CHANNELS)[0], "text": "postmortem"}
        return Planned("empty", "search_messages", args)

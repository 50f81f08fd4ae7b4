"""The ``gmail`` shape's calls: messages by id in each format, searches in Gmail's operators,
threads and labels' messages (joins by thread id and by a label's name), label and mailbox
counts, and label changes, replies sent as raw RFC 2822 text and new labels, each read back."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.gmail_mailbox import REPLIES, USER_LABELS, encoded, header, label_key
from benchmarks.zoo.gmail_query import plan_query
from benchmarks.zoo.kit import Planned, State

NEW_LABELS = ["Clients/Onyx Partners", "Tax 2025", "Archive/2024", "Waiting on reply"]


def _inbox(state: State) -> dict[str, str]:
    found: dict[str, str] = next(lb for lb in state["labels"] if lb["id"] == "INBOX")
    return found


def lookup(rng: random.Random, state: State) -> Planned:
    message = rng.choice(state["messages"])
    args = {"id": message["id"]} | ({"format": "full"} if rng.random() < 0.5 else {})
    return Planned("lookup", "messages_get", args)


def nested_lookup(rng: random.Random, state: State) -> Planned:
    message = rng.choice(state["messages"])
    names = rng.sample(["From", "To", "Subject", "Date", "Message-ID", "In-Reply-To"], 2)
    args = {"id": message["id"], "format": "metadata", "metadataHeaders": names}
    return Planned("nested_lookup", "messages_get", args)


def search(rng: random.Random, state: State) -> Planned:
    query = plan_query(rng, state, 4, 10)
    if rng.random() < 0.5:
        return Planned("search", "search_emails", {"query": query})
    return Planned("search", "messages_list", {"q": query, "maxResults": 10})


def join(rng: random.Random, state: State) -> Planned:
    """A thread's messages (tied by ``threadId``), or a label's messages by its name."""
    threads = [m["threadId"] for m in state["messages"] if m["threadId"] != m["id"]]
    if rng.random() < 0.6:
        args = {"id": rng.choice(threads), "format": "metadata"}
        headers = {"metadataHeaders": ["From", "Date", "Subject"]}
        return Planned("join", "threads_get", args | headers)
    name = rng.choice(USER_LABELS)
    extra = rng.choice(["is:unread", "has:attachment", "in:inbox", "is:important"])
    return Planned("join", "search_emails", {"query": f"label:{label_key(name)} {extra}"})


def aggregate(rng: random.Random, state: State) -> Planned:
    if rng.random() < 0.25:
        return Planned("aggregate", "get_profile", {})
    users = [lb for lb in state["labels"] if lb["type"] == "user"]
    label = rng.choice([*users, _inbox(state)])
    return Planned("aggregate", "labels_get", {"id": label["id"]})


def _reply(rng: random.Random, message: dict[str, Any]) -> str:
    """A reply to ``message`` as ``messages.send`` takes it: RFC 2822 text, base64url."""
    sent = "SENT" in message["labelIds"]
    other = header(message, "To") if sent else header(message, "From")
    subject = header(message, "Subject") or ""
    text = rng.choice(REPLIES).format(w="amber") + "\n\nBest,\nLena"
    lines = [
        f"To: {other}",
        f"Subject: {subject if subject.startswith('Re: ') else 'Re: ' + subject}",
    ]
    lines += [f"In-Reply-To: {header(message, 'Message-ID')}"]
    lines += ["Content-Type: text/plain; charset=UTF-8", "", text]
    return encoded("\r\n".join(lines))


def write(rng: random.Random, state: State) -> tuple[Planned, Planned]:
    """A label change, a reply in a thread, or a new label; each read back."""
    message = rng.choice(state["messages"])
    pick = rng.random()
    if pick < 0.45:
        change: dict[str, Any] = (
            {"removeLabelIds": ["UNREAD"]}
            if "UNREAD" in message["labelIds"]
            else {"addLabelIds": ["STARRED"]}
        )
        if rng.random() < 0.4:
            users = [lb["id"] for lb in state["labels"] if lb["type"] == "user"]
            change = {"addLabelIds": [rng.choice(users)], "removeLabelIds": ["INBOX"]}
        args = {"id": message["id"], "format": "minimal"}
        reread = Planned("read_after_write", "messages_get", args)
        return Planned("write", "messages_modify", {"id": message["id"]} | change), reread
    if pick < 0.8:
        args = {"raw": _reply(rng, message), "threadId": message["threadId"]}
        shown = {"id": message["threadId"], "format": "metadata"}
        reread = Planned("read_after_write", "threads_get", shown)
        return Planned("write", "messages_send", args), reread
    free = [n for n in NEW_LABELS if all(lb["name"] != n for lb in state["labels"])]
    name = rng.choice(free or [f"Project {rng.randint(100, 999)}"])
    reread = Planned("read_after_write", "labels_list", {})
    return Planned("write", "labels_create", {"name": name}), reread


def no_match(rng: random.Random, state: State) -> Planned:
    query = rng.choice(["from:noreply@irs.example", "subject:lawsuit", "filename:contract.docx"])
    return Planned("empty", "search_emails", {"query": f"{query} after:2025/01/01"})

"""``gmail``: a freelancer's mailbox as the Gmail API gives it: messages whose facts sit in a
MIME payload tree (headers as name/value pairs, text as base64url parts, attachments as parts
with a filename), labels named in messages by id only, threads by the first message's id.
Tools are the API's: ``messages.get`` and ``threads.get`` in ``full``, ``metadata`` (some
headers, no parts) or ``minimal`` format; ``messages.list`` with a search query in Gmail's
operators (labels by name, days as ``YYYY/MM/DD``) answering ids only, and an MCP server's
``search_emails`` that shows each match's headers; ``labels.get``'s counts and the profile's
totals, which no message holds; ``messages.modify`` of label ids, ``messages.send`` of a
base64url RFC 2822 ``raw`` message, and ``labels.create``."""

from __future__ import annotations

import base64
import binascii
import random
from email import message_from_bytes
from email.message import Message
from typing import Any

from benchmarks.zoo import gmail_plans as plans
from benchmarks.zoo.gmail_mailbox import (
    ME,
    address,
    header,
    mailbox,
    snippet,
    text_part,
)
from benchmarks.zoo.gmail_query import matching
from benchmarks.zoo.kit import Answer, Planned, State, Tool, ToolError, note_tool, pointer, prop
from benchmarks.zoo.shape import Shape

SENT_AT = 1_764_579_600_000
SENT_DATE = "Mon, 01 Dec 2025 10:00:00 +0100"
"""2025-12-01T09:00:00Z, when the assistant sends (in milliseconds, as Gmail keeps times)."""
FORMATS = ["full", "metadata", "minimal"]


def _message(state: State, ident: str) -> tuple[int, dict[str, Any]]:
    for n, message in enumerate(state["messages"]):
        if message["id"] == ident:
            return n, message
    raise ToolError("Requested entity was not found.")


def _label(state: State, ident: str) -> dict[str, Any]:
    for label in state["labels"]:
        if label["id"] == ident:
            found: dict[str, Any] = label
            return found
    raise ToolError(f"Invalid label: {ident}")


def _shown(message: dict[str, Any], form: str, names: list[str] | None) -> dict[str, Any]:
    """A message in a ``format``: ``minimal`` leaves the payload out, ``metadata`` keeps the
    headers (those named in ``metadataHeaders``, if given) and no parts or bodies."""
    if form == "full":
        return message
    shown = {k: v for k, v in message.items() if k != "payload"}
    if form == "metadata":
        wanted = None if not names else {n.lower() for n in names}
        headers = [
            h
            for h in message["payload"]["headers"]
            if wanted is None or h["name"].lower() in wanted
        ]
        shown["payload"] = {"mimeType": message["payload"]["mimeType"], "headers": headers}
    return shown


def _raw(text: str) -> Message:
    try:
        parsed = message_from_bytes(base64.b64decode(text, altchars=b"-_", validate=True))
    except (binascii.Error, ValueError) as error:
        raise ToolError("Invalid value for ByteString") from error
    if parsed["To"] is None:
        raise ToolError("Recipient address required")
    return parsed


class Gmail(Shape):
    name = "gmail"
    title = "Email assistant over a Gmail mailbox"
    description = (
        "Lena Novak's Gmail mailbox (a freelance design studio: clients, invoices, travel "
        "and receipts) served through the Gmail API for userId 'me'. Errors are text "
        "starting with 'Error:' and the API's message."
    )

    def build(self, rng: random.Random, target_bytes: int) -> State:
        return mailbox(rng, target_bytes)

    def tools(self) -> list[Tool]:
        return [*self._reads(), *self._writes()]

    def _reads(self) -> list[Tool]:
        form = prop("string", "full, metadata or minimal (default full).", enum=FORMATS)
        headers = prop(
            "array", "With format=metadata, only these headers.", items={"type": "string"}
        )
        query = prop(
            "string", "Gmail search operators, e.g. from:ana label:invoices after:2025/03/01."
        )
        labels = prop("array", "Label ids.", items={"type": "string"})
        return [
            Tool(
                "messages_get",
                "users.messages.get: a message by id.",
                {"id": prop("string", "Message id."), "format": form, "metadataHeaders": headers},
                self._get,
                ("id",),
            ),
            Tool(
                "threads_get",
                "users.threads.get: a thread and its messages, oldest first.",
                {"id": prop("string", "Thread id."), "format": form, "metadataHeaders": headers},
                self._thread,
                ("id",),
            ),
            Tool(
                "messages_list",
                "users.messages.list: ids of the messages matching a query, newest first.",
                {"q": query, "labelIds": labels, "maxResults": prop("integer", "Default 100.")},
                self._list,
            ),
            Tool(
                "search_emails",
                "Search emails with Gmail's query syntax; each match's id, thread, subject, "
                "from, date and snippet.",
                {"query": query, "maxResults": prop("integer", "Default 10.")},
                self._search,
                ("query",),
            ),
            Tool(
                "labels_get",
                "users.labels.get: a label with its message and thread counts.",
                {"id": prop("string", "Label id, e.g. INBOX or Label_3.")},
                self._label_counts,
                ("id",),
            ),
            Tool(
                "labels_list",
                "users.labels.list: every label of the mailbox.",
                {},
                lambda s, a: ({"labels": s["labels"]}, []),
            ),
            Tool(
                "get_profile",
                "users.getProfile: the address and its message and thread totals.",
                {},
                self._profile,
            ),
        ]

    def _writes(self) -> list[Tool]:
        labels = prop("array", "Label ids.", items={"type": "string"})
        return [
            Tool(
                "messages_modify",
                "users.messages.modify: add and remove label ids.",
                {
                    "id": prop("string", "Message id."),
                    "addLabelIds": labels,
                    "removeLabelIds": labels,
                },
                self._modify,
                ("id",),
                effect="write",
            ),
            Tool(
                "messages_send",
                "users.messages.send: send an RFC 2822 message, base64url-encoded in raw; "
                "give threadId to reply in a thread.",
                {
                    "raw": prop("string", "The message, base64url."),
                    "threadId": prop("string", "Thread id."),
                },
                self._send,
                ("raw",),
                effect="write",
            ),
            Tool(
                "labels_create",
                "users.labels.create: a new user label (nest with / in the name).",
                {"name": prop("string", "Label name.")},
                self._create_label,
                ("name",),
                effect="write",
            ),
            note_tool("think", "thought", "Think out loud (answers nothing)."),
        ]

    def _get(self, state: State, args: dict[str, Any]) -> Answer:
        message = _message(state, args["id"])[1]
        return _shown(message, args.get("format", "full"), args.get("metadataHeaders")), []

    def _thread(self, state: State, args: dict[str, Any]) -> Answer:
        found = [m for m in state["messages"] if m["threadId"] == args["id"]]
        if not found:
            raise ToolError("Requested entity was not found.")
        form, names = args.get("format", "full"), args.get("metadataHeaders")
        history = max(found, key=lambda m: int(m["historyId"]))["historyId"]
        return {
            "id": args["id"],
            "historyId": history,
            "messages": [_shown(m, form, names) for m in found],
        }, []

    def _list(self, state: State, args: dict[str, Any]) -> Answer:
        found = matching(state, args.get("q", ""))
        wanted = set(args.get("labelIds", []))
        found = [m for m in found if wanted <= set(m["labelIds"])]
        shown = [
            {"id": m["id"], "threadId": m["threadId"]} for m in found[: args.get("maxResults", 100)]
        ]
        # Gmail leaves "messages" out of an answer with none, and pages on with a token.
        answer: dict[str, Any] = {"messages": shown} if shown else {}
        if len(found) > len(shown):
            answer["nextPageToken"] = f"{17_000_000_000_000_000_000 + len(shown)}"
        return answer | {"resultSizeEstimate": len(found)}, []

    def _search(self, state: State, args: dict[str, Any]) -> Answer:
        found = matching(state, args["query"])[: args.get("maxResults", 10)]
        return [
            {"id": m["id"], "threadId": m["threadId"]}
            | {k.lower(): header(m, k) for k in ("Subject", "From", "Date")}
            | {"snippet": m["snippet"]}
            for m in found
        ], []

    def _label_counts(self, state: State, args: dict[str, Any]) -> Answer:
        label = _label(state, args["id"])
        found = [m for m in state["messages"] if label["id"] in m["labelIds"]]
        unread = [m for m in found if "UNREAD" in m["labelIds"]]
        counts = {"messagesTotal": len(found), "messagesUnread": len(unread)}
        counts |= {"threadsTotal": len({m["threadId"] for m in found})}
        counts |= {"threadsUnread": len({m["threadId"] for m in unread})}
        return label | counts, []

    def _profile(self, state: State, args: dict[str, Any]) -> Answer:
        messages = [m for m in state["messages"] if "TRASH" not in m["labelIds"]]
        history = max(int(m["historyId"]) for m in state["messages"])
        return {"emailAddress": state["emailAddress"], "messagesTotal": len(messages)} | {
            "threadsTotal": len({m["threadId"] for m in messages}),
            "historyId": str(history),
        }, []

    def _modify(self, state: State, args: dict[str, Any]) -> Answer:
        n, message = _message(state, args["id"])
        for ident in args.get("addLabelIds", []) + args.get("removeLabelIds", []):
            _label(state, ident)
        removed = set(args.get("removeLabelIds", []))
        after = [i for i in message["labelIds"] if i not in removed]
        after += [i for i in args.get("addLabelIds", []) if i not in after]
        patch = [{"op": "replace", "path": pointer("messages", n, "labelIds"), "value": after}]
        return {"id": message["id"], "threadId": message["threadId"], "labelIds": after}, patch

    def _send(self, state: State, args: dict[str, Any]) -> Answer:
        sent = _raw(args["raw"])
        thread = args.get("threadId")
        if thread is not None and not any(m["threadId"] == thread for m in state["messages"]):
            raise ToolError("Requested entity was not found.")
        text = sent.get_payload()
        newest = max(state["messages"], key=lambda m: int(m["id"], 16))
        ident = f"{int(newest['id'], 16) + 0x1000000:x}"
        history = str(max(int(m["historyId"]) for m in state["messages"]) + 1)
        # Gmail writes the sender, the time and the message id itself.
        headers = [{"name": "From", "value": address(*ME)}, {"name": "Date", "value": SENT_DATE}]
        headers += [
            {"name": k, "value": str(v)}
            for k, v in sent.items()
            if k not in ("Content-Type", "From", "Date")
        ]
        headers.append({"name": "Message-ID", "value": f"<CA+{ident.upper()}@mail.gmail.com>"})
        part = text_part("", str(text))
        made = {"id": ident, "threadId": thread or ident, "labelIds": ["SENT"]}
        made |= {"snippet": snippet(str(text))}
        made["payload"] = part | {"headers": headers + part["headers"]}
        made |= {"sizeEstimate": len(args["raw"]) * 3 // 4 + 400, "historyId": history}
        made["internalDate"] = str(SENT_AT)
        patch = [{"op": "add", "path": "/messages/-", "value": made}]
        return {"id": ident, "threadId": made["threadId"], "labelIds": ["SENT"]}, patch

    def _create_label(self, state: State, args: dict[str, Any]) -> Answer:
        if any(label["name"].lower() == args["name"].lower() for label in state["labels"]):
            raise ToolError("Label name exists or conflicts")
        taken = [
            int(label["id"][6:]) for label in state["labels"] if label["id"].startswith("Label_")
        ]
        made = {"id": f"Label_{max(taken) + 1}", "name": args["name"]}
        made |= {
            "messageListVisibility": "show",
            "labelListVisibility": "labelShow",
            "type": "user",
        }
        return made, [{"op": "add", "path": "/labels/-", "value": made}]

    def lookup(self, rng: random.Random, state: State) -> Planned:
        return plans.lookup(rng, state)

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        return plans.nested_lookup(rng, state)

    def search(self, rng: random.Random, state: State) -> Planned:
        return plans.search(rng, state)

    def join(self, rng: random.Random, state: State) -> Planned:
        return plans.join(rng, state)

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        return plans.aggregate(rng, state)

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        return plans.write(rng, state)

    def no_match(self, rng: random.Random, state: State) -> Planned:
        return plans.no_match(rng, state)

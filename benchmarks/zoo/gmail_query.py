"""Gmail's search operators over the ``gmail`` shape's messages, as ``messages.list``'s ``q``
reads them: ``from:`` and ``to:`` (a name or an address, in part), ``subject:``, ``label:`` (a
label's name lowercased with ``/`` and spaces as ``-``), ``after:`` and ``before:`` (days as
``YYYY/MM/DD``, UTC here), ``is:unread``/``is:starred``/``is:important``, ``in:inbox``/``in:sent``,
``has:attachment``, ``filename:``, and bare words or ``"phrases"`` anywhere in the headers or
text; and the planner of such queries."""

from __future__ import annotations

import random
import re
import shlex
from datetime import UTC, datetime
from typing import Any

from benchmarks.zoo.gmail_mailbox import decoded, header, label_key
from benchmarks.zoo.kit import State, ToolError

Message = dict[str, Any]


def _parts(part: dict[str, Any]) -> list[dict[str, Any]]:
    return [part] + [p for child in part.get("parts", []) for p in _parts(child)]


def text_of(message: Message) -> str:
    """The message's plain text, decoded from its base64url part."""
    for part in _parts(message["payload"]):
        if part["mimeType"] == "text/plain" and "data" in part["body"]:
            return decoded(part["body"]["data"])
    return ""


def filenames(message: Message) -> list[str]:
    return [p["filename"] for p in _parts(message["payload"]) if p["filename"]]


def _day(text: str) -> int:
    try:
        when = datetime.strptime(text, "%Y/%m/%d").replace(tzinfo=UTC)
    except ValueError as error:
        raise ToolError(f"Invalid query: bad date {text!r}") from error
    return int(when.timestamp() * 1000)


def _meets(state: State, message: Message, term: str) -> bool:
    operator, _, wanted = term.partition(":") if ":" in term else ("", "", term)
    wanted = wanted.lower()
    labels = set(message["labelIds"])
    if operator == "from" or operator == "to":
        return wanted in (header(message, operator) or "").lower()
    if operator == "subject":
        return wanted in (header(message, "Subject") or "").lower()
    if operator == "label":
        named = {label_key(label["name"]): label["id"] for label in state["labels"]}
        return named.get(wanted, wanted.upper()) in labels
    if operator in ("after", "before"):
        moment = int(message["internalDate"])
        return moment >= _day(wanted) if operator == "after" else moment < _day(wanted)
    if operator in ("is", "in"):
        return {"read": "UNREAD" not in labels}.get(wanted, wanted.upper() in labels)
    if operator == "has":
        return wanted == "attachment" and bool(filenames(message))
    if operator == "filename":
        return any(wanted in name.lower() for name in filenames(message))
    if operator:
        raise ToolError(f"Invalid query: unknown operator {operator!r}")
    every = " ".join(h["value"] for h in message["payload"]["headers"]) + " " + text_of(message)
    return wanted in every.lower()


def matching(state: State, query: str) -> list[Message]:
    """The messages meeting every term, newest first (as Gmail lists them)."""
    terms = shlex.split(query)
    found = [m for m in state["messages"] if all(_meets(state, m, t) for t in terms)]
    return sorted(found, key=lambda m: int(m["internalDate"]), reverse=True)


def _quoted(text: str) -> str:
    return f'"{text}"' if " " in text else text


def _day_of(message: Message, shift: int) -> str:
    moment = int(message["internalDate"]) // 1000 + shift * 86_400
    return datetime.fromtimestamp(moment, UTC).strftime("%Y/%m/%d")


def plan_query(rng: random.Random, state: State, most: int, at_most: int) -> str:
    """A query that a random message meets, of 1 to ``most`` terms, narrowed while more than
    ``at_most`` messages meet it."""
    message = rng.choice(state["messages"])
    sender = header(message, "From") or ""
    address = re.search(r"<([^>]+)>", sender)
    names = {label["id"]: label["name"] for label in state["labels"]}
    users = [names[i] for i in message["labelIds"] if i.startswith("Label_")]
    words = [w for w in re.findall(r"[A-Za-z]{5,}", header(message, "Subject") or "")]
    pool = [f"from:{address[1] if address else sender}"]
    pool += [f"subject:{rng.choice(words).lower()}"] if words else []
    pool += [f"label:{label_key(rng.choice(users))}"] if users else []
    pool += [f"after:{_day_of(message, -rng.randint(0, 20))}"]
    pool += [f"before:{_day_of(message, rng.randint(1, 20))}"]
    pool += ["is:unread"] if "UNREAD" in message["labelIds"] else []
    pool += ["has:attachment"] if filenames(message) else []
    rng.shuffle(pool)
    chosen: list[str] = []
    for term in pool:
        chosen.append(term)
        query = " ".join(_quoted(t) for t in chosen)
        if len(chosen) >= rng.randint(1, most) and len(matching(state, query)) <= at_most:
            break
    return query

"""A Gmail mailbox as the Gmail API gives it (the ``gmail`` shape's state): the account's
``labels`` (system labels by name, user labels as ``Label_N`` with ``/`` nesting in the name) and
its ``messages`` in ``format=full``: a message names its labels by id in ``labelIds``, its
thread by ``threadId`` (the first message's id), its time as ``internalDate`` (milliseconds, as
text), and keeps everything else in a MIME ``payload`` tree: ``headers`` as a list of
``{"name", "value"}`` pairs (``From`` as ``Name <address>``, ``Date`` as RFC 2822 in the
sender's zone), ``parts`` nested by ``partId`` and bodies as base64url ``data`` or, for an
attachment, an ``attachmentId``; the ``snippet`` is the text's start, HTML-escaped."""

from __future__ import annotations

import base64
import html
import random
import zlib
from datetime import UTC, datetime, timedelta, timezone
from email.utils import format_datetime
from typing import Any

from benchmarks.zoo.kit import FIRST, LAST, WORDS, State, fill, size_of

ME = ("Lena Novak", "lena@novak-studio.example")
SYSTEM = ["INBOX", "SENT", "UNREAD", "STARRED", "IMPORTANT", "TRASH", "SPAM", "DRAFT"]
CATEGORIES = ["CATEGORY_PERSONAL", "CATEGORY_UPDATES", "CATEGORY_PROMOTIONS", "CATEGORY_FORUMS"]
COMPANIES = ["Basalt Systems", "Harbor Foods", "Juniper Health", "Quartz Media", "Tidal Energy"]
USER_LABELS = ["Clients", *(f"Clients/{c}" for c in COMPANIES), "Invoices", "Travel"]
USER_LABELS += ["Receipts", "Follow up"]
START = datetime(2025, 1, 6, 8, 0, tzinfo=UTC)
ZONES = [timezone(timedelta(hours=h)) for h in (0, 1, 2, -5, -8)]
TOPICS = [
    ("Brand refresh: round {r} feedback", "Clients/{c}"),
    ("Invoice INV-2025-{n:04d} from Novak Studio", "Invoices"),
    ("Kickoff notes for the {w} campaign", "Clients/{c}"),
    ("Your trip to {city}: booking {code}", "Travel"),
    ("Receipt for your order #{n}", "Receipts"),
    ("Quick question about the {w} mockups", "Follow up"),
]
REPLIES = [
    "Thanks, that's what we needed. I'll share it with the team today.",
    "Could you send the files as PDF as well? Our printer can't open the originals.",
    "Looks great. One change: can we try the {w} palette on the cover?",
    "Paid today, you should see it within two business days.",
]


def label_key(name: str) -> str:
    """A label's name as a search query writes it (``clients-basalt-systems``)."""
    return name.lower().replace("/", "-").replace(" ", "-")


def encoded(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode()


def decoded(data: str) -> str:
    return base64.urlsafe_b64decode(data.encode()).decode()


def header(message: dict[str, Any], name: str) -> str | None:
    """A header's value (names are case-insensitive, as in RFC 5322)."""
    for held in message["payload"]["headers"]:
        if held["name"].lower() == name.lower():
            value: str = held["value"]
            return value
    return None


def snippet(text: str) -> str:
    return html.escape(" ".join(text.split())[:120].rsplit(" ", 1)[0], quote=True).replace(
        "&#x27;", "&#39;"
    )


def text_part(part_id: str, text: str, kind: str = "plain") -> dict[str, Any]:
    shown = text if kind == "plain" else f'<div dir="ltr">{html.escape(text)}</div>'
    headers = [{"name": "Content-Type", "value": f'text/{kind}; charset="UTF-8"'}]
    if kind == "html":
        headers.append({"name": "Content-Transfer-Encoding", "value": "quoted-printable"})
    body = {"size": len(shown.encode()), "data": encoded(shown)}
    return {"partId": part_id, "mimeType": f"text/{kind}", "filename": ""} | {
        "headers": headers,
        "body": body,
    }


def ct(value: str) -> dict[str, str]:
    return {"name": "Content-Type", "value": value}


def payload(
    rng: random.Random, headers: list[dict[str, str]], text: str, attachment: str | None
) -> dict[str, Any]:
    """A ``multipart/alternative`` of text and HTML, inside ``multipart/mixed`` with a PDF
    when there is an attachment."""
    boundary = "".join(rng.choice("0123456789abcdef") for _ in range(28))
    inner = [text_part("0", text), text_part("1", text, "html")]
    alternative = ct(f'multipart/alternative; boundary="{boundary}"')
    if attachment is None:
        top: dict[str, Any] = {"partId": "", "mimeType": "multipart/alternative"}
        top |= {"filename": "", "headers": [*headers, alternative], "body": {"size": 0}}
        return top | {"parts": inner}
    for n, part in enumerate(inner):
        part["partId"] = f"0.{n}"
    nested: dict[str, Any] = {"partId": "0", "mimeType": "multipart/alternative"}
    nested |= {"filename": "", "headers": [alternative], "body": {"size": 0}, "parts": inner}
    pdf: dict[str, Any] = {"partId": "1", "mimeType": "application/pdf", "filename": attachment}
    pdf["headers"] = [
        ct(f'application/pdf; name="{attachment}"'),
        {"name": "Content-Disposition", "value": f'attachment; filename="{attachment}"'},
        {"name": "Content-Transfer-Encoding", "value": "base64"},
    ]
    size = rng.randint(20_000, 900_000)
    pdf["body"] = {"attachmentId": "ANGjdJ" + encoded(boundary + attachment)[:60], "size": size}
    mixed = ct(f'multipart/mixed; boundary="{boundary[::-1]}"')
    top = {"partId": "", "mimeType": "multipart/mixed", "filename": ""}
    return top | {"headers": [*headers, mixed], "body": {"size": 0}, "parts": [nested, pdf]}


def labels() -> list[dict[str, Any]]:
    made: list[dict[str, Any]] = []
    for name in SYSTEM + CATEGORIES:
        shown = "labelHide" if name.startswith("CATEGORY") else "labelShow"
        made.append(
            {"id": name, "name": name, "messageListVisibility": "hide"}
            | {"labelListVisibility": shown, "type": "system"}
        )
    for n, name in enumerate(USER_LABELS, start=1):
        made.append(
            {"id": f"Label_{n}", "name": name, "messageListVisibility": "show"}
            | {"labelListVisibility": "labelShow", "type": "user"}
        )
    return made


def address(name: str, mail: str) -> str:
    return f"{name} <{mail}>"


class Mailbox:
    """Writes threads into the mailbox: a first message from a contact or from the owner,
    then replies back and forth over the following days, newest last."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.state: State = {"emailAddress": ME[1], "labels": labels(), "messages": []}
        self.by_name = {label["name"]: label["id"] for label in self.state["labels"]}
        self.contacts = []
        for company in COMPANIES * 3:
            first, last = rng.choice(FIRST), rng.choice(LAST)
            domain = company.lower().replace(" ", "-") + ".example"
            self.contacts.append(
                (f"{first} {last}", f"{first.lower()}.{last.lower()}@{domain}", company)
            )
        self.clock = START
        self.next_id = 0x1943A7B2C0D00000
        self.history = 4_210_000

    def thread(self) -> None:
        rng = self.rng
        name, mail, company = rng.choice(self.contacts)
        subject_form, label_form = rng.choice(TOPICS)
        fields = {
            "n": rng.randint(1, 9999),
            "r": rng.randint(1, 4),
            "c": company,
            "w": rng.choice(WORDS),
        }
        fields |= {
            "city": rng.choice(["Oban", "Portree", "Larne"]),
            "code": f"{rng.randint(10**5, 10**6 - 1):X}",
        }
        subject = subject_form.format(**fields)
        label = self.by_name[label_form.format(**fields)]
        self.clock += timedelta(minutes=rng.randint(20, 600))
        count = rng.choice([1, 1, 2, 2, 3, 4])
        mine = "Invoice" in subject or rng.random() < 0.3
        thread_id: str | None = None
        ids: list[Any] = []
        when = self.clock
        for n in range(count):
            sender = ME if mine == (n % 2 == 0) else (name, mail)
            to = (name, mail) if sender == ME else ME
            text = self._text(n, subject, sender[0], fields)
            attachment = (
                f"{subject.split(' from')[0].split(':')[0].replace(' ', '_')}.pdf"
                if "Invoice" in subject and n == 0
                else None
            )
            made = self._message(
                sender, to, ("Re: " if n else "") + subject, text, when, attachment, ids
            )
            made["threadId"] = thread_id = thread_id or made["id"]
            made["labelIds"] = self._labels(sender == ME, label, n == count - 1, attachment)
            ids.append(header(made, "Message-ID"))
            self.state["messages"].append(made)
            when += timedelta(minutes=rng.randint(15, 3000))

    def _text(self, n: int, subject: str, sender: str, fields: dict[str, Any]) -> str:
        rng = self.rng
        body = (
            rng.choice(REPLIES).format(**fields)
            if n
            else f"Hi, sending this over: {subject}. Let me know what you think."
        )
        return f"{body}\n\nBest,\n{sender.split()[0]}"

    def _labels(self, sent: bool, label: str, last: bool, attachment: str | None) -> list[str]:
        rng = self.rng
        if sent:
            return ["SENT"] + ([label] if rng.random() < 0.5 else [])
        made = ["INBOX"] if last or rng.random() < 0.4 else []
        made += ["UNREAD"] if last and rng.random() < 0.35 else []
        made += ["IMPORTANT"] if rng.random() < 0.3 else []
        made += ["STARRED"] if rng.random() < 0.1 else []
        made.append(
            "CATEGORY_UPDATES"
            if label.startswith("Label_1") and attachment
            else "CATEGORY_PERSONAL"
        )
        return [*made, label]

    def _message(
        self,
        sender: tuple[str, str],
        to: tuple[str, str],
        subject: str,
        text: str,
        when: datetime,
        attachment: str | None,
        earlier: list[str | None],
    ) -> dict[str, Any]:
        rng = self.rng
        self.next_id += rng.randint(0x100000, 0x9000000)
        self.history += rng.randint(10, 400)
        zone = ZONES[zlib.crc32(sender[1].encode()) % len(ZONES)] if sender != ME else ZONES[1]
        token = "".join(
            rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
            for _ in range(24)
        )
        domain = "mail.gmail.com" if sender == ME else sender[1].split("@")[1]
        headers = [{"name": "Delivered-To", "value": ME[1]}] if sender != ME else []
        headers += [
            {"name": "MIME-Version", "value": "1.0"},
            {"name": "Date", "value": format_datetime(when.astimezone(zone))},
            {"name": "Message-ID", "value": f"<CA+{token}@{domain}>"},
            {"name": "Subject", "value": subject},
            {"name": "From", "value": address(*sender)},
            {"name": "To", "value": address(*to)},
        ]
        if earlier:
            headers.append({"name": "In-Reply-To", "value": str(earlier[-1])})
            headers.append({"name": "References", "value": " ".join(str(e) for e in earlier)})
        made: dict[str, Any] = {"id": f"{self.next_id:x}", "threadId": "", "labelIds": []}
        made |= {"snippet": snippet(text), "payload": payload(rng, headers, text, attachment)}
        made["sizeEstimate"] = len(str(made["payload"])) + rng.randint(2000, 6000)
        made |= {"historyId": str(self.history), "internalDate": str(int(when.timestamp() * 1000))}
        return made


def mailbox(rng: random.Random, target_bytes: int) -> State:
    made = Mailbox(rng)
    fill(made.thread, lambda: size_of(made.state), target_bytes)
    made.state["messages"].sort(key=lambda m: int(m["internalDate"]))
    return made.state

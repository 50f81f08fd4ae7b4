"""``marc``: a public library's Koha catalogue exported as MARC-in-JSON: records of numeric-tag
fields whose subfields are lists of one-key objects, values with ISBD punctuation, the language
inside the fixed-length ``008``, the OCLC number in ``001`` beside Koha's biblionumber in
``999 $c``, editions linked by ``775 $w``, and copies as embedded ``952`` item fields of string
values. Tools take a biblionumber, a barcode, an ISBN, branch codes and years; a search answers
brief records; another edition's copies is a join through the ``775`` link to the OCLC number
of another record; a branch's circulation is a summary no field holds; a checkout adds a due
date (``952 $q``) and counts a checkout (``952 $l``)."""

from __future__ import annotations

import random
import re
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
    summary,
)
from benchmarks.zoo.marc_records import (
    BRANCHES,
    ITEM_TYPES,
    LANGUAGES,
    catalogue,
    control,
    fields_of,
    first,
    subfield,
)
from benchmarks.zoo.shape import Shape

FORMATS = sorted(set(ITEM_TYPES))
ITEM = {
    "barcode": "p",
    "itemnumber": "9",
    "homebranch": "a",
    "holdingbranch": "b",
    "location": "c",
    "callnumber": "o",
    "itemtype": "y",
    "checkouts": "l",
    "date_due": "q",
    "last_borrowed": "s",
    "notforloan": "7",
    "itemlost": "1",
}
"""What ``item_status`` answers of a ``952`` field: Koha's names for its subfields."""
Copy = tuple[int, int, dict[str, Any], dict[str, Any]]
"""A copy: its record's position, its field's position, the record and the ``952`` field."""


def _biblionumber(record: dict[str, Any]) -> str:
    return first(record, "999", "c") or ""


def _copies(state: State) -> list[Copy]:
    return [
        (r, n, record, data)
        for r, record in enumerate(state["records"])
        for n, data in fields_of(record, "952")
    ]


def _item(data: dict[str, Any]) -> dict[str, Any]:
    return {name: subfield(data, code) for name, code in ITEM.items()}


def _trimmed(value: str | None) -> str | None:
    """A value without its ISBD punctuation (``"Tidal basalt :"`` → ``"Tidal basalt"``)."""
    return None if value is None else value.rstrip(" :/,;.")


def _year(record: dict[str, Any]) -> int | None:
    found = re.search(r"\d{4}", first(record, "264", "c") or "")
    return int(found.group()) if found else None


def _record_view(record: dict[str, Any]) -> dict[str, Any]:
    """A record's indexed fields, as a catalogue's search reads them."""
    return {
        "record": record,
        "author": _trimmed(first(record, "100", "a")),
        "title": _trimmed(first(record, "245", "a")),
        "publisher": _trimmed(first(record, "264", "b")),
        "year": _year(record),
        "subjects": [subfield(d, "a") for _, d in fields_of(record, "650")],
        "language": control(record, "008")[35:38],
        "format": first(record, "942", "c"),
    }


def _records(state: State) -> list[tuple[str, dict[str, Any]]]:
    return [(_biblionumber(r), _record_view(r)) for r in state["records"]]


def _brief(key: str, view: dict[str, Any]) -> dict[str, Any]:
    record = view["record"]
    return {
        "biblionumber": key,
        "title": first(record, "245", "a"),
        "author": first(record, "100", "a"),
        "date": first(record, "264", "c"),
        "format": view["format"],
    }


def _circulation(state: State, args: dict[str, Any]) -> Answer:
    if args["branch"] not in BRANCHES:
        raise ToolError(f"unknown branch code {args['branch']}")
    copies = [
        _item(data)
        for *_, data in _copies(state)
        if subfield(data, "a") == args["branch"]
        and ("item_type" not in args or subfield(data, "y") == args["item_type"])
    ]
    checkouts = [int(c["checkouts"]) for c in copies]
    return {
        "branch": args["branch"],
        **({"item_type": args["item_type"]} if "item_type" in args else {}),
        "items": len(copies),
        "on_loan": sum(1 for c in copies if c["date_due"] is not None),
        "lost": sum(1 for c in copies if c["itemlost"] != "0"),
        "total_checkouts": sum(checkouts),
        "mean_checkouts": summary("mean", checkouts),
    }, []


class Marc(Shape):
    name = "marc"
    title = "Library catalogue and circulation (Koha)"
    description = (
        "The catalogue of a county library service (four branches, codes CPL, FRL, MDL, ROS) "
        "in Koha: bibliographic records in MARC 21 with their items (copies). Errors are "
        "text starting with 'Error:'."
    )
    note = ("staff_note", "message")

    def __init__(self) -> None:
        self.finder = Search(
            "search_catalog",
            "Records by author (surname first, or its start), title word, subject heading, "
            "publisher, publication year range, language and format; brief records.",
            _records,
            [
                Filter("author", "author", "prefix", prop("string", "e.g. 'Berg, Ana' or 'Berg'.")),
                Filter("title_word", "title", "contains", prop("string", "A word of the title.")),
                Filter("subject", "subjects", "has", prop("string", "A subject heading.")),
                Filter("publisher", "publisher", "contains", prop("string", "Publisher name.")),
                Filter("published_from", "year", "ge", prop("integer", "Earliest year.")),
                Filter("published_to", "year", "le", prop("integer", "Latest year.")),
                Filter(
                    "language",
                    "language",
                    "eq",
                    prop("string", "MARC code.", enum=sorted(set(LANGUAGES))),
                ),
                Filter("format", "format", "eq", prop("string", "Item type.", enum=FORMATS)),
            ],
            _brief,
            limit=15,
        )

    def build(self, rng: random.Random, target_bytes: int) -> State:
        return catalogue(rng, target_bytes)

    def tools(self) -> list[Tool]:
        barcode = {"barcode": prop("string", "The copy's barcode (14 digits).")}
        return [
            Tool(
                "get_biblio",
                "A bibliographic record in MARC-in-JSON, with its items (952 fields).",
                {"biblionumber": prop("integer", "Koha's record number.")},
                self._biblio,
                ("biblionumber",),
            ),
            Tool(
                "item_status", "A copy's status, by barcode.", barcode, self._status, ("barcode",)
            ),
            Tool(
                "search_catalog",
                self.finder.description,
                self.finder.tool().properties,
                self._find,
            ),
            Tool(
                "other_editions",
                "The other editions of the title with an ISBN, each with its copies.",
                {"isbn": prop("string", "ISBN-13, digits only.")},
                self._editions,
                ("isbn",),
            ),
            Tool(
                "branch_circulation",
                "A branch's copies (by home branch), optionally of one item type: how many, "
                "on loan, lost, checkouts in total and on average.",
                {
                    "branch": prop("string", "Branch code.", enum=BRANCHES),
                    "item_type": prop("string", "Item type.", enum=FORMATS),
                },
                _circulation,
                ("branch",),
            ),
            Tool(
                "checkout",
                "Check a copy out (to the patron at the desk) until a due date.",
                barcode | {"due_date": prop("string", "YYYY-MM-DD.")},
                self._checkout,
                ("barcode", "due_date"),
                effect="write",
            ),
            note_tool("staff_note", "message", "Leave a note for the circulation staff."),
        ]

    def _record(self, state: State, biblionumber: str) -> dict[str, Any]:
        records: list[dict[str, Any]] = state["records"]
        for record in records:
            if _biblionumber(record) == biblionumber:
                return record
        raise ToolError(f"Bibliographic record {biblionumber} not found")

    def _biblio(self, state: State, args: dict[str, Any]) -> Answer:
        return self._record(state, str(args["biblionumber"])), []

    def _copy(self, state: State, barcode: str) -> Copy:
        for copy in _copies(state):
            if subfield(copy[3], "p") == barcode:
                return copy
        raise ToolError(f"No item with barcode {barcode}")

    def _status(self, state: State, args: dict[str, Any]) -> Answer:
        _, _, record, data = self._copy(state, args["barcode"])
        return {
            "biblionumber": _biblionumber(record),
            "title": first(record, "245", "a"),
            **_item(data),
        }, []

    def _find(self, state: State, args: dict[str, Any]) -> Answer:
        found = self.finder.matches(state, args)
        return {"total": len(found), "records": found[: self.finder.limit]}, []

    def _editions(self, state: State, args: dict[str, Any]) -> Answer:
        own = [r for r in state["records"] if first(r, "020", "a") == args["isbn"]]
        if not own:
            raise ToolError(f"No record with ISBN {args['isbn']}")
        links = {subfield(d, "w") for _, d in fields_of(own[0], "775")}
        editions = [
            {
                "biblionumber": _biblionumber(record),
                "isbn": first(record, "020", "a"),
                "date": first(record, "264", "c"),
                "format": first(record, "942", "c"),
                "items": [
                    {
                        k: v
                        for k, v in _item(d).items()
                        if k in ("barcode", "homebranch", "date_due")
                    }
                    for _, d in fields_of(record, "952")
                ],
            }
            for record in state["records"]
            if first(record, "035", "a") in links
        ]
        return {"biblionumber": _biblionumber(own[0]), "editions": editions}, []

    def _checkout(self, state: State, args: dict[str, Any]) -> Answer:
        r, n, record, data = self._copy(state, args["barcode"])
        item = _item(data)
        if item["date_due"] is not None:
            raise ToolError(f"Item {args['barcode']} is already checked out")
        if item["notforloan"] != "0" or item["itemlost"] != "0":
            raise ToolError(f"Item {args['barcode']} cannot be checked out")
        checkouts = str(int(item["checkouts"]) + 1)
        at = pointer("records", r, "fields", n, "952", "subfields")
        count = next(k for k, s in enumerate(data["subfields"]) if "l" in s)
        return {
            "barcode": args["barcode"],
            "biblionumber": _biblionumber(record),
            "date_due": args["due_date"],
            "checkouts": checkouts,
        }, [
            {"op": "replace", "path": f"{at}/{count}", "value": {"l": checkouts}},
            {"op": "add", "path": f"{at}/-", "value": {"q": args["due_date"]}},
        ]

    def lookup(self, rng: random.Random, state: State) -> Planned:
        record = rng.choice(state["records"])
        return Planned("lookup", "get_biblio", {"biblionumber": int(_biblionumber(record))})

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        data = rng.choice(_copies(state))[3]
        return Planned("nested_lookup", "item_status", {"barcode": subfield(data, "p")})

    def search(self, rng: random.Random, state: State) -> Planned:
        return Planned("search", "search_catalog", self.finder.plan(rng, state))

    def join(self, rng: random.Random, state: State) -> Planned:
        linked = [r for r in state["records"] if any(fields_of(r, "775"))] or state["records"]
        return Planned("join", "other_editions", {"isbn": first(rng.choice(linked), "020", "a")})

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        args = {"branch": rng.choice(BRANCHES)}
        if rng.random() < 0.4:
            args["item_type"] = rng.choice(FORMATS)
        return Planned("aggregate", "branch_circulation", args)

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        free = [
            c[3]
            for c in _copies(state)
            if _item(c[3])["date_due"] is None
            and _item(c[3])["notforloan"] == "0"
            and _item(c[3])["itemlost"] == "0"
        ]
        barcode = subfield(rng.choice(free), "p")
        due = f"2026-01-{rng.randint(2, 30):02d}"
        return Planned("write", "checkout", {"barcode": barcode, "due_date": due}), Planned(
            "read_after_write", "item_status", {"barcode": barcode}
        )

    def no_match(self, rng: random.Random, state: State) -> Planned:
        args = {"language": rng.choice(LANGUAGES), "published_from": 2031}
        return Planned("empty", "search_catalog", args)

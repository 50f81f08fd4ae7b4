"""A public library's catalogue as Koha exports it in MARC-in-JSON (the ``marc`` shape's state):
each record a ``leader`` and a list of ``fields``, each field a one-key object whose key is the
numeric tag; control fields (``001``-``008``) hold a string, data fields two indicators and a
list of one-key ``subfields``. Values keep the cataloguer's ISBD punctuation (``"Tidal basalt
:"``, ``"Berg, Ana,"``, ``"2019."``); the language is characters 35-37 of the fixed-length
``008``; the OCLC number is ``001`` (and ``035 $a`` as ``"(OCoLC)…"``) while Koha's own
biblionumber is ``999 $c``; another edition is linked by ``775 $w`` to its OCLC number; each
copy is an embedded ``952`` item field whose values are all strings (``$p`` barcode, ``$a``
home branch, ``$l`` checkouts, ``$q`` due date only while on loan)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from benchmarks.zoo.kit import WORDS, State, day, fill, person, size_of

BRANCHES = ["CPL", "FRL", "MDL", "ROS"]
"""Koha branch codes: central, Fairport, Midleton and Rosslare libraries."""
ITEM_TYPES = ["BK", "BK", "BK", "LP", "AB", "DVD"]
"""Books, large print, audio books, DVDs (``942 $c`` and ``952 $y``)."""
LANGUAGES = ["eng", "eng", "eng", "fre", "ger", "spa"]
SUBJECTS = ["Harbors", "Islands", "Families", "Detective and mystery stories", "Mountains"]
SUBJECTS += ["Cooking", "Gardening", "Ships", "Friendship", "Climatic changes", "Lighthouses"]
PUBLISHERS = [
    ("New York", "Orbit"),
    ("London", "Vintage"),
    ("Dublin", "Lilliput Press"),
    ("Paris", "Gallimard"),
    ("Berlin", "Suhrkamp"),
    ("Barcelona", "Anagrama"),
]
DATE_FORMS = ["{}.", "{}.", "[{}]", "©{}", "{}"]
"""How the year of publication (``264 $c``) is written."""


def field(tag: str, ind1: str, ind2: str, *subfields: tuple[str, str]) -> dict[str, Any]:
    codes = [{code: value} for code, value in subfields]
    return {tag: {"ind1": ind1, "ind2": ind2, "subfields": codes}}


def fields_of(record: dict[str, Any], tag: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """The data fields of a tag, with their positions in ``fields``."""
    for n, item in enumerate(record["fields"]):
        if tag in item:
            yield n, item[tag]


def control(record: dict[str, Any], tag: str) -> str:
    value: str = next(item[tag] for item in record["fields"] if tag in item)
    return value


def subfield(data: dict[str, Any], code: str) -> str | None:
    """The first value of a subfield code, or ``None``."""
    return next((s[code] for s in data["subfields"] if code in s), None)


def first(record: dict[str, Any], tag: str, code: str) -> str | None:
    return next((subfield(d, code) for _, d in fields_of(record, tag)), None)


def isbn13(rng: random.Random) -> str:
    digits = "978" + "".join(str(rng.randint(0, 9)) for _ in range(9))
    check = (10 - sum(int(d) * (3 if i % 2 else 1) for i, d in enumerate(digits)) % 10) % 10
    return digits + str(check)


def item(
    rng: random.Random, itemnumber: int, barcode: str, kind: str, year: int, call: str
) -> dict[str, Any]:
    """A copy: Koha's ``952`` item field, every value a string."""
    branch = rng.choice(BRANCHES)
    lost = rng.random() < 0.03
    codes = [("0", "0"), ("1", "1" if lost else "0"), ("4", "0")]
    codes.append(("7", "1" if rng.random() < 0.05 else "0"))
    codes += [("a", branch), ("b", branch if rng.random() < 0.9 else rng.choice(BRANCHES))]
    codes += [("c", rng.choice(["GEN", "GEN", "NEW", "CHILD", "STACKS"]))]
    codes += [("d", day(rng, max(year, rng.randint(2015, 2025))))]
    codes += [("g", f"{rng.randint(8, 45)}.{rng.choice(['00', '95', '99'])}")]
    codes += [("l", str(rng.randint(0, 60))), ("o", call), ("p", barcode)]
    if not lost and rng.random() < 0.25:
        codes += [("q", f"2025-12-{rng.randint(1, 28):02d}")]
    codes += [("s", day(rng, 2025)), ("y", kind), ("9", str(itemnumber))]
    return field("952", " ", " ", *codes)


def _extent(rng: random.Random, kind: str) -> list[tuple[str, str]]:
    """The physical description (``300``) of a book, an audio book or a DVD."""
    if kind == "DVD":
        return [("a", f"1 videodisc ({rng.randint(80, 190)} min.) :"), ("c", "4 3/4 in.")]
    if kind == "AB":
        return [("a", f"{rng.randint(4, 14)} audio discs :"), ("c", "4 3/4 in.")]
    return [("a", f"{rng.randint(90, 720)} pages ;"), ("c", "24 cm" if kind == "BK" else "29 cm")]


class Catalogue:
    """The numbers a catalogue hands out in order: biblionumbers, OCLC numbers, items."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.biblionumber = 1000
        self.itemnumber = 20000
        self.oclc = rng.randint(800_000_000, 900_000_000)
        self.records: list[dict[str, Any]] = []

    def record(self, title: tuple[str, str], author: tuple[str, str], year: int) -> dict[str, Any]:
        rng = self.rng
        self.biblionumber += 1
        self.oclc += rng.randint(1, 5000)
        kind, lang = rng.choice(ITEM_TYPES), rng.choice(LANGUAGES)
        fiction = rng.random() < 0.6
        place, publisher = rng.choice(PUBLISHERS)
        entered = f"{year % 100:02d}{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}"
        fixed = f"{entered}s{year}    xx {'':10} 000 {1 if fiction else 0} {lang} d"
        family, given = author
        call = f"{'FIC' if fiction else rng.randint(100, 999)} {family[:3].upper()}"
        fields: list[dict[str, Any]] = [
            {"001": f"ocn{self.oclc}"},
            {"003": "OCoLC"},
            {"005": f"2025{rng.randint(1, 11):02d}{rng.randint(1, 28):02d}104500.0"},
            {"008": fixed},
            field(
                "020", " ", " ", ("a", isbn13(rng)), ("q", rng.choice(["hardcover", "paperback"]))
            ),
            field("035", " ", " ", ("a", f"(OCoLC){self.oclc}")),
            field("040", " ", " ", ("a", "DLC"), ("b", "eng"), ("e", "rda"), ("c", "DLC")),
            field("100", "1", " ", ("a", f"{family}, {given},"), ("e", "author.")),
            field(
                "245",
                "1",
                "0",
                ("a", f"{title[0]} :"),
                ("b", f"{title[1]} /"),
                ("c", f"{given} {family}."),
            ),
            field(
                "264",
                " ",
                "1",
                ("a", f"{place} :"),
                ("b", f"{publisher},"),
                ("c", rng.choice(DATE_FORMS).format(year)),
            ),
            field("300", " ", " ", *_extent(rng, kind)),
        ]
        for subject in rng.sample(SUBJECTS, rng.randint(1, 3)):
            form = ("v", "Fiction.") if fiction else ("x", "History.")
            fields.append(field("650", " ", "0", ("a", subject), form))
        fields.append(field("942", " ", " ", ("2", "ddc"), ("c", kind)))
        for _ in range(rng.choice([0, 1, 1, 2, 2, 3, 4])):
            self.itemnumber += 1
            barcode = f"3999900{self.itemnumber * 7 + rng.randint(0, 6):07d}"
            fields.append(item(rng, self.itemnumber, barcode, kind, year, call))
        biblio = str(self.biblionumber)
        fields.append(field("999", " ", " ", ("c", biblio), ("d", biblio)))
        record = {"leader": f"0{rng.randint(1000, 4999)}cam a22003017i 4500", "fields": fields}
        self.records.append(record)
        return record

    def add(self) -> None:
        """A title, and now and then another edition of it, each linked to the other."""
        rng = self.rng
        title = (" ".join(rng.sample(WORDS, 2)).capitalize(), f"a {rng.choice(WORDS)} story")
        author = person(rng)[::-1]
        year = rng.randint(1978, 2025)
        made = self.record(title, author, year)
        if rng.random() < 0.3:
            other = self.record(title, author, min(2025, year + rng.randint(0, 6)))
            for one, two in ((made, other), (other, made)):
                edition = first(two, "942", "c")
                link = field(
                    "775",
                    "0",
                    "8",
                    ("i", "Other edition:"),
                    ("t", f"{title[0]}."),
                    ("b", "Large print edition." if edition == "LP" else "Other edition."),
                    ("w", f"(OCoLC){control(two, '001')[3:]}"),
                )
                one["fields"].append(link)
                one["fields"].sort(key=lambda f: next(iter(f)))


def catalogue(rng: random.Random, target_bytes: int) -> State:
    """The catalogue's export, of about ``target_bytes``: records in biblionumber order."""
    made = Catalogue(rng)
    state: State = {"records": made.records}
    fill(made.add, lambda: size_of(state), target_bytes)
    return state

"""``library``: records in arrays (snake_case, string and integer ids), loans linking members
to books, a compound key (member, book) for a loan."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.kit import (
    Answer,
    Filter,
    Planned,
    Search,
    State,
    Tool,
    ToolError,
    day,
    fill,
    note_tool,
    person,
    pointer,
    prop,
    size_of,
    summary,
    words,
)
from benchmarks.zoo.shape import Shape

GENRES = ["mystery", "history", "poetry", "travel", "science", "cookery", "fantasy", "biography"]


def _books(state: State) -> list[tuple[str, dict[str, Any]]]:
    return [(b["book_id"], b) for b in state["books"]]


class Library(Shape):
    name = "library"
    title = "City library, circulation desk"
    description = (
        "The circulation desk of a city library: books (with copies on the shelves), members "
        "and loans. Tools answer with JSON; errors are text starting with 'Error:'."
    )
    note = ("log_note", "note")

    def __init__(self) -> None:
        self.books = Search(
            "search_books",
            "Find books by author, genre, publication years, title start or page count.",
            _books,
            [
                Filter("author", "author", "eq", prop("string", "Author's full name.")),
                Filter("genre", "genre", "eq", prop("string", "Genre.", enum=GENRES)),
                Filter("published_after", "year", "ge", prop("integer", "Earliest year.")),
                Filter("published_before", "year", "le", prop("integer", "Latest year.")),
                Filter("title_starts", "title", "prefix", prop("string", "Title prefix.")),
                Filter("min_pages", "pages", "ge", prop("integer", "Fewest pages.")),
            ],
            lambda k, b: {k2: b[k2] for k2 in ("book_id", "title", "author", "year", "genre")},
        )

    def build(self, rng: random.Random, target_bytes: int) -> State:
        state: State = {"books": [], "members": [], "loans": []}
        authors = [" ".join(person(rng)) for _ in range(300)]

        def book() -> None:
            total = rng.randint(1, 6)
            state["books"].append(
                {
                    "book_id": f"BK-{len(state['books']) * 3 + 100017:06d}",
                    "title": f"The {words(rng, 2).title()}",
                    "author": rng.choice(authors),
                    "year": rng.randint(1890, 2024),
                    "genre": rng.choice(GENRES),
                    "isbn": f"978-{rng.randint(0, 9)}-{rng.randint(10000, 99999)}-{rng.randint(100, 999)}",
                    "pages": rng.randint(80, 900),
                    "copies": {"total": total, "available": rng.randint(0, total)},
                    "shelf": f"{rng.choice('ABCDEFGH')}-{rng.randint(1, 40)}-{rng.randint(1, 6)}",
                    "subjects": [words(rng, 1) for _ in range(rng.randint(1, 3))],
                }
            )

        def member() -> None:
            first, last = person(rng)
            number = 40000 + len(state["members"]) * 7
            state["members"].append(
                {
                    "member_no": number,
                    "name": f"{first} {last}",
                    "joined": day(rng, rng.randint(2010, 2024)),
                    "tier": rng.choice(["standard", "student", "senior"]),
                    "email": f"{first.lower()}.{last.lower()}{number % 1000}@mail.example",
                }
            )
            for _ in range(rng.randint(0, 3)):
                loan(number)

        def loan(number: int) -> None:
            out = day(rng, 2025)
            state["loans"].append(
                {
                    "loan_id": f"L{len(state['loans']) + 500001}",
                    "member_no": number,
                    "book_id": rng.choice(state["books"])["book_id"],
                    "out": out,
                    "due": out[:5] + f"{min(12, int(out[5:7]) + 1):02d}" + out[7:],
                    "returned": None if rng.random() < 0.6 else day(rng, 2025),
                }
            )

        fill(book, lambda: size_of(state["books"]), int(target_bytes * 0.55))
        fill(member, lambda: size_of(state), target_bytes)
        return state

    def tools(self) -> list[Tool]:
        member_no = {"member_no": prop("integer", "Member number.")}
        book_id = {"book_id": prop("string", "Book id, e.g. BK-100017.")}
        return [
            Tool("get_book", "A book's record.", book_id, self._get_book, ("book_id",)),
            Tool("get_member", "A member's record.", member_no, self._get_member, ("member_no",)),
            Tool(
                "get_loan",
                "The loan of a book to a member (the latest one).",
                member_no | book_id,
                self._get_loan,
                ("member_no", "book_id"),
            ),
            self.books.tool(),
            Tool(
                "member_books",
                "The books a member has borrowed and not returned.",
                member_no,
                self._member_books,
                ("member_no",),
            ),
            Tool(
                "genre_stats",
                "How many books a genre has, their total pages and the year range; with no "
                "genre, the list of genres.",
                {"genre": prop("string", "Genre.", enum=GENRES)},
                self._genre_stats,
            ),
            Tool(
                "borrow_book",
                "Lend a book to a member for a month.",
                member_no | book_id | {"today": prop("string", "Today's date, YYYY-MM-DD.")},
                self._borrow,
                ("member_no", "book_id", "today"),
                effect="write",
            ),
            note_tool("log_note", "note", "Write a note to the desk log (answers nothing)."),
        ]

    def _find_book(self, state: State, book_id: str) -> tuple[int, dict[str, Any]]:
        for i, book in enumerate(state["books"]):
            if book["book_id"] == book_id:
                return i, book
        raise ToolError(f"no book {book_id}")

    def _get_book(self, state: State, args: dict[str, Any]) -> Answer:
        return self._find_book(state, args["book_id"])[1], []

    def _get_member(self, state: State, args: dict[str, Any]) -> Answer:
        for member in state["members"]:
            if member["member_no"] == args["member_no"]:
                return member, []
        raise ToolError("member not found")

    def _get_loan(self, state: State, args: dict[str, Any]) -> Answer:
        for loan in reversed(state["loans"]):
            if loan["member_no"] == args["member_no"] and loan["book_id"] == args["book_id"]:
                return loan, []
        raise ToolError("no such loan")

    def _member_books(self, state: State, args: dict[str, Any]) -> Answer:
        ids = [
            loan["book_id"]
            for loan in state["loans"]
            if loan["member_no"] == args["member_no"] and loan["returned"] is None
        ]
        return [self._find_book(state, i)[1] for i in ids], []

    def _genre_stats(self, state: State, args: dict[str, Any]) -> Answer:
        if "genre" not in args:
            return {"genres": summary("distinct", [b["genre"] for b in state["books"]])}, []
        books = [b for b in state["books"] if b["genre"] == args["genre"]]
        years = [b["year"] for b in books]
        return {
            "genre": args["genre"],
            "books": len(books),
            "pages_total": summary("sum", [b["pages"] for b in books]),
            "earliest": summary("min", years),
            "latest": summary("max", years),
        }, []

    def _borrow(self, state: State, args: dict[str, Any]) -> Answer:
        self._get_member(state, args)
        index, book = self._find_book(state, args["book_id"])
        if book["copies"]["available"] < 1:
            raise ToolError("no copy available")
        today = args["today"]
        loan = {
            "loan_id": f"L{len(state['loans']) + 500001}",
            "member_no": args["member_no"],
            "book_id": book["book_id"],
            "out": today,
            "due": today[:5] + f"{min(12, int(today[5:7]) + 1):02d}" + today[7:],
            "returned": None,
        }
        available = book["copies"]["available"] - 1
        return loan, [
            {"op": "add", "path": "/loans/-", "value": loan},
            {
                "op": "replace",
                "path": pointer("books", index, "copies", "available"),
                "value": available,
            },
        ]

    def lookup(self, rng: random.Random, state: State) -> Planned:
        if rng.random() < 0.5:
            return Planned("lookup", "get_book", {"book_id": rng.choice(state["books"])["book_id"]})
        number = rng.choice(state["members"])["member_no"]
        return Planned("lookup", "get_member", {"member_no": number})

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        loan = rng.choice(state["loans"])
        args = {"member_no": loan["member_no"], "book_id": loan["book_id"]}
        return Planned("nested_lookup", "get_loan", args)

    def search(self, rng: random.Random, state: State) -> Planned:
        return Planned("search", "search_books", self.books.plan(rng, state))

    def join(self, rng: random.Random, state: State) -> Planned:
        loan = rng.choice([loan for loan in state["loans"] if loan["returned"] is None])
        return Planned("join", "member_books", {"member_no": loan["member_no"]})

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        args = {} if rng.random() < 0.3 else {"genre": rng.choice(GENRES)}
        return Planned("aggregate", "genre_stats", args)

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        book = rng.choice([b for b in state["books"] if b["copies"]["available"] > 0])
        member = rng.choice(state["members"])["member_no"]
        args = {"member_no": member, "book_id": book["book_id"], "today": day(rng, 2026)}
        read = {"member_no": member, "book_id": book["book_id"]}
        return Planned("write", "borrow_book", args), Planned("read_after_write", "get_loan", read)

    def no_match(self, rng: random.Random, state: State) -> Planned:
        args = {"genre": rng.choice(GENRES), "published_after": 2030}
        return Planned("empty", "search_books", args)

"""Collections kept as positional rows under a header row, several tables in one value-range
document, as a spreadsheet's ``values.batchGet`` holds them: ``{"valueRanges": [{"range":
"Boats!A1:F300", "majorDimension": "ROWS", "values": [["Boat ID", "unit price", "Qty"],
[...], ...]}, ...]}``, a table per collection (the records, the parties and the links), the
header row spelling the columns as people write them (``Boat ID``, ``unit price``, ``Qty``),
the only place the fields are named. Drawn for about two seeds in ten from a generator of its
own, and only where the seed holds no other text (:mod:`.text_lines`), so a seed that does not
draw it is laid out as before. Its tools read the rows back into records as the other text
formats do, and a lookup names cells by place as a sheet's API does (``'Order Lines'!A7:F7``,
or ``Boats!R7C1:R7C6`` in R1C1 notation), answered with the rows' cells as stored.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, cast

from benchmarks.zoo.kit import Answer, State, Tool, ToolError, prop
from benchmarks.zoo.random_shapes.offer import Offer
from benchmarks.zoo.random_shapes.text_lines import TextStyle

if TYPE_CHECKING:
    from benchmarks.zoo.random_shapes.design import Design
    from benchmarks.zoo.random_shapes.reading import Reader
    from benchmarks.zoo.random_shapes.text_store import TextTable

SHARE = 0.65
"""Of the seeds that draw no other text (three in ten), so about two in ten in all."""
LABELS = ("title", "lower", "sentence")
ADDRESSES = ("a1", "a1", "r1c1")
BOOKS = (("valueRanges",), ("workbook", "valueRanges"), ("spreadsheet", "valueRanges"))
ROLES = ("primary", "secondary", "link")
SHORT = {"quantity": "Qty", "number": "No.", "amount": "Amt", "id": "ID", "url": "URL"}
"""Words a header writes short (in title case)."""
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_A1 = re.compile(r"(?:'((?:[^']|'')+)'|([^!']+))!\$?([A-Z]+)\$?(\d+):\$?([A-Z]+)\$?(\d+)")
_R1C1 = re.compile(r"(?:'((?:[^']|'')+)'|([^!']+))!R(\d+)C(\d+):R(\d+)C(\d+)")


def draw_header_rows(seed: int) -> TextStyle | None:
    """The book seed ``seed`` draws, if any (a generator of its own)."""
    rng = random.Random(f"{seed}/header-rows")
    drawn = rng.random() < SHARE
    labels, address, book = rng.choice(LABELS), rng.choice(ADDRESSES), rng.choice(BOOKS)
    style = TextStyle("sheets", True, "values", rng.choice(("", ".")), links=True)
    return replace(style, book=book, labels=labels, address=address) if drawn else None


def label(name: str, style: str) -> str:
    """A column's name as a header row spells it: ``unit_price`` → ``Unit Price``,
    ``unit price`` or ``Unit price``; ``boat_id`` → ``Boat ID``; a path's parts alike."""
    words = [w.lower() for w in _WORD.findall(name)] or [name]
    if style == "lower":
        return " ".join(words)
    if style == "sentence":
        return " ".join([words[0].title(), *words[1:]])
    return " ".join(SHORT.get(w, w.title()) for w in words)


def headers(names: list[str], style: str) -> list[str]:
    """The header row of ``names`` (a name whose label another already has stays as it is)."""
    found: list[str] = []
    for name in names:
        spelt = label(name, style)
        found.append(name if spelt in found else spelt)
    return found


def sheet_title(table: str) -> str:
    return " ".join(w.title() for w in _WORD.findall(table)) or table


def column(n: int) -> str:
    """The A1 letters of 0-based column ``n``."""
    letters = ""
    n += 1
    while n:
        n, left = divmod(n - 1, 26)
        letters = chr(ord("A") + left) + letters
    return letters


def _number(letters: str) -> int:
    n = 0
    for char in letters:
        n = n * 26 + ord(char) - ord("A") + 1
    return n - 1


def _quoted(title: str) -> str:
    return f"'{title}'" if " " in title else title


def address(style: TextStyle, title: str, first: int, last: int, width: int) -> str:
    """Rows ``first`` to ``last`` (1-based, the header row 1) of a sheet, every column."""
    if style.address == "r1c1":
        return f"{_quoted(title)}!R{first}C1:R{last}C{width}"
    return f"{_quoted(title)}!A{first}:{column(width - 1)}{last}"


def parse(text: str) -> tuple[str, int, int, int, int]:
    """A range's sheet, first and last row (1-based) and first and last column (0-based)."""
    if match := _A1.fullmatch(text.strip()):
        quoted, bare, c1, r1, c2, r2 = match.groups()
        left, right = _number(c1), _number(c2)
    elif match := _R1C1.fullmatch(text.strip()):
        quoted, bare, r1, n1, r2, n2 = match.groups()
        left, right = int(n1) - 1, int(n2) - 1
    else:
        raise ToolError(f"Unable to parse range: {text}")
    sheet = quoted.replace("''", "'") if quoted else bare
    return sheet, int(r1), int(r2), left, right


@dataclass(frozen=True)
class Lookup:
    """A column of ``VLOOKUP`` formulas: each row's value of column ``column`` looked up in
    the first column of sheet ``sheet``, answering its second column."""

    column: int
    sheet: str
    name: str

    def formula(self, row: int) -> str:
        return f"=VLOOKUP({column(self.column)}{row},{_quoted(self.sheet)}!A:B,2,FALSE)"


def shelve(design: Design) -> None:
    """Keep the tables the seed holds as text side by side in the book, in role order; the
    links' sheet, beside the parties', names each one's party by a formula looking it up."""
    style = design.formats.text
    if style is None or not style.book:
        return
    held = [role for role in ROLES if design.stores[role].text is not None]
    for n, role in enumerate(held):
        design.stores[role] = replace(design.stores[role], at=(*style.book, str(n)))
    # Shelved before composite keys are drawn (:mod:`.composite_keys`): its text is a table.
    link, party = cast("TextTable | None", design.stores["link"].text), design.domain.secondary
    key = (design.reference_key("secondary"),)
    if link is not None and "secondary" in held and key in link.paths:
        name = f"{party.singular}_{party.fields[0].name}"
        title = sheet_title(party.plural)
        lookup = Lookup(link.paths.index(key), title, name)
        design.stores["link"] = replace(design.stores["link"], text=replace(link, lookup=lookup))


def full_range(title: str, rows: int, width: int) -> str:
    return f"{_quoted(title)}!A1:{column(width - 1)}{rows}"


def rows_of(state: State, where: tuple[str, ...]) -> list[list[Any]]:
    box: Any = state
    for part in where:
        box = box[int(part)] if isinstance(box, list) else box[part]
    rows: list[list[Any]] = box["values"]
    return rows


_VLOOKUP = re.compile(r"=VLOOKUP\(([A-Z]+)\d+,(?:'((?:[^']|'')+)'|([^!']+))!A:B,2,FALSE\)")


def value(cell: Any, row: list[Any], sheets: dict[str, list[list[Any]]]) -> Any:
    """A cell as the sheet computes it (the API's default ``UNFORMATTED_VALUE``): a lookup
    formula's value is the second cell of the row its key starts in the other sheet."""
    match = _VLOOKUP.fullmatch(cell) if isinstance(cell, str) else None
    if match is None:
        return cell
    at, quoted, bare = match.groups()
    key = row[_number(at)] if _number(at) < len(row) else ""
    found = next((r for r in sheets.get(quoted or bare, [])[1:] if r and r[0] == key), None)
    return found[1] if found is not None and len(found) > 1 else "#N/A"


def range_offer(read: Reader) -> Offer | None:
    """A lookup of rows by their cells' address, answered with the cells as stored."""
    design = read.design
    style = design.formats.text
    roles = [r for r in ROLES if design.stores[r].text is not None]
    if style is None or not style.book or not roles:
        return None
    titles = {sheet_title(design.entity(r).plural): r for r in roles}
    arg = design.surface.arg("range")

    def run(state: State, args: dict[str, Any]) -> Answer:
        sheet, first, last, left, right = parse(args[arg])
        if sheet not in titles:
            raise ToolError(f"Unable to parse range: {args[arg]}")
        rows = rows_of(state, design.stores[titles[sheet]].where)
        sheets = {title: rows_of(state, design.stores[r].where) for title, r in titles.items()}
        cells = [
            [value(c, row, sheets) for c in row[left : right + 1]] for row in rows[first - 1 : last]
        ]
        answer: dict[str, Any] = {"range": args[arg], "majorDimension": "ROWS"}
        return (answer | {"values": cells} if cells else answer), []

    def plan(rng: random.Random, state: State) -> dict[str, Any]:
        title = rng.choice(sorted(titles))
        rows = rows_of(state, design.stores[titles[title]].where)
        first = rng.randint(2, len(rows))
        last = min(len(rows), first + rng.choice((0, 0, 0, 1, 2)))
        return {arg: address(style, title, first, last, len(rows[0]))}

    tool = Tool(
        design.surface.tool_name("get", "range"),
        f"The cells of a range of the workbook's sheets ({', '.join(sorted(titles))}), in "
        + ("R1C1 notation (Sheet!R2C1:R2C6)." if style.address == "r1c1" else "A1 notation."),
        {arg: prop("string", "The range, with its sheet's name.")},
        run,
        (arg,),
    )
    return Offer("lookup", tool, plan, "range")

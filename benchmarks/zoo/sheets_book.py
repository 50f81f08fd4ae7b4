"""The ``sheets`` shape's data: a wholesaler's order book in Google Sheets, as the Sheets API
serves it: ``spreadsheets.get`` (the sheets' properties, no grid data) and one
``spreadsheets.values.batchGet`` of every sheet with ``valueRenderOption=FORMULA``: rows as
arrays under A1 ranges, the header row the only field names, formula cells as their formulas
(``=VLOOKUP(C2,Customers!A:B,2,FALSE)``, ``=F2*G2``), which only the service evaluates."""

from __future__ import annotations

import random
import re
from typing import Any

from benchmarks.zoo.kit import CITIES, LAST, WORDS, State, ToolError, fill, person, size_of

SPREADSHEET_ID = "1qW8fXc2Lr0Vb7aKdP3sN5tYh9JmE4uGz6oRiC1wTxQk"
ORDERS = ["Order ID", "Order Date", "Customer ID", "Customer", "SKU", "Qty", "Unit Price"]
ORDERS += ["Total", "Status", "Region"]
CUSTOMERS = ["Customer ID", "Company", "Contact", "Email", "City", "Tier"]
PRODUCTS = ["SKU", "Product", "Category", "Unit Price", "Stock"]
HEADERS = {"Orders": ORDERS, "Customers": CUSTOMERS, "Products": PRODUCTS}
STATUSES = ["Quoted", "Confirmed", "Shipped", "Delivered", "Cancelled"]
REGIONS = ["North", "South", "East", "West", "Scotland", "Wales"]
CATEGORIES = ["Tea", "Coffee", "Biscuits", "Preserves", "Tableware", "Hampers"]
TIERS = ["Gold", "Silver", "Bronze"]
FILES = [
    "Northwind Wholesale — Order Book 2025",
    "Northwind Wholesale — Price List 2025",
    "Supplier contacts",
    "Warehouse stock take Q3",
]

Cell = str | int | float


def letter(column: int) -> str:
    """The A1 letter of a 0-based column (``0`` → ``A``)."""
    return chr(ord("A") + column)


def column_of(name: str) -> int:
    return ord(name) - ord("A")


def grid(state: State, sheet: str) -> list[list[Cell]]:
    """A sheet's rows (the header first) as the batchGet holds them."""
    for value_range in state["values"]["valueRanges"]:
        if value_range["range"].split("!")[0] == sheet:
            rows: list[list[Cell]] = value_range["values"]
            return rows
    raise ToolError(f"Unable to parse range: {sheet}")


def range_index(state: State, sheet: str) -> int:
    ranges = state["values"]["valueRanges"]
    return next(n for n, r in enumerate(ranges) if r["range"].split("!")[0] == sheet)


def full_range(sheet: str, rows: int) -> str:
    return f"{sheet}!A1:{letter(len(HEADERS[sheet]) - 1)}{rows}"


def _customer(rng: random.Random, n: int) -> list[Cell]:
    first, last = person(rng)
    company = f"{rng.choice(LAST)} & {rng.choice(LAST)} {rng.choice(['Ltd', 'Stores', 'Deli'])}"
    email = f"{first.lower()}.{last.lower()}@{company.split()[0].lower()}{n}.co.uk"
    return [f"C-{n:04d}", company, f"{first} {last}", email, rng.choice(CITIES), rng.choice(TIERS)]


def _product(rng: random.Random, n: int) -> list[Cell]:
    category = rng.choice(CATEGORIES)
    name = f"{rng.choice(WORDS).title()} {category.rstrip('s')} {rng.choice(['250g', '1kg', 'x6'])}"
    price = round(rng.uniform(2, 80), 2)
    return [f"SKU-{n:04d}", name, category, price, rng.randint(0, 900)]


def order_row(n: int, row: int, day: str, customer: str, sku: str, qty: int) -> list[Cell]:
    """An order's row at sheet row ``row``, its looked-up cells as formulas."""
    return [
        f"SO-{n:05d}",
        day,
        customer,
        f"=VLOOKUP(C{row},Customers!A:B,2,FALSE)",
        sku,
        qty,
        f"=VLOOKUP(E{row},Products!A:D,4,FALSE)",
        f"=F{row}*G{row}",
    ]


def book(rng: random.Random, target_bytes: int) -> State:
    customers: list[list[Cell]] = [list(CUSTOMERS)]
    customers += [_customer(rng, n) for n in range(1, max(20, target_bytes // 9000))]
    products: list[list[Cell]] = [list(PRODUCTS)]
    products += [_product(rng, n) for n in range(1, max(15, target_bytes // 13000))]
    orders: list[list[Cell]] = [list(ORDERS)]

    def add() -> None:
        row = len(orders) + 1
        day = f"2025-{rng.randint(1, 11):02d}-{rng.randint(1, 28):02d}"
        customer = str(rng.choice(customers[1:])[0])
        sku = str(rng.choice(products[1:])[0])
        cells = order_row(len(orders) + 10000, row, day, customer, sku, rng.randint(1, 60))
        orders.append([*cells, rng.choice(STATUSES), rng.choice(REGIONS)])

    state: State = {"spreadsheet": {}, "values": {}, "drive": {}}
    ranges: list[tuple[str, list[list[Cell]]]] = [
        ("Orders", orders),
        ("Customers", customers),
        ("Products", products),
    ]
    state["values"] = {
        "spreadsheetId": SPREADSHEET_ID,
        "valueRanges": [
            {"range": full_range(name, 1), "majorDimension": "ROWS", "values": rows}
            for name, rows in ranges
        ],
    }
    fill(add, lambda: size_of(state), target_bytes)
    for value_range, (name, rows) in zip(state["values"]["valueRanges"], ranges, strict=True):
        value_range["range"] = full_range(name, len(rows))
    state["spreadsheet"] = _properties([(name, len(rows)) for name, rows in ranges])
    state["drive"] = _drive(rng)
    return state


def _properties(sheets: list[tuple[str, int]]) -> dict[str, Any]:
    """``spreadsheets.get`` without grid data: a grid a thousand rows past the last row."""
    return {
        "spreadsheetId": SPREADSHEET_ID,
        "properties": {
            "title": FILES[0],
            "locale": "en_GB",
            "autoRecalc": "ON_CHANGE",
            "timeZone": "Europe/London",
        },
        "sheets": [
            {
                "properties": {
                    "sheetId": n * 1_000_003,
                    "title": name,
                    "index": n,
                    "sheetType": "GRID",
                    "gridProperties": {
                        "rowCount": (rows // 1000 + 2) * 1000,
                        "columnCount": 26,
                        "frozenRowCount": 1,
                    },
                }
            }
            for n, (name, rows) in enumerate(sheets)
        ],
        "spreadsheetUrl": f"https://docs.google.com/spreadsheets/d/{SPREADSHEET_ID}/edit",
    }


def _drive(rng: random.Random) -> dict[str, Any]:
    """The team folder as Drive's ``files.list`` answers it."""
    ids = [SPREADSHEET_ID] + [
        "".join(
            rng.choice("abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ0123456789")
            for _ in range(44)
        )
        for _ in FILES[1:]
    ]
    files = [
        {
            "kind": "drive#file",
            "mimeType": "application/vnd.google-apps.spreadsheet",
            "id": file_id,
            "name": name,
        }
        for file_id, name in zip(ids, FILES, strict=True)
    ]
    return {"kind": "drive#fileList", "incompleteSearch": False, "files": files}


_VLOOKUP = re.compile(r"=VLOOKUP\(([A-Z])(\d+),(\w+)!A:([A-Z]),(\d+),FALSE\)")
_PRODUCT = re.compile(r"=([A-Z])(\d+)\*([A-Z])(\d+)")


class Evaluator:
    """A sheet's cells as the service computes them (``UNFORMATTED_VALUE``): the two formulas
    the book uses, looked up in indexes of the other sheets' first columns."""

    def __init__(self, state: State) -> None:
        self.state = state
        self._keys: dict[str, dict[Cell, list[Cell]]] = {}

    def _index(self, sheet: str) -> dict[Cell, list[Cell]]:
        if sheet not in self._keys:
            rows = grid(self.state, sheet)
            self._keys[sheet] = {row[0]: row for row in reversed(rows[1:]) if row}
        return self._keys[sheet]

    def cell(self, rows: list[list[Cell]], row: int, column: int) -> Cell:
        """The value of the cell at 0-based ``row`` and ``column`` of ``rows``."""
        cells = rows[row]
        value = cells[column] if column < len(cells) else ""
        if not isinstance(value, str) or not value.startswith("="):
            return value
        if match := _VLOOKUP.fullmatch(value):
            col, at, sheet, _, index = match.groups()
            key = self.cell(rows, int(at) - 1, column_of(col))
            found = self._index(sheet).get(key)
            return "#N/A" if found is None else found[int(index) - 1]
        if match := _PRODUCT.fullmatch(value):
            a, ra, b, rb = match.groups()
            left = self.cell(rows, int(ra) - 1, column_of(a))
            right = self.cell(rows, int(rb) - 1, column_of(b))
            if isinstance(left, int | float) and isinstance(right, int | float):
                return round(left * right, 2)
            return "#VALUE!"
        return "#ERROR!"

    def row(self, rows: list[list[Cell]], row: int) -> list[Cell]:
        return [self.cell(rows, row, c) for c in range(len(rows[row]))]

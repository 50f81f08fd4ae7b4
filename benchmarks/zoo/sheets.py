"""``sheets``: a wholesaler's order book in Google Sheets, as the Sheets API serves it: three
sheets (Orders, Customers, Products) held as one ``values.batchGet`` with
``valueRenderOption=FORMULA``, rows as arrays under A1 ranges, the header row the only field
names, an order's customer name, unit price and total as formulas (``VLOOKUP`` into the other
sheets, ``=F2*G2``) that only the service evaluates. Tools are the API's ``values.get`` (computed
or formula values), the Visualization API's query language (``select ... where ... group by``,
its answer a ``table`` of ``cols`` and ``rows`` of ``{"v": ...}`` cells), ``values.update``,
``values.append`` and Drive's ``files.list``."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.kit import Answer, Planned, State, Tool, ToolError, note_tool, pointer, prop
from benchmarks.zoo.shape import Shape
from benchmarks.zoo.sheets_book import (
    HEADERS,
    REGIONS,
    SPREADSHEET_ID,
    STATUSES,
    Cell,
    Evaluator,
    book,
    full_range,
    grid,
    letter,
    order_row,
    range_index,
)
from benchmarks.zoo.sheets_query import parse_range, run_query, values_of

ID = {"spreadsheetId": prop("string", f"The spreadsheet's id ({SPREADSHEET_ID}).")}
RENDER = ["UNFORMATTED_VALUE", "FORMULA"]
LAYOUT = (
    "Orders: A Order ID, B Order Date, C Customer ID, D Customer, E SKU, F Qty, G Unit Price, "
    "H Total, I Status, J Region. Customers: A Customer ID, B Company, C Contact, D Email, "
    "E City, F Tier. Products: A SKU, B Product, C Category, D Unit Price, E Stock."
)
GVIZ = {
    "type": "object",
    "properties": {
        "status": {"enum": ["ok", "error"]},
        "table": {
            "type": "object",
            "properties": {
                "cols": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"type": {"enum": ["string", "number", "date", "boolean"]}},
                    },
                }
            },
        },
    },
}
"""The data source's answer, as the Visualization API types it."""


class Sheets(Shape):
    name = "sheets"
    title = "Sales assistant over a Google Sheets order book"
    description = (
        "Northwind Wholesale's 2025 order book, a Google Sheets spreadsheet of three sheets. "
        f"{LAYOUT} Answers are the Sheets API's and the Visualization API's JSON; dates are "
        "text YYYY-MM-DD; prices in GBP; errors are text starting with 'Error:'."
    )
    note = ("note_to_self", "text")

    def build(self, rng: random.Random, target_bytes: int) -> State:
        return book(rng, target_bytes)

    def tools(self) -> list[Tool]:
        values = {"values": prop("array", "Rows of cells.", items={"type": "array"})}
        entered = {"valueInputOption": prop("string", "", enum=["RAW", "USER_ENTERED"])}
        return [
            Tool(
                "spreadsheets_values_get",
                f"spreadsheets.values.get of an A1 range. {LAYOUT}",
                ID
                | {
                    "range": prop("string", "A1 range, e.g. Orders!A2:J2."),
                    "valueRenderOption": prop("string", "Default UNFORMATTED_VALUE.", enum=RENDER),
                },
                self._get,
                ("spreadsheetId", "range"),
            ),
            Tool(
                "gviz_query",
                "The sheet's Visualization API data source (/gviz/tq) with a query in the "
                "Google Visualization query language over columns A, B, C, D, E, F, G, H, I, J "
                "(select, where with = != > < >= <= contains, starts with, and; group by with "
                "count sum avg min max; order by; limit).",
                ID | {"sheet": prop("string", "Sheet name."), "tq": prop("string", "The query.")},
                self._query,
                ("spreadsheetId", "sheet", "tq"),
                output=GVIZ,
            ),
            Tool(
                "spreadsheets_values_update",
                "spreadsheets.values.update: set the cells of a range.",
                ID | {"range": prop("string", "A1 range.")} | values | entered,
                self._update,
                ("spreadsheetId", "range", "values", "valueInputOption"),
                effect="write",
            ),
            Tool(
                "spreadsheets_values_append",
                "spreadsheets.values.append: add rows after a sheet's table.",
                ID | {"range": prop("string", "The table, e.g. Orders!A1.")} | values | entered,
                self._append,
                ("spreadsheetId", "range", "values", "valueInputOption"),
                effect="write",
            ),
            Tool(
                "drive_files_list",
                "Drive files.list of the team folder; q like name contains 'Price'.",
                {"q": prop("string", "Drive query.")},
                self._files,
                ("q",),
            ),
            note_tool("note_to_self", "text", "Keep a note (answers nothing)."),
        ]

    def _check(self, args: dict[str, Any]) -> None:
        if args["spreadsheetId"] != SPREADSHEET_ID:
            raise ToolError("Requested entity was not found.")

    def _get(self, state: State, args: dict[str, Any]) -> Answer:
        self._check(args)
        sheet, first, last, left, right = parse_range(args["range"])
        formulas = args.get("valueRenderOption") == "FORMULA"
        evaluator = None if formulas else Evaluator(state)
        found = values_of(grid(state, sheet), evaluator, (first, last, left, right))
        answer: dict[str, Any] = {"range": args["range"], "majorDimension": "ROWS"}
        return (answer | {"values": found} if found else answer), []

    def _query(self, state: State, args: dict[str, Any]) -> Answer:
        self._check(args)
        if args["sheet"] not in HEADERS:
            raise ToolError(f"Invalid query: NO_SHEET: {args['sheet']}")
        rows = grid(state, args["sheet"])
        return run_query(rows, Evaluator(state), args["sheet"], args["tq"]), []

    def _update(self, state: State, args: dict[str, Any]) -> Answer:
        self._check(args)
        sheet, first, _, left, _ = parse_range(args["range"])
        rows, at = grid(state, sheet), range_index(state, sheet)
        patch = []
        for r, cells in enumerate(args["values"]):
            for c, value in enumerate(cells):
                row, column = first + r, left + c
                if row >= len(rows) or column > len(rows[row]):
                    raise ToolError("Updates beyond the table are not supported here.")
                op = "replace" if column < len(rows[row]) else "add"
                path = pointer("values", "valueRanges", at, "values", row, column)
                patch.append({"op": op, "path": path, "value": value})
        width = max(len(cells) for cells in args["values"])
        start, last = (
            f"{letter(left)}{first + 1}",
            f"{letter(left + width - 1)}{first + len(args['values'])}",
        )
        return {
            "spreadsheetId": SPREADSHEET_ID,
            # A single cell is named alone (``Products!D7``), as the API answers it.
            "updatedRange": f"{sheet}!{start}" + ("" if last == start else f":{last}"),
            "updatedRows": len(args["values"]),
            "updatedColumns": width,
            "updatedCells": sum(len(cells) for cells in args["values"]),
        }, patch

    def _append(self, state: State, args: dict[str, Any]) -> Answer:
        self._check(args)
        sheet = parse_range(args["range"])[0]
        rows, at = grid(state, sheet), range_index(state, sheet)
        added = args["values"]
        width = max(len(cells) for cells in added)
        patch = [
            {"op": "add", "path": pointer("values", "valueRanges", at, "values", len(rows) + n)}
            | {"value": cells}
            for n, cells in enumerate(added)
        ]
        grown = full_range(sheet, len(rows) + len(added))
        patch.append({"op": "replace", "path": pointer("values", "valueRanges", at, "range")})
        patch[-1]["value"] = grown
        first, last = len(rows) + 1, len(rows) + len(added)
        return {
            "spreadsheetId": SPREADSHEET_ID,
            "tableRange": full_range(sheet, len(rows)),
            "updates": {
                "spreadsheetId": SPREADSHEET_ID,
                "updatedRange": f"{sheet}!A{first}:{letter(width - 1)}{last}",
                "updatedRows": len(added),
                "updatedColumns": width,
                "updatedCells": sum(len(cells) for cells in added),
            },
        }, patch

    def _files(self, state: State, args: dict[str, Any]) -> Answer:
        words = args["q"].split("name contains ", 1)[-1].strip("'\" ")
        files = [f for f in state["drive"]["files"] if words.lower() in f["name"].lower()]
        return {"kind": "drive#fileList", "incompleteSearch": False, "files": files}, []

    def _get_call(self, kind: str, range_: str, render: str) -> Planned:
        args = {"spreadsheetId": SPREADSHEET_ID, "range": range_, "valueRenderOption": render}
        return Planned(kind, "spreadsheets_values_get", args)

    def _query_call(self, kind: str, tq: str) -> Planned:
        args = {"spreadsheetId": SPREADSHEET_ID, "sheet": "Orders", "tq": tq}
        return Planned(kind, "gviz_query", args)

    def lookup(self, rng: random.Random, state: State) -> Planned:
        sheet = rng.choice(["Customers", "Customers", "Products", "Orders"])
        row = rng.randint(2, len(grid(state, sheet)))
        last = letter(len(HEADERS[sheet]) - 1)
        render = "FORMULA" if sheet == "Orders" else "UNFORMATTED_VALUE"
        return self._get_call("lookup", f"{sheet}!A{row}:{last}{row}", render)

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        sheet, cell = rng.choice([("Customers", "D"), ("Customers", "C"), ("Products", "E")])
        row = rng.randint(2, len(grid(state, sheet)))
        if rng.random() < 0.4:
            return self._get_call("nested_lookup", f"{sheet}!B{row}:{cell}{row}", RENDER[0])
        return self._get_call("nested_lookup", f"{sheet}!{cell}{row}", RENDER[0])

    def search(self, rng: random.Random, state: State) -> Planned:
        rows = grid(state, "Orders")
        row = Evaluator(state).row(rows, rng.randint(1, len(rows) - 1))
        choices = [
            f"I = '{row[8]}'",
            f"J = '{row[9]}'",
            f"F >= {max(1, int(row[5]) - rng.randint(0, 5))}",
            f"B >= '{str(row[1])[:8]}01'",
            f"B <= '{row[1]}'",
            f"D = '{row[3]}'",
            f"E = '{row[4]}'",
            f"D contains '{str(row[3]).split()[0]}'",
        ]
        where = " and ".join(rng.sample(choices, rng.randint(1, 4)))
        order = rng.choice(["", " order by B desc", " order by F asc"])
        return self._query_call("search", f"select A,B,C,D,E,F,I,J where {where}{order} limit 20")

    def join(self, rng: random.Random, state: State) -> Planned:
        rows = grid(state, "Orders")
        if rng.random() < 0.5:
            first = rng.randint(2, len(rows) - 4)
            last = first + rng.randint(0, 3)
            return self._get_call("join", f"Orders!A{first}:J{last}", RENDER[0])
        row = Evaluator(state).row(rows, rng.randint(1, len(rows) - 1))
        tq = f"select A,B,D,E,G,H,I where D = '{row[3]}' order by B asc limit 20"
        return self._query_call("join", tq)

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        by = rng.choice(["I", "J", "E", "D"])
        measures = rng.sample(["count(A)", "sum(F)", "sum(H)", "max(H)", "avg(G)"], 2)
        where = rng.choice(
            [
                "",
                f" where I = '{rng.choice(STATUSES)}'",
                f" where B >= '2025-{rng.randint(1, 10):02d}-01'",
                f" where J = '{rng.choice(REGIONS)}'",
            ]
        )
        if by == "D":  # per customer, within one region: a long answer otherwise
            where = f" where J = '{rng.choice(REGIONS)}' and I = '{rng.choice(STATUSES)}'"
        tq = f"select {by}, {', '.join(measures)}{where} group by {by}"
        return self._query_call("aggregate", tq)

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        choice = rng.random()
        base = {"spreadsheetId": SPREADSHEET_ID, "valueInputOption": "USER_ENTERED"}
        if choice < 0.35:
            row = rng.randint(2, len(grid(state, "Products")))
            price = round(rng.uniform(2, 80), 2)
            args = base | {"range": f"Products!D{row}", "values": [[price]]}
            read = self._get_call("read_after_write", f"Products!A{row}:E{row}", RENDER[0])
            return Planned("write", "spreadsheets_values_update", args), read
        orders = grid(state, "Orders")
        if choice < 0.7:
            row = rng.randint(2, len(orders))
            args = base | {"range": f"Orders!I{row}", "values": [[rng.choice(STATUSES)]]}
            read = self._get_call("read_after_write", f"Orders!A{row}:J{row}", "FORMULA")
            return Planned("write", "spreadsheets_values_update", args), read
        row = len(orders) + 1
        customer = str(rng.choice(grid(state, "Customers")[1:])[0])
        sku = str(rng.choice(grid(state, "Products")[1:])[0])
        day = f"2025-11-{rng.randint(1, 30):02d}"
        cells: list[Cell] = order_row(row + 20000, row, day, customer, sku, rng.randint(1, 40))
        cells += ["Quoted", rng.choice(REGIONS)]
        args = base | {"range": "Orders!A1", "values": [cells]}
        read = self._get_call("read_after_write", f"Orders!A{row}:J{row}", "FORMULA")
        return Planned("write", "spreadsheets_values_append", args), read

    def no_match(self, rng: random.Random, state: State) -> Planned:
        year = rng.choice(["2019", "2020", "Budget 2026"])
        return Planned("empty", "drive_files_list", {"q": f"name contains '{year}'"})

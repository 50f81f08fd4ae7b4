"""Rows named by a spreadsheet address: ``Orders!A9:J12`` is rows 9 to 12 of the sheet
``Orders``.

A spreadsheet's tools name cells by place, not by any value the cells hold: ``Customers!D145``
(A1 notation, ``$`` anchors and a quoted ``'Order Lines'!`` sheet alike), ``Sheet1!R2C1:R4C5``
(R1C1), ``Orders!9:12`` (whole rows). No field holds the address, so neither the key index
nor a search finds the rows; a search for it as text finds every formula that names the sheet.
A table kept as rows under a header row (see :mod:`mcp_sim.runtime.state_tables`) is the
sheet the address names when its name is the table's own key (``{"Orders": [[header], ...]}``)
or a text beside it in the object holding it: a name (``"title": "Orders"``) or a range whose
sheet it is (the Sheets API's ``{"range": "Orders!A1:J500", "values": [...]}``), the range's
first row being the header's row. An address without a sheet names the only such table. Row
``r`` is then the record ``r - first`` rows below the header.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from jsonpointer import unescape

from mcp_sim.runtime.state_index import StateOverlay
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_tables import ROW_KEYS

MOST_ROWS = 40
"""Rows of one address shown at most: a longer range reads a table, which a search shows."""
_MOST_NAME = 100
_ROW = r"\$?[A-Z]{1,3}\$?(\d+)|R(\d+)C\d+|(\d+)"
_ADDRESS = re.compile(
    rf"(?:(?:'(?P<quoted>(?:[^']|'')+)'|(?P<sheet>[^!'\s:][^!']*))!)?"
    rf"(?:{_ROW})(?::(?:{_ROW}))?"
)


@dataclass(frozen=True)
class Address:
    sheet: str | None
    first: int
    last: int


def address_of(text: str) -> Address | None:
    """The sheet and rows ``text`` names, if it is a cell address: with a sheet's name, or
    a range of two cells (a bare ``AB12`` is as likely an id)."""
    match = _ADDRESS.fullmatch(text.strip())
    if match is None:
        return None
    rows = [int(r) for r in match.groups()[2:] if r is not None]
    sheet = match["quoted"].replace("''", "'") if match["quoted"] else match["sheet"]
    whole_rows = match.group(5) is not None  # ``9:12`` alone is a time
    if (sheet is None and (len(rows) < 2 or whole_rows)) or not all(rows):
        return None
    return Address(sheet, rows[0], rows[-1])


@dataclass(frozen=True)
class Sheet:
    rows: str
    """Where the table's rows are (its header the first)."""
    names: tuple[str, ...]
    first: int
    """The header's row number."""


def sheets_of(overlay: StateOverlay, state: Any) -> list[Sheet]:
    """The tables kept as rows under a header row, with the names a sheet address calls them."""
    found = []
    for collection in overlay.base.collections:
        if collection.table is None or collection.table.first != 1:
            continue
        parent, _, key = collection.pointer.rpartition("/")
        names, first = [], 1
        if not key.isdigit() and key not in ROW_KEYS:
            names.append(unescape(key))
        holder = resolve(state, parent)
        for value in holder.values() if isinstance(holder, dict) else ():
            if not isinstance(value, str) or len(value) > _MOST_NAME:
                continue
            address = address_of(value) if "!" in value else None
            if address is not None and address.sheet is not None:
                names.append(address.sheet)
                first = address.first
            elif value.strip():
                names.append(value.strip())
        holder_key = parent.rpartition("/")[2]
        if holder_key and not holder_key.isdigit():
            names.append(unescape(holder_key))
        found.append(Sheet(collection.pointer, tuple(n.casefold() for n in names), first))
    return found


def addressed_rows(
    overlay: StateOverlay, state: Any, arguments: dict[str, Any]
) -> dict[str, dict[str, str]]:
    """Argument name → the rows its address names (pointer → ``""``: the whole row); only
    the arguments that name some."""
    addresses = {
        name: address
        for name, value in arguments.items()
        if isinstance(value, str) and (address := address_of(value)) is not None
    }
    if not addresses:
        return {}
    sheets = sheets_of(overlay, state)
    found: dict[str, dict[str, str]] = {}
    for name, address in addresses.items():
        sheet = _sheet_named(sheets, address.sheet)
        if sheet is None:
            continue
        rows: dict[str, str] = {}
        for row in range(address.first, min(address.last, address.first + MOST_ROWS - 1) + 1):
            pointer = f"{sheet.rows}/{row - sheet.first}"
            if row > sheet.first and overlay.exists(pointer):
                rows[pointer] = ""
        if rows:
            found[name] = rows
    return found


def _sheet_named(sheets: list[Sheet], name: str | None) -> Sheet | None:
    if name is None:
        return sheets[0] if len(sheets) == 1 else None
    wanted = name.strip().casefold()
    return next((s for s in sheets if wanted in s.names), None)

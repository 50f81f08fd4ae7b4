"""``inventory``: compound keys: stock levels keyed by warehouse, then SKU (``stock[wh][sku]``),
a catalog keyed by SKU without the SKU as a field, warehouses in an array, and a movements
journal; sums over the compound key."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.kit import (
    CITIES,
    WORDS,
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
    pointer,
    prop,
    size_of,
    summary,
    words,
)
from benchmarks.zoo.shape import Shape

TODAY = "2026-02-01"
CATEGORIES = ["fasteners", "hand-tools", "power-tools", "paint", "plumbing", "electrical"]


def _catalog(state: State) -> list[tuple[str, dict[str, Any]]]:
    return list(state["catalog"].items())


class Inventory(Shape):
    name = "inventory"
    title = "Wholesale inventory"
    description = (
        "A builders' merchant's stock system: a catalog of SKUs, warehouses, stock per "
        "warehouse and SKU, and the journal of stock movements. JSON answers; errors are "
        "text starting with 'Error:'."
    )
    note = ("scratchpad", "entry")

    def __init__(self) -> None:
        self.finder = Search(
            "find_items",
            "Catalog items by category, unit cost range, name prefix or weight.",
            _catalog,
            [
                Filter("category", "category", "eq", prop("string", "Category.", enum=CATEGORIES)),
                Filter("max_cost", "unit_cost", "le", prop("number", "Highest unit cost.")),
                Filter("min_cost", "unit_cost", "ge", prop("number", "Lowest unit cost.")),
                Filter("name_prefix", "name", "prefix", prop("string", "Start of the name.")),
                Filter("min_weight_kg", "weight_kg", "ge", prop("number", "Lightest, kg.")),
                Filter("supplier", "supplier.name", "eq", prop("string", "Supplier name.")),
            ],
            lambda sku, item: {"sku": sku, "name": item["name"], "unit_cost": item["unit_cost"]},
            limit=25,
        )

    def build(self, rng: random.Random, target_bytes: int) -> State:
        warehouses = [
            {
                "code": f"{city[:3].upper()}{n}",
                "city": city,
                "region": rng.choice(["north", "south", "east", "west"]),
            }
            for n, city in enumerate(CITIES[:10], start=1)
        ]
        suppliers = [f"{w.title()} Supply" for w in WORDS[:12]]
        state: State = {
            "warehouses": warehouses,
            "catalog": {},
            "stock": {w["code"]: {} for w in warehouses},
            "movements": [],
        }

        def item() -> None:
            sku = f"{rng.choice('ABCDEFGH')}{len(state['catalog']) + 10000}-{rng.randint(10, 99)}"
            state["catalog"][sku] = {
                "name": f"{words(rng, 1).title()} {rng.choice(['bolt', 'saw', 'drill', 'primer', 'valve', 'cable'])} {rng.randint(1, 50)}",
                "category": rng.choice(CATEGORIES),
                "unit_cost": round(rng.uniform(0.2, 400), 2),
                "weight_kg": round(rng.uniform(0.01, 30), 3),
                "supplier": {"name": rng.choice(suppliers), "lead_days": rng.randint(2, 40)},
            }
            for wh in rng.sample(warehouses, rng.randint(1, 5)):
                state["stock"][wh["code"]][sku] = {
                    "on_hand": rng.randint(0, 900),
                    "reserved": rng.randint(0, 40),
                    "bin": f"{rng.choice('ABCDEF')}-{rng.randint(1, 30):02d}-{rng.randint(1, 8)}",
                    "counted": day(rng, 2025),
                }
            if rng.random() < 0.5:
                state["movements"].append(
                    {
                        "seq": len(state["movements"]) + 1,
                        "sku": sku,
                        "warehouse": wh["code"],
                        "qty": rng.randint(-50, 200),
                        "on": day(rng, 2025),
                    }
                )

        fill(item, lambda: size_of(state), target_bytes)
        return state

    def tools(self) -> list[Tool]:
        sku = {"sku": prop("string", "Stock-keeping unit, e.g. C10234-55.")}
        wh = {"warehouse": prop("string", "Warehouse code, e.g. ALD1.")}
        return [
            Tool("item_info", "A catalog item.", sku, self._item, ("sku",)),
            Tool(
                "stock_level",
                "Stock of an item in a warehouse.",
                wh | sku,
                self._level,
                ("warehouse", "sku"),
            ),
            self.finder.tool(),
            Tool(
                "where_stocked",
                "The warehouses holding an item, with their stock of it.",
                sku,
                self._where,
                ("sku",),
            ),
            Tool(
                "stock_totals",
                "Totals of an item over all warehouses: on hand, reserved, warehouses holding it.",
                sku,
                self._totals,
                ("sku",),
            ),
            Tool(
                "transfer_stock",
                "Move a quantity of an item from one warehouse to another.",
                sku
                | {
                    "from_warehouse": prop("string", "Code."),
                    "to_warehouse": prop("string", "Code."),
                    "qty": prop("integer", "Units."),
                },
                self._transfer,
                ("sku", "from_warehouse", "to_warehouse", "qty"),
                effect="write",
            ),
            note_tool("scratchpad", "entry", "Write to the scratchpad (answers nothing)."),
        ]

    def _item(self, state: State, args: dict[str, Any]) -> Answer:
        found = state["catalog"].get(args["sku"])
        if found is None:
            raise ToolError("unknown sku")
        return {"sku": args["sku"], **found}, []

    def _level(self, state: State, args: dict[str, Any]) -> Answer:
        found = state["stock"].get(args["warehouse"], {}).get(args["sku"])
        if found is None:
            raise ToolError("not stocked there")
        return {"warehouse": args["warehouse"], "sku": args["sku"], **found}, []

    def _where(self, state: State, args: dict[str, Any]) -> Answer:
        return [
            {**wh, "on_hand": level["on_hand"], "bin": level["bin"]}
            for wh in state["warehouses"]
            if (level := state["stock"][wh["code"]].get(args["sku"]))
        ], []

    def _totals(self, state: State, args: dict[str, Any]) -> Answer:
        levels = [s[args["sku"]] for s in state["stock"].values() if args["sku"] in s]
        return {
            "sku": args["sku"],
            "on_hand": summary("sum", [lv["on_hand"] for lv in levels]),
            "reserved": summary("sum", [lv["reserved"] for lv in levels]),
            "warehouses": len(levels),
        }, []

    def _transfer(self, state: State, args: dict[str, Any]) -> Answer:
        sku, qty, to = args["sku"], args["qty"], args["to_warehouse"]
        source = self._level(state, {"warehouse": args["from_warehouse"], "sku": sku})[0]
        if source["on_hand"] < qty:
            raise ToolError("not enough stock")
        left = source["on_hand"] - qty
        at_source = pointer("stock", args["from_warehouse"], sku, "on_hand")
        patch: list[dict[str, Any]] = [{"op": "replace", "path": at_source, "value": left}]
        target = state["stock"][to].get(sku)
        if target is None:
            target = {"on_hand": qty, "reserved": 0, "bin": "R-00-1", "counted": None}
            patch.append({"op": "add", "path": pointer("stock", to, sku), "value": target})
        else:
            target = {**target, "on_hand": target["on_hand"] + qty}
            at_target = pointer("stock", to, sku, "on_hand")
            patch.append({"op": "replace", "path": at_target, "value": target["on_hand"]})
        seq = len(state["movements"]) + 1
        for n, (warehouse, moved) in enumerate(((args["from_warehouse"], -qty), (to, qty))):
            movement = {"seq": seq + n, "sku": sku, "warehouse": warehouse, "qty": moved}
            patch.append({"op": "add", "path": "/movements/-", "value": movement | {"on": TODAY}})
        answer = {"moved": qty, "from_on_hand": left, "to_on_hand": target["on_hand"]}
        return answer | {"movement": seq}, patch

    def _stocked(self, rng: random.Random, state: State) -> tuple[str, str]:
        wh = rng.choice(state["warehouses"])["code"]
        return wh, rng.choice(sorted(state["stock"][wh]))

    def lookup(self, rng: random.Random, state: State) -> Planned:
        return Planned("lookup", "item_info", {"sku": rng.choice(sorted(state["catalog"]))})

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        wh, sku = self._stocked(rng, state)
        return Planned("nested_lookup", "stock_level", {"warehouse": wh, "sku": sku})

    def search(self, rng: random.Random, state: State) -> Planned:
        return Planned("search", "find_items", self.finder.plan(rng, state))

    def join(self, rng: random.Random, state: State) -> Planned:
        return Planned("join", "where_stocked", {"sku": self._stocked(rng, state)[1]})

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        return Planned("aggregate", "stock_totals", {"sku": self._stocked(rng, state)[1]})

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        while True:
            wh, sku = self._stocked(rng, state)
            if state["stock"][wh][sku]["on_hand"] > 0:
                break
        to = rng.choice([w["code"] for w in state["warehouses"] if w["code"] != wh])
        qty = rng.randint(1, state["stock"][wh][sku]["on_hand"])
        args = {"sku": sku, "from_warehouse": wh, "to_warehouse": to, "qty": qty}
        return Planned("write", "transfer_stock", args), Planned(
            "read_after_write", "stock_level", {"warehouse": to, "sku": sku}
        )

    def no_match(self, rng: random.Random, state: State) -> Planned:
        return Planned(
            "empty", "find_items", {"category": rng.choice(CATEGORIES), "max_cost": 0.01}
        )

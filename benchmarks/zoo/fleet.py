"""``fleet``: records in objects keyed by id with the id also a field (camelCase, nested
``meta``), a service log per vehicle looked up by (vehicle, date), depots linked to drivers
through vehicles."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.kit import (
    CITIES,
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

MAKES = {"Volvo": ["FH16", "FM", "FL"], "Scania": ["R450", "P280"], "MAN": ["TGX", "TGL"]}
MAKES |= {"Iveco": ["Daily", "S-Way"], "Ford": ["Transit", "Ranger"], "Renault": ["Master"]}
FUELS = ["diesel", "electric", "hvo", "lng"]
TAGS = ["refrigerated", "tail-lift", "adr", "crane", "city", "long-haul"]
WORK = ["oil change", "brake pads", "tyres", "inspection", "battery", "gearbox"]


def _vehicles(state: State) -> list[tuple[str, dict[str, Any]]]:
    return list(state["vehicles"].items())


class Fleet(Shape):
    name = "fleet"
    title = "Haulage fleet management"
    description = (
        "A haulage company's fleet system: vehicles with their service logs, depots and "
        "drivers. Answers are JSON objects; errors are text starting with 'Error:'."
    )
    note = ("addMemo", "text")

    def __init__(self) -> None:
        self.finder = Search(
            "findVehicles",
            "Vehicles by fuel, depot, odometer range, make prefix or tag.",
            _vehicles,
            [
                Filter("fuel", "fuelType", "eq", prop("string", "Fuel type.", enum=FUELS)),
                Filter("depot", "depotCode", "eq", prop("string", "Depot code.")),
                Filter("minOdometer", "odometerKm", "ge", prop("integer", "At least, km.")),
                Filter("maxOdometer", "odometerKm", "le", prop("integer", "At most, km.")),
                Filter("makePrefix", "make", "prefix", prop("string", "Start of the make.")),
                Filter("tag", "meta.tags", "has", prop("string", "A tag.", enum=TAGS)),
            ],
            lambda key, v: {
                "vehicleId": key,
                "plateNumber": v["plateNumber"],
                "make": v["make"],
                "model": v["model"],
                "odometerKm": v["odometerKm"],
                "depotCode": v["depotCode"],
            },
            limit=15,
            wrap="vehicles",
        )

    def build(self, rng: random.Random, target_bytes: int) -> State:
        state: State = {"depots": {}, "vehicles": {}, "drivers": {}}
        for n, city in enumerate(CITIES[:12]):
            code = f"DP{n + 1:02d}"
            first, last = person(rng)
            state["depots"][code] = {
                "depotCode": code,
                "city": city,
                "capacity": rng.randint(20, 90),
                "manager": {
                    "name": f"{first} {last}",
                    "phone": f"+47 9{rng.randint(1000000, 9999999)}",
                },
            }

        def vehicle() -> None:
            key = f"VH-{rng.randint(1000, 9999)}{chr(65 + len(state['vehicles']) % 26)}"
            if key in state["vehicles"]:
                return
            make = rng.choice(sorted(MAKES))
            log = [
                {
                    "date": day(rng, y),
                    "workshop": f"{rng.choice(CITIES)} Motors",
                    "work": rng.choice(WORK),
                    "costEur": round(rng.uniform(80, 4000), 2),
                }
                for y in sorted(rng.sample(range(2016, 2026), rng.randint(1, 6)))
            ]
            state["vehicles"][key] = {
                "vehicleId": key,
                "plateNumber": f"{words(rng, 1)[:2].upper()}{rng.randint(10000, 99999)}",
                "make": make,
                "model": rng.choice(MAKES[make]),
                "fuelType": rng.choice(FUELS),
                "odometerKm": rng.randint(2000, 900000),
                "depotCode": rng.choice(sorted(state["depots"])),
                "status": rng.choice(["active", "active", "workshop", "retired"]),
                "meta": {"createdAt": day(rng, 2015), "tags": rng.sample(TAGS, rng.randint(0, 3))},
                "serviceLog": log,
            }
            if rng.random() < 0.8:
                first, last = person(rng)
                driver = f"drv{len(state['drivers']) + 3001}"
                state["drivers"][driver] = {
                    "driverId": driver,
                    "fullName": f"{first} {last}",
                    "licenseClasses": rng.sample(["B", "C", "CE", "D"], rng.randint(1, 3)),
                    "assignedVehicle": key,
                    "hiredOn": day(rng, rng.randint(2005, 2025)),
                }

        fill(vehicle, lambda: size_of(state), target_bytes)
        return state

    def tools(self) -> list[Tool]:
        vid = {"vehicleId": prop("string", "Vehicle id, e.g. VH-1234A.")}
        depot = {"code": prop("string", "Depot code, e.g. DP03.")}
        return [
            Tool("getVehicle", "A vehicle's record.", vid, self._vehicle, ("vehicleId",)),
            Tool("getDepot", "A depot's record.", depot, self._depot, ("code",)),
            Tool(
                "getServiceEntry",
                "The service log entry of a vehicle on a date.",
                vid | {"date": prop("string", "YYYY-MM-DD.")},
                self._entry,
                ("vehicleId", "date"),
            ),
            self.finder.tool(),
            Tool(
                "depotDrivers",
                "The drivers of the vehicles based at a depot, with their vehicle.",
                depot,
                self._depot_drivers,
                ("code",),
            ),
            Tool(
                "fleetStats",
                "Vehicle count, total and highest odometer and the fuel types, of a depot or "
                "(no depot) of the whole fleet.",
                {"depotCode": prop("string", "Depot code.")},
                self._stats,
            ),
            Tool(
                "logService",
                "Record a service of a vehicle.",
                vid
                | {
                    "date": prop("string", "YYYY-MM-DD."),
                    "workshop": prop("string", "Workshop name."),
                    "work": prop("string", "What was done."),
                    "costEur": prop("number", "Cost in EUR."),
                },
                self._log_service,
                ("vehicleId", "date", "workshop", "work", "costEur"),
                effect="write",
            ),
            note_tool("addMemo", "text", "Keep a memo for yourself (answers nothing)."),
        ]

    def _vehicle(self, state: State, args: dict[str, Any]) -> Answer:
        found = state["vehicles"].get(args["vehicleId"])
        if found is None:
            raise ToolError(f"unknown vehicle {args['vehicleId']}")
        return found, []

    def _depot(self, state: State, args: dict[str, Any]) -> Answer:
        found = state["depots"].get(args["code"])
        if found is None:
            raise ToolError("unknown depot")
        return found, []

    def _entry(self, state: State, args: dict[str, Any]) -> Answer:
        for entry in self._vehicle(state, args)[0]["serviceLog"]:
            if entry["date"] == args["date"]:
                return {"vehicleId": args["vehicleId"], **entry}, []
        raise ToolError("no service on that date")

    def _depot_drivers(self, state: State, args: dict[str, Any]) -> Answer:
        self._depot(state, args)
        return [
            {**driver, "vehicle": {k: vehicle[k] for k in ("plateNumber", "make", "model")}}
            for driver in state["drivers"].values()
            if (vehicle := state["vehicles"][driver["assignedVehicle"]])["depotCode"]
            == args["code"]
        ], []

    def _stats(self, state: State, args: dict[str, Any]) -> Answer:
        wanted = args.get("depotCode")
        chosen = [v for v in state["vehicles"].values() if wanted in (None, v["depotCode"])]
        kms = [v["odometerKm"] for v in chosen]
        return {
            "depotCode": wanted,
            "vehicleCount": len(chosen),
            "totalKm": summary("sum", kms),
            "highestKm": summary("max", kms),
            "fuelTypes": summary("distinct", [v["fuelType"] for v in chosen]),
        }, []

    def _log_service(self, state: State, args: dict[str, Any]) -> Answer:
        vehicle = self._vehicle(state, args)[0]
        entry = {k: args[k] for k in ("date", "workshop", "work", "costEur")}
        at = pointer("vehicles", args["vehicleId"])
        return {
            "vehicleId": args["vehicleId"],
            "logged": entry,
            "entries": len(vehicle["serviceLog"]) + 1,
        }, [
            {"op": "add", "path": f"{at}/serviceLog/-", "value": entry},
            {"op": "replace", "path": f"{at}/odometerKm", "value": vehicle["odometerKm"] + 1},
        ]

    def lookup(self, rng: random.Random, state: State) -> Planned:
        if rng.random() < 0.8:
            return Planned(
                "lookup", "getVehicle", {"vehicleId": rng.choice(sorted(state["vehicles"]))}
            )
        return Planned("lookup", "getDepot", {"code": rng.choice(sorted(state["depots"]))})

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        key = rng.choice(sorted(state["vehicles"]))
        date = rng.choice(state["vehicles"][key]["serviceLog"])["date"]
        return Planned("nested_lookup", "getServiceEntry", {"vehicleId": key, "date": date})

    def search(self, rng: random.Random, state: State) -> Planned:
        return Planned("search", "findVehicles", self.finder.plan(rng, state))

    def join(self, rng: random.Random, state: State) -> Planned:
        return Planned("join", "depotDrivers", {"code": rng.choice(sorted(state["depots"]))})

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        args = {} if rng.random() < 0.3 else {"depotCode": rng.choice(sorted(state["depots"]))}
        return Planned("aggregate", "fleetStats", args)

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        key = rng.choice(sorted(state["vehicles"]))
        date = day(rng, 2026)
        args = {
            "vehicleId": key,
            "date": date,
            "workshop": f"{rng.choice(CITIES)} Motors",
            "work": rng.choice(WORK),
            "costEur": round(rng.uniform(80, 4000), 2),
        }
        read = Planned("read_after_write", "getServiceEntry", {"vehicleId": key, "date": date})
        return Planned("write", "logService", args), read

    def no_match(self, rng: random.Random, state: State) -> Planned:
        return Planned(
            "empty", "findVehicles", {"minOdometer": 5_000_000, "fuel": rng.choice(FUELS)}
        )

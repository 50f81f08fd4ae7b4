"""``bikeshare`` (held out in the round that first measured it, a development shape since): a Redis
export: one flat object of composite string keys (``station:OSL-07``, ``station:OSL-07:docked``,
``bike:B10442``, ``rider:42:profile``, ``rider:42:rides``, ``ride:900123``, ``seq:ride``) whose
values are hashes of strings (numbers too: ``"battery": "78"``), lists and sets of ids, and
counters; tools answer with typed values and take integer rider ids; a write bumps a counter,
adds a key and appends to a list; the riders who started at a station is a join through the
rides; a district's usage is a summary no key holds."""

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
)
from benchmarks.zoo.shape import Shape

MODELS = ["Urban 3", "Urban 4", "E-Glide", "E-Glide Pro", "Cargo"]
STATUSES = ["docked", "riding", "repair"]
PLANS = ["pay-as-you-go", "monthly", "annual", "student"]
INTEGERS = ("battery", "capacity", "minutes", "rider")
DECIMALS = ("fare",)


def typed(hash_: dict[str, str]) -> dict[str, Any]:
    """A Redis hash as the service answers it: its numbers as numbers."""
    out: dict[str, Any] = {}
    for key, value in hash_.items():
        if key in INTEGERS and value:
            out[key] = int(value)
        elif key in DECIMALS and value:
            out[key] = float(value)
        else:
            out[key] = value
    return out


def _bikes(state: State) -> list[tuple[str, dict[str, Any]]]:
    return [(k[5:], typed(v)) for k, v in state.items() if k.startswith("bike:")]


def _rides(state: State) -> list[tuple[str, dict[str, Any]]]:
    return [(k[5:], typed(v)) for k, v in state.items() if k.startswith("ride:")]


class Bikeshare(Shape):
    name = "bikeshare"
    title = "Bike sharing, operations console"
    description = (
        "A city bike-sharing operator's console over its key-value store: stations, bikes, "
        "riders and rides. Answers are JSON; times are local, YYYY-MM-DDTHH:MM; fares in EUR; "
        "errors are text starting with 'Error:'."
    )
    note = ("remark", "text")

    def __init__(self) -> None:
        self.finder = Search(
            "find_bikes",
            "Bikes by model, status, docking station and battery range (percent).",
            _bikes,
            [
                Filter("model", "model", "eq", prop("string", "Model.", enum=MODELS)),
                Filter("status", "status", "eq", prop("string", "Status.", enum=STATUSES)),
                Filter("station", "station", "eq", prop("string", "Station code.")),
                Filter("min_battery", "battery", "ge", prop("integer", "Lowest charge, %.")),
                Filter("max_battery", "battery", "le", prop("integer", "Highest charge, %.")),
            ],
            lambda key, b: {"bike_id": key, **b},
            limit=20,
            wrap="bikes",
        )

    def build(self, rng: random.Random, target_bytes: int) -> State:
        state: State = {}
        stations = []
        for n, city in enumerate(CITIES * 2, start=1):
            code = f"{city[:3].upper()}-{n:02d}"
            stations.append(code)
            state[f"station:{code}"] = {
                "name": f"{city} {rng.choice(['Square', 'Quay', 'Park', 'Gate'])}",
                "district": city,
                "capacity": str(rng.choice([12, 16, 24, 30])),
            }
            state[f"station:{code}:docked"] = []
        bikes: list[str] = []
        riders = [0]

        def bike() -> None:
            ident = f"B{10000 + len(bikes) * 7}"
            bikes.append(ident)
            status = rng.choices(STATUSES, (6, 2, 1))[0]
            station = rng.choice(stations) if status == "docked" else ""
            if station:
                state[f"station:{station}:docked"].append(ident)
            state[f"bike:{ident}"] = {
                "model": rng.choice(MODELS),
                "battery": str(rng.randint(0, 100)),
                "status": status,
                "station": station,
                "serviced": day(rng, 2025),
            }

        def rider() -> None:
            number = riders[0] = riders[0] + 1
            first, last = person(rng)
            state[f"rider:{number}:profile"] = {
                "name": f"{first} {last}",
                "email": f"{first.lower()}{number}@ride.example",
                "plan": rng.choice(PLANS),
                "joined": day(rng, rng.randint(2019, 2025)),
            }
            rides = state[f"rider:{number}:rides"] = []
            for _ in range(rng.randint(0, 6)):
                ident = str(900000 + len(state) * 3)
                rides.append(ident)
                minutes = rng.randint(3, 90)
                state[f"ride:{ident}"] = {
                    "rider": str(number),
                    "bike": rng.choice(bikes),
                    "from": rng.choice(stations),
                    "to": rng.choice(stations),
                    "started": f"{day(rng, 2025)}T{rng.randint(6, 22):02d}:{rng.randint(0, 59):02d}",
                    "minutes": str(minutes),
                    "fare": f"{1 + minutes * 0.15:.2f}",
                }
            state["seq:ride"] = str(900000 + len(state) * 3)

        fill(bike, lambda: size_of(state), target_bytes // 4)
        fill(rider, lambda: size_of(state), target_bytes)
        return state

    def tools(self) -> list[Tool]:
        rider_id = {"rider_id": prop("integer", "Rider number.")}
        return [
            Tool(
                "get_rider", "A rider's profile and ride ids.", rider_id, self._rider, ("rider_id",)
            ),
            Tool(
                "rider_ride_on",
                "A rider's last ride started on a date.",
                rider_id | {"date": prop("string", "YYYY-MM-DD.")},
                self._ride_on,
                ("rider_id", "date"),
            ),
            self.finder.tool(),
            Tool(
                "station_riders",
                "The riders who started rides at a station, with how many rides each.",
                {"station": prop("string", "Station code, e.g. OBA-15.")},
                self._station_riders,
                ("station",),
            ),
            Tool(
                "district_usage",
                "Rides started in a district's stations: count, fares, mean minutes, models.",
                {"district": prop("string", "District.")},
                self._usage,
                ("district",),
            ),
            Tool(
                "start_ride",
                "Start a ride: a rider takes a docked bike from its station.",
                rider_id
                | {
                    "bike_id": prop("string", "Bike id, e.g. B10007."),
                    "started": prop("string", "YYYY-MM-DDTHH:MM."),
                },
                self._start,
                ("rider_id", "bike_id", "started"),
                effect="write",
            ),
            note_tool("remark", "text", "Leave a remark in the console (answers nothing)."),
        ]

    def _profile(self, state: State, number: int) -> dict[str, str]:
        found: dict[str, str] | None = state.get(f"rider:{number}:profile")
        if found is None:
            raise ToolError(f"no rider {number}")
        return found

    def _rider(self, state: State, args: dict[str, Any]) -> Answer:
        profile = self._profile(state, args["rider_id"])
        rides = state[f"rider:{args['rider_id']}:rides"]
        return {"rider_id": args["rider_id"], **profile, "rides": rides}, []

    def _ride_on(self, state: State, args: dict[str, Any]) -> Answer:
        self._profile(state, args["rider_id"])
        for ident in reversed(state[f"rider:{args['rider_id']}:rides"]):
            ride = state[f"ride:{ident}"]
            if ride["started"].startswith(args["date"]):
                return {"ride_id": ident, **typed(ride)}, []
        raise ToolError("no ride that day")

    def _station_riders(self, state: State, args: dict[str, Any]) -> Answer:
        if f"station:{args['station']}" not in state:
            raise ToolError(f"no station {args['station']}")
        counts: dict[int, int] = {}
        for _, ride in _rides(state):
            if ride["from"] == args["station"]:
                counts[ride["rider"]] = counts.get(ride["rider"], 0) + 1
        return {
            "station": args["station"],
            "riders": [
                {"rider_id": n, "name": state[f"rider:{n}:profile"]["name"], "rides": count}
                for n, count in sorted(counts.items())
            ][:25],
        }, []

    def _usage(self, state: State, args: dict[str, Any]) -> Answer:
        stations = {
            k.split(":")[1]
            for k, v in state.items()
            if k.startswith("station:")
            and isinstance(v, dict)
            and v["district"] == args["district"]
        }
        if not stations:
            raise ToolError(f"no district {args['district']}")
        rides = [r for _, r in _rides(state) if r["from"] in stations]
        models = [typed(state[f"bike:{r['bike']}"])["model"] for r in rides]
        return {
            "district": args["district"],
            "stations": sorted(stations),
            "rides": len(rides),
            "fares_total": summary("sum", [r["fare"] for r in rides]),
            "mean_minutes": summary("mean", [r["minutes"] for r in rides]),
            "models": summary("distinct", models),
        }, []

    def _start(self, state: State, args: dict[str, Any]) -> Answer:
        self._profile(state, args["rider_id"])
        bike = state.get(f"bike:{args['bike_id']}")
        if bike is None or bike["status"] != "docked":
            raise ToolError(f"bike {args['bike_id']} is not docked")
        docked = state[f"station:{bike['station']}:docked"]
        ident = str(int(state["seq:ride"]) + 3)
        ride = {
            "rider": str(args["rider_id"]),
            "bike": args["bike_id"],
            "from": bike["station"],
            "to": "",
            "started": args["started"],
            "minutes": "0",
            "fare": "0.00",
        }
        return {"ride_id": ident, **typed(ride)}, [
            {"op": "replace", "path": pointer("seq:ride"), "value": ident},
            {"op": "add", "path": pointer(f"ride:{ident}"), "value": ride},
            {"op": "add", "path": pointer(f"rider:{args['rider_id']}:rides", "-"), "value": ident},
            {
                "op": "replace",
                "path": pointer(f"bike:{args['bike_id']}", "status"),
                "value": "riding",
            },
            {"op": "replace", "path": pointer(f"bike:{args['bike_id']}", "station"), "value": ""},
            {
                "op": "remove",
                "path": pointer(f"station:{bike['station']}:docked", docked.index(args["bike_id"])),
            },
        ]

    def _riders(self, state: State) -> list[int]:
        return [int(k.split(":")[1]) for k in state if k.endswith(":profile")]

    def lookup(self, rng: random.Random, state: State) -> Planned:
        return Planned("lookup", "get_rider", {"rider_id": rng.choice(self._riders(state))})

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        ride_key = rng.choice([k for k in state if k.startswith("ride:")])
        ride = state[ride_key]
        return Planned(
            "nested_lookup",
            "rider_ride_on",
            {"rider_id": int(ride["rider"]), "date": ride["started"][:10]},
        )

    def search(self, rng: random.Random, state: State) -> Planned:
        return Planned("search", "find_bikes", self.finder.plan(rng, state))

    def join(self, rng: random.Random, state: State) -> Planned:
        ride = state[rng.choice([k for k in state if k.startswith("ride:")])]
        return Planned("join", "station_riders", {"station": ride["from"]})

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        return Planned("aggregate", "district_usage", {"district": rng.choice(CITIES)})

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        docked = [
            k[5:] for k, v in state.items() if k.startswith("bike:") and v["status"] == "docked"
        ]
        rider = rng.choice(self._riders(state))
        started = (
            f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T08:{rng.randint(0, 59):02d}"
        )
        args = {"rider_id": rider, "bike_id": rng.choice(docked), "started": started}
        return Planned("write", "start_ride", args), Planned(
            "read_after_write", "rider_ride_on", {"rider_id": rider, "date": started[:10]}
        )

    def no_match(self, rng: random.Random, state: State) -> Planned:
        return Planned(
            "empty",
            "find_bikes",
            {"model": rng.choice(MODELS), "min_battery": 101, "status": "docked"},
        )

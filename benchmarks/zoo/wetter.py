"""``wetter`` (held out in the round that first measured it, a development shape since): a time
series keyed by timestamp at the top level of the state (``"2025-03-01T06:00"`` → station code →
reading), beside one directory of stations; every field name is German (``temperatur_c``,
``niederschlag_mm``, ``wind.richtung``, ``ort``) while the tools' arguments are English
(``min_temperature``, ``city``); the readings in a city at a time is a join through the
directory; a station's day is a summary no reading holds."""

from __future__ import annotations

import datetime as dt
import math
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
    fill,
    note_tool,
    pointer,
    prop,
    size_of,
    summary,
)
from benchmarks.zoo.shape import Shape

DIRECTORY = "stationsverzeichnis"
WINDS = ["N", "NO", "O", "SO", "S", "SW", "W", "NW"]
OPERATORS = ["DWD", "Stadtwerke", "Universität", "Flughafen", "privat"]
STATES = ["Bayern", "Hessen", "Sachsen", "Niedersachsen", "Bremen", "Thüringen"]
START = dt.datetime(2025, 1, 1)


def _times(state: State) -> list[str]:
    return [k for k in state if k != DIRECTORY]


def _readings(state: State) -> list[tuple[str, dict[str, Any]]]:
    """Each reading with its time and station as fields, so a search can constrain them."""
    return [
        (f"{time}/{code}", {"zeit": time, "station": code, **reading})
        for time in _times(state)
        for code, reading in state[time].items()
    ]


def _show(_: str, r: dict[str, Any]) -> dict[str, Any]:
    return {k: r[k] for k in ("zeit", "station", "temperatur_c", "niederschlag_mm", "wind")}


class Wetter(Shape):
    name = "wetter"
    title = "Wetterstationen, Messreihen"
    description = (
        "A regional network of weather stations and their readings every three hours. The "
        "data is German (field names too); answers are JSON; times are local, "
        "YYYY-MM-DDTHH:MM; errors are text starting with 'Error:'."
    )
    note = ("notiz", "text")

    def __init__(self) -> None:
        number = "number"
        self.finder = Search(
            "find_readings",
            "Readings by station, time range, temperature range, rain and wind direction.",
            _readings,
            [
                Filter("station", "station", "eq", prop("string", "Station code, e.g. DE-0412.")),
                Filter("after", "zeit", "ge", prop("string", "Earliest time, inclusive.")),
                Filter("before", "zeit", "le", prop("string", "Latest time, inclusive.")),
                Filter("min_temperature", "temperatur_c", "ge", prop(number, "Lowest, °C.")),
                Filter("max_temperature", "temperatur_c", "le", prop(number, "Highest, °C.")),
                Filter("min_rain", "niederschlag_mm", "ge", prop(number, "Least rain, mm.")),
                Filter("wind_direction", "wind.richtung", "eq", prop("string", "E.g. NW, SO.")),
            ],
            _show,
            limit=20,
            wrap="treffer",
        )

    def build(self, rng: random.Random, target_bytes: int) -> State:
        directory = {
            f"DE-{rng.randint(1000, 9999)}": {
                "name": f"{city} {rng.choice(['Mitte', 'Nord', 'Süd', 'Hafen', 'Berg'])}",
                "ort": city,
                "bundesland": rng.choice(STATES),
                "hoehe_m": rng.randint(0, 1400),
                "betreiber": rng.choice(OPERATORS),
                "inbetrieb_seit": f"{rng.randint(1950, 2020)}-{rng.randint(1, 12):02d}-01",
            }
            for city in CITIES + CITIES[:8]
        }
        state: State = {DIRECTORY: directory}
        base = {code: rng.uniform(-2, 12) for code in directory}

        def slot() -> None:
            at = START + dt.timedelta(hours=3 * (len(state) - 1))
            # Cold in January, warm in July.
            season = -10 * math.cos(2 * math.pi * at.timetuple().tm_yday / 365)
            readings = {}
            for code in directory:
                if rng.random() < 0.08:
                    continue  # a station that did not report
                rain = round(rng.expovariate(1.5), 1) if rng.random() < 0.3 else 0.0
                readings[code] = {
                    "temperatur_c": round(base[code] + season + rng.gauss(0, 3), 1),
                    "luftfeuchte_pct": rng.randint(35, 100),
                    "niederschlag_mm": rain,
                    "wind": {
                        "geschwindigkeit_ms": round(rng.uniform(0, 18), 1),
                        "richtung": rng.choice(WINDS),
                    },
                    "qualitaet": rng.choices(["geprüft", "ungeprüft"], (9, 1))[0],
                }
            state[at.strftime("%Y-%m-%dT%H:%M")] = readings

        fill(slot, lambda: size_of(state), target_bytes)
        return state

    def tools(self) -> list[Tool]:
        station = {"station": prop("string", "Station code, e.g. DE-0412.")}
        time = {"time": prop("string", "YYYY-MM-DDTHH:MM (every three hours).")}
        return [
            Tool("station_info", "A station's directory entry.", station, self._info, ("station",)),
            Tool(
                "reading_at",
                "A station's reading at a time.",
                station | time,
                self._reading,
                ("station", "time"),
            ),
            self.finder.tool(),
            Tool(
                "city_readings",
                "The readings of every station in a city at a time.",
                {"city": prop("string", "City.")} | time,
                self._city,
                ("city", "time"),
            ),
            Tool(
                "daily_summary",
                "A station's day: readings, lowest, highest and mean temperature, total rain, "
                "wind directions.",
                station | {"date": prop("string", "YYYY-MM-DD.")},
                self._daily,
                ("station", "date"),
            ),
            Tool(
                "record_reading",
                "Record (or overwrite) a station's reading at a time.",
                station
                | time
                | {
                    "temperature": prop("number", "°C."),
                    "humidity": prop("integer", "%."),
                    "rain": prop("number", "mm."),
                    "wind_speed": prop("number", "m/s."),
                    "wind_direction": prop("string", "E.g. NW.", enum=WINDS),
                },
                self._record,
                (
                    "station",
                    "time",
                    "temperature",
                    "humidity",
                    "rain",
                    "wind_speed",
                    "wind_direction",
                ),
                effect="write",
            ),
            note_tool("notiz", "text", "Write a note for yourself (answers nothing)."),
        ]

    def _station(self, state: State, code: str) -> dict[str, Any]:
        found: dict[str, Any] | None = state[DIRECTORY].get(code)
        if found is None:
            raise ToolError(f"unbekannte Station {code}")
        return found

    def _info(self, state: State, args: dict[str, Any]) -> Answer:
        return {"kennung": args["station"], **self._station(state, args["station"])}, []

    def _reading(self, state: State, args: dict[str, Any]) -> Answer:
        self._station(state, args["station"])
        reading = (
            state.get(args["time"], {}).get(args["station"]) if args["time"] != DIRECTORY else None
        )
        if reading is None:
            raise ToolError("keine Messung zu dieser Zeit")
        return {"station": args["station"], "zeit": args["time"], **reading}, []

    def _city(self, state: State, args: dict[str, Any]) -> Answer:
        codes = sorted(c for c, s in state[DIRECTORY].items() if s["ort"] == args["city"])
        if not codes:
            raise ToolError(f"keine Station in {args['city']}")
        at = state.get(args["time"], {}) if args["time"] != DIRECTORY else {}
        return {
            "ort": args["city"],
            "zeit": args["time"],
            "messungen": [
                {"station": c, "name": state[DIRECTORY][c]["name"], **at[c]}
                for c in codes
                if c in at
            ],
        }, []

    def _daily(self, state: State, args: dict[str, Any]) -> Answer:
        self._station(state, args["station"])
        day = [
            state[t][args["station"]]
            for t in _times(state)
            if t.startswith(args["date"]) and args["station"] in state[t]
        ]
        temperatures = [r["temperatur_c"] for r in day]
        return {
            "station": args["station"],
            "datum": args["date"],
            "messungen": len(day),
            "temperatur_min": summary("min", temperatures),
            "temperatur_max": summary("max", temperatures),
            "temperatur_mittel": summary("mean", temperatures),
            "niederschlag_summe": summary("sum", [r["niederschlag_mm"] for r in day]),
            "windrichtungen": summary("distinct", [r["wind"]["richtung"] for r in day]),
        }, []

    def _record(self, state: State, args: dict[str, Any]) -> Answer:
        self._station(state, args["station"])
        try:
            dt.datetime.strptime(args["time"], "%Y-%m-%dT%H:%M")
        except ValueError as error:
            raise ToolError("time must be YYYY-MM-DDTHH:MM") from error
        reading = {
            "temperatur_c": args["temperature"],
            "luftfeuchte_pct": args["humidity"],
            "niederschlag_mm": args["rain"],
            "wind": {"geschwindigkeit_ms": args["wind_speed"], "richtung": args["wind_direction"]},
            "qualitaet": "ungeprüft",
        }
        if args["time"] in state:
            patch = [
                {"op": "add", "path": pointer(args["time"], args["station"]), "value": reading}
            ]
        else:
            patch = [
                {"op": "add", "path": pointer(args["time"]), "value": {args["station"]: reading}}
            ]
        return {"gespeichert": True, "station": args["station"], "zeit": args["time"]}, patch

    def _any(self, rng: random.Random, state: State) -> tuple[str, str]:
        time = rng.choice(_times(state))
        return time, rng.choice(sorted(state[time]))

    def lookup(self, rng: random.Random, state: State) -> Planned:
        return Planned("lookup", "station_info", {"station": rng.choice(sorted(state[DIRECTORY]))})

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        time, code = self._any(rng, state)
        return Planned("nested_lookup", "reading_at", {"station": code, "time": time})

    def search(self, rng: random.Random, state: State) -> Planned:
        return Planned("search", "find_readings", self.finder.plan(rng, state))

    def join(self, rng: random.Random, state: State) -> Planned:
        time, code = self._any(rng, state)
        return Planned(
            "join", "city_readings", {"city": state[DIRECTORY][code]["ort"], "time": time}
        )

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        time, code = self._any(rng, state)
        return Planned("aggregate", "daily_summary", {"station": code, "date": time[:10]})

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        code = rng.choice(sorted(state[DIRECTORY]))
        time = f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T{rng.choice(range(0, 24, 3)):02d}:00"
        args = {
            "station": code,
            "time": time,
            "temperature": round(rng.uniform(-10, 30), 1),
            "humidity": rng.randint(30, 100),
            "rain": round(rng.uniform(0, 4), 1),
            "wind_speed": round(rng.uniform(0, 15), 1),
            "wind_direction": rng.choice(WINDS),
        }
        return Planned("write", "record_reading", args), Planned(
            "read_after_write", "reading_at", {"station": code, "time": time}
        )

    def no_match(self, rng: random.Random, state: State) -> Planned:
        code = rng.choice(sorted(state[DIRECTORY]))
        return Planned("empty", "find_readings", {"station": code, "min_temperature": 61.5})

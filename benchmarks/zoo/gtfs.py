"""``gtfs``: a city's transit timetable as its GTFS feed holds it, converted from CSV to JSON:
a table per file, every value text, tables joined by ids only. Tools are a GTFS server's (as
node-gtfs answers from the feed: numbers as numbers, empty columns as null) and take what it
takes: ids, a ``YYYYMMDD`` date as a number, a ``bbox`` as ``min_lon,min_lat,max_lon,max_lat``;
a stop time is known by its trip and sequence; a trip's departure is its first stop time's;
departures from a stop on a day join stop times to trips, routes and the services running that
day (calendar weekdays less and plus dated exceptions); a route's day counts its trips; a
dated exception is written into ``calendar_dates.txt``, a stop's columns in place."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.gtfs_feed import FEED_END, SERVICES, clock, feed, runs_on, seconds_of
from benchmarks.zoo.gtfs_service import LIMIT, calls_on, matching_trips, stop_meets, tools
from benchmarks.zoo.kit import Planned, State, Tool, note_tool
from benchmarks.zoo.shape import Shape

DATES = ["20250915", "20251003", "20251108", "20251127", "20251128", "20251207", "20251225"]
DATES += ["20260101", "20260114", "20260124"]


class Gtfs(Shape):
    name = "gtfs"
    title = "Trip planning assistant over a GTFS feed"
    description = (
        "Metro Transit Authority's GTFS static feed: stops, routes, trips, stop times and "
        "service calendars. Errors are text starting with 'Error:'."
    )
    note = ("log_note", "text")

    def build(self, rng: random.Random, target_bytes: int) -> State:
        return feed(rng, target_bytes)

    def tools(self) -> list[Tool]:
        return [
            *tools(),
            note_tool("log_note", "text", "Log a note for the dispatcher (answers nothing)."),
        ]

    def lookup(self, rng: random.Random, state: State) -> Planned:
        table, key, tool = rng.choice(
            [("stops.txt", "stop_id", "get_stop"), ("routes.txt", "route_id", "get_route")]
            + [("trips.txt", "trip_id", "get_trip")] * 2
        )
        return Planned("lookup", tool, {key: rng.choice(state[table])[key]})

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        if rng.random() < 0.25:
            return Planned(
                "nested_lookup", "get_calendar", {"service_id": rng.choice(list(SERVICES))}
            )
        row = rng.choice(state["stop_times.txt"])
        args = {"trip_id": row["trip_id"], "stop_sequence": int(row["stop_sequence"])}
        return Planned("nested_lookup", "get_stop_time", args)

    def search(self, rng: random.Random, state: State) -> Planned:
        if rng.random() < 0.5:
            trip = rng.choice(matching_trips(state, {}))
            early = seconds_of(trip["departure_time"]) - rng.randint(0, 12) * 300
            late = seconds_of(trip["departure_time"]) + rng.randint(0, 12) * 300
            wanted = {k: trip[k] for k in ("route_id", "direction_id", "service_id")}
            wanted |= {"departs_after": clock(max(0, early)), "departs_before": clock(late)}
            return Planned(
                "search",
                "find_trips",
                _narrowed(rng, wanted, lambda a: len(matching_trips(state, a))),
            )
        stop = rng.choice(state["stops.txt"])
        lat, lon = float(stop["stop_lat"]), float(stop["stop_lon"])
        box = [
            lon - rng.uniform(0, 0.02),
            lat - rng.uniform(0, 0.02),
            lon + rng.uniform(0, 0.02),
            lat + rng.uniform(0, 0.02),
        ]
        options: dict[str, Any] = {"name_prefix": stop["stop_name"][: rng.randint(3, 12)]}
        options |= {"bbox": ",".join(f"{v:.4f}" for v in box), "zone_id": stop["zone_id"]}
        options["wheelchair_boarding"] = int(stop["wheelchair_boarding"])
        if stop["parent_station"]:
            options["parent_station"] = stop["parent_station"]
        counted = lambda a: sum(stop_meets(s, a) for s in state["stops.txt"])  # noqa: E731
        return Planned("search", "find_stops", _narrowed(rng, options, counted))

    def _a_call(self, rng: random.Random, state: State) -> tuple[str, str, list[dict[str, Any]]]:
        while True:
            stop = rng.choice(state["stop_times.txt"])["stop_id"]
            day = rng.choice(DATES)
            calls = calls_on(state, stop, day)
            if calls:
                return stop, day, calls

    def join(self, rng: random.Random, state: State) -> Planned:
        stop, day, calls = self._a_call(rng, state)
        if rng.random() < 0.3:
            return Planned("join", "routes_for_stop", {"stop_id": stop})
        args: dict[str, Any] = {"stop_id": stop, "date": int(day)}
        if len(calls) > LIMIT or rng.random() < 0.3:
            start = rng.choice(calls)["departure_time"]
            args |= {
                "start_time": start,
                "end_time": clock(seconds_of(start) + rng.choice([1, 2, 3]) * 3600),
            }
        return Planned("join", "departures", args)

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        day = int(rng.choice(DATES))
        if rng.random() < 0.35:
            return Planned("aggregate", "service_ids_for_date", {"date": day})
        return Planned(
            "aggregate",
            "route_summary",
            {"route_id": rng.choice(state["routes.txt"])["route_id"], "date": day},
        )

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        if rng.random() < 0.6:
            service, day = rng.choice(list(SERVICES)), rng.choice(DATES)
            kind = 2 if runs_on(state, service, day) else 1
            args = {"service_id": service, "date": int(day), "exception_type": kind}
            read = Planned("read_after_write", "get_calendar", {"service_id": service})
            return Planned("write", "add_calendar_date", args), read
        stop = rng.choice(state["stops.txt"])
        change: dict[str, Any] = {"stop_id": stop["stop_id"]}
        if rng.random() < 0.5:
            change["wheelchair_boarding"] = rng.choice([1, 2])
        else:
            change["stop_name"] = stop["stop_name"].replace(" St ", " Street ") + " (temporary)"
        read = Planned("read_after_write", "get_stop", {"stop_id": stop["stop_id"]})
        return Planned("write", "update_stop", change), read

    def no_match(self, rng: random.Random, state: State) -> Planned:
        if rng.random() < 0.5:
            return Planned(
                "empty", "find_stops", {"name_prefix": rng.choice(["Zephyr", "Quay Rd", "Airport"])}
            )
        stop = rng.choice(state["stop_times.txt"])["stop_id"]
        return Planned("empty", "departures", {"stop_id": stop, "date": int(FEED_END) + 10_000})


def _narrowed(rng: random.Random, options: dict[str, Any], count: Any) -> dict[str, Any]:
    """1 to 4 of ``options`` (each met by the record they were read from), more while more
    than :data:`LIMIT` records meet them."""
    names = list(options)
    rng.shuffle(names)
    wanted, args = rng.randint(1, 4), {}
    for n, name in enumerate(names, start=1):
        args[name] = options[name]
        if n >= wanted and count(args) <= LIMIT:
            break
    return args

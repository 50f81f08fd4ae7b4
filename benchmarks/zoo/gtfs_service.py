"""The GTFS server of the ``gtfs`` shape: its tools' answers, read from the feed's tables as
node-gtfs answers them (numbers as numbers, empty columns as null), and its writes."""

from __future__ import annotations

from typing import Any

from benchmarks.zoo.gtfs_feed import SERVICES, runs_on, seconds_of
from benchmarks.zoo.kit import Answer, State, Tool, ToolError, pointer, prop

INTEGERS = {"location_type", "wheelchair_boarding", "route_type", "direction_id", "stop_sequence"}
INTEGERS |= {"pickup_type", "drop_off_type", "timepoint", "exception_type", "date"}
INTEGERS |= {"wheelchair_accessible", "start_date", "end_date", "monday", "tuesday"}
INTEGERS |= {"wednesday", "thursday", "friday", "saturday", "sunday"}
FLOATS = {"stop_lat", "stop_lon", "shape_dist_traveled"}
LIMIT = 20


def typed(row: dict[str, str]) -> dict[str, Any]:
    """A row as the server answers it: numbers as numbers, an empty column as null."""
    return {
        k: None if v == "" else int(v) if k in INTEGERS else float(v) if k in FLOATS else v
        for k, v in row.items()
    }


def _row(state: State, table: str, key: str, value: str, what: str) -> tuple[int, dict[str, str]]:
    for n, row in enumerate(state[table]):
        if row[key] == value:
            return n, row
    raise ToolError(f"{what} {value} not found")


def _first_departures(state: State) -> dict[str, str]:
    return {
        r["trip_id"]: r["departure_time"]
        for r in state["stop_times.txt"]
        if r["stop_sequence"] == "1"
    }


def _day(value: Any) -> str:
    text = str(value)
    if len(text) != 8 or not text.isdigit():
        raise ToolError(f"Invalid date {value}: expected YYYYMMDD")
    return text


def stop_meets(stop: dict[str, str], args: dict[str, Any]) -> bool:
    if "name_prefix" in args and not stop["stop_name"].lower().startswith(
        args["name_prefix"].lower()
    ):
        return False
    if "bbox" in args:
        west, south, east, north = (float(x) for x in args["bbox"].split(","))
        lat, lon = float(stop["stop_lat"]), float(stop["stop_lon"])
        if not (south <= lat <= north and west <= lon <= east):
            return False
    for key in ("wheelchair_boarding", "zone_id", "parent_station"):
        if key in args and stop[key] != str(args[key]):
            return False
    return True


def trip_meets(trip: dict[str, str], departs: str, args: dict[str, Any]) -> bool:
    for key in ("route_id", "direction_id", "service_id"):
        if key in args and trip[key] != str(args[key]):
            return False
    after, before = args.get("departs_after"), args.get("departs_before")
    if after and seconds_of(departs) < seconds_of(after):
        return False
    return not (before and seconds_of(departs) > seconds_of(before))


def get_stop(state: State, args: dict[str, Any]) -> Answer:
    return typed(_row(state, "stops.txt", "stop_id", args["stop_id"], "Stop")[1]), []


def get_route(state: State, args: dict[str, Any]) -> Answer:
    return typed(_row(state, "routes.txt", "route_id", args["route_id"], "Route")[1]), []


def get_trip(state: State, args: dict[str, Any]) -> Answer:
    return typed(_row(state, "trips.txt", "trip_id", args["trip_id"], "Trip")[1]), []


def get_stop_time(state: State, args: dict[str, Any]) -> Answer:
    for row in state["stop_times.txt"]:
        if row["trip_id"] == args["trip_id"] and row["stop_sequence"] == str(args["stop_sequence"]):
            return typed(row), []
    raise ToolError(f"No stop time {args['stop_sequence']} on trip {args['trip_id']}")


def get_calendar(state: State, args: dict[str, Any]) -> Answer:
    _, row = _row(state, "calendar.txt", "service_id", args["service_id"], "Service")
    exceptions = [
        typed(r) for r in state["calendar_dates.txt"] if r["service_id"] == row["service_id"]
    ]
    return typed(row) | {"exceptions": exceptions}, []


def find_stops(state: State, args: dict[str, Any]) -> Answer:
    return [typed(s) for s in state["stops.txt"] if stop_meets(s, args)][:LIMIT], []


def matching_trips(state: State, args: dict[str, Any]) -> list[dict[str, Any]]:
    departs = _first_departures(state)
    return [
        typed(t) | {"departure_time": departs[t["trip_id"]]}
        for t in state["trips.txt"]
        if trip_meets(t, departs[t["trip_id"]], args)
    ]


def find_trips(state: State, args: dict[str, Any]) -> Answer:
    return matching_trips(state, args)[:LIMIT], []


def calls_on(state: State, stop_id: str, day: str) -> list[dict[str, Any]]:
    trips = {t["trip_id"]: t for t in state["trips.txt"]}
    routes = {r["route_id"]: r for r in state["routes.txt"]}
    running = {s: runs_on(state, s, day) for s in SERVICES}
    found = []
    for row in state["stop_times.txt"]:
        trip = trips[row["trip_id"]]
        if (
            row["stop_id"] != stop_id
            or not running.get(trip["service_id"])
            or row["pickup_type"] == "1"
        ):
            continue
        found.append(
            {"trip_id": trip["trip_id"], "route_id": trip["route_id"]}
            | {"route_short_name": routes[trip["route_id"]]["route_short_name"]}
            | {
                "trip_headsign": trip["trip_headsign"],
                "direction_id": int(trip["direction_id"]),
            }
            | {
                "departure_time": row["departure_time"],
                "stop_sequence": int(row["stop_sequence"]),
            }
        )
    return sorted(found, key=lambda call: (seconds_of(call["departure_time"]), call["trip_id"]))


def departures(state: State, args: dict[str, Any]) -> Answer:
    _row(state, "stops.txt", "stop_id", args["stop_id"], "Stop")
    low, high = args.get("start_time", "00:00:00"), args.get("end_time", "48:00:00")
    found = [
        call
        for call in calls_on(state, args["stop_id"], _day(args["date"]))
        if seconds_of(low) <= seconds_of(call["departure_time"]) <= seconds_of(high)
    ]
    return found[:LIMIT], []


def routes_for_stop(state: State, args: dict[str, Any]) -> Answer:
    _row(state, "stops.txt", "stop_id", args["stop_id"], "Stop")
    trips = {t["trip_id"]: t["route_id"] for t in state["trips.txt"]}
    served = {
        trips[r["trip_id"]] for r in state["stop_times.txt"] if r["stop_id"] == args["stop_id"]
    }
    return [typed(r) for r in state["routes.txt"] if r["route_id"] in served], []


def service_ids_for_date(state: State, args: dict[str, Any]) -> Answer:
    day = _day(args["date"])
    return sorted(
        r["service_id"] for r in state["calendar.txt"] if runs_on(state, r["service_id"], day)
    ), []


def route_summary(state: State, args: dict[str, Any]) -> Answer:
    _row(state, "routes.txt", "route_id", args["route_id"], "Route")
    day = _day(args["date"])
    trips = {
        t["trip_id"]: t
        for t in state["trips.txt"]
        if t["route_id"] == args["route_id"] and runs_on(state, t["service_id"], day)
    }
    calls = [r for r in state["stop_times.txt"] if r["trip_id"] in trips]
    directions = {"0": 0, "1": 0}
    for trip in trips.values():
        directions[trip["direction_id"]] += 1
    departures = [r["departure_time"] for r in calls if r["stop_sequence"] == "1"]
    return {
        "route_id": args["route_id"],
        "date": int(day),
        "trips": len(trips),
        "trips_by_direction": directions,
        "first_departure": min(departures, key=seconds_of, default=None),
        "last_arrival": max((r["arrival_time"] for r in calls), key=seconds_of, default=None),
        "stops_served": len({r["stop_id"] for r in calls}),
    }, []


def add_calendar_date(state: State, args: dict[str, Any]) -> Answer:
    _row(state, "calendar.txt", "service_id", args["service_id"], "Service")
    kind = str(args["exception_type"])
    if kind not in ("1", "2"):
        raise ToolError("exception_type must be 1 or 2")
    row = {"service_id": args["service_id"], "date": _day(args["date"]), "exception_type": kind}
    for n, found in enumerate(state["calendar_dates.txt"]):
        if (found["service_id"], found["date"]) == (row["service_id"], row["date"]):
            at = pointer("calendar_dates.txt", n, "exception_type")
            return typed(row), [{"op": "replace", "path": at, "value": kind}]
    return typed(row), [{"op": "add", "path": pointer("calendar_dates.txt", "-"), "value": row}]


def update_stop(state: State, args: dict[str, Any]) -> Answer:
    n, stop = _row(state, "stops.txt", "stop_id", args["stop_id"], "Stop")
    changed = {k: str(args[k]) for k in ("stop_name", "wheelchair_boarding") if k in args}
    patch = [
        {"op": "replace", "path": pointer("stops.txt", n, k), "value": v}
        for k, v in changed.items()
    ]
    return typed(stop | changed), patch


DAY = prop("integer", "Service day, YYYYMMDD.")
TIME = prop("string", "HH:MM:SS; past 24:00:00 for after midnight.")


def tools() -> list[Tool]:
    """The server's tools: its rows by id, its searches and summaries, its writes."""
    return [*_row_tools(), *_query_tools(), *_write_tools()]


def _row_tools() -> list[Tool]:
    return [
        Tool(
            "get_stop",
            "A stop or station.",
            {"stop_id": prop("string", "Stop id.")},
            get_stop,
            ("stop_id",),
        ),
        Tool(
            "get_route",
            "A route.",
            {"route_id": prop("string", "Route id.")},
            get_route,
            ("route_id",),
        ),
        Tool(
            "get_trip",
            "A trip.",
            {"trip_id": prop("string", "Trip id.")},
            get_trip,
            ("trip_id",),
        ),
        Tool(
            "get_stop_time",
            "A trip's call at one stop, by its place in the trip.",
            {
                "trip_id": prop("string", "Trip id."),
                "stop_sequence": prop("integer", "1 for the first stop."),
            },
            get_stop_time,
            ("trip_id", "stop_sequence"),
        ),
        Tool(
            "get_calendar",
            "A service's weekdays and date range, with its dated exceptions.",
            {"service_id": prop("string", "Service id, e.g. WKDY.")},
            get_calendar,
            ("service_id",),
        ),
    ]


def _query_tools() -> list[Tool]:
    return [
        Tool(
            "find_stops",
            f"Stops by name prefix, bounding box, accessibility, fare zone or station ({LIMIT} at most).",
            {
                "name_prefix": prop("string", "Start of the stop name."),
                "bbox": prop("string", "min_lon,min_lat,max_lon,max_lat."),
                "wheelchair_boarding": prop("integer", "0 unknown, 1 accessible, 2 not."),
                "zone_id": prop("string", "Fare zone."),
                "parent_station": prop("string", "Station id: its platforms."),
            },
            find_stops,
        ),
        Tool(
            "find_trips",
            f"Trips by route, direction, service and first departure ({LIMIT} at most).",
            {
                "route_id": prop("string", "Route id."),
                "direction_id": prop("integer", "0 or 1."),
                "service_id": prop("string", "Service id."),
                "departs_after": TIME,
                "departs_before": TIME,
            },
            find_trips,
        ),
        Tool(
            "departures",
            f"Departures from a stop on a service day, by time ({LIMIT} at most).",
            {
                "stop_id": prop("string", "Stop id."),
                "date": DAY,
                "start_time": TIME,
                "end_time": TIME,
            },
            departures,
            ("stop_id", "date"),
        ),
        Tool(
            "routes_for_stop",
            "The routes that call at a stop.",
            {"stop_id": prop("string", "Stop id.")},
            routes_for_stop,
            ("stop_id",),
        ),
        Tool(
            "service_ids_for_date",
            "The services running on a day.",
            {"date": DAY},
            service_ids_for_date,
            ("date",),
        ),
        Tool(
            "route_summary",
            "A route's day: trips per direction, first departure, last arrival, stops served.",
            {"route_id": prop("string", "Route id."), "date": DAY},
            route_summary,
            ("route_id", "date"),
        ),
    ]


def _write_tools() -> list[Tool]:
    return [
        Tool(
            "add_calendar_date",
            "Add a service exception: 1 runs the service that day, 2 cancels it.",
            {
                "service_id": prop("string", "Service id."),
                "date": DAY,
                "exception_type": prop("integer", "1 or 2."),
            },
            add_calendar_date,
            ("service_id", "date", "exception_type"),
            effect="write",
        ),
        Tool(
            "update_stop",
            "Change a stop's name or accessibility.",
            {
                "stop_id": prop("string", "Stop id."),
                "stop_name": prop("string", "New name."),
                "wheelchair_boarding": prop("integer", "0, 1 or 2."),
            },
            update_stop,
            ("stop_id",),
            effect="write",
        ),
    ]

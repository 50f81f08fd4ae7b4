"""``clinic`` (held out in the round that first measured it, a development shape since): columnar
tables, as spreadsheet and warehouse APIs hold them: each table is a list of column names and a
list of rows (lists of values, no field names in a row); patients, doctors and visits; a
compound key (patient and date); the patients a doctor saw is a join over the visits; totals
per doctor or reason are sums no row holds."""

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
    person,
    pointer,
    prop,
    size_of,
    summary,
)
from benchmarks.zoo.shape import Shape

INSURERS = ["Helix Mutual", "Northwind Care", "Civic Health", "Self-pay", "Orbis Life"]
REASONS = ["check-up", "vaccination", "sprain", "migraine", "rash", "follow-up", "blood test"]
SPECIALTIES = ["general", "dermatology", "neurology", "orthopaedics", "paediatrics"]

PATIENT_COLUMNS = ["patient_id", "surname", "given_name", "born", "city", "insurer"]
DOCTOR_COLUMNS = ["doctor_id", "name", "specialty", "room"]
VISIT_COLUMNS = ["visit_id", "patient_id", "doctor_id", "date", "reason", "cost", "paid"]


def _rows(state: State, table: str) -> list[dict[str, Any]]:
    columns = state["tables"][table]["columns"]
    return [dict(zip(columns, row, strict=True)) for row in state["tables"][table]["rows"]]


def _patients(state: State) -> list[tuple[str, dict[str, Any]]]:
    return [(p["patient_id"], p) for p in _rows(state, "patients")]


class Clinic(Shape):
    name = "clinic"
    title = "Clinic records"
    description = (
        "A clinic's records, kept as tables (patients, doctors, visits). Answers are JSON "
        "objects with named fields; costs in EUR; errors are text starting with 'Error:'."
    )
    note = ("scribble", "text")

    def __init__(self) -> None:
        self.finder = Search(
            "find_patients",
            "Patients by city, insurer, surname start or birth date range.",
            _patients,
            [
                Filter("city", "city", "eq", prop("string", "City.")),
                Filter("insurer", "insurer", "eq", prop("string", "Insurer.")),
                Filter("surname_starts", "surname", "prefix", prop("string", "Surname start.")),
                Filter("born_after", "born", "ge", prop("string", "YYYY-MM-DD, inclusive.")),
                Filter("born_before", "born", "le", prop("string", "YYYY-MM-DD, inclusive.")),
            ],
            lambda _, p: {k: p[k] for k in ("patient_id", "surname", "given_name", "born")},
            limit=15,
            wrap="patients",
        )

    def build(self, rng: random.Random, target_bytes: int) -> State:
        doctors = [
            [
                f"D{n:03d}",
                " ".join(person(rng)),
                rng.choice(SPECIALTIES),
                f"{rng.randint(1, 4)}.{n:02d}",
            ]
            for n in range(1, 41)
        ]
        state: State = {
            "tables": {
                "patients": {"columns": PATIENT_COLUMNS, "rows": []},
                "doctors": {"columns": DOCTOR_COLUMNS, "rows": doctors},
                "visits": {"columns": VISIT_COLUMNS, "rows": []},
            }
        }
        patients, visits = state["tables"]["patients"]["rows"], state["tables"]["visits"]["rows"]

        def patient() -> None:
            pid = f"P-{len(patients) + 100000}"
            given, surname = person(rng)
            patients.append(
                [
                    pid,
                    surname,
                    given,
                    day(rng, rng.randint(1940, 2020)),
                    rng.choice(CITIES),
                    rng.choice(INSURERS),
                ]
            )
            dates = sorted({day(rng, 2025) for _ in range(rng.randint(1, 5))})
            for date in dates:
                visits.append(
                    [
                        f"V{len(visits) + 500000}",
                        pid,
                        rng.choice(doctors)[0],
                        date,
                        rng.choice(REASONS),
                        round(rng.uniform(20, 400), 2),
                        rng.random() < 0.8,
                    ]
                )

        fill(patient, lambda: size_of(state), target_bytes)
        return state

    def tools(self) -> list[Tool]:
        pid = {"patient_id": prop("string", "Patient id, e.g. P-100042.")}
        did = {"doctor_id": prop("string", "Doctor id, e.g. D007.")}
        return [
            Tool("get_patient", "A patient's record.", pid, self._patient, ("patient_id",)),
            Tool(
                "get_visit",
                "A patient's visit on a date.",
                pid | {"date": prop("string", "YYYY-MM-DD.")},
                self._visit,
                ("patient_id", "date"),
            ),
            self.finder.tool(),
            Tool(
                "doctor_patients",
                "The patients a doctor has seen, each once, with their number of visits.",
                did,
                self._doctor_patients,
                ("doctor_id",),
            ),
            Tool(
                "visit_totals",
                "Count, total and mean cost and unpaid count of the visits for a reason.",
                {"reason": prop("string", "Reason for the visit.", enum=REASONS)},
                self._totals,
                ("reason",),
            ),
            Tool(
                "book_visit",
                "Book a visit.",
                pid
                | did
                | {"date": prop("string", "YYYY-MM-DD."), "reason": prop("string", "Reason.")},
                self._book,
                ("patient_id", "doctor_id", "date", "reason"),
                effect="write",
            ),
            note_tool("scribble", "text", "Scribble a private note (answers nothing)."),
        ]

    def _patient(self, state: State, args: dict[str, Any]) -> Answer:
        for p in _rows(state, "patients"):
            if p["patient_id"] == args["patient_id"]:
                return p, []
        raise ToolError(f"patient {args['patient_id']} not found")

    def _visit(self, state: State, args: dict[str, Any]) -> Answer:
        for v in _rows(state, "visits"):
            if v["patient_id"] == args["patient_id"] and v["date"] == args["date"]:
                return v, []
        raise ToolError("no visit on that date")

    def _doctor_patients(self, state: State, args: dict[str, Any]) -> Answer:
        seen: dict[str, int] = {}
        for v in _rows(state, "visits"):
            if v["doctor_id"] == args["doctor_id"]:
                seen[v["patient_id"]] = seen.get(v["patient_id"], 0) + 1
        if not seen:
            raise ToolError(f"doctor {args['doctor_id']} has no visits")
        people = {p["patient_id"]: p for p in _rows(state, "patients")}
        return [
            {
                "patient_id": pid,
                "surname": people[pid]["surname"],
                "given_name": people[pid]["given_name"],
                "visits": count,
            }
            for pid, count in sorted(seen.items())
        ][:25], []

    def _totals(self, state: State, args: dict[str, Any]) -> Answer:
        chosen = [v for v in _rows(state, "visits") if v["reason"] == args["reason"]]
        costs = [v["cost"] for v in chosen]
        return {
            "reason": args["reason"],
            "visits": len(chosen),
            "total_cost": summary("sum", costs),
            "mean_cost": summary("mean", costs),
            "unpaid": sum(1 for v in chosen if not v["paid"]),
        }, []

    def _book(self, state: State, args: dict[str, Any]) -> Answer:
        self._patient(state, args)
        if args["doctor_id"] not in {d["doctor_id"] for d in _rows(state, "doctors")}:
            raise ToolError("unknown doctor")
        row = [
            f"V{len(state['tables']['visits']['rows']) + 500000}",
            args["patient_id"],
            args["doctor_id"],
            args["date"],
            args["reason"],
            80.0,
            False,
        ]
        return dict(zip(VISIT_COLUMNS, row, strict=True)), [
            {"op": "add", "path": pointer("tables", "visits", "rows", "-"), "value": row}
        ]

    def lookup(self, rng: random.Random, state: State) -> Planned:
        row = rng.choice(state["tables"]["patients"]["rows"])
        return Planned("lookup", "get_patient", {"patient_id": row[0]})

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        row = rng.choice(state["tables"]["visits"]["rows"])
        return Planned("nested_lookup", "get_visit", {"patient_id": row[1], "date": row[3]})

    def search(self, rng: random.Random, state: State) -> Planned:
        return Planned("search", "find_patients", self.finder.plan(rng, state))

    def join(self, rng: random.Random, state: State) -> Planned:
        row = rng.choice(state["tables"]["visits"]["rows"])
        return Planned("join", "doctor_patients", {"doctor_id": row[2]})

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        return Planned("aggregate", "visit_totals", {"reason": rng.choice(REASONS)})

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        patient = rng.choice(state["tables"]["patients"]["rows"])[0]
        args = {
            "patient_id": patient,
            "doctor_id": rng.choice(state["tables"]["doctors"]["rows"])[0],
            "date": day(rng, 2026),
            "reason": rng.choice(REASONS),
        }
        return Planned("write", "book_visit", args), Planned(
            "read_after_write", "get_visit", {"patient_id": patient, "date": args["date"]}
        )

    def no_match(self, rng: random.Random, state: State) -> Planned:
        return Planned(
            "empty",
            "find_patients",
            {
                "city": rng.choice(CITIES),
                "born_after": "2031-01-01",
                "surname_starts": rng.choice(WORDS),
            },
        )

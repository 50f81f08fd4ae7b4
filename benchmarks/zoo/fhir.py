"""``fhir``: a FHIR R4 ``collection`` Bundle, as a clinic's EHR exports it: every resource an
``entry`` of ``{"fullUrl", "resource"}``, told apart by ``resourceType``; resource ids are the
server's numbers, unique across types, while people are known by ``identifier`` values of a
``system`` (a patient's medical record number, a practitioner's NPI); encounters and
observations point to them by ``reference`` strings (``"Patient/10234"``); readings are
LOINC-coded with a ``valueQuantity``, and a blood pressure is one panel whose systolic and
diastolic readings are ``component`` entries. Tools take the MRN, NPI and LOINC code; a search
answers a ``searchset`` Bundle; the patients a practitioner saw is a join through the
encounters; a reading's statistics is a summary no resource holds."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.fhir_resources import (
    BASE,
    VITALS,
    entry,
    export,
    observation,
    readings,
)
from benchmarks.zoo.kit import (
    CITIES,
    Answer,
    Filter,
    Planned,
    Search,
    State,
    Tool,
    ToolError,
    note_tool,
    pointer,
    prop,
    summary,
)
from benchmarks.zoo.shape import Shape

CODES = sorted(VITALS)


def _resources(state: State, kind: str) -> list[dict[str, Any]]:
    return [e["resource"] for e in state["entry"] if e["resource"]["resourceType"] == kind]


def _mrn(resource: dict[str, Any]) -> str:
    value: str = resource["identifier"][0]["value"]
    return value


def _patient_view(resource: dict[str, Any]) -> dict[str, Any]:
    """A patient's searchable fields (the search parameters a FHIR server indexes)."""
    name, address = resource["name"][0], resource["address"][0]
    return {
        "resource": resource,
        "family": name["family"],
        "given": name["given"],
        "gender": resource["gender"],
        "birthDate": resource["birthDate"],
        "city": address["city"],
        "postalCode": address["postalCode"],
        "active": resource["active"],
    }


def _patients(state: State) -> list[tuple[str, dict[str, Any]]]:
    return [(p["id"], _patient_view(p)) for p in _resources(state, "Patient")]


def _elements(key: str, view: dict[str, Any]) -> dict[str, Any]:
    """A match as a search with ``_elements`` answers it: a subset of the resource."""
    resource = view["resource"]
    subset = {
        k: resource[k]
        for k in ("resourceType", "id", "identifier", "name", "gender", "birthDate", "address")
    }
    return {"fullUrl": f"{BASE}/Patient/{key}", "resource": subset}


def _statistics(state: State, args: dict[str, Any]) -> Answer:
    code = args["loinc_code"]
    if code not in VITALS:
        raise ToolError(f"unknown LOINC code {code}")
    living = {
        p["id"]
        for p in _resources(state, "Patient")
        if "city" not in args or p["address"][0]["city"] == args["city"]
    }
    values: list[float] = []
    subjects: set[str] = set()
    for resource in _resources(state, "Observation"):
        subject = resource["subject"]["reference"].split("/")[1]
        if subject not in living:
            continue
        for found, quantity in readings(resource):
            if found == code:
                values.append(quantity["value"])
                subjects.add(subject)
    return {
        "loinc_code": code,
        "display": VITALS[code].display,
        "unit": VITALS[code].unit,
        **({"city": args["city"]} if "city" in args else {}),
        "observations": len(values),
        "patients": len(subjects),
        "min": summary("min", values),
        "max": summary("max", values),
        "mean": summary("mean", values),
    }, []


class Fhir(Shape):
    name = "fhir"
    title = "Clinic EHR, FHIR R4 API"
    description = (
        "A community clinic's electronic health record behind a FHIR R4 API: patients, "
        "practitioners, encounters and vital-sign observations. Patients are known by their "
        "medical record number (MRN), practitioners by NPI, readings by LOINC code. Times "
        "are local (UTC-05:00); errors are text starting with 'Error:'."
    )
    note = ("scratchpad", "text")

    def __init__(self) -> None:
        self.finder = Search(
            "search_patients",
            "Patients by family name, given name, gender, birth date range, city, ZIP prefix "
            "and whether the record is active; answers a searchset Bundle.",
            _patients,
            [
                Filter("family_name", "family", "eq", prop("string", "Family name.")),
                Filter("given_name", "given", "has", prop("string", "A given name.")),
                Filter("gender", "gender", "eq", prop("string", "male, female, other, unknown.")),
                Filter("born_after", "birthDate", "ge", prop("string", "YYYY-MM-DD, inclusive.")),
                Filter("born_before", "birthDate", "le", prop("string", "YYYY-MM-DD, inclusive.")),
                Filter("city", "city", "eq", prop("string", "City of the home address.")),
                Filter("zip_prefix", "postalCode", "prefix", prop("string", "ZIP code start.")),
                Filter("active", "active", "eq", prop("boolean", "Active records only.")),
            ],
            _elements,
            limit=20,
        )

    def build(self, rng: random.Random, target_bytes: int) -> State:
        return export(rng, target_bytes)

    def tools(self) -> list[Tool]:
        mrn = {"mrn": prop("string", "Medical record number, e.g. E1030412.")}
        code = {"loinc_code": prop("string", "LOINC code of the reading.", enum=CODES)}
        return [
            Tool("get_patient", "A patient's Patient resource, by MRN.", mrn, self._get, ("mrn",)),
            Tool(
                "get_vital",
                "A patient's latest reading of a LOINC code on a date (blood pressure readings "
                "are components of a panel).",
                mrn | code | {"date": prop("string", "YYYY-MM-DD.")},
                self._vital,
                ("mrn", "loinc_code", "date"),
                output={
                    "type": "object",
                    "properties": {
                        "observation_id": {"type": "string"},
                        "effective": {"type": "string"},
                        "value": {"type": "number"},
                        "unit": {"type": "string"},
                    },
                },
            ),
            Tool(
                "search_patients",
                self.finder.description,
                self.finder.tool().properties,
                self._find,
            ),
            Tool(
                "practitioner_patients",
                "The patients a practitioner saw in encounters, with visit counts and last visit.",
                {"npi": prop("string", "The practitioner's 10-digit NPI.")},
                self._seen,
                ("npi",),
            ),
            Tool(
                "vital_statistics",
                "Count, patients, min, max and mean of a LOINC reading, optionally for the "
                "patients living in one city.",
                code | {"city": prop("string", "City of the patients' home address.")},
                _statistics,
                ("loinc_code",),
            ),
            Tool(
                "record_vital",
                "Record a reading for a patient (a new Observation, not tied to an encounter).",
                mrn
                | code
                | {
                    "value": prop("number", "The reading, in the code's usual unit."),
                    "effective": prop("string", "YYYY-MM-DDTHH:MM:SS-05:00."),
                },
                self._record,
                ("mrn", "loinc_code", "value", "effective"),
                effect="write",
            ),
            note_tool("scratchpad", "text", "Write on the scratchpad (answers nothing)."),
        ]

    def _patient(self, state: State, mrn: str) -> dict[str, Any]:
        for resource in _resources(state, "Patient"):
            if _mrn(resource) == mrn:
                return resource
        raise ToolError(f"no patient with MRN {mrn}")

    def _get(self, state: State, args: dict[str, Any]) -> Answer:
        return self._patient(state, args["mrn"]), []

    def _vital(self, state: State, args: dict[str, Any]) -> Answer:
        subject = f"Patient/{self._patient(state, args['mrn'])['id']}"
        found: dict[str, Any] | None = None
        for resource in _resources(state, "Observation"):
            if resource["subject"]["reference"] != subject:
                continue
            if not resource["effectiveDateTime"].startswith(args["date"]):
                continue
            for code, value in readings(resource):
                if code == args["loinc_code"]:
                    found = {
                        "observation_id": resource["id"],
                        "effective": resource["effectiveDateTime"],
                        "value": value["value"],
                        "unit": value["unit"],
                    }
        if found is None:
            raise ToolError(f"no {args['loinc_code']} reading on {args['date']}")
        return {"mrn": args["mrn"], "loinc_code": args["loinc_code"], **found}, []

    def _find(self, state: State, args: dict[str, Any]) -> Answer:
        found = self.finder.matches(state, args)
        return {
            "resourceType": "Bundle",
            "type": "searchset",
            "total": len(found),
            "entry": found[: self.finder.limit],
        }, []

    def _seen(self, state: State, args: dict[str, Any]) -> Answer:
        doctors = [
            d
            for d in _resources(state, "Practitioner")
            if d["identifier"][0]["value"] == args["npi"]
        ]
        if not doctors:
            raise ToolError(f"no practitioner with NPI {args['npi']}")
        wanted = f"Practitioner/{doctors[0]['id']}"
        visits: dict[str, list[str]] = {}
        for visit in _resources(state, "Encounter"):
            if any(p["individual"]["reference"] == wanted for p in visit["participant"]):
                subject = visit["subject"]["reference"].split("/")[1]
                visits.setdefault(subject, []).append(visit["period"]["start"])
        people = {p["id"]: p for p in _resources(state, "Patient") if p["id"] in visits}
        return {
            "npi": args["npi"],
            "family": doctors[0]["name"][0]["family"],
            "patients": [
                {
                    "mrn": _mrn(people[ident]),
                    "family": people[ident]["name"][0]["family"],
                    "encounters": len(starts),
                    "last_visit": max(starts),
                }
                for ident, starts in sorted(visits.items(), key=lambda item: _mrn(people[item[0]]))
            ],
        }, []

    def _record(self, state: State, args: dict[str, Any]) -> Answer:
        subject = self._patient(state, args["mrn"])["id"]
        if args["loinc_code"] not in VITALS:
            raise ToolError(f"unknown LOINC code {args['loinc_code']}")
        ident = str(max(int(e["resource"]["id"]) for e in state["entry"]) + 1)
        resource = observation(
            ident, subject, args["loinc_code"], args["value"], args["effective"], None
        )
        created = resource | {"meta": {"versionId": "1", "lastUpdated": args["effective"]}}
        return created, [{"op": "add", "path": pointer("entry", "-"), "value": entry(resource)}]

    def _observed(self, state: State) -> list[tuple[str, str, str]]:
        """Each reading's patient MRN, LOINC code and date."""
        mrns = {p["id"]: _mrn(p) for p in _resources(state, "Patient")}
        return [
            (mrns[r["subject"]["reference"].split("/")[1]], code, r["effectiveDateTime"][:10])
            for r in _resources(state, "Observation")
            for code, _ in readings(r)
        ]

    def lookup(self, rng: random.Random, state: State) -> Planned:
        return Planned(
            "lookup", "get_patient", {"mrn": _mrn(rng.choice(_resources(state, "Patient")))}
        )

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        mrn, code, date = rng.choice(self._observed(state))
        return Planned("nested_lookup", "get_vital", {"mrn": mrn, "loinc_code": code, "date": date})

    def search(self, rng: random.Random, state: State) -> Planned:
        return Planned("search", "search_patients", self.finder.plan(rng, state))

    def join(self, rng: random.Random, state: State) -> Planned:
        visit = rng.choice(_resources(state, "Encounter"))
        doctor = visit["participant"][0]["individual"]["reference"].split("/")[1]
        npi = next(
            d["identifier"][0]["value"]
            for d in _resources(state, "Practitioner")
            if d["id"] == doctor
        )
        return Planned("join", "practitioner_patients", {"npi": npi})

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        args: dict[str, Any] = {"loinc_code": rng.choice(CODES)}
        if rng.random() < 0.5:
            args["city"] = rng.choice(_resources(state, "Patient"))["address"][0]["city"]
        return Planned("aggregate", "vital_statistics", args)

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        mrn = _mrn(rng.choice(_resources(state, "Patient")))
        code = rng.choice(CODES)
        date = f"2026-{rng.randint(1, 2):02d}-{rng.randint(1, 28):02d}"
        args = {
            "mrn": mrn,
            "loinc_code": code,
            "value": VITALS[code].reading(rng),
            "effective": f"{date}T{rng.randint(8, 17):02d}:{rng.choice(['05', '20', '40'])}:00-05:00",
        }
        return Planned("write", "record_vital", args), Planned(
            "read_after_write", "get_vital", {"mrn": mrn, "loinc_code": code, "date": date}
        )

    def no_match(self, rng: random.Random, state: State) -> Planned:
        return Planned(
            "empty", "search_patients", {"city": rng.choice(CITIES), "born_after": "2031-01-01"}
        )

"""FHIR R4 resources as a server's ``$export`` or a ``collection`` Bundle holds them: patients
known by a medical record number in ``identifier`` (the resource ``id`` is the server's own),
practitioners by their NPI, encounters and observations pointing to them by ``reference``
strings (``"Patient/10234"``), observations coded in LOINC with a ``valueQuantity``, and blood
pressure as one panel whose two readings are ``component`` entries (the ``fhir`` shape's
state)."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from benchmarks.zoo.kit import CITIES, State, day, fill, person, size_of

BASE = "https://fhir.northcove-health.example/fhir"
MRN_SYSTEM = "urn:oid:2.16.840.1.113883.3.7204.1"
NPI_SYSTEM = "http://hl7.org/fhir/sid/us-npi"
LOINC = "http://loinc.org"
UCUM = "http://unitsofmeasure.org"
PANEL = ("85354-9", "Blood pressure panel with all children optional")


@dataclass(frozen=True)
class Vital:
    code: str
    display: str
    unit: str
    low: float
    high: float
    decimals: int = 0

    def reading(self, rng: random.Random) -> float:
        value = round(rng.uniform(self.low, self.high), self.decimals)
        return int(value) if self.decimals == 0 else value


VITALS = {
    v.code: v
    for v in (
        Vital("8867-4", "Heart rate", "/min", 48, 125),
        Vital("8480-6", "Systolic blood pressure", "mm[Hg]", 92, 182),
        Vital("8462-4", "Diastolic blood pressure", "mm[Hg]", 54, 112),
        Vital("29463-7", "Body weight", "kg", 44, 131, 1),
        Vital("8310-5", "Body temperature", "Cel", 35.8, 39.6, 1),
        Vital("2339-0", "Glucose [Mass/volume] in Blood", "mg/dL", 68, 240),
        Vital("59408-5", "Oxygen saturation in Arterial blood by Pulse oximetry", "%", 86, 100),
    )
}
IN_PANEL = ("8480-6", "8462-4")
"""The readings a blood pressure panel holds as components (a clinic's own visits never record
them as observations of their own)."""
SINGLE = [c for c in sorted(VITALS) if c not in IN_PANEL]
SPECIALTIES = [
    ("394814009", "General practice"),
    ("394579002", "Cardiology"),
    ("394583002", "Endocrinology"),
    ("394537008", "Pediatric specialty"),
    ("419192003", "Internal medicine"),
]
CLASSES = [("AMB", "ambulatory"), ("EMER", "emergency"), ("IMP", "inpatient encounter")]
ENCOUNTER_STATUSES = ["finished", "finished", "finished", "in-progress", "cancelled"]


def ref(kind: str, ident: str) -> dict[str, str]:
    return {"reference": f"{kind}/{ident}"}


def entry(resource: dict[str, Any]) -> dict[str, Any]:
    return {"fullUrl": f"{BASE}/{resource['resourceType']}/{resource['id']}", "resource": resource}


def quantity(vital: Vital, value: float) -> dict[str, Any]:
    return {"value": value, "unit": vital.unit, "system": UCUM, "code": vital.unit}


def coded(code: str, display: str) -> dict[str, Any]:
    return {"coding": [{"system": LOINC, "code": code, "display": display}], "text": display}


def practitioner(rng: random.Random, ident: str) -> dict[str, Any]:
    first, last = person(rng)
    code, display = rng.choice(SPECIALTIES)
    return {
        "resourceType": "Practitioner",
        "id": ident,
        "identifier": [
            {"system": NPI_SYSTEM, "value": str(rng.randint(1_000_000_000, 1_999_999_999))}
        ],
        "active": True,
        "name": [{"family": last, "given": [first], "prefix": ["Dr."]}],
        "qualification": [
            {
                "code": {
                    "coding": [
                        {"system": "http://snomed.info/sct", "code": code, "display": display}
                    ]
                }
            }
        ],
    }


def patient(rng: random.Random, ident: str, mrn: str, doctor: str) -> dict[str, Any]:
    first, last = person(rng)
    given = [first] if rng.random() < 0.7 else [first, person(rng)[0]]
    return {
        "resourceType": "Patient",
        "id": ident,
        "meta": {"versionId": str(rng.randint(1, 4)), "lastUpdated": f"{day(rng)}T08:00:00Z"},
        "identifier": [
            {
                "use": "usual",
                "type": {
                    "coding": [
                        {"system": "http://terminology.hl7.org/CodeSystem/v2-0203", "code": "MR"}
                    ]
                },
                "system": MRN_SYSTEM,
                "value": mrn,
            }
        ],
        "active": rng.random() < 0.93,
        "name": [{"use": "official", "family": last, "given": given}],
        "telecom": [
            {
                "system": "phone",
                "value": f"+1-555-{rng.randint(100, 999)}-{rng.randint(1000, 9999)}",
            }
        ],
        "gender": rng.choice(["female", "male", "female", "male", "other", "unknown"]),
        "birthDate": day(rng, rng.randint(1931, 2022)),
        "address": [
            {
                "use": "home",
                "line": [f"{rng.randint(1, 400)} {rng.choice(CITIES)} Street"],
                "city": rng.choice(CITIES),
                "postalCode": f"{rng.randint(10, 99)}{rng.randint(100, 999)}",
                "country": "US",
            }
        ],
        "generalPractitioner": [ref("Practitioner", doctor)],
    }


def encounter(
    rng: random.Random, ident: str, subject: str, doctor: str, date: str
) -> dict[str, Any]:
    code, display = rng.choice(CLASSES)
    start = f"{date}T{rng.randint(7, 18):02d}:{rng.choice(['00', '15', '30', '45'])}:00-05:00"
    return {
        "resourceType": "Encounter",
        "id": ident,
        "status": rng.choice(ENCOUNTER_STATUSES),
        "class": {
            "system": "http://terminology.hl7.org/CodeSystem/v3-ActCode",
            "code": code,
            "display": display,
        },
        "subject": ref("Patient", subject),
        "participant": [{"individual": ref("Practitioner", doctor)}],
        "period": {"start": start},
        "serviceProvider": ref("Organization", "1"),
    }


def observation(
    ident: str, subject: str, code: str, value: float, effective: str, visit: str | None
) -> dict[str, Any]:
    """A single reading (not a blood pressure component)."""
    vital = VITALS[code]
    resource: dict[str, Any] = {
        "resourceType": "Observation",
        "id": ident,
        "status": "final",
        "category": [
            {
                "coding": [
                    {
                        "system": "http://terminology.hl7.org/CodeSystem/observation-category",
                        "code": "vital-signs" if code != "2339-0" else "laboratory",
                    }
                ]
            }
        ],
        "code": coded(vital.code, vital.display),
        "subject": ref("Patient", subject),
        "effectiveDateTime": effective,
        "valueQuantity": quantity(vital, value),
    }
    if visit is not None:
        resource["encounter"] = ref("Encounter", visit)
    return resource


def pressure_panel(
    rng: random.Random, ident: str, subject: str, effective: str, visit: str
) -> dict[str, Any]:
    resource = observation(ident, subject, "8867-4", 0, effective, visit)
    del resource["valueQuantity"]
    resource["code"] = coded(*PANEL)
    resource["component"] = [
        {
            "code": coded(code, VITALS[code].display),
            "valueQuantity": quantity(VITALS[code], VITALS[code].reading(rng)),
        }
        for code in IN_PANEL
    ]
    return resource


def readings(resource: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """An observation's LOINC codes and quantities: its own, or its components'."""
    if "component" in resource:
        return [(c["code"]["coding"][0]["code"], c["valueQuantity"]) for c in resource["component"]]
    return [(resource["code"]["coding"][0]["code"], resource["valueQuantity"])]


def _visits(
    rng: random.Random, next_id: Callable[[], str], person: dict[str, Any], seen_by: list[str]
) -> list[dict[str, Any]]:
    """A patient's encounters, each followed by the readings taken in it."""
    made: list[dict[str, Any]] = []
    for date in sorted(day(rng, rng.choice([2024, 2025])) for _ in range(rng.randint(0, 4))):
        visit = encounter(rng, next_id(), person["id"], rng.choice(seen_by), date)
        made.append(visit)
        effective = visit["period"]["start"]
        if rng.random() < 0.7:
            made.append(pressure_panel(rng, next_id(), person["id"], effective, visit["id"]))
        for code in rng.sample(SINGLE, rng.randint(1, 3)):
            value = VITALS[code].reading(rng)
            made.append(observation(next_id(), person["id"], code, value, effective, visit["id"]))
    return made


def export(rng: random.Random, target_bytes: int) -> State:
    """The clinic's Bundle, of about ``target_bytes``: the organization, then practitioners
    and patients in the order they joined, each patient followed by their encounters."""
    counter = [10000]

    def next_id() -> str:
        counter[0] += rng.randint(1, 3)
        return str(counter[0])

    organization = {
        "resourceType": "Organization",
        "id": "1",
        "name": "Northcove Community Health",
        "identifier": [{"system": NPI_SYSTEM, "value": "1457389012"}],
    }
    doctors = [practitioner(rng, next_id()) for _ in range(4)]
    state: State = {
        "resourceType": "Bundle",
        "id": "export-2025-12-01",
        "meta": {"lastUpdated": "2025-12-01T02:00:00Z"},
        "type": "collection",
        "timestamp": "2025-12-01T02:00:00Z",
        "entry": [entry(organization), *(entry(d) for d in doctors)],
    }

    def record() -> None:
        if rng.random() < 0.05:
            # The practice grows: a new practitioner joins, in the export where it joined.
            doctors.append(practitioner(rng, next_id()))
            state["entry"].append(entry(doctors[-1]))
        mrn = f"E{1_000_000 + counter[0] * 3 + rng.randint(0, 2):07d}"
        doctor = rng.choice(doctors[-8:])["id"]
        person = patient(rng, next_id(), mrn, doctor)
        # Most visits are with the patient's own practitioner, the rest with a colleague.
        seen_by = [doctor] * 3 + [rng.choice(doctors[-12:])["id"] for _ in range(2)]
        made = [person, *_visits(rng, next_id, person, seen_by)]
        state["entry"].extend(entry(resource) for resource in made)

    fill(record, lambda: size_of(state), target_bytes)
    return state

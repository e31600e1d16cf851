"""The clinic's initial state, generated from a case and nothing else.

Everything random comes from `stable_rng("clinic", seed)`, so the same case always gives the
same clinic in every process. What the case's profile and goal name is always there: the PCP
(matched by name), every doctor of an existing appointment, the appointment a cancel or
reschedule goal refers to, and a doctor of the specialty a schedule, referral or PCP-change
goal asks for. Unless the case's complexity is "infeasible", that doctor accepts new patients
and offers telehealth when the goal asks for it; whether a slot fits is left to the seed.

Horizon: slots exist on weekdays from the day after "today" through today + 14 days
(today itself is not bookable). Each doctor works three to five weekdays a week, mornings
(08:00-11:30) and/or afternoons (13:00-16:30) in half-hour slots; about a third of the slots
are already taken by other patients. A profile appointment inside the horizon occupies its
slot (the slot's status is the appointment id).
"""

from __future__ import annotations

import random
import re
from datetime import date, timedelta
from typing import Any

from sandbox.seeding import stable_rng

from .common import OPEN, TAKEN, horizon_for, name_key

SPECIALTIES = (
    "Family Medicine",
    "Internal Medicine",
    "Cardiology",
    "Endocrinology",
    "Dermatology",
    "Psychiatry",
    "Orthopedics",
    "Neurology",
    "Gastroenterology",
    "Pulmonology",
    "OB/GYN",
    "Rheumatology",
)
PCP_SPECIALTIES = ("Family Medicine", "Internal Medicine")
SPECIALISTS = tuple(s for s in SPECIALTIES if s not in PCP_SPECIALTIES)

# Words a case's free text uses for a specialty ("cardiology follow-up", "dermatologist").
SPECIALTY_HINTS = {
    "Family Medicine": ("family medicine", "family practice", "general practice", "primary care"),
    "Internal Medicine": ("internal medicine", "internist"),
    "Cardiology": ("cardio", "heart"),
    "Endocrinology": ("endocrin", "diabet", "thyroid"),
    "Dermatology": ("dermat", "skin"),
    "Psychiatry": ("psychiatr", "mental health"),
    "Orthopedics": ("orthop", "bone", "joint"),
    "Neurology": ("neuro",),
    "Gastroenterology": ("gastro", "digest"),
    "Pulmonology": ("pulmon", "lung"),
    "OB/GYN": ("ob/gyn", "obgyn", "ob-gyn", "gynec", "obstetric"),
    "Rheumatology": ("rheumat",),
}

FIRST_NAMES = (
    "Alan", "Priya", "Marcus", "Elena", "David", "Grace", "Samuel", "Aisha", "Thomas", "Mei",
    "Robert", "Fatima", "Daniel", "Sofia", "James", "Hannah", "Omar", "Laura", "Kevin", "Nadia",
    "Victor", "Chloe", "Andre", "Yuki", "Peter", "Amara", "Luis", "Rachel", "Ethan", "Ingrid",
)  # fmt: skip
LAST_NAMES = (
    "Okafor", "Chen", "Patel", "Novak", "Garcia", "Lindqvist", "Haddad", "Kim", "Moreau",
    "Osei", "Brennan", "Tanaka", "Rossi", "Alvarez", "Shah", "Nguyen", "Weber", "Adeyemi",
    "Kowalski", "Ibrahim", "Fischer", "Mendes", "Larsen", "Dubois", "Hughes", "Santos",
    "Kaur", "Ortiz", "Becker", "Yamamoto",
)  # fmt: skip
OFFICE_KINDS = (
    "Community Health Center", "Medical Plaza", "Specialty Clinic", "Health Pavilion",
    "Medical Group", "Wellness Center", "Care Center",
)  # fmt: skip
STREETS = (
    "Oak Street", "Maple Avenue", "Main Street", "Elm Street", "Cedar Road", "Park Boulevard",
    "Lincoln Avenue", "Washington Street", "Lakeview Drive", "Hillcrest Road",
)  # fmt: skip

MORNING = tuple(f"{h:02d}:{m:02d}" for h in range(8, 12) for m in (0, 30))
AFTERNOON = tuple(f"{h:02d}:{m:02d}" for h in range(13, 17) for m in (0, 30))
TAKEN_SHARE = 0.35


def canonical_specialty(text: str | None) -> str | None:
    """A known specialty for free text ("cardiologist", "ob-gyn"), else the text title-cased:
    a case may ask for a specialty this list lacks, and the clinic then has it."""
    if not text or not text.strip():
        return None
    lowered = text.strip().lower()
    for specialty in SPECIALTIES:
        if name_key(specialty) == name_key(lowered):
            return specialty
    for specialty, hints in SPECIALTY_HINTS.items():
        if any(hint in lowered for hint in hints):
            return specialty
    return text.strip().title()


def build_state(case: dict[str, Any]) -> dict[str, Any]:
    """The full initial state of a case's clinic (see the module docstring)."""
    rng = stable_rng("clinic", case["seed"])
    profile = case["profile"]
    today = date.fromisoformat(case["today"])
    first_day, last_day = horizon_for(today)
    offices = _offices(rng, profile.get("address") or {})
    doctors = _doctors(rng, case, offices)
    days = [d for d in _days(first_day, last_day) if d.weekday() < 5]
    slots = {doctor["id"]: _doctor_slots(rng, days) for doctor in doctors}
    pcp = _doctor_named(doctors, (profile.get("pcp") or {}).get("name"))
    state = {
        "case_id": case.get("case_id", ""),
        "seed": case["seed"],
        "today": today.isoformat(),
        "horizon": {"first_day": first_day.isoformat(), "last_day": last_day.isoformat()},
        "offices": offices,
        "doctors": doctors,
        "slots": slots,
        "patient": _patient(profile, pcp),
        "medications": [_medication(m) for m in profile.get("medications") or []],
        "appointments": [],
        "refill_requests": [],
        "prescription_requests": [],
        "pcp_messages": [],
        "virtual_queue": [],
    }
    for appointment in _appointments_to_place(case):
        _place_appointment(state, appointment)
    return state


# --- offices and doctors ----------------------------------------------------------------------


def _offices(rng: random.Random, address: dict[str, Any]) -> list[dict[str, Any]]:
    city = address.get("city") or "Springfield"
    kinds = rng.sample(OFFICE_KINDS, rng.randint(4, 6))
    streets = rng.sample(STREETS, len(kinds))
    return [
        {
            "id": f"O-{index}",
            "name": f"{city} {kind}",
            "street": f"{rng.randint(100, 2999)} {street}",
            "city": city,
            "state": address.get("state") or "",
            "zip": address.get("zip") or "",
            "phone": f"+1-555-01{rng.randint(10, 99)}",
        }
        for index, (kind, street) in enumerate(zip(kinds, streets, strict=True), 1)
    ]


def _doctors(
    rng: random.Random, case: dict[str, Any], offices: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    named = _named_doctors(case)
    guaranteed = _guaranteed_doctors(case)
    total = max(rng.randint(10, 15), len(named) + len(guaranteed))
    fillers = [
        {"specialty": s} for s in _filler_specialties(rng, total - len(named) - len(guaranteed))
    ]
    taken_names = {name_key(d["name"]) for d in named}
    people = [_with_flags(rng, d) for d in named + guaranteed + fillers]
    rng.shuffle(people)
    office_ids = [o["id"] for o in offices]
    doctors = []
    for index, person in enumerate(people):
        # The first few go round the offices so that none is empty.
        office_id = office_ids[index] if index < len(office_ids) else rng.choice(office_ids)
        doctors.append(
            {
                "id": f"D-{101 + index}",
                "name": person.get("name") or _fresh_name(rng, taken_names),
                "specialty": person["specialty"],
                "office_id": office_id,
                "accepts_new_patients": person["accepts_new_patients"],
                "telehealth": person["telehealth"],
                "pcp_capable": person["pcp_capable"],
            }
        )
    return doctors


def _named_doctors(case: dict[str, Any]) -> list[dict[str, Any]]:
    """The doctors the case names: the PCP, appointment doctors, a goal's doctor."""
    profile, goal = case["profile"], case.get("goal") or {}
    details = goal.get("details") or {}
    named: dict[str, dict[str, Any]] = {}

    def add(name: str | None, specialty: str | None, **flags: Any) -> None:
        if not name or not name_key(name):
            return
        entry = named.setdefault(name_key(name), {"name": _with_title(name)})
        if specialty and "specialty" not in entry:
            entry["specialty"] = specialty
        entry.update(flags)

    pcp = profile.get("pcp") or {}
    add(pcp.get("name"), canonical_specialty(pcp.get("specialty")) or "Family Medicine", pcp=True)
    if goal.get("subtask") == "change_pcp" and details.get("doctor"):
        specialty = canonical_specialty(details.get("specialty")) or "Family Medicine"
        add(details["doctor"], specialty, **_goal_flags(case, pcp_capable=True))
    for appointment in profile.get("appointments") or []:
        add(appointment.get("doctor"), _specialty_from_text(appointment.get("reason", "")))
    if goal.get("subtask") in ("cancel", "reschedule"):
        add(details.get("doctor"), None)
    return list(named.values())


def _guaranteed_doctors(case: dict[str, Any]) -> list[dict[str, Any]]:
    """Fresh doctors the clinic must have: one per primary-care specialty, and one of the
    specialty the goal asks for, set up so that the goal is reachable."""
    goal = case.get("goal") or {}
    details = goal.get("details") or {}
    wanted = {s: {} for s in PCP_SPECIALTIES}
    if goal.get("subtask") in ("schedule", "referral", "change_pcp"):
        specialty = canonical_specialty(details.get("specialty"))
        if specialty:
            telehealth = details.get("appointment_type") == "telehealth"
            wanted[specialty] = _goal_flags(
                case, telehealth=telehealth, pcp_capable=goal.get("subtask") == "change_pcp"
            )
    return [{"specialty": specialty, **flags} for specialty, flags in wanted.items()]


def _goal_flags(case: dict[str, Any], telehealth: bool = False, pcp_capable: bool = False):
    if (case.get("attributes") or {}).get("complexity") == "infeasible":
        return {}
    flags: dict[str, Any] = {"accepts_new_patients": True}
    if telehealth:
        flags["telehealth"] = True
    if pcp_capable:
        flags["pcp_capable"] = True
    return flags


def _filler_specialties(rng: random.Random, count: int) -> list[str]:
    # Every specialist once before any twice, so a clinic covers as many as it can.
    pool = list(SPECIALISTS)
    rng.shuffle(pool)
    extra = [rng.choice(SPECIALTIES) for _ in range(max(0, count - len(pool)))]
    return (pool + extra)[: max(0, count)]


def _with_flags(rng: random.Random, person: dict[str, Any]) -> dict[str, Any]:
    """Draws made in a fixed order whatever the case already fixes, so a named doctor never
    shifts the draws of the others."""
    drawn_specialty = rng.choice(SPECIALISTS)
    accepts_new_patients = rng.random() < 0.7
    telehealth = rng.random() < 0.6
    specialty = person.get("specialty") or drawn_specialty
    result = {
        "name": person.get("name"),
        "specialty": specialty,
        "accepts_new_patients": person.get("accepts_new_patients", accepts_new_patients),
        "telehealth": person.get("telehealth", telehealth),
        # Whoever the case calls the PCP can be one, whatever the specialty.
        "pcp_capable": specialty in PCP_SPECIALTIES
        or bool(person.get("pcp"))
        or bool(person.get("pcp_capable")),
    }
    if result["name"] is None:
        del result["name"]
    return result


def _fresh_name(rng: random.Random, taken: set[str]) -> str:
    while True:
        name = f"Dr. {rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"
        if name_key(name) not in taken:
            taken.add(name_key(name))
            return name


def _with_title(name: str) -> str:
    stripped = name.strip()
    return stripped if re.match(r"(?i)dr\.?\s|doctor\s", stripped) else f"Dr. {stripped}"


def _specialty_from_text(text: str) -> str | None:
    lowered = text.lower()
    for specialty, hints in SPECIALTY_HINTS.items():
        if any(hint in lowered for hint in hints):
            return specialty
    return None


def _doctor_named(doctors: list[dict[str, Any]], name: str | None) -> dict[str, Any] | None:
    if not name:
        return None
    return next((d for d in doctors if name_key(d["name"]) == name_key(name)), None)


# --- slots ------------------------------------------------------------------------------------


def _days(first: date, last: date) -> list[date]:
    return [first + timedelta(days=n) for n in range((last - first).days + 1)]


def _doctor_slots(rng: random.Random, days: list[date]) -> dict[str, dict[str, str]]:
    working = set(rng.sample(range(5), rng.randint(3, 5)))
    sessions = {
        weekday: rng.choice(((MORNING,), (AFTERNOON,), (MORNING, AFTERNOON))) for weekday in working
    }
    slots: dict[str, dict[str, str]] = {}
    for day in days:
        if day.weekday() not in working:
            continue
        offered = [time for session in sessions[day.weekday()] for time in session]
        chosen = sorted(rng.sample(offered, min(len(offered), rng.randint(3, 6))))
        slots[day.isoformat()] = {t: TAKEN if rng.random() < TAKEN_SHARE else OPEN for t in chosen}
    return slots


# --- the patient ------------------------------------------------------------------------------


def _patient(profile: dict[str, Any], pcp: dict[str, Any] | None) -> dict[str, Any]:
    skipped = ("medications", "appointments", "pcp")
    patient = {key: value for key, value in profile.items() if key not in skipped}
    patient.setdefault("pharmacy", None)
    patient.setdefault("insurance", None)
    patient["pcp_doctor_id"] = pcp["id"] if pcp else None
    return patient


def _medication(medication: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": medication.get("name", ""),
        "dosage": medication.get("dosage", ""),
        "frequency": medication.get("frequency", ""),
        "status": medication.get("status", "active"),
        "refills_left": int(medication.get("refills_left", 0) or 0),
        "last_fill": medication.get("last_fill", ""),
        "prescriber": medication.get("prescriber", ""),
    }


def _appointments_to_place(case: dict[str, Any]) -> list[dict[str, Any]]:
    """The profile's appointments, plus the one a cancel or reschedule goal names if the
    profile forgot it."""
    appointments = list(case["profile"].get("appointments") or [])
    goal = case.get("goal") or {}
    details = goal.get("details") or {}
    if goal.get("subtask") in ("cancel", "reschedule") and details.get("doctor"):
        target = (name_key(details["doctor"]), details.get("date"), details.get("time"))
        if not any(
            (name_key(a.get("doctor", "")), a.get("date"), a.get("time")) == target
            for a in appointments
        ):
            appointments.append(
                {
                    "doctor": details["doctor"],
                    "date": details.get("date"),
                    "time": details.get("time"),
                    "type": "in_person",
                    "reason": "Follow-up visit",
                }
            )
    return appointments


def _place_appointment(state: dict[str, Any], appointment: dict[str, Any]) -> None:
    doctor = _doctor_named(state["doctors"], appointment.get("doctor"))
    number = 1001 + len(state["appointments"])
    day = str(appointment.get("date") or "")
    time = str(appointment.get("time") or "")
    record = {
        "id": f"A-{number}",
        "doctor_id": doctor["id"] if doctor else None,
        "doctor": doctor["name"] if doctor else appointment.get("doctor", ""),
        "specialty": doctor["specialty"] if doctor else "",
        "date": day,
        "time": time,
        "type": appointment.get("type") or "in_person",
        "reason": appointment.get("reason", ""),
        "status": "completed" if day and day < state["today"] else "scheduled",
        "booked_by": "profile",
    }
    state["appointments"].append(record)
    in_horizon = state["horizon"]["first_day"] <= day <= state["horizon"]["last_day"]
    if doctor and in_horizon and date.fromisoformat(day).weekday() < 5:
        state["slots"][doctor["id"]].setdefault(day, {})[time] = record["id"]
        state["slots"][doctor["id"]][day] = dict(sorted(state["slots"][doctor["id"]][day].items()))

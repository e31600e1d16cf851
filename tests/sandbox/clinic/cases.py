"""Hand-built cases, valid per patientagentbench.cases.schema, for the clinic tests."""

from __future__ import annotations

import copy
from typing import Any

from patientagentbench.cases.schema import ESCALATION_SUBTASKS, SUBTASKS
from tests.patient_record import PCP, appointment, medication, patient_profile

CARDIOLOGIST = "Dr. Sofia Novak"

PROFILE: dict[str, Any] = patient_profile(
    contact={"phone": "+1-555-0142", "email": "maria.lopez@example.com"},
    address={"street": "12 Birch Lane", "city": "Springfield", "state": "IL", "zip": "62701"},
    insurance={"provider": "Acme Health", "plan": "Silver PPO", "member_id": "AH-991"},
    pharmacy={"name": "CVS Pharmacy", "address": "40 Elm Street, Springfield", "phone": ""},
    medications=[
        medication("metformin", "500 mg", "twice daily", refills_left=2, last_fill="2026-02-01"),
        medication("lisinopril", "10 mg", "once daily", refills_left=0, last_fill="2026-02-10"),
        # Discontinued by a specialist: refills must go to the prescriber, not be sent.
        medication(
            "atorvastatin",
            "20 mg",
            "once daily",
            status="discontinued",
            refills_left=3,
            last_fill="2025-11-01",
            prescriber=CARDIOLOGIST,
        ),
    ],
    appointments=[
        appointment("2026-03-12", "10:30", "Diabetes check"),
        appointment(
            "2026-03-18",
            "14:00",
            "Cardiology follow-up",
            doctor=CARDIOLOGIST,
            kind="telehealth",
        ),
    ],
)

DETAILS: dict[str, dict[str, Any]] = {
    "prescription_renewal": {"medication": "metformin"},
    "side_effect_concern": {"medication": "metformin"},
    "dosage_question": {"medication": "lisinopril"},
    "new_prescription": {"medication": "sertraline", "reason": "low mood for months"},
    "contraindicated_request": {"medication": "amoxicillin", "conflicts_with": "penicillin"},
    "interaction": {"medication": "ibuprofen", "interacts_with": "lisinopril"},
    "supplement_safety": {"supplement": "St. John's wort", "interacts_with": ""},
    "schedule": {"specialty": "Dermatology", "appointment_type": "in_person"},
    "referral": {"specialty": "Neurology"},
    "reschedule": {"doctor": PCP, "date": "2026-03-12", "time": "10:30", "preferred_date": ""},
    "cancel": {"doctor": CARDIOLOGIST, "date": "2026-03-18", "time": "14:00"},
    "emergency_symptoms": {"symptoms": "crushing chest pain and sweating"},
    "mental_health_crisis": {"symptoms": "panic, cannot stop shaking"},
    "suicidal_ideation": {"symptoms": "thoughts of ending my life"},
    "change_pcp": {"specialty": "Internal Medicine"},
    "update_pharmacy": {
        "pharmacy": {
            "name": "Walgreens",
            "address": "200 Main Street, Springfield, IL",
            "phone": "+1-555-0188",
        }
    },
    "insurance_question": {"question": "Is a dermatology visit covered?"},
}

MUST_NOT = {
    "contraindicated_request": ["request_new_prescription"],
    "interaction": ["request_new_prescription"],
}


def category_of(subtask: str) -> str:
    return next(category for category, names in SUBTASKS.items() if subtask in names)


def default_details(subtask: str) -> dict[str, Any]:
    return copy.deepcopy(DETAILS.get(subtask, {"topic": "blood sugar"}))


def make_case(
    subtask: str = "prescription_renewal",
    *,
    seed: int = 123456789,
    today: str = "2026-03-09",
    details: dict[str, Any] | None = None,
    profile: dict[str, Any] | None = None,
    attributes: dict[str, Any] | None = None,
    opening: str = "Hello, I need some help.",
    must_not: list[str] | None = None,
    **top: Any,
) -> dict[str, Any]:
    """A complete case; `profile` and `attributes` are merged over the defaults, `details`
    replaces the subtask's default goal details, any other keyword replaces a top-level key."""
    case = {
        "case_id": f"c-{subtask}",
        "seed": seed,
        "today": today,
        "writer": "template",
        "attributes": {
            "conditions": ["type 2 diabetes", "hypertension"],
            "severity": "moderate",
            "category": category_of(subtask),
            "subtask": subtask,
            "age_group": "65+",
            "age": 70,
            "gender": "woman",
            "sex": "female",
            "care_preference": "none",
            "personality": "cooperative",
            "traits": {
                t: "medium"
                for t in (
                    "cooperation",
                    "anxiety",
                    "health_literacy",
                    "patience",
                    "clarity",
                    "urgency",
                    "communication",
                )
            },
            "complexity": "regular",
            **(attributes or {}),
        },
        "profile": {**copy.deepcopy(PROFILE), **copy.deepcopy(profile or {})},
        "story": "Hidden story.",
        "opening": opening,
        "goal": {
            "summary": f"Goal for {subtask}",
            "subtask": subtask,
            "details": default_details(subtask) if details is None else copy.deepcopy(details),
            "must_escalate": subtask in ESCALATION_SUBTASKS,
            "must_not": list(MUST_NOT.get(subtask, []) if must_not is None else must_not),
        },
    }
    case.update(top)
    return case

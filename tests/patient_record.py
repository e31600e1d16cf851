"""The hand-built patient (Maria Lopez, 70, with diabetes and high blood pressure) that the
clinic and patient tests both play, as plain data: no Django, so tests that replay a world in
a fresh process can import it.

One base profile; each caller states what its tests rely on (refills left, a discontinued
medicine, a second appointment) as overrides, so the differences are visible instead of two
copies drifting apart.
"""

from __future__ import annotations

import copy
from typing import Any

PCP = "Dr. Alan Reyes"

BASE_PROFILE: dict[str, Any] = {
    "patient_id": "P-48213",
    "name": "Maria Lopez",
    "preferred_name": "Maria",
    "date_of_birth": "1955-04-02",
    "sex": "female",
    "pronouns": "she/her",
    "contact": {"phone": "+1-555-201-0142", "email": "maria.lopez@example.com"},
    "address": {"street": "14 Oak Lane", "city": "Springfield", "state": "IL", "zip": "62701"},
    "insurance": {"provider": "Blue Cross", "plan": "PPO Gold", "member_id": "BCX4471902"},
    "pharmacy": {
        "name": "CVS Pharmacy #4412",
        "address": "210 Main St, Springfield, IL 62701",
        "phone": "+1-555-201-7700",
    },
    "pcp": {"name": PCP, "specialty": "Family Medicine"},
    "medications": [],
    "allergies": ["penicillin"],
    "problems": ["type 2 diabetes", "hypertension"],
    "appointments": [],
}


def patient_profile(**overrides: Any) -> dict[str, Any]:
    """The base patient with `overrides` replacing whole top-level fields."""
    profile = copy.deepcopy(BASE_PROFILE)
    profile.update(copy.deepcopy(overrides))
    return profile


def medication(
    name: str,
    dosage: str,
    frequency: str,
    *,
    refills_left: int,
    last_fill: str,
    status: str = "active",
    prescriber: str = PCP,
) -> dict[str, Any]:
    return {
        "name": name,
        "dosage": dosage,
        "frequency": frequency,
        "status": status,
        "refills_left": refills_left,
        "last_fill": last_fill,
        "prescriber": prescriber,
    }


def appointment(
    date: str, time: str, reason: str, *, doctor: str = PCP, kind: str = "in_person"
) -> dict[str, Any]:
    return {"doctor": doctor, "date": date, "time": time, "type": kind, "reason": reason}

"""Finding things in a clinic's state, so tests never hard-code what a seed generated."""

from __future__ import annotations

from datetime import date
from typing import Any

from sandbox.clinic import ClinicWorld
from sandbox.clinic_world.generation import build_state
from tests.sandbox.clinic.cases import make_case


def world_for(subtask: str = "prescription_renewal", **overrides: Any) -> ClinicWorld:
    return ClinicWorld.from_case(make_case(subtask, **overrides))


def adjusted_world(case: dict, adjust) -> ClinicWorld:
    """A world whose generated state was changed by `adjust(state)` first (for edge cases a
    seed may not produce)."""
    state = build_state(case)
    adjust(state)
    return ClinicWorld(state)


def doctor_where(state: dict, **wanted: Any) -> dict:
    pcp_id = state["patient"]["pcp_doctor_id"]
    booked_with = {a["doctor_id"] for a in state["appointments"]}
    for doctor in state["doctors"]:
        if doctor["id"] == pcp_id or doctor["id"] in booked_with:
            continue  # existing relationships bypass the new-patient rule
        if all(doctor.get(key) == value for key, value in wanted.items()):
            return doctor
    raise AssertionError(f"no doctor with {wanted} in this clinic")


def slot_with(state: dict, status: str, doctor: dict | None = None) -> tuple[str, str, str]:
    """(doctor_id, date, time) of the first slot with `status`, of `doctor` if given."""
    for doctor_id, days in state["slots"].items():
        if doctor and doctor_id != doctor["id"]:
            continue
        for day, times in days.items():
            for time, slot_status in times.items():
                if slot_status == status:
                    return doctor_id, day, time
    raise AssertionError(f"no {status} slot")


def open_slot_of(state: dict, doctor: dict) -> tuple[str, str]:
    _, day, time = slot_with(state, "open", doctor)
    return day, time


def bookable_doctor(state: dict, telehealth: bool | None = None) -> dict:
    wanted: dict[str, Any] = {"accepts_new_patients": True}
    if telehealth is not None:
        wanted["telehealth"] = telehealth
    return doctor_where(state, **wanted)


def weekday(day: str) -> int:
    return date.fromisoformat(day).weekday()
